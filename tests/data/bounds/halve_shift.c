/*
 * Shifting right while not zero: floor(log2 n) + 1 runs for n >= 1.
 * @bound halve_shift 11 O(log n): 2 + log2(max(1, n))
 * @total halve_shift O(log n): 2 + log2(max(1, n))
 * @domain n >= 1
 */
int halve_shift(unsigned n)
{
	int bits = 0;

	while (n > 0) {
		n >>= 1;
		bits++;
	}
	return bits;
}
