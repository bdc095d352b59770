/*
 * The counter moves away from the exit (Perun's undefined.c, with a signed
 * counter): no bound.
 * @bound inf_increment 9 O(∞): ∞
 * @total inf_increment O(∞): ∞
 */
int inf_increment(int k)
{
	while (k > 0)
		k++;
	return 0;
}
