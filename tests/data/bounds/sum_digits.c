/*
 * Dividing by ten while not zero: floor(log10 n) + 1 runs for n >= 1.
 * @bound sum_digits 11 O(log n): 2 + log10(max(1, n))
 * @total sum_digits O(log n): 2 + log10(max(1, n))
 * @domain n >= 1
 */
int sum_digits(unsigned n)
{
	int s = 0;

	while (n != 0) {
		s += n % 10;
		n /= 10;
	}
	return s;
}
