/*
 * Counting down from n to 1: n runs when n > 0.
 * @bound down 10 O(n^1): 1 + max(0, n)
 * @total down O(n^1): 1 + max(0, n)
 */
int down(int n)
{
	int s = 0;

	for (int i = n; i > 0; i--)
		s += i;
	return s;
}
