/*
 * A bound that is an expression of two parameters: 2 * n + m runs when
 * positive.
 * @bound param_expr 11 O(n^1): 1 + max(0, 2 * n + m)
 * @total param_expr O(n^1): 1 + max(0, 2 * n + m)
 */
int param_expr(int n, int m)
{
	int s = 0;

	for (int i = 0; i < 2 * n + m; i++)
		s--;
	return s;
}
