/*
 * libveles-fuzzcov.a: the trace-pc-guard callbacks of a program built with
 * `veles cflags fuzz` (clang -fsanitize-coverage=trace-pc-guard). Under
 * `veles fuzz` each edge's hits are counted in the shared map of
 * fuzzcov-format.h; anywhere else every guard is 0 and the callback
 * returns at once, so the program runs as usual.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fuzzcov-format.h"

static struct fuzzcov_map *map;
static uint32_t next_guard;
static int attached = -1; /* -1: not tried yet */

static void attach(void)
{
	const char *env = getenv(FUZZCOV_ENV);
	void *p;

	attached = 0;
	if (!env || !*env)
		return;
	p = mmap(NULL, sizeof(*map), PROT_READ | PROT_WRITE, MAP_SHARED, atoi(env), 0);
	if (p == MAP_FAILED)
		return;
	map = p;
	map->version = FUZZCOV_VERSION;
	map->magic = FUZZCOV_MAGIC;
	attached = 1;
}

/* Called by each instrumented module's constructor, maybe more than once. */
__attribute__((visibility("default"))) void __sanitizer_cov_trace_pc_guard_init(uint32_t *start,
										uint32_t *stop)
{
	if (attached < 0)
		attach();
	if (start == stop || *start)
		return;
	for (uint32_t *g = start; g < stop; g++) {
		if (!attached) {
			*g = 0;
			continue;
		}
		next_guard++;
		*g = (next_guard - 1) % (FUZZCOV_EDGES - 1) + 1;
	}
	if (attached)
		map->nedges = next_guard < FUZZCOV_EDGES - 1 ? next_guard : FUZZCOV_EDGES - 1;
}

__attribute__((visibility("default"))) void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	uint32_t g = *guard;

	if (g)
		map->counts[g]++;
}
