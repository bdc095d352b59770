/*
 * A store through a pointer that may point at the limit: with p = &LIM the
 * limit moves ahead of i forever.
 * @bound inf_alias_global 13 O(∞): ∞
 * @total inf_alias_global O(∞): ∞
 */
int LIM;

int inf_alias_global(int *p)
{
	int i;

	for (i = 0; i < LIM; i++)
		*p = i + 2;
	return i;
}
