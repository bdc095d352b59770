/*
 * A return from inside the loop: at most n runs.
 * @bound early_return 10 O(n^1): 1 + max(0, n)
 * @total early_return O(n^1): 1 + max(0, n)
 */
int early_return(const int *a, int n)
{
	int i = 0;

	while (i < n) {
		if (a[i] < 0)
			return -1;
		i++;
	}
	return i;
}
