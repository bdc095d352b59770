/*
 * Counting down from n to 0 inclusive: n + 1 runs when n >= 0.
 * @bound down_ge 10 O(n^1): 1 + max(0, n + 1)
 * @total down_ge O(n^1): 1 + max(0, n + 1)
 */
int down_ge(int n)
{
	int s = 0;

	for (int i = n; i >= 0; --i)
		s++;
	return s;
}
