/* Profile selection: ids, pending paths, N@p, N@i, names and files. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "project/profile_order.h"
#include "project/project.h"
#include "project/select.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

const char *profile_short_id(const char *blob, char out[PROFILE_SHORT_ID + 1])
{
	size_t n = strnlen(blob, PROFILE_SHORT_ID);

	memcpy(out, blob, n);
	out[n] = '\0';
	return out;
}

bool profile_id_like(const char *spec)
{
	size_t n = strspn(spec, "0123456789abcdef");

	return n >= 4 && n <= 40 && spec[n] == '\0';
}

int profile_find_id(struct store *s, const char *version, const char *spec, struct store_entry *out,
		    char where[41])
{
	int ret = store_find_blob(s, version, spec, out, where);

	if (ret == ERR_NOTFOUND && version)
		ret = store_find_blob(s, NULL, spec, out, where);
	return ret;
}

int profile_digits_are_id(struct store *s, const char *version, const char *spec,
			  struct store_entry *out, char where[41])
{
	int ret;

	if (strspn(spec, "0123456789") != strlen(spec) || !profile_id_like(spec))
		return 0;
	ret = profile_find_id(s, version, spec, out, where);
	if (ret == ERR_NOTFOUND)
		return 0;
	return ret < 0 ? ret : 1;
}

/* The directory part of @path ("." when none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *profile_pending_name(const char *jobs_dir, const char *path)
{
	char *dir = dir_of(path), real_dir[PATH_MAX], real_jobs[PATH_MAX];
	const char *base = strrchr(path, '/');
	bool inside = realpath(dir, real_dir) && realpath(jobs_dir, real_jobs) &&
		      strcmp(real_dir, real_jobs) == 0;

	free(dir);
	base = base ? base + 1 : path;
	return inside && *base ? xstrdup(base) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int project_pending_list(const struct project *pr, char ***names, size_t *n)
{
	DIR *d = opendir(pr->jobs_dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0
				       : err_set(ERR_IO, "cannot read %s: %s", pr->jobs_dir,
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
	order_pending(pr, *names, *n);
	return 0;
}

void project_pending_free(char **names, size_t n)
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

static int pick_pending(struct project *pr, unsigned long idx, struct profile_ref *out)
{
	char **names;
	size_t n;
	int ret = project_pending_list(pr, &names, &n);

	if (ret < 0)
		return ret;
	if (idx >= n) {
		project_pending_free(names, n);
		return err_set(ERR_NOTFOUND,
			       "no pending profile %lu@p (there %s %zu; see `veles status`)", idx,
			       n == 1 ? "is" : "are", n);
	}
	out->kind = REF_PENDING;
	out->path = xasprintf("%s/%s", pr->jobs_dir, names[idx]);
	project_pending_free(names, n);
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

static int pick_stored(struct project *pr, const char *version, unsigned long idx, const char *name,
		       struct profile_ref *out)
{
	struct store_entry *e;
	size_t n, i;
	int ret = store_list(pr->store, version, &e, &n);

	if (ret < 0)
		return ret;
	if (!name)
		order_stored(pr, e, n);
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

static int resolve_named(struct project *pr, const char *spec, const char *version,
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
		pending = profile_pending_name(pr->jobs_dir, spec);
		out->kind = pending ? REF_PENDING : REF_FILE;
		out->path = pending ? xasprintf("%s/%s", pr->jobs_dir, pending) : xstrdup(spec);
		free(pending);
		return 0;
	}
	pending = xasprintf("%s/%s", pr->jobs_dir, spec);
	if (path_exists(pending)) {
		out->kind = REF_PENDING;
		out->path = pending;
		return 0;
	}
	free(pending);
	if (version && pick_stored(pr, version, 0, spec, out) == 0)
		return 0;
	if (profile_id_like(spec)) {
		struct store_entry e = {0};
		char where[41];
		int ret = profile_find_id(pr->store, version, spec, &e, where);

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

/* How many profiles N@p (@kind 'p') or N@i of @version counts over. */
static int count_of(const struct project *pr, int kind, const char *version, unsigned long *have)
{
	size_t n = 0;
	int ret = 0;

	if (kind == 'p') {
		char **names;

		ret = project_pending_list(pr, &names, &n);
		if (ret == 0)
			project_pending_free(names, n);
	} else if (version) {
		struct store_entry *e;

		ret = store_list(pr->store, version, &e, &n);
		if (ret == 0)
			store_entries_free(e, n);
	}
	*have = n;
	return ret;
}

int profile_ref_expand_ranges(const struct project *pr, const char *version, char **specs, size_t n,
			      char ***out, size_t *nout)
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
		ret = count_of(pr, kind, version, &have);
		/* Indices past the last profile are skipped, as Perun does. */
		for (unsigned long k = a; ret == 0 && k <= b && k < have; k++)
			push(out, nout, &cap, xasprintf("%lu@%c", k, kind));
	}
	if (ret < 0) {
		project_pending_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	}
	return ret;
}

int profile_ref_resolve(struct project *pr, const char *spec, const char *version,
			enum ref_default def, struct profile_ref *out)
{
	unsigned long idx;
	int kind = parse_index(spec, &idx);

	memset(out, 0, sizeof(*out));
	/* Digits alone that begin a registered profile's id are that id. */
	if (kind == 0 && !path_exists(spec)) {
		struct store_entry e = {0};
		char where[41];
		int ret = profile_digits_are_id(pr->store, version, spec, &e, where);

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
		return pick_pending(pr, idx, out);
	if (kind == 'i') {
		if (!version)
			return err_set(ERR_NOTFOUND, "no version to look up %s in", spec);
		return pick_stored(pr, version, idx, NULL, out);
	}
	return resolve_named(pr, spec, version, out);
}

int profile_ref_read(struct project *pr, const struct profile_ref *ref, struct buf *raw)
{
	if (ref->kind == REF_STORED)
		return store_read(pr->store, ref->entry.blob, raw);
	return file_read_all(ref->path, raw);
}

int profile_ref_open(struct project *pr, const char *spec, const char *rev, enum ref_default def,
		     struct profile_ref *ref, struct profile **out)
{
	char version[41];
	const char *in = NULL;
	int ret = 0;

	memset(ref, 0, sizeof(*ref));
	*out = NULL;
	if (rev)
		ret = vcs_resolve(pr->vcs, rev, version);
	else if (vcs_head(pr->vcs, version) == 0)
		in = version;
	if (rev && ret == 0)
		in = version;
	if (ret == 0)
		ret = profile_ref_resolve(pr, spec, in, def, ref);
	if (ret == 0)
		ret = profile_ref_load(pr, ref, out);
	if (ret < 0)
		profile_ref_release(ref);
	return ret;
}

int profile_ref_load(struct project *pr, const struct profile_ref *ref, struct profile **out)
{
	struct buf raw = BUF_INIT;
	int ret;

	if (ref->kind != REF_STORED)
		return profile_load(ref->path, out);
	ret = profile_ref_read(pr, ref, &raw);
	if (ret == 0)
		ret = profile_load_mem(raw.data, raw.len, ref->entry.name, out);
	buf_release(&raw);
	return ret;
}

const char *profile_ref_name(const struct profile_ref *ref)
{
	const char *slash;

	if (ref->kind == REF_STORED)
		return ref->entry.name;
	slash = strrchr(ref->path, '/');
	return slash ? slash + 1 : ref->path;
}

const char *profile_ref_id(const struct profile_ref *ref)
{
	return ref->kind == REF_STORED ? ref->entry.blob : "";
}

void profile_ref_label(struct buf *b, const char *id, const char *name, const char *version)
{
	char shortid[PROFILE_SHORT_ID + 1];

	if (id && *id)
		buf_addf(b, "%s ", profile_short_id(id, shortid));
	buf_adds(b, name);
	if (version && *version)
		buf_addf(b, " @%.7s", version);
}

void profile_ref_release(struct profile_ref *ref)
{
	free(ref->path);
	free(ref->entry.type);
	free(ref->entry.name);
	memset(ref, 0, sizeof(*ref));
}
