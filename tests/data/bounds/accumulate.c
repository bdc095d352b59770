/*
 * A sum of the counter, spent one by one: the second loop runs
 * 0 + 1 + ... + (n - 1) = n (n - 1) / 2 times. Each increment adds at
 * most the counter's largest value, n - 1: we bound it by n (n - 1).
 * @bound accumulate 15 O(n^1): 1 + max(0, n)
 * @bound accumulate 17 O(n^2): 1 + max(0, n) × max(0, n - 1) / 2
 * @ours accumulate 17: 1 + max(0, (n + -1)) × max(0, n)
 * @total accumulate O(n^2): 2 + max(0, n) + max(0, n) × max(0, n - 1) / 2
 * @ours-total accumulate: 2 + max(0, n) + max(0, (n + -1)) × max(0, n)
 */
int accumulate(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	while (s > 0)
		s--;
	return s;
}
