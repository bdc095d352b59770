/*
 * From one parameter to another: n - m runs when n > m.
 * @bound range 10 O(n^1): 1 + max(0, n - m)
 * @total range O(n^1): 1 + max(0, n - m)
 */
long range(int m, int n)
{
	long s = 0;

	for (int i = m; i < n; i++)
		s += i;
	return s;
}
