/*
 * An unsigned counter is always >= 0: after 0 it wraps to the top.
 * @bound inf_unsigned_ge0 10 O(∞): ∞
 * @total inf_unsigned_ge0 O(∞): ∞
 */
unsigned inf_unsigned_ge0(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = n; i >= 0; i--)
		s += i;
	return s;
}
