/*
 * A floating-point counter: max(0, n) runs for an integer n, but floating
 * point is outside the analysis, which says so (a safe answer, a miss).
 * @bound float_loop 13 O(n^1): 1 + max(0, n)
 * @ours float_loop 13: ∞
 * @total float_loop O(n^1): 1 + max(0, n)
 * @ours-total float_loop: ∞
 */
int float_loop(int n)
{
	int s = 0;

	for (double x = 0; x < n; x += 1.0)
		s++;
	return s;
}
