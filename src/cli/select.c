#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/profile-order.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "project/select.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int pending_list(const struct cli_ctx *ctx, char ***names, size_t *n)
{
	DIR *d = opendir(ctx->jobs_dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0
				       : err_set(ERR_IO, "cannot read %s: %s", ctx->jobs_dir,
						 strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".perf"))
			continue;
		*names = xgrow(*names, sizeof(**names), *n + 1, &cap);
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_str);
	order_pending(ctx, *names, *n);
	return 0;
}

void pending_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Parses "N", "N@p" or "N@i"; returns the kind letter ('p', 'i', or 0 for
 * a bare number) or -1 when @spec is not an index. */
static int parse_index(const char *spec, unsigned long *idx)
{
	char *end;

	if (spec[0] < '0' || spec[0] > '9')
		return -1;
	errno = 0;
	*idx = strtoul(spec, &end, 10);
	if (errno)
		return -1;
	if (*end == '\0')
		return 0;
	if (end[0] == '@' && (end[1] == 'p' || end[1] == 'i') && end[2] == '\0')
		return end[1];
	return -1;
}

static int pick_pending(struct cli_ctx *ctx, unsigned long idx, struct profile_ref *out)
{
	char **names;
	size_t n;
	int ret = pending_list(ctx, &names, &n);

	if (ret < 0)
		return ret;
	if (idx >= n) {
		pending_free(names, n);
		return err_set(ERR_NOTFOUND,
			       "no pending profile %lu@p (there %s %zu; see `veles status`)", idx,
			       n == 1 ? "is" : "are", n);
	}
	out->kind = REF_PENDING;
	out->path = xasprintf("%s/%s", ctx->jobs_dir, names[idx]);
	pending_free(names, n);
	return 0;
}

static void take_entry(struct profile_ref *out, const char *version, const struct store_entry *e)
{
	out->kind = REF_STORED;
	memcpy(out->version, version, 41);
	out->entry.type = xstrdup(e->type);
	out->entry.name = xstrdup(e->name);
	memcpy(out->entry.blob, e->blob, 41);
}

static int pick_stored(struct cli_ctx *ctx, const char *version, unsigned long idx,
		       const char *name, struct profile_ref *out)
{
	struct store_entry *e;
	size_t n, i;
	int ret = store_list(ctx->store, version, &e, &n);

	if (ret < 0)
		return ret;
	if (!name)
		order_stored(ctx, e, n);
	ret = ERR_NOTFOUND;
	for (i = 0; i < n; i++) {
		if (name ? strcmp(e[i].name, name) == 0 : i == idx) {
			take_entry(out, version, &e[i]);
			ret = 0;
			break;
		}
	}
	if (ret < 0 && !name)
		err_set(ERR_NOTFOUND,
			"no profile %lu@i in version %.7s (it has %zu; see `veles status`)", idx,
			version, n);
	store_entries_free(e, n);
	return ret;
}

static int resolve_named(struct cli_ctx *ctx, const char *spec, const char *version,
			 struct profile_ref *out)
{
	char *pending;

	if (strchr(spec, '/') || (path_exists(spec) && !path_is_dir(spec))) {
		if (!path_exists(spec))
			return err_set(ERR_NOTFOUND, "no such profile file: %s", spec);
		if (path_is_dir(spec))
			return err_set(ERR_INVALID, "%s is a directory, not a profile", spec);
		/* .veles/jobs/x.perf is pending however it is spelled: adding
		 * it must not leave it behind to be added again. */
		pending = profile_pending_name(ctx->jobs_dir, spec);
		out->kind = pending ? REF_PENDING : REF_FILE;
		out->path = pending ? xasprintf("%s/%s", ctx->jobs_dir, pending) : xstrdup(spec);
		free(pending);
		return 0;
	}
	pending = xasprintf("%s/%s", ctx->jobs_dir, spec);
	if (path_exists(pending)) {
		out->kind = REF_PENDING;
		out->path = pending;
		return 0;
	}
	free(pending);
	if (version && pick_stored(ctx, version, 0, spec, out) == 0)
		return 0;
	if (profile_id_like(spec)) {
		struct store_entry e = {0};
		char where[41];
		int ret = profile_find_id(ctx->store, version, spec, &e, where);

		if (ret == 0) {
			/* rm re-checks against its own version. */
			take_entry(out, where, &e);
			free(e.type);
			free(e.name);
			return 0;
		}
		if (ret != ERR_NOTFOUND)
			return ret;
	}
	return err_set(ERR_NOTFOUND,
		       "no profile '%s': not an index (N@p, N@i), a file, a pending or registered "
		       "profile name, or a profile id",
		       spec);
}

/* "A@x-B@x": the kind letter and the two indices, or 0 when @spec is no
 * range. */
static int parse_range(const char *spec, unsigned long *a, unsigned long *b)
{
	const char *dash = strchr(spec, '-');
	char *first;
	int ka, kb;

	if (!dash)
		return 0;
	first = xstrndup(spec, (size_t)(dash - spec));
	ka = parse_index(first, a);
	kb = parse_index(dash + 1, b);
	free(first);
	return ka > 0 && ka == kb ? ka : 0;
}

static void push(char ***v, size_t *n, size_t *cap, char *s)
{
	*v = xgrow(*v, sizeof(**v), *n + 2, cap);
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

int ref_expand_ranges(struct cli_ctx *ctx, const char *version, char **specs, size_t n, char ***out,
		      size_t *nout)
{
	size_t cap = 0;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	push(out, nout, &cap, NULL);
	*nout = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		unsigned long a, b, have = 0;
		int kind = path_exists(specs[i]) ? 0 : parse_range(specs[i], &a, &b);

		if (!kind) {
			push(out, nout, &cap, xstrdup(specs[i]));
			continue;
		}
		if (kind == 'p') {
			char **names;
			size_t np;

			ret = pending_list(ctx, &names, &np);
			if (ret == 0)
				pending_free(names, np);
			have = np;
		} else if (version) {
			struct store_entry *e;
			size_t ne;

			ret = store_list(ctx->store, version, &e, &ne);
			if (ret == 0)
				store_entries_free(e, ne);
			have = ne;
		}
		/* Indices past the last profile are skipped, as Perun does. */
		for (unsigned long k = a; ret == 0 && k <= b && k < have; k++)
			push(out, nout, &cap, xasprintf("%lu@%c", k, kind));
	}
	if (ret < 0) {
		pending_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	}
	return ret;
}

int ref_resolve(struct cli_ctx *ctx, const char *spec, const char *version, enum ref_default def,
		struct profile_ref *out)
{
	unsigned long idx;
	int kind = parse_index(spec, &idx);

	memset(out, 0, sizeof(*out));
	/* Digits alone that begin a registered profile's id are that id. */
	if (kind == 0 && !path_exists(spec)) {
		struct store_entry e = {0};
		char where[41];
		int ret = profile_digits_are_id(ctx->store, version, spec, &e, where);

		if (ret < 0)
			return ret;
		if (ret > 0) {
			take_entry(out, where, &e);
			free(e.type);
			free(e.name);
			return 0;
		}
		kind = def == REF_DEFAULT_PENDING ? 'p' : 'i';
	}
	if (kind == 'p')
		return pick_pending(ctx, idx, out);
	if (kind == 'i') {
		if (!version)
			return err_set(ERR_NOTFOUND, "no version to look up %s in", spec);
		return pick_stored(ctx, version, idx, NULL, out);
	}
	return resolve_named(ctx, spec, version, out);
}

int ref_read(struct cli_ctx *ctx, const struct profile_ref *ref, struct buf *raw)
{
	if (ref->kind == REF_STORED)
		return store_read(ctx->store, ref->entry.blob, raw);
	return file_read_all(ref->path, raw);
}

int ref_open(struct cli_ctx *ctx, const char *spec, const char *rev, enum ref_default def,
	     struct profile_ref *ref, struct profile **out)
{
	char version[41];
	const char *in = NULL;
	int ret = 0;

	memset(ref, 0, sizeof(*ref));
	*out = NULL;
	if (rev)
		ret = vcs_resolve(ctx->vcs, rev, version);
	else if (vcs_head(ctx->vcs, version) == 0)
		in = version;
	if (rev && ret == 0)
		in = version;
	if (ret == 0)
		ret = ref_resolve(ctx, spec, in, def, ref);
	if (ret == 0)
		ret = ref_load(ctx, ref, out);
	if (ret < 0)
		ref_release(ref);
	return ret;
}

int ref_load(struct cli_ctx *ctx, const struct profile_ref *ref, struct profile **out)
{
	struct buf raw = BUF_INIT;
	int ret;

	if (ref->kind != REF_STORED)
		return profile_load(ref->path, out);
	ret = ref_read(ctx, ref, &raw);
	if (ret == 0)
		ret = profile_load_mem(raw.data, raw.len, ref->entry.name, out);
	buf_release(&raw);
	return ret;
}

const char *ref_name(const struct profile_ref *ref)
{
	const char *slash;

	if (ref->kind == REF_STORED)
		return ref->entry.name;
	slash = strrchr(ref->path, '/');
	return slash ? slash + 1 : ref->path;
}

const char *ref_id(const struct profile_ref *ref)
{
	return ref->kind == REF_STORED ? ref->entry.blob : "";
}

void ref_label(struct buf *b, const char *id, const char *name, const char *version)
{
	char shortid[PROFILE_SHORT_ID + 1];

	if (id && *id)
		buf_addf(b, "%s ", profile_short_id(id, shortid));
	buf_adds(b, name);
	if (version && *version)
		buf_addf(b, " @%.7s", version);
}

void ref_release(struct profile_ref *ref)
{
	free(ref->path);
	free(ref->entry.type);
	free(ref->entry.name);
	memset(ref, 0, sizeof(*ref));
}
