/* The edge-count map and the fuzzer's memory of it (cover.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/cover.h"
#include "fuzzcov-format.h"
#include "util/common.h"

int fz_cover_open(struct fz_cover *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = memfd_create("veles-fuzz-map", MFD_CLOEXEC);
	if (c->fd < 0)
		return err_set(ERR_IO, "cannot make the coverage map: %s", strerror(errno));
	if (ftruncate(c->fd, sizeof(*c->map)) < 0) {
		int e = errno;

		close(c->fd);
		c->fd = -1;
		return err_set(ERR_IO, "cannot size the coverage map: %s", strerror(e));
	}
	c->map = mmap(NULL, sizeof(*c->map), PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (c->map == MAP_FAILED) {
		int e = errno;

		c->map = NULL;
		close(c->fd);
		c->fd = -1;
		return err_set(ERR_IO, "cannot map the coverage map: %s", strerror(e));
	}
	c->maxc = xcalloc(FUZZCOV_EDGES, sizeof(*c->maxc));
	c->top = xmalloc(FUZZCOV_EDGES * sizeof(*c->top));
	memset(c->top, 0xff, FUZZCOV_EDGES * sizeof(*c->top));
	c->seen = xcalloc(FUZZCOV_EDGES, sizeof(*c->seen));
	c->basec = xcalloc(FUZZCOV_EDGES, sizeof(*c->basec));
	return 0;
}

void fz_cover_close(struct fz_cover *c)
{
	if (c->map)
		munmap(c->map, sizeof(*c->map));
	if (c->fd >= 0)
		close(c->fd);
	free(c->maxc);
	free(c->top);
	free(c->seen);
	free(c->basec);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

void fz_cover_reset(struct fz_cover *c)
{
	struct fuzzcov_map *m = c->map;
	uint32_t n = c->nedges;

	if (!m)
		return;
	m->magic = 0;
	m->nedges = 0;
	/* Only the edges a run numbered can hold counts. */
	memset(m->counts, 0, ((size_t)n + 1) * sizeof(m->counts[0]));
}

static uint32_t run_edges(struct fz_cover *c)
{
	struct fuzzcov_map *m = c->map;
	uint32_t n;

	c->attached = m && m->magic == FUZZCOV_MAGIC;
	if (!c->attached)
		return 0;
	n = m->nedges < FUZZCOV_EDGES ? m->nedges : FUZZCOV_EDGES - 1;
	if (n > c->nedges)
		c->nedges = n;
	return n;
}

void fz_cover_check(struct fz_cover *c, struct fz_cover_news *n)
{
	uint32_t edges = run_edges(c);
	const uint32_t *cnt = c->map ? c->map->counts : NULL;

	memset(n, 0, sizeof(*n));
	for (uint32_t e = 1; e <= edges; e++) {
		uint32_t k = cnt[e];

		if (!k)
			continue;
		n->hits += k;
		if (!c->seen[e])
			n->new_edges++;
		else if (!(c->seen[e] & (1ull << fz_count_class(k))))
			n->new_classes++;
		if (k > c->maxc[e])
			n->new_max++;
	}
}

void fz_cover_commit(struct fz_cover *c, uint32_t id, uint32_t *ntop)
{
	uint32_t edges = c->attached ? c->map->nedges : 0;
	const uint32_t *cnt = c->map ? c->map->counts : NULL;

	if (edges >= FUZZCOV_EDGES)
		edges = FUZZCOV_EDGES - 1;
	for (uint32_t e = 1; e <= edges; e++) {
		uint32_t k = cnt[e];

		if (!k)
			continue;
		if (!c->seen[e])
			c->edges_hit++;
		c->seen[e] |= 1ull << fz_count_class(k);
		if (k <= c->maxc[e])
			continue;
		c->maxc[e] = k;
		if (c->top[e] != UINT32_MAX && ntop[c->top[e]])
			ntop[c->top[e]]--;
		c->top[e] = id;
		ntop[id]++;
	}
}

void fz_cover_mark_base(struct fz_cover *c)
{
	memcpy(c->basec, c->maxc, FUZZCOV_EDGES * sizeof(*c->basec));
}

double fz_cover_growth(const struct fz_cover *c, uint32_t e)
{
	return (double)c->maxc[e] / (c->basec[e] ? (double)c->basec[e] : 1.0);
}

void fz_cover_remap(struct fz_cover *c, const uint32_t *map, size_t nold)
{
	for (uint32_t e = 1; e <= c->nedges; e++)
		if (c->top[e] != UINT32_MAX)
			c->top[e] = c->top[e] < nold ? map[c->top[e]] : UINT32_MAX;
}
