/*
 * Counting up by three: i is 0, 3, 6, ... below n, ceil(n / 3) runs for
 * n > 0.
 * @bound step3 11 O(n^1): 1 + ceil(max(0, n) / 3)
 * @total step3 O(n^1): 1 + ceil(max(0, n) / 3)
 */
int step3(int n)
{
	int s = 0;

	for (int i = 0; i < n; i += 3)
		s++;
	return s;
}
