/*
 * A small library of data structures, the functions the trace collector's
 * examples and tests measure (docs/collect-trace.md): a singly linked list,
 * an unbalanced binary search tree and an insertion sort. Kept simple on
 * purpose: SLList_search is linear in the list's length, so regression
 * analysis of its running time over growing lists picks the linear model.
 */
#ifndef DS_H
#define DS_H

#include <stddef.h>

typedef struct SLLelem {
	int key;
	struct SLLelem *next;
} SLLelem;

typedef struct SLList {
	SLLelem *head;
	size_t size;
} SLList;

void SLList_init(SLList *list);
void SLList_insert(SLList *list, int key);
/* The element holding @key, or NULL. */
SLLelem *SLList_search(SLList *list, int key);
void SLList_destroy(SLList *list);

typedef struct BTnode {
	int key;
	struct BTnode *left, *right;
} BTnode;

typedef struct BTree {
	BTnode *root;
	size_t size;
} BTree;

void BTree_init(BTree *tree);
void BTree_insert(BTree *tree, int key);
/* 1 when @key is in the tree. */
int BTree_search(const BTree *tree, int key);
void BTree_destroy(BTree *tree);

/* Sorts @n ints in place, ascending: quadratic in @n, as it is meant to be. */
void insertion_sort(int *v, size_t n);

#endif
