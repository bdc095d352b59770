/*
 * The run queue as several servers and runners share it on one database
 * (docs/team.md). A runner claims the first queued run in one statement
 * (PostgreSQL: FOR UPDATE SKIP LOCKED, so two runners never take the same
 * run nor wait for each other), holds a lease on it that it renews while
 * the run goes on, and files its end only while the lease is its own. A
 * lease that expires (the runner was killed, its machine lost) puts the run
 * back in the queue, up to QUEUE_ATTEMPTS claims; then it fails.
 */
#ifndef SERVE_QUEUE_H
#define SERVE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/db.h"
#include "serve/model.h"

enum { QUEUE_ATTEMPTS = 3 };

/* Claims for @runner the queued run that comes first, unless @runner
 * already runs one; its lease holds until @now + @lease_ms. *@found false
 * when there is none to take. */
int queue_claim(struct db *db, const char *runner, int64_t now, int64_t lease_ms,
		struct srv_run *out, bool *found);
/* The same, leaving project jobs (tool "job") to others unless @jobs: a
 * runner outside the project cannot run them. */
int queue_claim_for(struct db *db, const char *runner, int64_t now, int64_t lease_ms, bool jobs,
		    struct srv_run *out, bool *found);
/* Extends @runner's lease on run @id to @until; ERR_CONFLICT when the run
 * is no longer its own (the lease expired and it went back to the queue,
 * or the run was deleted): the runner then stops it. */
int queue_renew(struct db *db, const char *id, const char *runner, int64_t until);
/* Files @r's end (state, exit, error, counts) if @runner still holds it;
 * ERR_CONFLICT else. */
int queue_finish(struct db *db, const struct srv_run *r, const char *runner);
/* Cancels run @id that another server or runner is running: marked
 * canceled here; its runner, whose next renewal fails, stops it.
 * ERR_CONFLICT when it is not running. */
int queue_cancel_running(struct db *db, const char *id, int64_t now);
/* Runs whose lease ended before @now: back to the queue, or failed after
 * QUEUE_ATTEMPTS claims. Either count may be NULL. */
int queue_expire(struct db *db, int64_t now, size_t *requeued, size_t *failed);
/* At a runner's start: the runs it held when it stopped (a crash, kill -9)
 * and runs left by servers older than leases are expired at once. */
int queue_recover(struct db *db, const char *runner, int64_t now, size_t *requeued, size_t *failed);

#endif
