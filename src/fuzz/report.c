/*
 * The end of a session: the costliest inputs measured again (one run's
 * cost may be a lucky draw of the noise), the model of cost against input
 * length, and the profile for .veles/jobs/.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/regmodels.h"
#include "collect/collector.h"
#include "fuzz/fuzz_priv.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

const char *fz_metric_unit(enum fz_metric m)
{
	return m == FZ_METRIC_INSTRUCTIONS ? "instructions" : m == FZ_METRIC_HITS ? "hits" : "s";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median cost of FZ_CALIB_RUNS runs of @k; a run that fails is left
 * out (a hang counts at the timeout). */
static int remeasure(struct fz_session *s, struct fz_kept *k)
{
	double v[FZ_CALIB_RUNS];
	size_t n = 0;

	for (int i = 0; i < FZ_CALIB_RUNS; i++) {
		struct fz_result r;
		int ret = fz_exec_run(&s->ex, k->data, k->len, &r);

		if (ret < 0)
			return ret;
		if (r.outcome == FZ_STOPPED)
			continue;
		s->runs++;
		if (s->use_cov && s->ex.metric == FZ_METRIC_HITS) {
			struct fz_cover_news news;

			fz_cover_check(&s->cov, &news);
			r.cost = (double)news.hits;
		}
		if (r.outcome == FZ_OK)
			v[n++] = r.cost;
	}
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	k->cost = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return 0;
}

static int by_cost_desc(const void *a, const void *b)
{
	const struct fz_kept *x = a, *y = b;

	return (x->cost < y->cost) - (x->cost > y->cost);
}

static int fill_worst(struct fz_session *s, struct fz_report *rep)
{
	for (size_t i = 0; i < s->nworst; i++) {
		int ret = remeasure(s, &s->worst[i]);

		if (ret < 0)
			return ret;
	}
	qsort(s->worst, s->nworst, sizeof(s->worst[0]), by_cost_desc);
	rep->worst = xcalloc(s->nworst + 1, sizeof(*rep->worst));
	rep->nworst = s->nworst;
	for (size_t i = 0; i < s->nworst; i++) {
		struct fz_worst *w = &rep->worst[i];

		w->path = xasprintf("%s/%zu", s->worst_dir, i + 1);
		w->len = s->worst[i].len;
		w->cost = s->worst[i].cost;
		w->ratio = s->base > 0 ? w->cost / s->base : 0;
		w->found_run = s->worst[i].found_run;
		w->rules = s->worst[i].rules ? xstrdup(s->worst[i].rules) : NULL;
	}
	return 0;
}

/* ---- the model ---- */

static bool simple(enum reg_model m)
{
	return m == REG_CONSTANT || m == REG_LINEAR || m == REG_LOGARITHMIC;
}

/*
 * Perun names the model of the highest r². A quadratic always fits a line
 * at least as well as the line does, so a simpler model within 0.02 of the
 * best is named instead: a linear cost is not called quadratic.
 */
static void fit_model(struct fz_session *s, struct fz_report *rep)
{
	struct reg_point pts[FZ_ENV_BINS];
	struct reg_fit fits[REG_NMODELS];
	size_t n = 0, nf, best = 0;
	struct reg_work *w;

	rep->power_exponent = NAN;
	for (size_t i = 0; i < FZ_ENV_BINS; i++)
		if (s->env[i].set && s->env[i].len > 0)
			pts[n++] = (struct reg_point){(double)s->env[i].len, s->env[i].cost};
	if (n < 3)
		return;
	w = reg_work_new();
	nf = reg_fit_models(w, REG_ALL_MODELS, pts, n, fits);
	reg_work_free(w);
	if (!nf)
		return;
	for (size_t i = 1; i < nf; i++)
		if (fits[i].r_square > fits[best].r_square)
			best = i;
	for (size_t i = 0; i < nf; i++)
		if (simple(fits[i].model) && !simple(fits[best].model) &&
		    fits[i].r_square >= fits[best].r_square - 0.02)
			best = i;
	for (size_t i = 0; i < nf; i++)
		if (fits[i].model == REG_POWER)
			rep->power_exponent = fits[i].coeffs[1];
	rep->have_model = true;
	rep->model = xstrdup(reg_model_name(fits[best].model));
	rep->model_r2 = fits[best].r_square;
}

/* ---- the profile ---- */

static void add_rows(struct profile *p, const char *uid, const char *subtype, const size_t *len,
		     const double *cost, const uint64_t *run, size_t n, bool count)
{
	struct attr a[] = {
		{.name = "uid", .kind = COL_STR, .s = uid},
		{.name = "type", .kind = COL_STR, .s = p->type},
		{.name = "subtype", .kind = COL_STR, .s = subtype},
	};
	uint32_t type = profile_type_add(p, a, ARRAY_SIZE(a));
	struct column *c[3];

	/* Every column first: adding one may move the others. */
	table_col_get(p, &p->res, "amount", count ? COL_I64 : COL_F64);
	table_col_get(p, &p->res, "structure-unit-size", COL_I64);
	table_col_get(p, &p->res, "order", COL_I64);
	c[0] = table_col_get(p, &p->res, "amount", count ? COL_I64 : COL_F64);
	c[1] = table_col_get(p, &p->res, "structure-unit-size", COL_I64);
	c[2] = table_col_get(p, &p->res, "order", COL_I64);
	for (size_t i = 0; i < n; i++) {
		size_t row = profile_res_add(p, type);

		if (c[0]->kind == COL_F64)
			col_set_f64(&p->res, c[0], row, cost[i]);
		else
			col_set_i64(&p->res, c[0], row, (int64_t)llround(cost[i]));
		col_set_i64(&p->res, c[1], row, (int64_t)len[i]);
		if (run)
			col_set_i64(&p->res, c[2], row, (int64_t)run[i]);
	}
}

static void header(struct fz_session *s, struct profile *p, const struct fz_report *rep)
{
	const struct fz_options *o = s->o;
	enum fz_metric m = s->ex.metric;
	struct buf b = BUF_INIT;

	p->layout = LAYOUT_TYPED;
	p->type = xstrdup(m == FZ_METRIC_INSTRUCTIONS ? "instructions"
			  : m == FZ_METRIC_HITS	      ? "hits"
						      : "time");
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup(p->type), xstrdup(fz_metric_is_count(m) ? "count" : "s")};
	p->nunits = 1;
	p->cmd = xstrdup(o->argv[0]);
	for (size_t i = 1; o->argv[i]; i++)
		buf_addf(&b, "%s%s", i > 1 ? " " : "", o->argv[i]);
	p->args = buf_detach(&b, NULL);
	for (size_t i = 0; i < o->ninputs; i++)
		buf_addf(&b, "%s%s", i ? " " : "", o->inputs[i]);
	/* A resumed session names its output directory instead. */
	if (!b.len)
		buf_adds(&b, strrchr(s->out, '/') ? strrchr(s->out, '/') + 1 : s->out);
	p->workload = buf_detach(&b, NULL);
	buf_release(&b);
	p->collector = xstrdup("fuzz");
	buf_addf(&b,
		 "{\"metric\":\"%s\",\"seed\":%llu,\"runs\":%llu,\"max_size\":%zu,"
		 "\"timeout\":%.6g,\"feedback\":%s,\"coverage\":%s,\"base_cost\":%.17g}",
		 fz_metric_name(m), (unsigned long long)s->seed, (unsigned long long)s->runs,
		 s->max_size, s->timeout, o->feedback ? "true" : "false",
		 rep->coverage ? "true" : "false", s->base);
	p->collector_params = buf_detach(&b, NULL);
}

/* Seeds, kept mutants, the worst inputs and the costliest run of each
 * length class (the points whose model is the cost's growth), each a
 * subtype of the program's uid. */
static struct profile *build_profile(struct fz_session *s, const struct fz_report *rep)
{
	struct profile *p = profile_new();
	size_t n = s->n + FZ_ENV_BINS + FZ_NWORST, k;
	size_t *len = xcalloc(n, sizeof(*len));
	double *cost = xcalloc(n, sizeof(*cost));
	uint64_t *run = xcalloc(n, sizeof(*run));
	bool count = fz_metric_is_count(s->ex.metric);

	header(s, p, rep);
	for (int seed = 1; seed >= 0; seed--) {
		k = 0;
		for (size_t i = 0; i < s->n; i++)
			if (s->e[i].seed == (seed == 1)) {
				len[k] = s->e[i].len;
				cost[k] = s->e[i].cost;
				run[k++] = s->e[i].found_run;
			}
		if (k)
			add_rows(p, s->o->argv[0], seed ? "seed" : "corpus", len, cost, run, k,
				 count);
	}
	for (k = 0; k < s->nworst; k++) {
		len[k] = s->worst[k].len;
		cost[k] = s->worst[k].cost;
		run[k] = s->worst[k].found_run;
	}
	if (k)
		add_rows(p, s->o->argv[0], "worst", len, cost, run, k, count);
	k = 0;
	for (size_t i = 0; i < FZ_ENV_BINS; i++)
		if (s->env[i].set) {
			len[k] = s->env[i].len;
			cost[k++] = s->env[i].cost;
		}
	if (k)
		add_rows(p, s->o->argv[0], "worst-by-size", len, cost, NULL, k, count);
	free(len);
	free(cost);
	free(run);
	return p;
}

int fz_report_fill(struct fz_session *s, struct fz_report *rep)
{
	int ret = fill_worst(s, rep);

	if (ret < 0)
		return ret;
	rep->metric = s->ex.metric;
	rep->metric_why = s->ex.why ? xstrdup(s->ex.why) : NULL;
	rep->seed = s->seed;
	rep->resumed = s->resumed;
	rep->runs = s->runs;
	rep->session_runs = s->runs - s->runs0;
	rep->session_elapsed = fz_now() - s->t_start;
	rep->elapsed = s->time0 + rep->session_elapsed;
	for (size_t i = 0; i < s->n; i++)
		rep->nseeds += s->e[i].seed;
	rep->corpus = s->n;
	rep->base_cost = s->base;
	rep->timeout = s->timeout;
	rep->max_size = s->max_size;
	rep->coverage = s->use_cov;
	rep->edges_hit = s->use_cov ? s->cov.edges_hit : 0;
	rep->crashes = s->crashes;
	rep->hangs = s->hangs;
	rep->session_crashes = s->crashes - s->crashes0;
	rep->session_hangs = s->hangs - s->hangs0;
	rep->interrupted = s->o->stop && *s->o->stop;
	fit_model(s, rep);
	rep->profile = build_profile(s, rep);
	return 0;
}

void fz_report_release(struct fz_report *rep)
{
	for (size_t i = 0; i < rep->nworst; i++) {
		free(rep->worst[i].path);
		free(rep->worst[i].rules);
	}
	free(rep->worst);
	free(rep->metric_why);
	free(rep->model);
	profile_free(rep->profile);
	memset(rep, 0, sizeof(*rep));
}

int fz_save_profile(struct profile *p, const char *jobs_dir, const char *origin, char **path)
{
	char *name;
	int ret = mkdir_p(jobs_dir);

	*path = NULL;
	if (ret < 0)
		return ret;
	free(p->origin);
	p->origin = origin ? xstrdup(origin) : NULL;
	name = collect_profile_name(p->cmd, "fuzz", p->workload);
	ret = collect_claim_path(jobs_dir, name, path);
	if (ret == 0)
		ret = profile_save_compact(p, *path);
	if (ret < 0 && *path) {
		unlink(*path);
		free(*path);
		*path = NULL;
	}
	free(name);
	return ret;
}

/* ---- the runtime ---- */

static char *existing(char *path)
{
	if (path && access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

char *fz_runtime_path(void)
{
	const char *env = getenv("VELES_FUZZ_LIB");
	char *exe;
	size_t root = strlen(VELES_BUILD_ROOT);
	bool in_build;

	if (env && *env)
		return existing(xstrdup(env));
	/* A veles run from its build tree uses the runtime built beside it. */
	exe = self_exe_path();
	in_build = exe && strncmp(exe, VELES_BUILD_ROOT, root) == 0 && exe[root] == '/';
	free(exe);
	if (in_build)
		return existing(xstrdup(VELES_BUILD_ROOT "/runtime/libveles-fuzzcov.a"));
	return existing(xstrdup(VELES_FUZZ_RUNTIME_INSTALLED));
}
