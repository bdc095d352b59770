/*
 * The counter may be set back at any step: no bound.
 * @bound inf_reset 12 O(∞): ∞
 * @total inf_reset O(∞): ∞
 */
int nondet(void);

int inf_reset(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if (nondet())
			i = 0;
		s++;
	}
	return s;
}
