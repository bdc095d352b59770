/*
 * A queue made of two stacks, with counters of their sizes: k operations,
 * each a push or a pop; a pop from an empty out-stack first moves the whole
 * in-stack over. Every element moves at most once, so all the transfers
 * together take at most k steps (amortised), not k per pop.
 * @bound queue 16 O(n^1): 1 + max(0, k)
 * @bound queue 21 O(n^1): max(0, k)
 * @total queue O(n^1): 1 + 2 × max(0, k)
 */
int nondet(void);

int queue(int k)
{
	int in = 0, out = 0, moved = 0;

	while (k > 0) {
		if (nondet()) {
			in++;
		} else {
			if (out == 0)
				while (in > 0) {
					in--;
					out++;
					moved++;
				}
			if (out > 0)
				out--;
		}
		k--;
	}
	return moved;
}
