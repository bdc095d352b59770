/*
 * An inner loop to i under an outer loop halving i: n + n/2 + ... < 2n
 * inner runs, a geometric sum (2n - 1 for n a power of two, less for
 * others). We bound each inner run by n and multiply by the log2 n outer
 * runs: sound, one log factor above the class.
 * @bound halving_nested 17 O(log n): 2 + log2(max(1, n))
 * @bound halving_nested 18 O(n^1): 2 × max(0, n) - 1
 * @ours halving_nested 18: 2 × max(0, n) + max(0, n) × log2(max(1, n))
 * @total halving_nested O(n^1): 1 + log2(max(1, n)) + 2 × max(0, n)
 * @ours-total halving_nested: 2 + log2(max(1, n)) + 2 × max(0, n) + max(0, n) × log2(max(1, n))
 * @domain n >= 1
 */
int halving_nested(int n)
{
	int s = 0;

	for (int i = n; i > 0; i /= 2)
		for (int j = 0; j < i; j++)
			s++;
	return s;
}
