/*
 * heaplist N S: a list of N keys allocated on the heap, searched S times,
 * for --size 'SLList_search:list->size' through a pointer that does not
 * point into the stack.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ds.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, searches = argc > 2 ? atoi(argv[2]) : 1;
	SLList *list = malloc(sizeof(*list));

	if (!list)
		return 1;
	SLList_init(list);
	for (int i = 0; i < n; i++)
		SLList_insert(list, i);
	for (int i = 0; i < searches; i++)
		SLList_search(list, -1);
	printf("%d\n", n);
	SLList_destroy(list);
	free(list);
	return 0;
}
