/*
 * Bubble sort: n - 1 passes, the pass i comparing n - 1 - i pairs:
 * n (n - 1) / 2 in all (n >= 1).
 * @bound bubble 11 O(n^1): 1 + max(0, n - 1)
 * @bound bubble 12 O(n^2): max(0, n) × max(0, n - 1) / 2
 * @total bubble O(n^2): 1 + max(0, n - 1) + max(0, n) × max(0, n - 1) / 2
 * @domain n >= 1
 */
void bubble(int *a, int n)
{
	for (int i = 0; i < n - 1; i++)
		for (int j = 0; j < n - 1 - i; j++)
			if (a[j] > a[j + 1]) {
				int t = a[j];

				a[j] = a[j + 1];
				a[j + 1] = t;
			}
}
