/* libveles: a project, its versions and profiles. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "profile/profile.h"
#include "project/profile_order.h"
#include "project/select.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

/* The project's warnings go where veles_set_log() says. */
static void project_warning(const char *msg, void *data)
{
	(void)data;
	api_log(VELES_LOG_WARNING, "%s", msg);
}

int veles_project_open(const char *path, veles_project **out)
{
	veles_project *h = xcalloc(1, sizeof(*h));
	int ret = project_open(path, &h->pr);

	h->pr.warn = project_warning;
	*out = NULL;
	if (ret < 0) {
		free(h);
		return ret;
	}
	*out = h;
	return 0;
}

void veles_project_free(veles_project *h)
{
	if (!h)
		return;
	project_release(&h->pr);
	free(h);
}

const char *veles_project_root(const veles_project *h)
{
	return h->pr.root;
}

struct versions_walk {
	veles_table *t;
	struct store *store;
	size_t col[8];
};

static int count_profiles(struct store *s, const char *version, size_t *n)
{
	struct store_entry *e;
	int ret = store_list(s, version, &e, n);

	if (ret == 0)
		store_entries_free(e, *n);
	return ret;
}

static int add_version(const struct vcs_version *v, void *arg)
{
	struct versions_walk *w = arg;
	size_t row = w->t->nrows, n = 0;
	struct buf parents = BUF_INIT;
	int ret = count_profiles(w->store, v->id, &n);

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < v->nparents && i < 4; i++)
		buf_addf(&parents, "%s%s", i ? " " : "", v->parents[i]);
	table_set_str(w->t, w->col[0], row, v->id);
	table_set_str(w->t, w->col[1], row, v->short_id);
	table_set_str(w->t, w->col[2], row, v->author);
	table_set_str(w->t, w->col[3], row, v->email);
	table_set_i64(w->t, w->col[4], row, v->time);
	table_set_str(w->t, w->col[5], row, v->summary);
	table_set_str(w->t, w->col[6], row, buf_str(&parents));
	table_set_i64(w->t, w->col[7], row, (int64_t)n);
	buf_release(&parents);
	return 0;
}

int veles_project_versions(veles_project *h, const char *rev, size_t limit, veles_table **out)
{
	static const char *const names[] = {"id",   "short_id", "author",  "email",
					    "time", "summary",	"parents", "profiles"};
	struct versions_walk w = {.t = table_new(NULL), .store = h->pr.store};
	char id[41];
	int ret = project_version(&h->pr, rev, id);

	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		w.col[i] = table_add(w.t, names[i], i == 4 || i == 7 ? VELES_I64 : VELES_STR);
	/* A project without a version yet has no history: an empty table. */
	if (ret == ERR_NOTFOUND && !rev)
		ret = 0;
	else if (ret == 0)
		ret = vcs_walk(h->pr.vcs, id, limit, add_version, &w);
	if (ret < 0) {
		veles_table_free(w.t);
		return ret;
	}
	table_finish(w.t);
	*out = w.t;
	return 0;
}

/* The header fields of the profile in @raw (the header alone when it is
 * compact), into row @row from column @col on. */
static void add_header(veles_table *t, size_t col, size_t row, const struct buf *raw,
		       const char *name)
{
	struct profile *p = NULL;
	int ret = profile_is_compact(raw->data, raw->len)
			  ? profile_decode_header((const uint8_t *)raw->data, raw->len, name, &p)
			  : profile_load_mem(raw->data, raw->len, name, &p);

	if (ret < 0) {
		api_log(VELES_LOG_WARNING, "%s", err_msg());
		return;
	}
	table_set_str(t, col, row, p->type);
	table_set_str(t, col + 1, row, p->cmd);
	table_set_str(t, col + 2, row, p->args);
	table_set_str(t, col + 3, row, p->workload);
	table_set_str(t, col + 4, row, p->collector);
	profile_free(p);
}

static const char *const header_names[] = {"type", "cmd", "args", "workload", "collector"};

int veles_project_profiles(veles_project *h, const char *rev, veles_table **out)
{
	veles_table *t = table_new(NULL);
	struct store_entry *e = NULL;
	struct buf raw = BUF_INIT;
	size_t n = 0, first;
	char id[41];
	int ret = project_version(&h->pr, rev, id);

	*out = NULL;
	table_add(t, "index", VELES_I64);
	table_add(t, "id", VELES_STR);
	table_add(t, "name", VELES_STR);
	first = t->ncols;
	for (size_t i = 0; i < ARRAY_SIZE(header_names); i++)
		table_add(t, header_names[i], VELES_STR);
	table_add(t, "version", VELES_STR);
	if (ret == 0)
		ret = store_list(h->pr.store, id, &e, &n);
	/* The order N@i counts in (format.sort_profiles_by). */
	if (ret == 0)
		order_stored(&h->pr, e, n);
	for (size_t i = 0; i < n && ret == 0; i++) {
		table_set_i64(t, 0, i, (int64_t)i);
		table_set_str(t, 1, i, e[i].blob);
		table_set_str(t, 2, i, e[i].name);
		table_set_str(t, first + ARRAY_SIZE(header_names), i, id);
		buf_reset(&raw);
		ret = store_read(h->pr.store, e[i].blob, &raw);
		if (ret == 0)
			add_header(t, first, i, &raw, e[i].name);
	}
	store_entries_free(e, n);
	buf_release(&raw);
	if (ret < 0) {
		veles_table_free(t);
		return ret;
	}
	table_finish(t);
	*out = t;
	return 0;
}

int veles_project_pending(veles_project *h, veles_table **out)
{
	veles_table *t = table_new(NULL);
	char **names;
	size_t n, first;
	struct buf raw = BUF_INIT;
	int ret = project_pending_list(&h->pr, &names, &n);

	*out = NULL;
	if (ret < 0) {
		veles_table_free(t);
		return ret;
	}
	table_add(t, "index", VELES_I64);
	table_add(t, "name", VELES_STR);
	table_add(t, "path", VELES_STR);
	first = t->ncols;
	for (size_t i = 0; i < ARRAY_SIZE(header_names); i++)
		table_add(t, header_names[i], VELES_STR);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", h->pr.jobs_dir, names[i]);

		table_set_i64(t, 0, i, (int64_t)i);
		table_set_str(t, 1, i, names[i]);
		table_set_str(t, 2, i, path);
		buf_reset(&raw);
		if (file_read_all(path, &raw) == 0)
			add_header(t, first, i, &raw, names[i]);
		else
			api_log(VELES_LOG_WARNING, "%s", err_msg());
		free(path);
	}
	project_pending_free(names, n);
	buf_release(&raw);
	table_finish(t);
	*out = t;
	return 0;
}

int veles_project_load(veles_project *h, const char *spec, const char *rev, veles_profile **out)
{
	struct profile_ref ref;
	struct profile *p;
	int ret;

	*out = NULL;
	if (!spec)
		return err_set(ERR_INVALID, "no profile named");
	ret = profile_ref_open(&h->pr, spec, rev, REF_DEFAULT_INDEX, &ref, &p);
	if (ret < 0)
		return ret;
	*out = api_profile_wrap(p, ref.kind == REF_STORED ? ref.entry.name : ref.path,
				profile_ref_id(&ref), ref.kind == REF_STORED ? ref.version : NULL);
	profile_ref_release(&ref);
	return 0;
}
