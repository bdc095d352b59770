/*
 * A list walked to its end with no counter: a cyclic list has none.
 * @bound inf_pointer 14 O(∞): ∞
 * @total inf_pointer O(∞): ∞
 */
struct cell {
	struct cell *next;
};

int inf_pointer(struct cell *p)
{
	int n = 0;

	while (p) {
		p = p->next;
		n++;
	}
	return n;
}
