/*
 * Down by four, with the subtraction written apart: ceil(n / 4) runs.
 * @bound step_down4 10 O(n^1): 1 + ceil(max(0, n) / 4)
 * @total step_down4 O(n^1): 1 + ceil(max(0, n) / 4)
 */
int step_down4(int n)
{
	int s = 0;

	while (n > 0) {
		s += n;
		n = n - 4;
	}
	return s;
}
