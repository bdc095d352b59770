/*
 * Binary search: the interval hi - lo at least halves on each run, which
 * ends at 0: floor(log2 n) + 1 runs at most for n >= 1.
 * @bound binsearch 12 O(log n): 2 + log2(max(1, n))
 * @total binsearch O(log n): 2 + log2(max(1, n))
 * @domain n >= 1
 */
int binsearch(const int *a, int n, int x)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
