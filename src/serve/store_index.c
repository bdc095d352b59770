/* The store index: when to refresh it, and one refresh (store_index.h). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "project/project.h"
#include "project/settings.h"
#include "project/version_profiles.h"
#include "serve/db.h"
#include "serve/srv.h"
#include "serve/store_index.h"
#include "serve/store_index_priv.h"
#include "serve/util.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/git_lazy.h"
#include "vcs/vcs.h"

static void add_oid(struct buf *b, const char *name, const git_oid *id)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), id);
	buf_addf(b, "%s=%s\n", name, hex);
}

static void add_refs(struct buf *b, git_repository *repo, const char *glob)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;

	if (git_reference_iterator_glob_new(&it, repo, glob) < 0)
		return;
	while (git_reference_next(&ref, it) == 0) {
		const git_oid *id = git_reference_target(ref);

		if (id)
			add_oid(b, git_reference_name(ref), id);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
}

/*
 * What the index depends on, cheaply: the ledger's head (the profiles),
 * HEAD and the branches and tags (the versions). A few ref reads, no
 * object: this is what every request pays when nothing changed.
 */
static void stamp(struct project *p, struct buf *b)
{
	git_repository *repo = vcs_store_repo(p->vcs);
	char head[41];
	git_oid id;

	if (git_reference_name_to_id(&id, repo, "refs/veles/ledger") == 0)
		add_oid(b, "ledger", &id);
	if (vcs_head(p->vcs, head) == 0)
		buf_addf(b, "HEAD=%s\n", head);
	add_refs(b, repo, "refs/heads/*");
	add_refs(b, repo, "refs/tags/*");
	err_clear();
}

static int load_series(void *arg, const struct db_row *row)
{
	struct ix_run *x = arg;
	bool added;
	size_t i = strmap_intern(&x->series, row->v[1].s, &added);

	XGROW(x->series_id, i + 1, x->series_cap);
	x->series_id[i] = row->v[0].i;
	return 0;
}

static int take_text(void *arg, const struct db_row *row)
{
	if (row->n && row->v[0].type == DB_TEXT)
		buf_adds(arg, row->v[0].s);
	return 1;
}

static int state_read(struct db *db, const char *name, struct buf *out)
{
	int ret = db_query(db, "SELECT value FROM ix_state WHERE name = ?", &DB_TEXT(name), 1,
			   take_text, out);

	return ret > 0 ? 0 : ret; /* take_text stops at the first row */
}

static int state_write(struct db *db, const char *name, const char *value)
{
	struct db_val v[2] = {DB_TEXT(name), DB_TEXT(value)};
	int ret = db_exec(db, "DELETE FROM ix_state WHERE name = ?", v, 1, NULL);

	return ret < 0 ? ret
		       : db_exec(db, "INSERT INTO ix_state (name, value) VALUES (?, ?)", v, 2,
				 NULL);
}

/* The ledger's head as the stamp names it, "" without a ledger. */
static void ledger_of(const char *stamp_text, char hex[41])
{
	hex[0] = '\0';
	if (strncmp(stamp_text, "ledger=", 7) == 0)
		snprintf(hex, 41, "%.40s", stamp_text + 7);
}

static int run_init(struct ix_run *x, struct serve *s)
{
	memset(x, 0, sizeof(*x));
	x->db = s->db;
	x->p = s->proj;
	check_params_default(&x->opts.cp);
	/* The verdicts are check's as configured for the project; a broken
	 * configuration falls back to the defaults rather than hiding the
	 * history. */
	if (check_strategies_load(s->proj, &x->strategies) < 0)
		err_clear();
	x->opts.strategies = &x->strategies;
	int ret = db_query_int(x->db, "SELECT MAX(seq) FROM ix_versions", NULL, 0, 0, &x->max_seq);

	if (ret == 0)
		ret = db_query_int(x->db, "SELECT MAX(id) FROM ix_series", NULL, 0, 0,
				   &x->max_series);
	if (ret == 0)
		ret = db_query(x->db, "SELECT id, skey FROM ix_series", NULL, 0, load_series, x);
	return ret;
}

static void run_free(struct ix_run *x)
{
	strmap_free(&x->series);
	free(x->series_id);
	check_strategies_free(&x->strategies);
}

static int update(struct serve *s, const char *now)
{
	struct buf old = BUF_INIT;
	char old_ledger[41], new_ledger[41];
	struct ix_run x;
	int ret = db_begin(s->db);

	if (ret < 0)
		return ret;
	ret = run_init(&x, s);
	if (ret == 0)
		ret = state_read(s->db, "stamp", &old);
	ledger_of(buf_str(&old), old_ledger);
	ledger_of(now, new_ledger);
	if (ret == 0 && strcmp(buf_str(&old), now) != 0)
		ret = ix_refs_update(&x);
	if (ret == 0 && strcmp(old_ledger, new_ledger) != 0)
		ret = ix_profiles_update(&x, old_ledger);
	if (ret == 0)
		ret = state_write(s->db, "stamp", now);
	/* check's verdicts are made in the background (start_verdicts). */
	if (ret == 0)
		ret = ix_due_count(&x, &s->ix_due);
	if (ret == 0) {
		ret = db_commit(s->db);
	} else {
		db_rollback(s->db);
	}
	if (ret == 0)
		s->ix_last = x.stats;
	/* Points may have changed here, or by another server on the same
	 * database: the cached histories are made again. */
	if (ret == 0)
		s->ix_gen++;
	run_free(&x);
	buf_release(&old);
	return ret < 0 ? err_prefix(ret, "cannot index the project's store") : 0;
}

/* The thread's verdicts made and not yet written. */
#define VERDICTS_PER_WRITE 16

struct verdicts_work {
	struct ix_run x;
	struct ix_due_list due;
	size_t at; /* the next of due */
	struct ix_verdict made[VERDICTS_PER_WRITE];
	size_t nmade;
};

static int flush(struct serve *s, struct verdicts_work *w)
{
	int ret = ix_verdicts_write(&w->x, w->made, w->nmade);

	if (w->nmade)
		__atomic_add_fetch(&s->ix_vgen, 1, __ATOMIC_RELEASE);
	for (size_t i = 0; i < w->nmade; i++)
		ix_verdict_free(&w->made[i]);
	w->nmade = 0;
	return ret;
}

static void verdicts_failed(struct serve *s)
{
	srv_log(s, "store index: cannot make check's verdicts: %s", err_msg());
}

/* One verdict due: false when there is none left (or an error). */
static bool verdict_step(struct serve *s, struct verdicts_work *w)
{
	struct version_profiles vp, pp;
	int ret = 0;

	/* Those made are written before the due are read again. */
	if (w->at >= w->due.n && (ret = flush(s, w)) < 0)
		verdicts_failed(s);
	pthread_mutex_lock(&s->proj_mu);
	if (ret == 0 && w->at >= w->due.n) {
		w->at = 0;
		if ((ret = ix_due_batch(&w->x, &w->due)) < 0)
			verdicts_failed(s);
	}
	if (ret == 0 && w->due.n && (ret = ix_verdict_load(&w->x, &w->due.v[w->at], &vp, &pp)) < 0)
		verdicts_failed(s);
	if (ret < 0 || !w->due.n) {
		s->ix_busy = false;
		pthread_mutex_unlock(&s->proj_mu);
		return false;
	}
	pthread_mutex_unlock(&s->proj_mu);
	/* check's statistics without the lock: requests go on meanwhile. */
	ix_verdict_make(&w->x, &w->due.v[w->at++], &vp, &pp, &w->made[w->nmade++]);
	version_profiles_free(&vp);
	version_profiles_free(&pp);
	if (w->nmade == VERDICTS_PER_WRITE && (ret = flush(s, w)) < 0) {
		verdicts_failed(s);
		pthread_mutex_lock(&s->proj_mu);
		s->ix_busy = false;
		pthread_mutex_unlock(&s->proj_mu);
		return false;
	}
	return true;
}

/* The verdicts due, newest first, one at a time. */
static void *verdicts_thread(void *arg)
{
	struct serve *s = arg;
	struct verdicts_work *w = xcalloc(1, sizeof(*w));
	int ret;

	pthread_mutex_lock(&s->proj_mu);
	ret = run_init(&w->x, s);
	if (ret < 0) {
		s->ix_busy = false;
		verdicts_failed(s);
	}
	pthread_mutex_unlock(&s->proj_mu);
	while (ret == 0 && !s->stopping && verdict_step(s, w))
		;
	if (flush(s, w) < 0)
		verdicts_failed(s);
	if (s->stopping) {
		pthread_mutex_lock(&s->proj_mu);
		s->ix_busy = false;
		pthread_mutex_unlock(&s->proj_mu);
	}
	free(w->due.v);
	run_free(&w->x);
	free(w);
	return NULL;
}

static void start_verdicts(struct serve *s)
{
	if (s->ix_due <= 0 || s->ix_busy || s->stopping)
		return;
	s->ix_due = 0; /* the thread makes them all, those due later too */
	if (s->ix_started)
		pthread_join(s->ix_thread, NULL); /* it has ended: ix_busy is false */
	s->ix_started = pthread_create(&s->ix_thread, NULL, verdicts_thread, s) == 0;
	s->ix_busy = s->ix_started;
}

void store_index_settle(struct serve *s)
{
	for (;;) {
		bool busy;

		pthread_mutex_lock(&s->proj_mu);
		busy = s->ix_busy;
		pthread_mutex_unlock(&s->proj_mu);
		if (!busy || s->stopping)
			return;
		usleep(20000);
	}
}

void store_index_stop(struct serve *s)
{
	if (s->ix_started)
		pthread_join(s->ix_thread, NULL);
	s->ix_started = false;
	for (size_t i = 0; i < STORE_INDEX_CACHED; i++)
		free(s->ix_cache[i].text);
	memset(s->ix_cache, 0, sizeof(s->ix_cache));
}

int store_index_refresh(struct serve *s)
{
	struct buf now = BUF_INIT;
	int ret = 0;

	stamp(s->proj, &now);
	if (!s->ix_stamp || strcmp(s->ix_stamp, buf_str(&now)) != 0) {
		ret = update(s, buf_str(&now));
		if (ret == 0) {
			free(s->ix_stamp);
			s->ix_stamp = buf_detach(&now, NULL);
		}
	} else {
		memset(&s->ix_last, 0, sizeof(s->ix_last));
	}
	buf_release(&now);
	start_verdicts(s);
	return ret;
}

const struct store_index_stats *store_index_last(const struct serve *s)
{
	return &s->ix_last;
}

int store_index_class_rank(const char *cls)
{
	static const char *const order[] = {
		"NotInBaseline",      "NotInTarget",	   "Unknown",
		"NoChange",	      "MaybeOptimization", "Optimization",
		"SevereOptimization", "TotalOptimization", "MaybeDegradation",
		"Degradation",	      "SevereDegradation", "TotalDegradation",
	};

	for (size_t i = 0; cls && i < ARRAY_SIZE(order); i++)
		if (strcmp(cls, order[i]) == 0)
			return (int)i + 1;
	return 0;
}
