/*
 * The other triangle: j from i + 1 to n - 1, n (n - 1) / 2 inner runs.
 * @bound triangle_up 11 O(n^1): 1 + max(0, n)
 * @bound triangle_up 12 O(n^2): max(0, n) × max(0, n - 1) / 2
 * @total triangle_up O(n^2): 1 + max(0, n) + max(0, n) × max(0, n - 1) / 2
 */
int triangle_up(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			s += j - i;
	return s;
}
