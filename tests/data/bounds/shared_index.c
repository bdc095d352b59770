/*
 * An inner loop that advances the outer loop's own index: both together
 * make at most n steps of i.
 * @bound shared_index 14 O(n^1): 1 + max(0, n)
 * @bound shared_index 15 O(n^1): max(0, n)
 * @total shared_index O(n^1): 1 + 2 × max(0, n)
 */
int nondet(void);

int shared_index(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (; i < n && nondet(); i++)
			s++;
	return s;
}
