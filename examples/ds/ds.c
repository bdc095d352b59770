/* The data structures of ds.h; each public function is one traced call. */
#include <stdlib.h>

#include "ds.h"

void SLList_init(SLList *list)
{
	list->head = NULL;
	list->size = 0;
}

void SLList_insert(SLList *list, int key)
{
	SLLelem *e = malloc(sizeof(*e));

	if (!e)
		abort();
	e->key = key;
	e->next = list->head;
	list->head = e;
	list->size++;
}

SLLelem *SLList_search(SLList *list, int key)
{
	for (SLLelem *e = list->head; e; e = e->next)
		if (e->key == key)
			return e;
	return NULL;
}

void SLList_destroy(SLList *list)
{
	SLLelem *e = list->head;

	while (e) {
		SLLelem *next = e->next;

		free(e);
		e = next;
	}
	SLList_init(list);
}

void BTree_init(BTree *tree)
{
	tree->root = NULL;
	tree->size = 0;
}

void BTree_insert(BTree *tree, int key)
{
	BTnode **at = &tree->root;

	while (*at)
		at = key < (*at)->key ? &(*at)->left : &(*at)->right;
	*at = calloc(1, sizeof(**at));
	if (!*at)
		abort();
	(*at)->key = key;
	tree->size++;
}

int BTree_search(const BTree *tree, int key)
{
	const BTnode *n = tree->root;

	while (n && n->key != key)
		n = key < n->key ? n->left : n->right;
	return n != NULL;
}

/* Iterative, so a degenerate tree does not overflow the stack. */
static void free_nodes(BTnode *n)
{
	while (n) {
		if (n->left) {
			BTnode *l = n->left;

			n->left = l->right;
			l->right = n;
			n = l;
		} else {
			BTnode *r = n->right;

			free(n);
			n = r;
		}
	}
}

void BTree_destroy(BTree *tree)
{
	free_nodes(tree->root);
	BTree_init(tree);
}

void insertion_sort(int *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}
