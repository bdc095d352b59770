/*
 * A step of two toward an odd limit jumps over it: i != n never fails.
 * @bound inf_ne 10 O(∞): ∞
 * @total inf_ne O(∞): ∞
 */
int inf_ne(int n)
{
	int s = 0;

	for (int i = 0; i != n; i += 2)
		s++;
	return s;
}
