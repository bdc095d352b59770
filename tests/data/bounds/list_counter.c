/*
 * A linked list walked with a counter of its length, as the seed's
 * example keeps them: at most len steps.
 * @bound list_counter 16 O(n^1): 1 + max(0, len)
 * @total list_counter O(n^1): 1 + max(0, len)
 */
struct node {
	struct node *next;
	int v;
};

int list_counter(struct node *p, int len)
{
	int s = 0;

	while (p != 0 && len > 0) {
		s += p->v;
		p = p->next;
		len--;
	}
	return s;
}
