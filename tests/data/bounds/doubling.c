/*
 * Doubling up to a limit: i = 1, 2, 4, ... below n, floor(log2(n - 1)) + 1
 * runs for n >= 2.
 * @bound doubling 12 O(log n): 2 + log2(max(1, n - 1))
 * @total doubling O(log n): 2 + log2(max(1, n - 1))
 * @domain n >= 2
 */
int doubling(int n)
{
	int s = 0;

	for (int i = 1; i < n; i *= 2)
		s += i;
	return s;
}
