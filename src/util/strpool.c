#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "util/strpool.h"

/* Strings live in large chunks so that interning a million short keys does
 * not cost a million malloc headers. */
#define CHUNK_SIZE (64 * 1024)

struct strpool {
	char **chunks;
	size_t nchunks, chunks_cap;
	size_t chunk_used; /* bytes used in the last chunk */
	const char **strs; /* id -> string */
	uint32_t *lens;
	size_t count, cap;
	uint32_t *slots; /* open addressing; 0 = empty, else id + 1 */
	size_t nslots;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static const char *store_bytes(struct strpool *sp, const char *s, size_t n)
{
	char *dst;

	if (n + 1 > CHUNK_SIZE / 4) {
		/* Long strings get a chunk of their own, inserted before the
		 * current one so the current one stays last. */
		dst = xmalloc(n + 1);
		sp->chunks =
			xgrow(sp->chunks, sizeof(*sp->chunks), sp->nchunks + 1, &sp->chunks_cap);
		if (sp->nchunks) {
			sp->chunks[sp->nchunks] = sp->chunks[sp->nchunks - 1];
			sp->chunks[sp->nchunks - 1] = dst;
		} else {
			sp->chunks[0] = dst;
			sp->chunk_used = CHUNK_SIZE;
		}
		sp->nchunks++;
	} else {
		if (!sp->nchunks || sp->chunk_used + n + 1 > CHUNK_SIZE) {
			sp->chunks = xgrow(sp->chunks, sizeof(*sp->chunks), sp->nchunks + 1,
					   &sp->chunks_cap);
			sp->chunks[sp->nchunks++] = xmalloc(CHUNK_SIZE);
			sp->chunk_used = 0;
		}
		dst = sp->chunks[sp->nchunks - 1] + sp->chunk_used;
		sp->chunk_used += n + 1;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
	return dst;
}

static void rehash(struct strpool *sp)
{
	size_t i, nslots = sp->nslots ? sp->nslots * 2 : 1024;
	uint32_t *slots = xcalloc(nslots, sizeof(*slots));

	for (i = 0; i < sp->count; i++) {
		size_t j = hash_bytes(sp->strs[i], sp->lens[i]) & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(sp->slots);
	sp->slots = slots;
	sp->nslots = nslots;
}

struct strpool *strpool_new(void)
{
	struct strpool *sp = xcalloc(1, sizeof(*sp));

	strpool_intern(sp, "", 0);
	return sp;
}

void strpool_free(struct strpool *sp)
{
	size_t i;

	if (!sp)
		return;
	for (i = 0; i < sp->nchunks; i++)
		free(sp->chunks[i]);
	free(sp->chunks);
	free(sp->strs);
	free(sp->lens);
	free(sp->slots);
	free(sp);
}

static size_t probe(const struct strpool *sp, const char *s, size_t n, uint64_t h)
{
	size_t j = h & (sp->nslots - 1);

	while (sp->slots[j]) {
		uint32_t id = sp->slots[j] - 1;

		if (sp->lens[id] == n && memcmp(sp->strs[id], s, n) == 0)
			return j;
		j = (j + 1) & (sp->nslots - 1);
	}
	return j;
}

uint32_t strpool_intern(struct strpool *sp, const char *s, size_t n)
{
	uint64_t h = hash_bytes(s, n);
	size_t j;

	if ((sp->count + 1) * 2 > sp->nslots)
		rehash(sp);
	j = probe(sp, s, n, h);
	if (sp->slots[j])
		return sp->slots[j] - 1;
	if (sp->count == sp->cap) {
		sp->strs = xgrow(sp->strs, sizeof(*sp->strs), sp->count + 1, &sp->cap);
		sp->lens = xrealloc(sp->lens, sp->cap * sizeof(*sp->lens));
	}
	sp->strs[sp->count] = store_bytes(sp, s, n);
	sp->lens[sp->count] = (uint32_t)n;
	sp->slots[j] = (uint32_t)sp->count + 1;
	return (uint32_t)sp->count++;
}

uint32_t strpool_intern_cstr(struct strpool *sp, const char *s)
{
	return strpool_intern(sp, s, strlen(s));
}

uint32_t strpool_find(const struct strpool *sp, const char *s, size_t n)
{
	size_t j;

	if (!sp->nslots)
		return UINT32_MAX;
	j = probe(sp, s, n, hash_bytes(s, n));
	return sp->slots[j] ? sp->slots[j] - 1 : UINT32_MAX;
}

const char *strpool_get(const struct strpool *sp, uint32_t id)
{
	return id < sp->count ? sp->strs[id] : "";
}

size_t strpool_len(const struct strpool *sp, uint32_t id)
{
	return id < sp->count ? sp->lens[id] : 0;
}

size_t strpool_count(const struct strpool *sp)
{
	return sp->count;
}
