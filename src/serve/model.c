/* Sessions and runs in the database (model.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/model.h"
#include "serve/util.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/xalloc.h"

void srv_session_clear(struct srv_session *s)
{
	free(s->title);
	memset(s, 0, sizeof(*s));
}

void srv_run_clear(struct srv_run *r)
{
	free(r->events);
	free(r->command);
	free(r->env);
	free(r->error);
	free(r->screen);
	memset(r, 0, sizeof(*r));
}

void srv_runs_free(struct srv_run *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		srv_run_clear(&v[i]);
	free(v);
}

void srv_sessions_free(struct srv_session *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		srv_session_clear(&v[i]);
	free(v);
}

bool srv_state_final(const char *state)
{
	return strcmp(state, "done") == 0 || strcmp(state, "failed") == 0 ||
	       strcmp(state, "canceled") == 0;
}

static const char *text(const struct db_val *v)
{
	return v->type == DB_TEXT ? v->s : "";
}

static int64_t num(const struct db_val *v)
{
	return v->type == DB_INT ? v->i : v->type == DB_REAL ? (int64_t)v->d : 0;
}

static void copy_id(char dst[SRV_ID_LEN + 1], const struct db_val *v)
{
	snprintf(dst, SRV_ID_LEN + 1, "%s", text(v));
}

/* ---- sessions ---- */

#define SESSION_COLS                                                                               \
	"s.id, s.title, s.created, (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.id)"

static void session_of(const struct db_row *row, struct srv_session *s)
{
	copy_id(s->id, &row->v[0]);
	s->title = xstrdup(text(&row->v[1]));
	s->created = num(&row->v[2]);
	s->runs = num(&row->v[3]);
}

int model_session_create(struct db *db, const char *title, struct srv_session *out)
{
	struct db_val p[3];
	int ret;

	memset(out, 0, sizeof(*out));
	srv_uuid(out->id);
	out->title = xstrdup(title);
	out->created = srv_now_ms();
	p[0] = DB_TEXT(out->id);
	p[1] = DB_TEXT(out->title);
	p[2] = DB_INT(out->created);
	ret = db_exec(db, "INSERT INTO sessions (id, title, created) VALUES (?, ?, ?)", p, 3, NULL);
	if (ret < 0)
		srv_session_clear(out);
	return ret;
}

static int one_session(void *arg, const struct db_row *row)
{
	session_of(row, arg);
	return 1;
}

int model_session_get(struct db *db, const char *id, struct srv_session *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = db_query(db, "SELECT " SESSION_COLS " FROM sessions s WHERE s.id = ?", &DB_TEXT(id),
		       1, one_session, out);
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : err_set(ERR_NOTFOUND, "no session %s", id);
}

struct session_list {
	struct srv_session *v;
	size_t n, cap;
};

static int add_session(void *arg, const struct db_row *row)
{
	struct session_list *l = arg;

	l->v = xgrow(l->v, sizeof(*l->v), l->n + 1, &l->cap);
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	session_of(row, &l->v[l->n++]);
	return 0;
}

/* @q as a LIKE pattern matching it anywhere, its own % and _ escaped. */
static char *like_pattern(const char *q)
{
	struct buf b = BUF_INIT;

	buf_addc(&b, '%');
	for (const char *c = q; *c; c++) {
		if (*c == '%' || *c == '_' || *c == '\\')
			buf_addc(&b, '\\');
		buf_addc(&b, *c);
	}
	buf_addc(&b, '%');
	return buf_detach(&b, NULL);
}

int model_sessions_list(struct db *db, const char *q, struct srv_session **out, size_t *n)
{
	struct session_list l = {0};
	int ret;

	if (q && *q) {
		char *pat = like_pattern(q);
		struct db_val p[2] = {DB_TEXT(pat), DB_TEXT(pat)};

		ret = db_query(db,
			       "SELECT " SESSION_COLS " FROM sessions s WHERE LOWER(s.title) LIKE "
			       "LOWER(?) ESCAPE '\\' OR s.id LIKE LOWER(?) ESCAPE '\\' "
			       "ORDER BY s.created DESC, s.id",
			       p, 2, add_session, &l);
		free(pat);
	} else {
		ret = db_query(
			db, "SELECT " SESSION_COLS " FROM sessions s ORDER BY s.created DESC, s.id",
			NULL, 0, add_session, &l);
	}
	if (ret < 0) {
		srv_sessions_free(l.v, l.n);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

int model_session_delete(struct db *db, const char *id)
{
	int64_t changed;
	int ret = db_exec(db, "DELETE FROM sessions WHERE id = ?", &DB_TEXT(id), 1, &changed);

	if (ret < 0)
		return ret;
	return changed ? 0 : err_set(ERR_NOTFOUND, "no session %s", id);
}

/* ---- runs ---- */

#define RUN_COLS                                                                                   \
	"id, session_id, seq, created, started, ended, state, tool, events, streaming, "           \
	"interval_ms, freq, callgraph, command, env, pid, tid, exit_status, error, rows_count, "   \
	"samples, screen, runner, attempts"

static void run_of(const struct db_row *row, struct srv_run *r)
{
	const struct db_val *v = row->v;

	memset(r, 0, sizeof(*r));
	copy_id(r->id, &v[0]);
	copy_id(r->session, &v[1]);
	r->seq = num(&v[2]);
	r->created = num(&v[3]);
	r->started = num(&v[4]);
	r->ended = num(&v[5]);
	snprintf(r->state, sizeof(r->state), "%s", text(&v[6]));
	snprintf(r->tool, sizeof(r->tool), "%s", text(&v[7]));
	r->events = xstrdup(text(&v[8]));
	r->streaming = num(&v[9]) != 0;
	r->interval_ms = num(&v[10]);
	r->freq = num(&v[11]);
	r->callgraph = num(&v[12]) != 0;
	r->command = xstrdup(text(&v[13]));
	r->env = xstrdup(text(&v[14]));
	r->pid = num(&v[15]);
	r->tid = num(&v[16]);
	r->has_exit = v[17].type != DB_NULL;
	r->exit_status = num(&v[17]);
	r->error = v[18].type == DB_TEXT ? xstrdup(v[18].s) : NULL;
	r->rows = num(&v[19]);
	r->samples = num(&v[20]);
	r->screen = xstrdup(v[21].type == DB_TEXT ? v[21].s : "{}");
	snprintf(r->runner, sizeof(r->runner), "%s", text(&v[22]));
	r->attempts = num(&v[23]);
}

static int insert_events(struct db *db, const struct srv_run *r)
{
	char *list = xstrdup(r->events), *save = NULL;
	int ret = 0;

	for (char *e = strtok_r(list, ",", &save); e && ret == 0; e = strtok_r(NULL, ",", &save)) {
		struct db_val p[2] = {DB_TEXT(r->id), DB_TEXT(e)};

		/* A name given twice counts once (SQLite and PostgreSQL both
		 * know ON CONFLICT). */
		ret = db_exec(db,
			      "INSERT INTO run_events (run_id, event) VALUES (?, ?) "
			      "ON CONFLICT DO NOTHING",
			      p, 2, NULL);
	}
	free(list);
	return ret;
}

int model_run_insert(struct db *db, struct srv_run *r)
{
	struct db_val p[22];
	int ret = db_begin(db);

	if (ret < 0)
		return ret;
	if (!r->id[0])
		srv_uuid(r->id);
	r->created = srv_now_ms();
	snprintf(r->state, sizeof(r->state), "queued");
	ret = db_query_int(db, "SELECT MAX(seq) FROM runs", NULL, 0, 0, &r->seq);
	r->seq++;
	p[0] = DB_TEXT(r->id);
	p[1] = DB_TEXT(r->session);
	p[2] = DB_INT(r->seq);
	p[3] = DB_INT(r->created);
	p[4] = DB_TEXT(r->state);
	p[5] = DB_TEXT(r->tool);
	p[6] = DB_TEXT(r->events);
	p[7] = DB_INT(r->streaming);
	p[8] = DB_INT(r->interval_ms);
	p[9] = DB_INT(r->freq);
	p[10] = DB_INT(r->callgraph);
	p[11] = DB_TEXT(r->command);
	p[12] = DB_TEXT(r->env);
	p[13] = DB_INT(r->pid);
	p[14] = DB_INT(r->tid);
	p[15] = DB_TEXT(r->screen);
	if (ret == 0)
		ret = db_exec(
			db,
			"INSERT INTO runs (id, session_id, seq, created, state, tool, events, "
			"streaming, interval_ms, freq, callgraph, command, env, pid, tid, screen) "
			"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			p, 16, NULL);
	if (ret == 0)
		ret = insert_events(db, r);
	if (ret < 0) {
		db_rollback(db);
		return ret;
	}
	return db_commit(db);
}

static int one_run(void *arg, const struct db_row *row)
{
	run_of(row, arg);
	return 1;
}

int model_run_get(struct db *db, const char *id, struct srv_run *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = db_query(db, "SELECT " RUN_COLS " FROM runs WHERE id = ?", &DB_TEXT(id), 1, one_run,
		       out);
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : err_set(ERR_NOTFOUND, "no run %s", id);
}

struct run_list {
	struct srv_run *v;
	size_t n, cap;
	const char *states;
};

/* Whether @state is one of the comma-separated @states. */
static bool state_in(const char *state, const char *states)
{
	size_t len = strlen(state);

	for (const char *p = states; p && *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, state, n) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static int add_run(void *arg, const struct db_row *row)
{
	struct run_list *l = arg;

	if (l->states && !state_in(text(&row->v[6]), l->states))
		return 0;
	l->v = xgrow(l->v, sizeof(*l->v), l->n + 1, &l->cap);
	run_of(row, &l->v[l->n++]);
	return 0;
}

int model_runs_list(struct db *db, const char *session, const char *states, struct srv_run **out,
		    size_t *n)
{
	struct run_list l = {.states = states};
	int ret;

	if (session)
		ret = db_query(db,
			       "SELECT " RUN_COLS " FROM runs WHERE session_id = ? ORDER BY seq",
			       &DB_TEXT(session), 1, add_run, &l);
	else
		ret = db_query(db, "SELECT " RUN_COLS " FROM runs ORDER BY seq", NULL, 0, add_run,
			       &l);
	if (ret < 0) {
		srv_runs_free(l.v, l.n);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

int model_run_next(struct db *db, struct srv_run *out, bool *found)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = db_query(db,
		       "SELECT " RUN_COLS " FROM runs WHERE state = 'queued' ORDER BY seq LIMIT 1",
		       NULL, 0, one_run, out);
	*found = ret == 1;
	return ret < 0 ? ret : 0;
}

int model_run_position(struct db *db, int64_t seq, int64_t *pos)
{
	return db_query_int(db, "SELECT COUNT(*) FROM runs WHERE state = 'queued' AND seq < ?",
			    &DB_INT(seq), 1, 0, pos);
}

static int changed_one(int ret, int64_t changed, const char *id, const char *what)
{
	if (ret < 0)
		return ret;
	return changed ? 0 : err_set(ERR_CONFLICT, "run %s is not %s", id, what);
}

int model_run_start(struct db *db, const char *id, int64_t now)
{
	struct db_val p[2] = {DB_INT(now), DB_TEXT(id)};
	int64_t changed;
	/* One statement: another server on this database cannot start one
	 * between the look and the change. */
	int ret = db_exec(db,
			  "UPDATE runs SET state = 'running', started = ? "
			  "WHERE id = ? AND state = 'queued' AND NOT EXISTS "
			  "(SELECT 1 FROM runs WHERE state = 'running')",
			  p, 2, &changed);

	return changed_one(ret, changed, id, "queued while none runs");
}

int model_run_finish(struct db *db, const struct srv_run *r)
{
	struct db_val p[7] = {DB_TEXT(r->state),
			      DB_INT(r->ended),
			      r->has_exit ? DB_INT(r->exit_status)
					  : (struct db_val){.type = DB_NULL},
			      DB_TEXT(r->error),
			      DB_INT(r->rows),
			      DB_INT(r->samples),
			      DB_TEXT(r->id)};
	int64_t changed;
	int ret = db_exec(db,
			  "UPDATE runs SET state = ?, ended = ?, exit_status = ?, error = ?, "
			  "rows_count = ?, samples = ? WHERE id = ? AND state = 'running'",
			  p, 7, &changed);

	return changed_one(ret, changed, r->id, "running");
}

int model_run_cancel_queued(struct db *db, const char *id, int64_t now)
{
	struct db_val p[2] = {DB_INT(now), DB_TEXT(id)};
	int64_t changed;
	int ret = db_exec(db,
			  "UPDATE runs SET state = 'canceled', ended = ? "
			  "WHERE id = ? AND state = 'queued'",
			  p, 2, &changed);

	return changed_one(ret, changed, id, "queued");
}

int model_run_progress(struct db *db, const char *id, int64_t rows, int64_t samples)
{
	struct db_val p[3] = {DB_INT(rows), DB_INT(samples), DB_TEXT(id)};

	return db_exec(db, "UPDATE runs SET rows_count = ?, samples = ? WHERE id = ?", p, 3, NULL);
}

int model_runs_abandoned(struct db *db, int64_t now, size_t *n)
{
	int64_t changed;
	int ret = db_exec(db,
			  "UPDATE runs SET state = 'failed', ended = ?, "
			  "error = 'the server stopped during the run' WHERE state = 'running'",
			  &DB_INT(now), 1, &changed);

	*n = (size_t)changed;
	return ret;
}

int model_run_delete(struct db *db, const char *id)
{
	int64_t changed;
	int ret = db_exec(db, "DELETE FROM runs WHERE id = ?", &DB_TEXT(id), 1, &changed);

	if (ret < 0)
		return ret;
	return changed ? 0 : err_set(ERR_NOTFOUND, "no run %s", id);
}

struct uses {
	void (*fn)(void *arg, const char *event, int64_t uses);
	void *arg;
};

static int on_use(void *arg, const struct db_row *row)
{
	struct uses *u = arg;

	u->fn(u->arg, text(&row->v[0]), num(&row->v[1]));
	return 0;
}

int model_event_uses(struct db *db, const char *session,
		     void (*fn)(void *arg, const char *event, int64_t uses), void *arg)
{
	struct uses u = {fn, arg};

	return db_query(db,
			"SELECT e.event, COUNT(*) FROM run_events e JOIN runs r ON r.id = e.run_id "
			"WHERE r.session_id = ? GROUP BY e.event",
			&DB_TEXT(session), 1, on_use, &u);
}
