/*
 * format.sort_profiles_by: Perun numbers pending and registered profiles in
 * the order of this key, descending (newest first for time), and so do we
 * once it is set. Values that tie keep our own order.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/profile-order.h"
#include "profile/profile.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"

const char *const order_keys[] = {"realpath",  "type",	   "time",   "cmd", "workload",
				  "collector", "checksum", "source", NULL};

int order_key_valid(const char *key)
{
	for (const char *const *k = order_keys; *k; k++)
		if (strcmp(*k, key) == 0)
			return 1;
	return 0;
}

char *order_key_configured(const struct cli_ctx *ctx)
{
	static bool warned;
	char *key = cli_config_string(ctx, "format.sort_profiles_by");

	if (key && !order_key_valid(key)) {
		if (!warned)
			cli_warn("format.sort_profiles_by: '%s' is not a key to sort by "
				 "(realpath, type, time, cmd, workload, collector, checksum, "
				 "source); profiles keep their usual order",
				 key);
		warned = true;
		free(key);
		return NULL;
	}
	return key;
}

/* The last "YYYY-MM-DD-HH-MM-SS" in a profile's name (how collectors name
 * them, Perun's too), or NULL. */
static char *name_stamp(const char *name)
{
	static const char shape[] = "dddd-dd-dd-dd-dd-dd";
	size_t n = strlen(name), w = sizeof(shape) - 1;

	for (size_t at = n >= w ? n - w + 1 : 0; at-- > 0;) {
		size_t k = 0;

		while (k < w && (shape[k] == 'd' ? isdigit((unsigned char)name[at + k])
						 : name[at + k] == '-'))
			k++;
		if (k == w)
			return xstrndup(name + at, w);
	}
	return NULL;
}

static char *file_stamp(const char *path)
{
	struct stat st;
	struct tm tm;
	char out[32];

	if (stat(path, &st) < 0)
		return xstrdup("");
	localtime_r(&st.st_mtime, &tm);
	strftime(out, sizeof(out), "%Y-%m-%d-%H-%M-%S", &tm);
	return xstrdup(out);
}

/* A header value of @p for @key (type, cmd, workload, collector). */
static char *header_value(const struct profile *p, const char *key)
{
	const char *v = NULL;

	if (!p)
		return xstrdup("");
	if (strcmp(key, "type") == 0)
		v = p->type;
	else if (strcmp(key, "cmd") == 0)
		v = p->cmd;
	else if (strcmp(key, "workload") == 0)
		v = p->workload;
	else if (strcmp(key, "collector") == 0)
		v = p->collector;
	return xstrdup(v ? v : "");
}

static bool needs_header(const char *key)
{
	return strcmp(key, "cmd") == 0 || strcmp(key, "workload") == 0 ||
	       strcmp(key, "collector") == 0;
}

struct keyed {
	char *v;
	size_t at; /* the position in our own order */
};

/* Descending, as Perun sorts; ties as they were. */
static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(b->v, a->v);

	return c ? c : (a->at > b->at) - (a->at < b->at);
}

static char *pending_value(const struct cli_ctx *ctx, const char *name, const char *key)
{
	char *path, *v;
	struct profile *p = NULL;

	if (strcmp(key, "source") == 0 || strcmp(key, "realpath") == 0)
		return xstrdup(name);
	if (strcmp(key, "checksum") == 0)
		return xstrdup(""); /* not stored yet: no id */
	path = xasprintf("%s/%s", ctx->jobs_dir, name);
	if (strcmp(key, "time") == 0) {
		v = name_stamp(name);
		if (!v)
			v = file_stamp(path);
	} else {
		if (profile_load(path, &p) < 0)
			p = NULL;
		v = header_value(p, key);
		profile_free(p);
	}
	free(path);
	return v;
}

void order_pending(const struct cli_ctx *ctx, char **names, size_t n)
{
	char *key = n > 1 ? order_key_configured(ctx) : NULL;
	struct keyed *k;

	if (!key)
		return;
	k = xcalloc(n, sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){pending_value(ctx, names[i], key), i};
	qsort(k, n, sizeof(*k), cmp_keyed);
	char **sorted = xcalloc(n, sizeof(*sorted));

	for (size_t i = 0; i < n; i++) {
		sorted[i] = names[k[i].at];
		free(k[i].v);
	}
	memcpy(names, sorted, n * sizeof(*names));
	free(sorted);
	free(k);
	free(key);
}

static char *stored_value(struct cli_ctx *ctx, const struct store_entry *e, const char *key)
{
	struct buf raw = BUF_INIT;
	struct profile *p = NULL;
	char *v;

	if (strcmp(key, "source") == 0)
		return xstrdup(e->name);
	if (strcmp(key, "checksum") == 0 || strcmp(key, "realpath") == 0)
		return xstrdup(e->blob);
	if (strcmp(key, "type") == 0)
		return xstrdup(e->type);
	if (strcmp(key, "time") == 0) {
		v = name_stamp(e->name);
		return v ? v : xstrdup("");
	}
	if (needs_header(key) && store_read(ctx->store, e->blob, &raw) == 0 &&
	    profile_load_mem(raw.data, raw.len, e->name, &p) < 0)
		p = NULL;
	buf_release(&raw);
	v = header_value(p, key);
	profile_free(p);
	return v;
}

void order_stored(struct cli_ctx *ctx, struct store_entry *e, size_t n)
{
	char *key = n > 1 ? order_key_configured(ctx) : NULL;
	struct keyed *k;
	struct store_entry *sorted;

	if (!key)
		return;
	k = xcalloc(n, sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){stored_value(ctx, &e[i], key), i};
	qsort(k, n, sizeof(*k), cmp_keyed);
	sorted = xcalloc(n, sizeof(*sorted));
	for (size_t i = 0; i < n; i++) {
		sorted[i] = e[k[i].at];
		free(k[i].v);
	}
	memcpy(e, sorted, n * sizeof(*e));
	free(sorted);
	free(k);
	free(key);
}
