/*
 * A counter j counts down, and when it is out i goes down by one and j
 * starts again from m: j + i (m + 1) runs, quadratic.
 * @bound lexicographic 14 O(n^2): 1 + j + i × (m + 1)
 * @total lexicographic O(n^2): 1 + j + i × (m + 1)
 * @domain i >= 0
 * @domain j >= 0
 * @domain m >= 0
 */
int lexicographic(int i, int j, int m)
{
	int s = 0;

	while (i > 0) {
		if (j > 0) {
			j--;
		} else {
			i--;
			j = m;
		}
		s++;
	}
	return s;
}
