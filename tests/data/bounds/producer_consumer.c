/*
 * One loop counts n items, the next consumes them: n runs each.
 * @bound producer_consumer 11 O(n^1): 1 + max(0, n)
 * @bound producer_consumer 13 O(n^1): 1 + max(0, n)
 * @total producer_consumer O(n^1): 2 + 2 × max(0, n)
 */
int producer_consumer(int n)
{
	int c = 0, s = 0;

	for (int i = 0; i < n; i++)
		c++;
	while (c > 0) {
		c--;
		s += c;
	}
	return s;
}
