/*
 * A buffer that fills by one per step and is flushed now and then: all the
 * flushes together empty at most the n items put in.
 * @bound amortised_flush 14 O(n^1): 1 + max(0, n)
 * @bound amortised_flush 17 O(n^1): max(0, n)
 * @total amortised_flush O(n^1): 1 + 2 × max(0, n)
 */
int nondet(void);

int amortised_flush(int n)
{
	int k = 0, written = 0;

	for (int i = 0; i < n; i++) {
		k++;
		if (nondet()) {
			while (k > 0) {
				k--;
				written++;
			}
		}
	}
	return written;
}
