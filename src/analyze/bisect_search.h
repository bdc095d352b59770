/*
 * The binary search of `veles bisect`: over versions 0..n-1 (oldest
 * first; the last is known slow), the first one that is like the slow
 * end, asking a callback about one version at a time. It assumes what
 * bisection assumes: once slow, every later version stays slow.
 */
#ifndef ANALYZE_BISECT_SEARCH_H
#define ANALYZE_BISECT_SEARCH_H

#include <stddef.h>

/*
 * Whether version @i is like the slow end (*@verdict 1), like the fast
 * start (0), or cannot be told (-1); @left is how many candidates the
 * search still has. Returns 0, or an error that ends the search.
 */
typedef int (*bisect_classify_fn)(void *arg, size_t i, size_t left, int *verdict);

/*
 * The first slow version of @n (n > 0) into *@first. Returns 0; 1 when
 * a version could not be told (*@first is that version); or the
 * callback's error. Asks about at most ceil(log2(n)) versions.
 */
int bisect_search(size_t n, bisect_classify_fn classify, void *arg, size_t *first);

#endif
