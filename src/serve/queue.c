/* The shared run queue (queue.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/queue.h"
#include "util/error.h"
#include "util/xalloc.h"

static int claimed_id(void *arg, const struct db_row *row)
{
	if (row->n && row->v[0].type == DB_TEXT)
		snprintf(arg, SRV_ID_LEN + 1, "%s", row->v[0].s);
	return 1;
}

int queue_claim(struct db *db, const char *runner, int64_t now, int64_t lease_ms,
		struct srv_run *out, bool *found)
{
	return queue_claim_for(db, runner, now, lease_ms, true, out, found);
}

int queue_claim_for(struct db *db, const char *runner, int64_t now, int64_t lease_ms, bool jobs,
		    struct srv_run *out, bool *found)
{
	struct db_val p[5] = {DB_INT(now), DB_TEXT(runner), DB_INT(now + lease_ms), DB_INT(jobs),
			      DB_TEXT(runner)};
	char id[SRV_ID_LEN + 1] = "";
	/* One statement: the look and the change cannot be split by another
	 * runner. PostgreSQL locks the row it picks and skips those others
	 * picked; SQLite runs one writer at a time. */
	char *sql = xasprintf(
		"UPDATE runs SET state = 'running', started = ?, runner = ?, lease_until = ?, "
		"attempts = attempts + 1 WHERE state = 'queued' AND id = (SELECT q.id FROM runs q "
		"WHERE q.state = 'queued' AND (? = 1 OR q.tool <> 'job') AND NOT EXISTS (SELECT 1 "
		"FROM runs o WHERE "
		"o.state = 'running' AND o.runner = ?) ORDER BY q.seq LIMIT 1%s) RETURNING id",
		db_lock_rows(db));
	int ret = db_query(db, sql, p, 5, claimed_id, id);

	free(sql);
	*found = false;
	memset(out, 0, sizeof(*out));
	if (ret < 0)
		return ret;
	if (!id[0])
		return 0;
	if ((ret = model_run_get(db, id, out)) < 0)
		return ret;
	*found = true;
	return 0;
}

/* Runs @sql, an UPDATE of one run that holds only while the run is in the
 * state it names; ERR_CONFLICT with @why (about run @id) when no row
 * changed: another runner, a cancel or an expired lease came first. */
static int update_held(struct db *db, const char *sql, const struct db_val *p, size_t n,
		       const char *id, const char *why)
{
	int64_t changed;
	int ret = db_exec(db, sql, p, n, &changed);

	if (ret < 0)
		return ret;
	return changed ? 0 : err_set(ERR_CONFLICT, "run %s %s", id, why);
}

int queue_renew(struct db *db, const char *id, const char *runner, int64_t until)
{
	struct db_val p[3] = {DB_INT(until), DB_TEXT(id), DB_TEXT(runner)};

	return update_held(db,
			   "UPDATE runs SET lease_until = ? WHERE id = ? AND runner = ? AND "
			   "state = 'running'",
			   p, 3, id,
			   "is no longer this runner's (canceled, deleted, or its lease expired)");
}

int queue_finish(struct db *db, const struct srv_run *r, const char *runner)
{
	struct db_val p[8] = {DB_TEXT(r->state),
			      DB_INT(r->ended),
			      r->has_exit ? DB_INT(r->exit_status)
					  : (struct db_val){.type = DB_NULL},
			      DB_TEXT(r->error),
			      DB_INT(r->rows),
			      DB_INT(r->samples),
			      DB_TEXT(r->id),
			      DB_TEXT(runner)};

	return update_held(db,
			   "UPDATE runs SET state = ?, ended = ?, exit_status = ?, error = ?, "
			   "rows_count = ?, samples = ?, lease_until = NULL WHERE id = ? AND "
			   "state = 'running' AND runner = ?",
			   p, 8, r->id,
			   "is no longer this runner's (canceled, deleted, or its lease expired): "
			   "its end is not filed");
}

int queue_cancel_running(struct db *db, const char *id, int64_t now)
{
	struct db_val p[2] = {DB_INT(now), DB_TEXT(id)};

	return update_held(db,
			   "UPDATE runs SET state = 'canceled', ended = ?, lease_until = NULL "
			   "WHERE id = ? AND state = 'running'",
			   p, 2, id, "is not running");
}

int queue_expire(struct db *db, int64_t now, size_t *requeued, size_t *failed)
{
	struct db_val p[2] = {DB_INT(now), DB_INT(QUEUE_ATTEMPTS)};
	int64_t back = 0, lost = 0;
	int ret = db_exec(db,
			  "UPDATE runs SET state = 'queued', started = NULL, runner = NULL, "
			  "lease_until = NULL, rows_count = 0, samples = 0 WHERE "
			  "state = 'running' AND lease_until < ? AND attempts < ?",
			  p, 2, &back);

	if (ret == 0)
		ret = db_exec(db,
			      "UPDATE runs SET state = 'failed', ended = ?, lease_until = NULL, "
			      "error = 'its runner stopped answering, each time it was claimed' "
			      "WHERE state = 'running' AND lease_until < ?",
			      (struct db_val[]){DB_INT(now), DB_INT(now)}, 2, &lost);
	if (requeued)
		*requeued = (size_t)back;
	if (failed)
		*failed = (size_t)lost;
	return ret;
}

int queue_recover(struct db *db, const char *runner, int64_t now, size_t *requeued, size_t *failed)
{
	struct db_val p[1] = {DB_TEXT(runner)};
	/* A lease that ended long ago: expired below, whatever the clock. */
	int ret = db_exec(db,
			  "UPDATE runs SET lease_until = 0 WHERE state = 'running' AND "
			  "(runner = ? OR lease_until IS NULL)",
			  p, 1, NULL);

	return ret < 0 ? ret : queue_expire(db, now, requeued, failed);
}
