/*
 * A search that may stop early: at most n runs.
 * @bound break_early 10 O(n^1): 1 + max(0, n)
 * @total break_early O(n^1): 1 + max(0, n)
 */
int break_early(const int *a, int n, int x)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i] == x)
			break;
	return i;
}
