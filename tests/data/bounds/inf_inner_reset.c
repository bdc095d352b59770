/*
 * The inner loop may set the outer counter back: no bound.
 * @bound inf_inner_reset 13 O(∞): ∞
 * @bound inf_inner_reset 14 O(∞): ∞
 * @total inf_inner_reset O(∞): ∞
 */
int nondet(void);

int inf_inner_reset(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (nondet())
				i = 0;
			s++;
		}
	return s;
}
