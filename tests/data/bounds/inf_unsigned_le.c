/*
 * i <= n with unsigned i: for n = UINT_MAX, i wraps to 0 and the loop
 * never ends.
 * @bound inf_unsigned_le 11 O(∞): ∞
 * @total inf_unsigned_le O(∞): ∞
 */
unsigned inf_unsigned_le(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i <= n; i++)
		s += i;
	return s;
}
