/*
 * Counting up to n inclusive: n + 1 runs when n >= 0, then the final test.
 * @bound up_le 10 O(n^1): 1 + max(0, n + 1)
 * @total up_le O(n^1): 1 + max(0, n + 1)
 */
int up_le(int n)
{
	int s = 0;

	for (int i = 0; i <= n; i++)
		s += 2;
	return s;
}
