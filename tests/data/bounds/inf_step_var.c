/*
 * A step given by the caller may be 0 or negative: no bound.
 * @bound inf_step_var 10 O(∞): ∞
 * @total inf_step_var O(∞): ∞
 */
int inf_step_var(int n, int step)
{
	int s = 0;

	for (int i = 0; i < n; i += step)
		s++;
	return s;
}
