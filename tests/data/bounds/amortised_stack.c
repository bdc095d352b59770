/*
 * A stack that gets one push per step and any number of pops: the pops of
 * all steps together are at most the n pushes.
 * @bound amortised_stack 14 O(n^1): 1 + max(0, n)
 * @bound amortised_stack 16 O(n^1): max(0, n)
 * @total amortised_stack O(n^1): 1 + 2 × max(0, n)
 */
int nondet(void);

int amortised_stack(int n)
{
	int s = 0, pops = 0;

	for (int i = 0; i < n; i++) {
		s++;
		while (s > 0 && nondet()) {
			s--;
			pops++;
		}
	}
	return pops;
}
