/*
 * veles bisect --job: measuring a version with a collector job, the way
 * `veles run job` runs one, instead of timing a bare command. What the
 * search compares are the values of one location of the job's profiles.
 */
#ifndef RUN_BISECT_JOB_H
#define RUN_BISECT_JOB_H

#include <stddef.h>

#include "collect/collector.h"

struct bisect_job;

/*
 * Parses @spec, "COLLECTOR [OPTIONS] -- COMMAND [ARGS...]" in shell words
 * (what follows `veles collect`). @location picks the location whose
 * values count: one equal to it, or else the only one containing it; NULL
 * takes @fallback the same way, then the profile's only location.
 * ERR_INVALID for a malformed spec.
 */
int bisect_job_parse(const char *spec, const char *location, const char *fallback,
		     struct bisect_job **out);
void bisect_job_free(struct bisect_job *j);

/*
 * Runs the job in @cwd (the root of a checkout of @version, full id) until
 * at least @want more values of the location were appended to *@v (*@n of
 * them so far, the array grown as needed).
 */
int bisect_job_measure(struct bisect_job *j, const char *logs_dir, const char *cwd,
		       const char *version, size_t want, double **v, size_t *n);

/* Where the collectors' messages go (collect/collector.h); none by default. */
void bisect_job_set_message(struct bisect_job *j,
			    void (*fn)(void *arg, enum collect_msg kind, const char *text),
			    void *arg);

/* The job's command (its program), as given. */
const char *bisect_job_cmd(const struct bisect_job *j);

/* The location measured, once a measurement found it; else "". */
const char *bisect_job_location(const struct bisect_job *j);

#endif
