/*
 * A loop counting up by one to a parameter: i is 0, 1, ..., n - 1, so the
 * body runs n times when n > 0 and never otherwise. A loop at the top level
 * also counts the first arrival at its header (as Loopus counts).
 * @bound up 12 O(n^1): 1 + max(0, n)
 * @total up O(n^1): 1 + max(0, n)
 */
int up(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	return s;
}
