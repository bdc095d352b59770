/* The profiles of a version, loaded, and the configuration that pairs them. */
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "project/version_profiles.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"

void version_profiles_free(struct version_profiles *v)
{
	for (size_t i = 0; i < v->n; i++) {
		profile_free(v->p[i]);
		free(v->key[i]);
	}
	store_entries_free(v->e, v->n);
	free(v->p);
	free(v->key);
	memset(v, 0, sizeof(*v));
}

int version_profiles_load(struct store *s, const char *version, struct version_profiles *v)
{
	struct buf raw = BUF_INIT;
	int ret = store_list(s, version, &v->e, &v->n);

	if (ret < 0)
		return ret;
	v->p = xcalloc(v->n ? v->n : 1, sizeof(*v->p));
	v->key = xcalloc(v->n ? v->n : 1, sizeof(*v->key));
	for (size_t i = 0; i < v->n && ret == 0; i++) {
		buf_reset(&raw);
		ret = store_read(s, v->e[i].blob, &raw);
		if (ret == 0)
			ret = profile_load_mem(raw.data, raw.len, v->e[i].name, &v->p[i]);
		if (ret == 0)
			v->key[i] = profile_config_key(v->p[i]);
	}
	buf_release(&raw);
	return ret;
}

ssize_t version_profiles_find(const struct version_profiles *v, const char *key)
{
	ssize_t found = -1;

	for (size_t i = 0; i < v->n; i++)
		if (v->key[i] && strcmp(v->key[i], key) == 0)
			found = (ssize_t)i;
	return found;
}
