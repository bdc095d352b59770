/*
 * A loop made with goto: back to the label n times. Its place is the
 * label's line, and the line of the goto that closes it.
 * @bound goto_loop 11 O(n^1): 1 + max(0, n)
 * @total goto_loop O(n^1): 1 + max(0, n)
 */
int goto_loop(int n)
{
	int i = 0, s = 0;

again:
	if (i < n) {
		s += i;
		i++;
		goto again;
	}
	return s;
}
