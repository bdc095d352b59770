/*
 * regression-analysis: fits parametric models of one resource value (--of,
 * amount) against another (--depending-on, structure-unit-size) for every
 * uid (and subtype, where a uid has several), and appends them to the profile's models
 * (docs/models.md). The fitting is in regmodels.c, the methods in regmethods.c; this file holds the
 * options, the grouping of rows by uid and the JSON of each model.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/models.h"
#include "analyze/postproc.h"
#include "analyze/reggroup.h"
#include "analyze/regmodels.h"
#include "profile/numfmt.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"
#include "util/strpool.h"

#define NAME "regression-analysis"
#define PFX "postprocess " NAME ": "

struct reg_opts {
	enum reg_method method;
	unsigned mask; /* requested models, 1 << enum reg_model */
	unsigned steps;
	char *of, *per;
};

static void reg_free(void *opts)
{
	struct reg_opts *o = opts;

	if (!o)
		return;
	free(o->of);
	free(o->per);
	free(o);
}

static int parse_models(void *ctx, const struct opt *opt, const char *arg)
{
	struct reg_opts *o = ctx;
	int m = reg_model_from_name(arg);

	UNUSED(opt);
	if (strcmp(arg, "all") == 0) {
		o->mask = REG_ALL_MODELS;
		return 0;
	}
	if (m < 0)
		return err_set(ERR_INVALID,
			       PFX "unknown model '%s' (constant, linear, "
				   "logarithmic, quadratic, power, exponential or all)",
			       arg);
	o->mask |= 1u << m;
	return 0;
}

static int parse_steps(void *ctx, const struct opt *opt, const char *arg)
{
	struct reg_opts *o = ctx;
	char *end;
	long v;

	UNUSED(opt);
	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v < 1 || v > 1000000)
		return err_set(ERR_INVALID,
			       PFX "--steps wants a whole number from 1 to 1000000, "
				   "not '%s'",
			       arg);
	o->steps = (unsigned)v;
	return 0;
}

static int parse_method(void *ctx, const struct opt *opt, const char *arg)
{
	struct reg_opts *o = ctx;

	UNUSED(opt);
	if (reg_method_from_name(arg) < 0)
		return err_set(ERR_INVALID,
			       PFX "unknown method '%s' (full, iterative, "
				   "interval, initial_guess or bisection)",
			       arg);
	o->method = reg_method_from_name(arg);
	return 0;
}

static int reg_parse(int argc, char **argv, void **out, char **help)
{
	struct reg_opts *o = xcalloc(1, sizeof(*o));
	const char *of = "amount", *per = "structure-unit-size";
	const struct opt opts[] = {
		OPT_CALLBACK('m', "method", "METHOD", parse_method,
			     "full (default), iterative, interval, initial_guess\n"
			     "or bisection"),
		OPT_CALLBACK('r', "regression-models", "MODEL", parse_models,
			     "constant, linear, logarithmic, quadratic, power,\n"
			     "exponential or all (default); repeat for several"),
		OPT_CALLBACK('s', "steps", "N", parse_steps,
			     "parts for iterative, interval and initial_guess\n"
			     "(default 3)"),
		OPT_STRING('o', "of", &of, "KEY",
			   "the dependent value (default: amount);\n"
			   "--of-key and -of are the same"),
		OPT_STRING(0, "depending-on", &per, "KEY",
			   "the independent value (default: structure-unit-size);\n"
			   "--per, --per-key, -dp and -per are the same"),
		OPT_STRING(0, "per", &per, NULL, NULL),
		/* Perun's spellings, and the names its records use. */
		OPT_ALIAS("of-key", "of"),
		OPT_ALIAS("per-key", "per"),
		OPT_DASH_ALIAS("of", "of"),
		OPT_DASH_ALIAS("per", "per"),
		OPT_DASH_ALIAS("dp", "depending-on"),
		OPT_END(),
	};
	const struct postproc_options po = {
		.usage = "veles postprocess PROFILE " NAME " [-m METHOD] [-r MODEL]... [-s N]\n"
			 "           [--of KEY] [--depending-on KEY]",
		.about = "Fits regression models of one resource value against another for every "
			 "uid\n"
			 "and adds them to the profile's models.",
		.opts = opts,
		.ctx = o,
	};
	int nop, ret;

	o->method = REG_FULL;
	o->steps = 3;
	*out = NULL;
	*help = NULL;
	ret = postproc_parse_options(NAME, &po, argc, argv, &nop, help);
	if (ret < 0 || *help) {
		reg_free(o);
		return ret;
	}
	o->of = xstrdup(of);
	o->per = xstrdup(per);
	if (!o->mask)
		o->mask = REG_ALL_MODELS;
	*out = o;
	return 0;
}

static char *reg_params(const void *opts)
{
	const struct reg_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;
	const char *sep = "";

	buf_addc(&b, '{');
	pp_json_str(&b, &first, "method", reg_method_name(o->method));
	buf_adds(&b, ",\"regression_models\":[");
	for (int m = 0; m < REG_NMODELS; m++) {
		if (o->mask & (1u << m)) {
			buf_adds(&b, sep);
			buf_add_json_str(&b, reg_model_name(m), strlen(reg_model_name(m)));
			sep = ",";
		}
	}
	buf_addc(&b, ']');
	pp_json_num(&b, &first, "steps", o->steps);
	pp_json_str(&b, &first, "of_key", o->of);
	pp_json_str(&b, &first, "per_key", o->per);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/*
 * Where a value lives: the measurement's own column, or its type's
 * (persistent) one. Reading both directly keeps the gathering loop free of
 * per-row lookups by name.
 */
struct source {
	const struct column *res, *types;
};

static int find_source(const struct profile *p, const char *key, struct source *s)
{
	s->res = table_col(&p->res, key);
	s->types = table_col(&p->types, key);
	if (!s->res && !s->types)
		return err_set(ERR_INVALID, PFX "no resource has '%s'", key);
	if ((s->res && s->res->kind != COL_I64 && s->res->kind != COL_F64) ||
	    (!s->res && s->types->kind != COL_I64 && s->types->kind != COL_F64))
		return err_set(ERR_INVALID, PFX "'%s' is not a number", key);
	return 0;
}

static double value_at(const struct profile *p, const struct source *s, size_t row)
{
	if (s->res && col_has(s->res, row))
		return col_num(s->res, row);
	return s->types ? col_num(s->types, p->res_type[row]) : NAN;
}

/* Everything one model's JSON needs besides the fit itself. */
struct writer {
	const struct reg_opts *o;
	const char *uid, *subtype; /* subtype NULL when not written */
	struct buf *out;	   /* the models list so far, without its closing ']' */
};

static void add_num(struct buf *b, const char *key, double v)
{
	char num[NUMFMT_MAX];

	buf_adds(b, key);
	buf_add(b, num, numfmt_f64(num, v));
}

static void write_model(void *ctx, const struct reg_fit *f)
{
	struct writer *w = ctx;
	struct buf *b = w->out;

	if (b->len && b->data[b->len - 1] != '[')
		buf_addc(b, ',');
	buf_adds(b, "{\"uid\":");
	buf_add_json_str(b, w->uid, strlen(w->uid));
	if (w->subtype) {
		buf_adds(b, ",\"subtype\":");
		buf_add_json_str(b, w->subtype, strlen(w->subtype));
	}
	buf_addf(b, ",\"model\":\"%s\",\"method\":\"%s\"", reg_model_name(f->model),
		 reg_method_name(w->o->method));
	add_num(b, ",\"r_square\":", f->r_square);
	add_num(b, ",\"r_square_perun\":", f->r_square_perun);
	add_num(b, ",\"x_start\":", f->x_start);
	add_num(b, ",\"x_end\":", f->x_end);
	buf_adds(b, ",\"of_key\":");
	buf_add_json_str(b, w->o->of, strlen(w->o->of));
	buf_adds(b, ",\"per_key\":");
	buf_add_json_str(b, w->o->per, strlen(w->o->per));
	buf_adds(b, ",\"coeffs\":[");
	/* A constant has b1 = 0 as Perun writes it: its checks read b1 of
	 * every parametric model. */
	for (int i = 0; i < (f->ncoeffs < 2 ? 2 : f->ncoeffs); i++) {
		buf_addf(b, "%s{\"name\":\"b%d\",", i ? "," : "", i);
		add_num(b, "\"value\":", i < f->ncoeffs ? f->coeffs[i] : 0);
		buf_addc(b, '}');
	}
	buf_adds(b, "]}");
}

/* @len values from @row on into dst[0], dst[2], ...: straight from the
 * column when every row has a value there, else one lookup per row. */
static void read_values(const struct profile *p, const struct source *s, size_t row, size_t len,
			double *dst)
{
	const struct column *c = s->res;

	if (!c || c->absent || c->len < row + len) {
		for (size_t i = 0; i < len; i++)
			dst[2 * i] = value_at(p, s, row + i);
	} else if (c->kind == COL_F64) {
		for (size_t i = 0; i < len; i++)
			dst[2 * i] = c->v.f64[row + i];
	} else if (c->narrow) {
		for (size_t i = 0; i < len; i++)
			dst[2 * i] = c->v.i32[row + i];
	} else {
		for (size_t i = 0; i < len; i++)
			dst[2 * i] = (double)c->v.i64[row + i];
	}
}

/* Group @k's points with both values present; returns how many. */
static size_t gather(const struct profile *p, const struct source *x, const struct source *y,
		     const struct reg_groups *g, size_t k, struct reg_point *pts)
{
	size_t n = 0, kept = 0;

	for (size_t i = g->start[k]; i < g->start[k + 1]; i++) {
		size_t row = g->ranges ? g->item[2 * i] : g->item[i];
		size_t len = g->ranges ? g->item[2 * i + 1] : 1;

		read_values(p, x, row, len, &pts[n].x);
		read_values(p, y, row, len, &pts[n].y);
		n += len;
	}
	for (size_t i = 0; i < n; i++)
		if (!isnan(pts[i].x) && !isnan(pts[i].y))
			pts[kept++] = pts[i];
	return kept;
}

/* Distinct x values, counted up to 3. */
struct distinct {
	unsigned n;
	double x[2];
};

static void distinct_add(struct distinct *d, double x)
{
	if (d->n == 3 || (d->n >= 1 && x == d->x[0]) || (d->n == 2 && x == d->x[1]))
		return;
	if (d->n < 2)
		d->x[d->n] = x;
	d->n++;
}

/* What a group's points allow: a model that they rule out is reported
 * as not fitted, with the reason, rather than left out silently. The
 * log-space models see only the points their logarithms take. */
struct group_info {
	unsigned emitted;		       /* models reported, 1 << enum reg_model */
	struct distinct all, xpos, ypos, both; /* x, of the points with x > 0, y > 0, both */
	size_t n;
};

static void describe(const struct reg_point *pts, size_t n, struct group_info *gi)
{
	gi->all = gi->xpos = gi->ypos = gi->both = (struct distinct){0};
	gi->n = n;
	for (size_t i = 0; i < n; i++) {
		bool xp = pts[i].x > 0, yp = pts[i].y > 0;

		distinct_add(&gi->all, pts[i].x);
		if (xp)
			distinct_add(&gi->xpos, pts[i].x);
		if (yp)
			distinct_add(&gi->ypos, pts[i].x);
		if (xp && yp)
			distinct_add(&gi->both, pts[i].x);
	}
}

/* Why the points of @gi cannot give model @m; NULL when they can. */
static const char *why_not(const struct group_info *gi, enum reg_model m, const char *of,
			   const char *per, char *msg, size_t len)
{
	if (gi->n == 0)
		snprintf(msg, len, "no resource has both '%s' and '%s'", of, per);
	else if (m != REG_CONSTANT && gi->all.n < 2)
		snprintf(msg, len, "'%s' has one value only", per);
	else if (m == REG_QUADRATIC && gi->all.n < 3)
		snprintf(msg, len, "'%s' has fewer than 3 distinct values", per);
	else if ((m == REG_POWER || m == REG_EXPONENTIAL) && gi->ypos.n < 2)
		snprintf(msg, len, "fewer than 2 distinct '%s' with a positive '%s'", per, of);
	else if ((m == REG_LOGARITHMIC || m == REG_POWER) && gi->xpos.n < 2)
		snprintf(msg, len, "'%s' has fewer than 2 distinct positive values", per);
	else if (m == REG_POWER && gi->both.n < 2)
		snprintf(msg, len, "fewer than 2 distinct positive '%s' with a positive '%s'", per,
			 of);
	else
		return NULL;
	return msg;
}

/* At most this many groups are reported, so a profile of many uids does
 * not bury the terminal. */
#define MAX_NOTES 10

/* The first reason a requested model was not fitted, into @out. */
static void first_reason(const struct reg_opts *o, const struct reg_groups *g,
			 const struct group_info *info, struct buf *out)
{
	char why[160];

	for (size_t k = 0; k < g->ngroups; k++)
		for (int m = 0; m < REG_NMODELS; m++)
			if (reg_group_size(g, k) && (o->mask & (1u << m)) &&
			    why_not(&info[k], m, o->of, o->per, why, sizeof(why))) {
				buf_adds(out, " (");
				profile_group_label(out, g->uid[k], g->subtype[k]);
				buf_addf(out, ": %s: %s)", reg_model_name(m), why);
				return;
			}
}

/* One kind of warning: which models were not fitted and why, and for
 * how many groups. */
struct skip_note {
	char *text;  /* "linear, quadratic not fitted: why" */
	char *label; /* the first group it was said of */
	size_t groups;
};

static void note_add(struct skip_note **v, size_t *n, const char *text, const char *label)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*v)[i].text, text) == 0) {
			(*v)[i].groups++;
			return;
		}
	}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct skip_note){xstrdup(text), xstrdup(*label ? label : "(no uid)"), 1};
}

/* The models of group @k that its points rule out, one text per reason. */
static void group_notes(const struct reg_opts *o, const struct reg_groups *g, size_t k,
			const struct group_info *gi, struct skip_note **v, size_t *n)
{
	struct buf line = BUF_INIT, label = BUF_INIT;
	unsigned done = 0;

	profile_group_label(&label, g->uid[k], g->subtype[k]);
	for (int m = 0; m < REG_NMODELS; m++) {
		char why[160], other[160];
		const char *sep = "";

		if (!(o->mask & ~gi->emitted & ~done & (1u << m)) ||
		    !why_not(gi, m, o->of, o->per, why, sizeof(why)))
			continue;
		buf_reset(&line);
		for (int j = m; j < REG_NMODELS; j++) {
			if (!(o->mask & ~gi->emitted & (1u << j)) ||
			    !why_not(gi, j, o->of, o->per, other, sizeof(other)) ||
			    strcmp(why, other) != 0)
				continue;
			buf_addf(&line, "%s%s", sep, reg_model_name(j));
			sep = ", ";
			done |= 1u << j;
		}
		buf_addf(&line, " not fitted: %s", why);
		note_add(v, n, buf_str(&line), buf_str(&label));
	}
	buf_release(&line);
	buf_release(&label);
}

/*
 * One warning per kind of reason, however many groups it holds for: a
 * time profile of a literal workload (one size, real, user and sys) says
 * once that only the constant could be fitted, and why.
 */
static void report_skipped(const struct reg_opts *o, const struct reg_groups *g,
			   const struct group_info *info, const struct postproc_env *env)
{
	struct skip_note *v = NULL;
	size_t n = 0;

	for (size_t k = 0; k < g->ngroups; k++)
		if (reg_group_size(g, k))
			group_notes(o, g, k, &info[k], &v, &n);
	for (size_t i = 0; i < n; i++) {
		const char *hint = strstr(v[i].text, "has one value only")
					   ? " (all points have one size; a workload generator "
					     "varies it)"
					   : "";

		if (i < MAX_NOTES && v[i].groups == 1)
			pp_say(env, PFX "%s: %s%s", v[i].label, v[i].text, hint);
		else if (i < MAX_NOTES)
			pp_say(env, PFX "%s and %zu more: %s%s", v[i].label, v[i].groups - 1,
			       v[i].text, hint);
		free(v[i].text);
		free(v[i].label);
	}
	if (n > MAX_NOTES)
		pp_say(env, PFX "%zu more kinds of model not fitted", n - MAX_NOTES);
	free(v);
}

/* Profiles this large fit their groups on two threads: the fits are about
 * half of the command's time on a million points. */
#define PARALLEL_ROWS 100000

/* The second thread's models, kept as fits (smaller than their JSON) and
 * written after the first thread's. */
struct kept {
	struct kept_fit {
		size_t group;
		struct reg_fit fit;
	} * v;
	size_t n, cap;
};

/* Groups [first, last): each model written to @out, or kept in @kept. */
struct fit_job {
	const struct profile *p;
	const struct reg_opts *o;
	const struct source *x, *y;
	const struct reg_groups *g;
	size_t first, last, group;
	struct buf *out;
	struct kept *kept;
	struct group_info *info;
	size_t nmodels;
};

static void keep_model(void *ctx, const struct reg_fit *f)
{
	struct fit_job *job = ctx;
	struct kept *k = job->kept;

	k->v = xgrow(k->v, sizeof(*k->v), k->n + 1, &k->cap);
	k->v[k->n++] = (struct kept_fit){job->group, *f};
	job->info[job->group].emitted |= 1u << f->model;
}

static void write_now(void *ctx, const struct reg_fit *f)
{
	struct fit_job *job = ctx;
	struct writer w = {job->o, job->g->uid[job->group], job->g->subtype[job->group], job->out};

	write_model(&w, f);
	job->info[job->group].emitted |= 1u << f->model;
}

static void *fit_range(void *arg)
{
	struct fit_job *job = arg;
	struct reg_work *work = reg_work_new();
	size_t most = 0;
	struct reg_point *pts;

	for (size_t k = job->first; k < job->last; k++)
		if (reg_group_size(job->g, k) > most)
			most = reg_group_size(job->g, k);
	pts = xmalloc((most + 1) * sizeof(*pts));
	for (size_t k = job->first; k < job->last; k++) {
		size_t n = gather(job->p, job->x, job->y, job->g, k, pts);

		job->group = k;
		describe(pts, n, &job->info[k]);
		job->nmodels += reg_run_method(work, job->o->method, job->o->mask, job->o->steps,
					       pts, n, job->kept ? keep_model : write_now, job);
	}
	free(pts);
	reg_work_free(work);
	return NULL;
}

/* The first group of the second half of the rows. */
static size_t middle_group(const struct reg_groups *g, size_t nrows)
{
	size_t rows = 0, k = 0;

	while (k < g->ngroups && rows < nrows / 2)
		rows += reg_group_size(g, k++);
	return k;
}

/* Fits every group; returns the number of models appended to @out. When
 * there are none, @why gets the reason for the error message. */
static size_t fit_groups(const struct profile *p, const struct reg_opts *o, const struct source *x,
			 const struct source *y, struct buf *out, struct buf *why,
			 const struct postproc_env *env)
{
	struct reg_groups g;
	struct kept kept = {0};
	struct fit_job a = {p, o, x, y, &g, 0, 0, 0, out, NULL, NULL, 0}, b;
	pthread_t thread;
	bool threaded = false;

	reg_work_free(reg_work_new()); /* sets GSL's error handler before any thread */
	reg_groups_build(p, &g);
	a.info = xcalloc(g.ngroups ? g.ngroups : 1, sizeof(*a.info));
	b = a;
	a.last = g.ngroups;
	if (profile_nres(p) >= PARALLEL_ROWS && g.ngroups >= 2) {
		a.last = b.first = middle_group(&g, profile_nres(p));
		b.last = g.ngroups;
		b.kept = &kept;
		threaded = pthread_create(&thread, NULL, fit_range, &b) == 0;
	}
	fit_range(&a);
	if (threaded)
		pthread_join(thread, NULL);
	else if (b.last > b.first)
		fit_range(&b);
	for (size_t i = 0; i < kept.n; i++) {
		size_t k = kept.v[i].group;
		struct writer w = {o, g.uid[k], g.subtype[k], out};

		write_model(&w, &kept.v[i].fit);
	}
	free(kept.v);
	if (a.nmodels + b.nmodels)
		report_skipped(o, &g, a.info, env);
	else
		first_reason(o, &g, a.info, why);
	free(a.info);
	reg_groups_free(&g);
	return a.nmodels + b.nmodels;
}

static int reg_run(struct profile *p, const void *opts, const struct postproc_env *env)
{
	const struct reg_opts *o = opts;
	struct source x, y;
	struct buf models = BUF_INIT, why = BUF_INIT;
	int ret;

	if (profile_nres(p) == 0)
		return err_set(ERR_INVALID, PFX "the profile has no resources");
	ret = find_source(p, o->per, &x);
	if (ret == 0)
		ret = find_source(p, o->of, &y);
	if (ret < 0)
		return ret;
	buf_addc(&models, '['); /* write_model() puts a comma after anything else */
	if (fit_groups(p, o, &x, &y, &models, &why, env) == 0) {
		ret = err_set(ERR_INVALID,
			      PFX "no requested model can be fitted to '%s' depending on '%s'%s",
			      o->of, o->per, buf_str(&why));
		buf_release(&models);
		buf_release(&why);
		return ret;
	}
	buf_release(&why);
	ret = models_append(p, models.data + 1, models.len - 1);
	buf_release(&models);
	return ret;
}

const struct postproc pp_regression_analysis = {
	.name = NAME,
	.summary = "fit regression models of a value per uid (constant ... exponential)",
	.parse = reg_parse,
	.params_json = reg_params,
	.run = reg_run,
	.free_opts = reg_free,
};
