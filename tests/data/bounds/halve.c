/*
 * Halving: n goes n, n / 2, ... while above 1: floor(log2 n) runs.
 * @bound halve 10 O(log n): 1 + log2(max(1, n))
 * @total halve O(log n): 1 + log2(max(1, n))
 */
int halve(int n)
{
	int s = 0;

	while (n > 1) {
		n /= 2;
		s++;
	}
	return s;
}
