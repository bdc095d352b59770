/*
 * A local whose address is taken changes through the pointer: the limit
 * grows with the counter.
 * @bound inf_alias_local 11 O(∞): ∞
 * @total inf_alias_local O(∞): ∞
 */
int inf_alias_local(int n)
{
	int *q = &n, i;

	for (i = 0; i < n; i++)
		(*q)++;
	return i;
}
