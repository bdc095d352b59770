/*
 * A loop made by a computed goto (a GNU extension): the analysis cannot
 * follow it, so the function has no bound, though no loop shows.
 * @total computed_goto O(∞): ∞
 */
int computed_goto(int n)
{
	void *again = &&top;
	int i = 0;

top:
	i++;
	if (i < n)
		goto *again;
	return i;
}
