/*
 * Left only when an outside value says so: no bound.
 * @bound inf_nondet 12 O(∞): ∞
 * @total inf_nondet O(∞): ∞
 */
int nondet(void);

int inf_nondet(void)
{
	int s = 0;

	while (nondet())
		s++;
	return s;
}
