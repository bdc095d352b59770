/*
 * Matrix product loops: n, n * p and n * p * m runs.
 * @bound matmul 10 O(n^1): 1 + max(0, n)
 * @bound matmul 11 O(n^2): max(0, n) × max(0, p)
 * @bound matmul 14 O(n^3): max(0, n) × max(0, p) × max(0, m)
 * @total matmul O(n^3): 1 + max(0, n) + max(0, n) × max(0, p) + max(0, n) × max(0, p) × max(0, m)
 */
void matmul(int n, int m, int p, const double *a, const double *b, double *c)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < p; j++) {
			double s = 0;

			for (int k = 0; k < m; k++)
				s += a[i * m + k] * b[k * p + j];
			c[i * p + j] = s;
		}
}
