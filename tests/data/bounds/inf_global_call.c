/*
 * The same over a global that a call in the body may change: update() can
 * raise LIMIT forever, so no finite bound holds.
 * @bound inf_global_call 14 O(∞): ∞
 * @total inf_global_call O(∞): ∞
 */
int LIMIT;
void update(int i);

int inf_global_call(void)
{
	int i;

	for (i = 0; i < LIMIT; i++)
		update(i);
	return i;
}
