/*
 * One metric across the history: for each configuration (the key that
 * pairs profiles) and each location matching what was asked, the median,
 * quartiles and count of its values per version, oldest first, and the
 * versions where the series shifted (change points, changepoint.h).
 * `log --perf` prints it, `log --perf -o FILE` draws it (view.h), and the
 * browser pages show the same chart.
 */
#ifndef ANALYZE_HISTORY_H
#define ANALYZE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strmap.h"

struct buf;
struct profile;

/* A shift smaller than this is not called a change point. */
#define HISTORY_MIN_STEP 0.02

struct history_version {
	char id[41];
	char label[24]; /* what people call it: "3f2a9c1", or "v3 (9b1e0d4)" */
	int64_t time;	/* seconds since the epoch */
	char *summary;	/* first line of its message */
};

struct history_point {
	size_t version; /* index into history.versions */
	double median, q1, q3;
	size_t n;
	bool change;  /* a new segment starts here */
	double shift; /* at a change point: the relative step judged; NaN else */
};

struct history_series {
	char *title;	  /* the configuration, brief (profile_config_title) */
	char *title_full; /* with the postprocessors' parameters */
	char *location;	  /* "uid [subtype]" */
	char *unit;	  /* "s", or "" */
	struct history_point *pts;
	size_t n, cap;
};

struct history {
	struct history_version *versions; /* oldest first */
	size_t nversions, vcap;
	struct history_series *s; /* in the order first seen */
	size_t ns;
	struct strmap index; /* "key \x1f location" -> series */
};

/* Appends a version after those added (oldest first); returns its index. */
size_t history_add_version(struct history *h, const char *id, const char *label, int64_t time,
			   const char *summary);
/*
 * Called after a point of series @series was added from profile @p (the
 * caller's check of each point, e.g. that neighbours were measured in one
 * environment); a negative return stops the adding and is returned.
 */
typedef int (*history_point_fn)(void *arg, const struct history *h, size_t series,
				const struct profile *p);

/*
 * Adds the values of every location of @p that equals or contains @match
 * (all locations for "") as points of version @v, one series per
 * configuration and location; @fn (may be NULL) sees each point. A later
 * profile of the same configuration in the same version replaces the
 * earlier one, as `check` pairs the newest; versions must be added to in
 * order.
 */
int history_add_profile(struct history *h, size_t v, const struct profile *p, const char *match,
			history_point_fn fn, void *arg);
/* Finds the change points of every series; call once, after adding. */
void history_finish(struct history *h);
void history_free(struct history *h);

/*
 * The series as JSON, an array as `log --perf --format json` prints it:
 * config, config_full, location, unit, points (version, median, q1, q3, n,
 * change_point and, at one, shift).
 */
void history_series_json(const struct history *h, struct buf *out);
/* The versions as JSON: an array of {id, label, time, summary}. */
void history_versions_json(const struct history *h, struct buf *out);

#endif
