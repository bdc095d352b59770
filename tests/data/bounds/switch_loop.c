/*
 * A switch in the body, whose cases all fall back to the loop: n runs.
 * @bound switch_loop 10 O(n^1): 1 + max(0, n)
 * @total switch_loop O(n^1): 1 + max(0, n)
 */
int switch_loop(const int *op, int n)
{
	int acc = 0;

	for (int i = 0; i < n; i++) {
		switch (op[i]) {
		case 0:
			acc++;
			break;
		case 1:
			acc--;
			break;
		default:
			acc *= 2;
		}
	}
	return acc;
}
