/*
 * A narrow unsigned counter below 200: the increment never wraps, 200 runs.
 * @bound uchar_loop 10 O(1): 201
 * @total uchar_loop O(1): 201
 */
int uchar_loop(void)
{
	int s = 0;

	for (unsigned char c = 0; c < 200; c++)
		s += c;
	return s;
}
