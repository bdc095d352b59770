/*
 * A nest counts n * m items, a later loop consumes them one by one.
 * @bound nested_consumer 12 O(n^1): 1 + max(0, n)
 * @bound nested_consumer 13 O(n^2): max(0, n) × max(0, m)
 * @bound nested_consumer 15 O(n^2): 1 + max(0, n) × max(0, m)
 * @total nested_consumer O(n^2): 2 + max(0, n) + 2 × max(0, n) × max(0, m)
 */
int nested_consumer(int n, int m)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++)
			c++;
	while (c > 0)
		c--;
	return c;
}
