/*
 * Counting down by two from n while positive: n, n - 2, ..., ceil(n / 2)
 * runs for n > 0.
 * @bound step2_down 11 O(n^1): 1 + ceil(max(0, n) / 2)
 * @total step2_down O(n^1): 1 + ceil(max(0, n) / 2)
 */
int step2_down(int n)
{
	int s = 0;

	for (int i = n; i > 0; i -= 2)
		s += i;
	return s;
}
