/*
 * Insertion sort: element i moves down at most i places, 1 + 2 + ... +
 * (n - 1) = n (n - 1) / 2 moves in the worst case.
 * @bound insertion 11 O(n^1): 1 + max(0, n - 1)
 * @bound insertion 14 O(n^2): max(0, n) × max(0, n - 1) / 2
 * @total insertion O(n^2): 1 + max(0, n - 1) + max(0, n) × max(0, n - 1) / 2
 * @domain n >= 1
 */
void insertion(int *a, int n)
{
	for (int i = 1; i < n; i++) {
		int j = i;

		while (j > 0 && a[j - 1] > a[j]) {
			int t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
			j--;
		}
	}
}
