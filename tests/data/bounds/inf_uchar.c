/*
 * A narrow counter can never reach 300: c wraps from 255 to 0, forever.
 * @bound inf_uchar 10 O(∞): ∞
 * @total inf_uchar O(∞): ∞
 */
int inf_uchar(void)
{
	int s = 0;

	for (unsigned char c = 0; c < 300; c++)
		s += c;
	return s;
}
