/*
 * Up to the next multiple of 8: at most 7 runs, whatever x. The remainder
 * is outside the analysis, which says so (a safe answer, a miss).
 * @bound modulo_loop 12 O(1): 8
 * @ours modulo_loop 12: ∞
 * @total modulo_loop O(1): 8
 * @ours-total modulo_loop: ∞
 * @domain x >= 0
 */
int modulo_loop(int x)
{
	while (x % 8 != 0)
		x++;
	return x;
}
