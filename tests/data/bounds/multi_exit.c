/*
 * Two exits, a step of two: at most ceil(n / 2) runs.
 * @bound multi_exit 12 O(n^1): 1 + ceil(max(0, n) / 2)
 * @total multi_exit O(n^1): 1 + ceil(max(0, n) / 2)
 */
int nondet(void);

int multi_exit(const int *a, int n)
{
	int i = 0;

	while (i < n) {
		if (a[i] == 0)
			break;
		if (nondet())
			return -1;
		i += 2;
	}
	return i;
}
