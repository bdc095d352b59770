/*
 * Three nested loops to n: n, n^2 and n^3 runs.
 * @bound cube 12 O(n^1): 1 + max(0, n)
 * @bound cube 13 O(n^2): max(0, n)^2
 * @bound cube 14 O(n^3): max(0, n)^3
 * @total cube O(n^3): 1 + max(0, n) + max(0, n)^2 + max(0, n)^3
 */
int cube(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++)
				s += i ^ j ^ k;
	return s;
}
