/*
 * A constant trip count: 100 runs, whatever the input.
 * @bound const_loop 8 O(1): 101
 * @total const_loop O(1): 101
 */
int const_loop(int x)
{
	for (int i = 0; i < 100; i++)
		x = x * 3 + 1;
	return x;
}
