/* The binary search of bisect (bisect_search.h). */
#include "analyze/bisect_search.h"

int bisect_search(size_t n, bisect_classify_fn classify, void *arg, size_t *first)
{
	size_t lo = 0, hi = n ? n - 1 : 0; /* the first slow one is in [lo, hi] */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int verdict = -1, ret = classify(arg, mid, hi - lo + 1, &verdict);

		if (ret < 0)
			return ret;
		if (verdict < 0) {
			*first = mid;
			return 1;
		}
		if (verdict)
			hi = mid;
		else
			lo = mid + 1;
	}
	*first = lo;
	return 0;
}
