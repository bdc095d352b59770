/* Registering and removing profiles (add.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "project/add.h"
#include "project/project.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* --own: the version @p was collected on, which must be one of ours. */
static int own_version(struct project *pr, const struct profile_ref *ref, const struct profile *p,
		       char version[41])
{
	if (!p->origin || !*p->origin)
		return err_set(ERR_INVALID,
			       "%s does not say which version it was collected on; "
			       "register it with -m REV",
			       profile_ref_name(ref));
	if (vcs_resolve(pr->vcs, p->origin, version) < 0)
		return err_set(ERR_NOTFOUND,
			       "%s was collected on version %.7s, which this project does not have",
			       profile_ref_name(ref), p->origin);
	return 0;
}

/*
 * Loads and checks one profile; fills @data with what the store keeps. A
 * compact profile is checked a column at a time and stored as its bytes
 * are (its header written anew when its origin changes): ten million
 * resources are never in memory at once. With --own, @version is filled
 * from the profile's origin.
 */
static int prepare_one(struct project *pr, const struct profile_ref *ref, char version[41],
		       const struct add_opts *o, struct buf *data, char **type)
{
	bool compact = ref->kind != REF_STORED && profile_file_is_compact(ref->path);
	struct buf raw = BUF_INIT;
	struct profile *p = NULL;
	int ret = compact ? file_read_all(ref->path, &raw) : profile_ref_load(pr, ref, &p);

	if (ret == 0 && compact)
		ret = profile_decode_check((const uint8_t *)raw.data, raw.len,
					   profile_ref_name(ref), &p);
	if (ret == 0 && o->own)
		ret = own_version(pr, ref, p, version);
	if (ret == 0 && p->origin && strcmp(p->origin, version) != 0) {
		if (!o->force)
			ret = err_set(ERR_INVALID,
				      "%s was collected on version %.7s, not %.7s; "
				      "use -m %.7s, or --force to file it under %.7s anyway",
				      profile_ref_name(ref), p->origin, version, p->origin,
				      version);
		else
			project_warn(pr, "%s was collected on %.7s; filing it under %.7s",
				     profile_ref_name(ref), p->origin, version);
	}
	if (ret < 0) {
		profile_free(p);
		buf_release(&raw);
		return ret;
	}
	if (compact && p->origin && strcmp(p->origin, version) == 0) {
		*data = raw;
		raw = (struct buf)BUF_INIT;
	} else if (compact) {
		ret = profile_compact_with_origin((const uint8_t *)raw.data, raw.len, version,
						  data);
	} else {
		free(p->origin);
		p->origin = xstrdup(version);
		ret = profile_encode(p, data);
	}
	*type = xstrdup(p->type);
	profile_free(p);
	buf_release(&raw);
	return ret;
}

void add_set_init(struct add_set *a, size_t n)
{
	a->n = n;
	a->refs = xcalloc(n + 1, sizeof(*a->refs));
	a->items = xcalloc(n + 1, sizeof(*a->items));
	a->data = xcalloc(n + 1, sizeof(*a->data));
	a->types = xcalloc(n + 1, sizeof(*a->types));
	a->versions = xcalloc(n + 1, sizeof(*a->versions));
	a->added = xcalloc(n + 1, sizeof(*a->added));
	a->blobs = xcalloc(n + 1, sizeof(*a->blobs));
}

void add_set_free(struct add_set *a, size_t done)
{
	for (size_t i = 0; i < done; i++) {
		profile_ref_release(&a->refs[i]);
		buf_release(&a->data[i]);
		free(a->types[i]);
	}
	free(a->refs);
	free(a->items);
	free(a->data);
	free(a->types);
	free(a->versions);
	free(a->added);
	free(a->blobs);
}

/* Resolves and loads profile @i of @a, named @spec. */
int add_prepare(struct project *pr, const struct add_opts *o, const char *version,
		struct add_set *a, size_t i, const char *spec)
{
	int ret;

	memcpy(a->versions[i], version, 41);
	ret = profile_ref_resolve(pr, spec, version, REF_DEFAULT_PENDING, &a->refs[i]);
	if (ret == 0 && a->refs[i].kind == REF_STORED)
		ret = err_set(ERR_EXISTS, "%s is already registered (with %.7s)", spec,
			      a->refs[i].version);
	if (ret == 0)
		ret = prepare_one(pr, &a->refs[i], a->versions[i], o, &a->data[i], &a->types[i]);
	if (ret < 0)
		return ret;
	a->items[i].type = a->types[i];
	a->items[i].name = profile_ref_name(&a->refs[i]);
	a->items[i].data = a->data[i].data;
	a->items[i].len = a->data[i].len;
	a->items[i].compressed = true;
	return 0;
}

/*
 * Registers the profiles version by version: one store update each (with
 * --own a matrix run over several versions fills several), in the order
 * the versions first appear.
 */
int add_register(struct project *pr, const struct add_opts *o, struct add_set *a)
{
	bool *done = xcalloc(a->n + 1, sizeof(*done));
	size_t *pick = xcalloc(a->n + 1, sizeof(*pick));
	struct store_item *items = xcalloc(a->n + 1, sizeof(*items));
	bool *added = xcalloc(a->n + 1, sizeof(*added));
	char(*blobs)[41] = xcalloc(a->n + 1, sizeof(*blobs));
	int ret = 0;

	for (size_t i = 0; i < a->n && ret == 0; i++) {
		size_t k = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < a->n; j++) {
			if (done[j] || strcmp(a->versions[j], a->versions[i]) != 0)
				continue;
			done[j] = true;
			pick[k] = j;
			items[k++] = a->items[j];
		}
		ret = store_add(pr->store, a->versions[i], items, k, added, blobs);
		for (size_t m = 0; m < k && ret == 0; m++) {
			a->added[pick[m]] = added[m];
			memcpy(a->blobs[pick[m]], blobs[m], 41);
		}
		if (ret == 0 && o->registered)
			o->registered(o->arg, a->versions[i], items, added, blobs, k);
	}
	free(done);
	free(pick);
	free(items);
	free(added);
	free(blobs);
	return ret;
}

/* Checks that a stored ref belongs to @version (a profile id found in
 * another version must not remove a same-named profile here). */
int add_stored_in_version(struct project *pr, const char *version, const struct profile_ref *ref)
{
	struct store_entry *e;
	size_t n, i;
	int ret = store_list(pr->store, version, &e, &n);

	if (ret < 0)
		return ret;
	ret = err_set(ERR_NOTFOUND, "%s is not registered with version %.7s", profile_ref_name(ref),
		      version);
	for (i = 0; i < n; i++)
		if (strcmp(e[i].blob, ref->entry.blob) == 0 &&
		    strcmp(e[i].name, ref->entry.name) == 0)
			ret = 0;
	store_entries_free(e, n);
	return ret;
}
