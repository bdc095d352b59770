/*
 * Two pointers: j only moves forward, to n at most, over all runs of the
 * outer loop together: n inner steps in all, not n per outer step.
 * @bound two_pointer 12 O(n^1): 1 + max(0, n)
 * @bound two_pointer 13 O(n^1): max(0, n)
 * @total two_pointer O(n^1): 1 + 2 × max(0, n)
 */
int two_pointer(const int *a, int n, int w)
{
	int j = 0, best = 0;

	for (int i = 0; i < n; i++) {
		while (j < n && a[j] - a[i] <= w)
			j++;
		if (j - i > best)
			best = j - i;
	}
	return best;
}
