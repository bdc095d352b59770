/*
 * A bound over a global: N is read at the call and no write can reach it
 * during the loop (the body writes only a local array).
 * @bound global_n 13 O(n^1): 1 + max(0, N)
 * @total global_n O(n^1): 1 + max(0, N)
 */
int N;

int global_n(void)
{
	int s = 0, a[4] = {0};

	for (int i = 0; i < N; i++)
		a[i & 3] += i;
	s = a[0] + a[3];
	return s;
}
