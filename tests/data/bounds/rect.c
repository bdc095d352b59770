/*
 * Two nested loops over independent parameters: the inner loop runs m
 * times for each of the n outer runs, n * m times in all. A nested loop's
 * bound counts all its runs in one call, and no first arrival.
 * @bound rect 13 O(n^1): 1 + max(0, n)
 * @bound rect 14 O(n^2): max(0, n) × max(0, m)
 * @total rect O(n^2): 1 + max(0, n) + max(0, n) × max(0, m)
 */
int rect(int n, int m)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++)
			s += i * j;
	return s;
}
