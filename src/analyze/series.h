/*
 * What the smoothing postprocessors (moving-average, regressogram,
 * kernel-regression) share: the points of each uid as (x, y) pairs sorted
 * by x, the options that choose x and y, and the model object they append
 * to the profile's "models" list in the layout of docs/models.md.
 */
#ifndef ANALYZE_SERIES_H
#define ANALYZE_SERIES_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct profile;

/* The points of one uid, ascending in x (ties keep the profile's order). */
struct series {
	const char *uid;
	const char *subtype; /* NULL unless the uid's points come in several */
	double *x, *y;
	size_t n;
};

struct series_set {
	struct series *s;
	size_t n;
	struct strpool *uids; /* owns the uid texts */
};

/* The --of and --per options every smoothing postprocessor takes. */
struct series_keys {
	char *of;		      /* y: "amount" by default */
	char *per;		      /* x: "structure-unit-size" by default */
	const char *of_arg, *per_arg; /* as parsed, until series_keys_take() */
};

void series_keys_init(struct series_keys *k);
void series_keys_free(struct series_keys *k);
/*
 * The options for @k in a postprocessor's table (OPT_INCLUDE it): --of,
 * --per and --depending-on, with Perun's --of-key, --per-key, -of, -per
 * and -dp. After parsing, series_keys_take() keeps what they gave.
 */
#define SERIES_KEYS_NOPTS 9
struct opt;
void series_keys_table(struct series_keys *k, struct opt *t);
void series_keys_take(struct series_keys *k);
/* Adds "of" and "per" to an open params object. */
void series_keys_json(const struct series_keys *k, struct buf *b, bool *first);

/*
 * Collects the points of every uid that has both keys as finite numbers;
 * rows missing either are skipped. ERR_INVALID (naming postprocessor @pp) when
 * no resource has them at all.
 */
int series_collect(const struct profile *p, const struct series_keys *k, const char *pp,
		   struct series_set *out);
void series_set_free(struct series_set *set);

/* 1 - SS_res / SS_tot over the points whose fit is not NaN; when the data
 * are constant, 1 for a perfect fit and 0 otherwise (as sklearn's r2). */
double series_r_square(const double *y, const double *fit, size_t n);

/*
 * Model text: model_begin opens {"uid","model","method","of_key","per_key",
 * "x_start","x_end"; the caller adds its settings with pp_json_*();
 * model_end adds x_values, bucket_stats (points whose value is NaN left
 * out) and r_square, closes the object and adds it to the comma-separated
 * list @models; models_append() (analyze/models.h) adds that list to
 * p->models at once (a profile of thousands of uids would copy p->models
 * once per model).
 */
void model_begin(struct buf *b, const struct series *s, const struct series_keys *k,
		 const char *model, const char *method, double x_start, double x_end);
void model_end(struct buf *models, struct buf *b, const double *x, const double *y, size_t n,
	       double r_square);

/*
 * The run of a smoothing postprocessor: collects the series of @k, calls
 * @one(@opts, series, models, scratch) for each uid (a negative return
 * stops it), then commits the models. @pp names it in errors.
 */
typedef int (*series_fit_fn)(const void *opts, const struct series *s, struct buf *models,
			     struct buf *scratch);
int series_run_each(struct profile *p, const struct series_keys *k, const char *pp,
		    series_fit_fn one, const void *opts);

/* Sorts @v ascending (NaN-free). */
void series_sort(double *v, size_t n);

#endif
