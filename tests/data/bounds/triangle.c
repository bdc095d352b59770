/*
 * A triangular nest: the inner loop runs i times for i = 0 .. n - 1,
 * n (n - 1) / 2 times in all. Bounding each inner run by the largest i
 * gives n^2: the class is right, the constant is not.
 * @bound triangle 13 O(n^1): 1 + max(0, n)
 * @bound triangle 14 O(n^2): max(0, n) × max(0, n - 1) / 2
 * @total triangle O(n^2): 1 + max(0, n) + max(0, n) × max(0, n - 1) / 2
 */
int triangle(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			s++;
	return s;
}
