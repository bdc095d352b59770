/*
 * An inner loop of a constant ten runs under n outer runs: 10 * n.
 * @bound rect_const 11 O(n^1): 1 + max(0, n)
 * @bound rect_const 12 O(n^1): 10 × max(0, n)
 * @total rect_const O(n^1): 1 + 11 × max(0, n)
 */
int rect_const(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < 10; j++)
			s += j;
	return s;
}
