/*
 * continue skips the rest of the body but not the increment: n runs.
 * @bound continue_loop 10 O(n^1): 1 + max(0, n)
 * @total continue_loop O(n^1): 1 + max(0, n)
 */
int continue_loop(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if (i % 2)
			continue;
		s += i;
	}
	return s;
}
