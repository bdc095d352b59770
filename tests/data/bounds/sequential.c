/*
 * Two loops one after the other: n and m runs.
 * @bound sequential 11 O(n^1): 1 + max(0, n)
 * @bound sequential 13 O(n^1): 1 + max(0, m)
 * @total sequential O(n^1): 2 + max(0, n) + max(0, m)
 */
int sequential(int n, int m)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	for (int j = m; j > 0; j--)
		s -= j;
	return s;
}
