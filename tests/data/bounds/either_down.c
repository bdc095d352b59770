/*
 * One of two counters goes down on each run, until one is 0: at most
 * x + y - 1 runs for x, y >= 1. We add the two counters' bounds.
 * @bound either_down 17 O(n^1): x + y
 * @ours either_down 17: 1 + max(0, x) + max(0, y)
 * @total either_down O(n^1): x + y
 * @ours-total either_down: 1 + max(0, x) + max(0, y)
 * @domain x >= 1
 * @domain y >= 1
 */
int nondet(void);

int either_down(int x, int y)
{
	int s = 0;

	while (x > 0 && y > 0) {
		if (nondet())
			x--;
		else
			y--;
		s++;
	}
	return s;
}
