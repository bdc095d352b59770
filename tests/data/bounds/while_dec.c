/*
 * The first loop of the seed's example: k goes down to 1, k - 1 runs when
 * k > 1; k is unsigned, and k > 1 keeps --k from wrapping.
 * @bound while_dec 12 O(n^1): 1 + max(0, k - 1)
 * @total while_dec O(n^1): 1 + max(0, k - 1)
 * @domain k >= 0
 */
unsigned while_dec(unsigned int k)
{
	unsigned s = 0;

	while (k > 1) {
		s += k;
		--k;
	}
	return s;
}
