/*
 * Both counters below their limits: min(n, m) runs; we keep one of them.
 * @bound and_cond 12 O(n^1): 1 + max(0, min(n, m))
 * @ours and_cond 12: 1 + max(0, n)
 * @total and_cond O(n^1): 1 + max(0, min(n, m))
 * @ours-total and_cond: 1 + max(0, n)
 */
int and_cond(int n, int m)
{
	int i = 0, j = 0;

	while (i < n && j < m) {
		i++;
		j++;
	}
	return i;
}
