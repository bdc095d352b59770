/*
 * An endless loop left by break when i reaches n: n runs back.
 * @bound while_true 10 O(n^1): 1 + max(0, n)
 * @total while_true O(n^1): 1 + max(0, n)
 */
int while_true(int n)
{
	int i = 0;

	for (;;) {
		if (i >= n)
			break;
		i++;
	}
	return i;
}
