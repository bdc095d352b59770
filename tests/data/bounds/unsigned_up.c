/*
 * Unsigned counters: i < n keeps i + 1 from wrapping, n runs.
 * @bound unsigned_up 11 O(n^1): 1 + max(0, n)
 * @total unsigned_up O(n^1): 1 + max(0, n)
 * @domain n >= 0
 */
unsigned unsigned_up(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += i;
	return s;
}
