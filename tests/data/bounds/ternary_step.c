/*
 * The step chosen by a conditional expression, 1 or 2: at most n runs.
 * @bound ternary_step 12 O(n^1): 1 + max(0, n)
 * @total ternary_step O(n^1): 1 + max(0, n)
 */
int nondet(void);

int ternary_step(int n)
{
	int i = 0, s = 0;

	while (i < n) {
		i += nondet() ? 2 : 1;
		s++;
	}
	return s;
}
