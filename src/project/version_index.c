/* Profiles per version, from one pass over the store (version_index.h). */
#include <stdlib.h>
#include <string.h>

#include "project/version_index.h"
#include "store/store.h"
#include "util/common.h"
#include "util/strpool.h"

static size_t vhash(const char *id, size_t mask)
{
	return (size_t)strtoull((char[17]){id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
					   id[8], id[9], id[10], id[11], id[12], id[13], id[14],
					   id[15], 0},
				NULL, 16) &
	       mask;
}

const struct version_slot *version_index_find(const struct version_index *m, const char *id)
{
	size_t j;

	if (!m->nslots)
		return NULL;
	for (j = vhash(id, m->nslots - 1); m->slots[j].e; j = (j + 1) & (m->nslots - 1))
		if (memcmp(m->slots[j].id, id, 40) == 0)
			return &m->slots[j];
	return NULL;
}

static void index_put(struct version_index *m, const char *id, const struct store_entry *e,
		      size_t n)
{
	size_t j, i;

	if ((m->count + 1) * 2 > m->nslots) {
		struct version_index bigger = {
			xcalloc(m->nslots ? m->nslots * 2 : 256, sizeof(struct version_slot)),
			m->nslots ? m->nslots * 2 : 256, 0, m->strs};

		for (i = 0; i < m->nslots; i++)
			if (m->slots[i].e) {
				j = vhash(m->slots[i].id, bigger.nslots - 1);
				while (bigger.slots[j].e)
					j = (j + 1) & (bigger.nslots - 1);
				bigger.slots[j] = m->slots[i];
				bigger.count++;
			}
		free(m->slots);
		*m = bigger;
	}
	j = vhash(id, m->nslots - 1);
	while (m->slots[j].e)
		j = (j + 1) & (m->nslots - 1);
	memcpy(m->slots[j].id, id, 41);
	m->slots[j].e = xcalloc(n ? n : 1, sizeof(*e));
	if (!m->strs)
		m->strs = strpool_new();
	for (i = 0; i < n; i++) {
		/* Pool strings stay put as the pool grows; the pool owns them. */
		m->slots[j].e[i].type =
			(char *)strpool_get(m->strs, strpool_intern_cstr(m->strs, e[i].type));
		m->slots[j].e[i].name =
			(char *)strpool_get(m->strs, strpool_intern_cstr(m->strs, e[i].name));
		memcpy(m->slots[j].e[i].blob, e[i].blob, 41);
	}
	m->slots[j].n = n;
	m->count++;
}

static int add_version(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	if (n)
		index_put(arg, version, e, n);
	return 0;
}

/* One line per version names only the types: the names and ids are left
 * out. */
static int add_types(const char *version, const struct store_entry *e, size_t n, void *arg)
{
	struct store_entry few[64];
	size_t i;

	if (n > ARRAY_SIZE(few))
		return add_version(version, e, n, arg);
	for (i = 0; i < n; i++)
		few[i] = (struct store_entry){e[i].type, (char *)"", ""};
	return add_version(version, few, n, arg);
}

void version_index_free(struct version_index *m)
{
	size_t i;

	for (i = 0; i < m->nslots; i++)
		free(m->slots[i].e);
	free(m->slots);
	strpool_free(m->strs);
}

int version_index_build(struct store *s, bool types_only, struct version_index *out)
{
	memset(out, 0, sizeof(*out));
	return store_each_version(s, types_only ? add_types : add_version, out);
}
