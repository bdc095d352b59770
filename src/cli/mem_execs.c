/* The reader of a memory profile's header.execs (mem_execs.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/mem_execs.h"
#include "profile/profile.h"
#include "util/common.h"

/* The value is JSON, [[pid, order], ...]: its numbers, two by two. */
size_t mem_execs(const struct profile *p, struct mem_exec **out)
{
	const char *text = NULL;
	uint64_t pair[2];
	size_t n = 0;
	int k = 0;

	*out = NULL;
	for (size_t i = 0; i < p->nheader_extra; i++)
		if (strcmp(p->header_extra[i].key, "execs") == 0)
			text = p->header_extra[i].value;
	for (const char *c = text ? text : ""; *c;) {
		char *end;

		if (*c < '0' || *c > '9') {
			c++;
			continue;
		}
		pair[k++] = strtoull(c, &end, 10);
		c = end;
		if (k < 2)
			continue;
		k = 0;
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = (struct mem_exec){pair[0], pair[1]};
	}
	return n;
}
