/* Reading the history of a metric: one walk of the versions, each
 * version's profiles loaded once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history.h"
#include "profile/profile.h"
#include "project/history_load.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

struct walked {
	struct history_version *v; /* newest first, as walked */
	size_t n, cap;
};

static int remember(const struct vcs_version *ver, void *arg)
{
	struct walked *w = arg;
	struct history_version *hv;

	w->v = xgrow(w->v, sizeof(*w->v), w->n + 1, &w->cap);
	hv = &w->v[w->n++];
	memset(hv, 0, sizeof(*hv));
	memcpy(hv->id, ver->id, 41);
	/* A plain directory's versions are numbered, as `veles log` says. */
	if (ver->counter)
		snprintf(hv->label, sizeof(hv->label), "v%u (%.7s)", ver->counter, ver->id);
	else
		snprintf(hv->label, sizeof(hv->label), "%.7s", ver->id);
	hv->time = ver->time;
	hv->summary = xstrdup(ver->summary ? ver->summary : "");
	return 0;
}

struct point_check {
	history_point_fn fn;
	void *arg;
};

static int add_profiles(struct store *s, struct history *h, size_t at, const char *match,
			const struct point_check *pc, struct buf *raw)
{
	struct store_entry *e;
	size_t n;
	int ret = store_list(s, h->versions[at].id, &e, &n);

	for (size_t i = 0; i < n && ret == 0; i++) {
		struct profile *p;

		buf_reset(raw);
		ret = store_read(s, e[i].blob, raw);
		if (ret == 0)
			ret = profile_load_mem(raw->data, raw->len, e[i].name, &p);
		if (ret == 0) {
			ret = history_add_profile(h, at, p, match, pc->fn, pc->arg);
			profile_free(p);
		}
	}
	store_entries_free(e, n);
	return ret;
}

int history_load(struct vcs *v, struct store *s, const char *from, size_t limit, const char *match,
		 history_point_fn fn, void *arg, struct history *h)
{
	struct point_check pc = {fn, arg};
	struct walked w = {0};
	struct buf raw = BUF_INIT;
	int ret = vcs_walk(v, from, limit, remember, &w);

	for (size_t k = w.n; k > 0 && ret == 0; k--) {
		struct history_version *hv = &w.v[k - 1];
		size_t at = history_add_version(h, hv->id, hv->label, hv->time, hv->summary);

		ret = add_profiles(s, h, at, match, &pc, &raw);
	}
	for (size_t k = 0; k < w.n; k++)
		free(w.v[k].summary);
	free(w.v);
	buf_release(&raw);
	if (ret == 0 && h->ns == 0)
		ret = err_set(ERR_NOTFOUND,
			      "no profile in these versions has a location matching '%s'", match);
	if (ret == 0)
		history_finish(h);
	return ret;
}
