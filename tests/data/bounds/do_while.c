/*
 * A do loop: the body runs max(1, n) times, so its back edge is taken
 * max(0, n - 1) times; the header (the body's start) is first reached once.
 * @bound do_while 11 O(n^1): 1 + max(0, n - 1)
 * @total do_while O(n^1): 1 + max(0, n - 1)
 */
int do_while(int n)
{
	int s = 0;

	do {
		s++;
		n--;
	} while (n > 0);
	return s;
}
