/*
 * Over an array by its size: 16 runs. The comparison is unsigned (size_t);
 * i starts at 0 and only grows, so its conversion keeps its value. The
 * second loop's step reaches its limit at once: one run.
 * @bound sizeof_loop 13 O(1): 17
 * @bound sizeof_loop 15 O(1): 2
 * @total sizeof_loop O(1): 19
 */
int sizeof_loop(void)
{
	int a[16], s = 0;

	for (int i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		a[i] = i;
	for (int i = 0; i < 16; i += 16)
		s += a[i];
	return s;
}
