/*
 * Either of two counters still below its limit: max(n, m) runs. Each run
 * brings one of them, still below its limit, one nearer: we bound it by
 * the sum n + m, right in its class.
 * @bound or_cond 14 O(n^1): 1 + max(0, n, m)
 * @ours or_cond 14: 1 + max(0, m) + max(0, n)
 * @total or_cond O(n^1): 1 + max(0, n, m)
 * @ours-total or_cond: 1 + max(0, m) + max(0, n)
 */
int or_cond(int n, int m)
{
	int i = 0, j = 0;

	while (i < n || j < m) {
		i++;
		j++;
	}
	return i + j;
}
