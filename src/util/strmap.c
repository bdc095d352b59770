#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot holding @key, or the free slot where it would go. */
static size_t find_slot(char *const *keys, size_t cap, const char *key)
{
	size_t i = hash_text(key) & (cap - 1);

	while (keys[i] && strcmp(keys[i], key) != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

static void grow(struct strmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	char **keys = xcalloc(cap, sizeof(*keys));
	size_t *vals = xcalloc(cap, sizeof(*vals));

	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			size_t s = find_slot(keys, cap, m->keys[i]);

			keys[s] = m->keys[i];
			vals[s] = m->vals[i];
		}
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
}

size_t strmap_get(const struct strmap *m, const char *key)
{
	size_t s;

	if (!m->cap)
		return SIZE_MAX;
	s = find_slot(m->keys, m->cap, key);
	return m->keys[s] ? m->vals[s] : SIZE_MAX;
}

size_t strmap_intern(struct strmap *m, const char *key, bool *added)
{
	size_t s;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	s = find_slot(m->keys, m->cap, key);
	if (added)
		*added = !m->keys[s];
	if (!m->keys[s]) {
		m->keys[s] = xstrdup(key);
		m->vals[s] = m->n++;
	}
	return m->vals[s];
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
