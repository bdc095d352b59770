/*
 * Both ends shifted by the same amount: from 5 to n + 5, n runs.
 * @bound offset 10 O(n^1): 1 + max(0, n)
 * @total offset O(n^1): 1 + max(0, n)
 */
int offset(int n)
{
	int s = 0;

	for (int i = 5; i < n + 5; i++)
		s ^= i;
	return s;
}
