/*
 * A loop written through a macro: its condition and step are inside the
 * macro, where libclang 14 shows no operator, so the analysis does not
 * know they compare and count (a safe answer, a miss).
 * @bound macro_loop 16 O(n^1): 1 + max(0, n)
 * @ours macro_loop 16: ∞
 * @total macro_loop O(n^1): 1 + max(0, n)
 * @ours-total macro_loop: ∞
 */
#define EACH(i, n) for (i = 0; i < (n); i++)

int macro_loop(int n)
{
	int i, s = 0;

	EACH(i, n)
	s += i;
	return s;
}
