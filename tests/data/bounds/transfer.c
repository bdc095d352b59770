/*
 * The first loop moves x units from x to y, the second spends y: it runs
 * y + max(0, x) times (for y >= 0).
 * @bound transfer 11 O(n^1): 1 + max(0, x)
 * @bound transfer 15 O(n^1): 1 + max(0, y + max(0, x))
 * @total transfer O(n^1): 2 + max(0, x) + max(0, y + max(0, x))
 * @domain y >= 0
 */
int transfer(int x, int y)
{
	while (x > 0) {
		x--;
		y++;
	}
	while (y > 0)
		y--;
	return x + y;
}
