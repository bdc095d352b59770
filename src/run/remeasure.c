/* check --remeasure: both versions measured now, interleaved (remeasure.h). */
#include "vcs/git_lazy.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/metric.h"
#include "analyze/postproc.h"
#include "analyze/samples.h"
#include "analyze/seqtest.h"
#include "analyze/stats.h"
#include "collect/collector.h"
#include "collect/machine.h"
#include "profile/profile.h"
#include "run/merge.h"
#include "run/remeasure.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* Rounds before the first look: alpha 0.05's first share (0.025) needs 7. */
#define FIRST_LOOK 8

/* One location's paired differences and what the test said. */
struct loc {
	char *location;
	double *d, *v[2]; /* per round: ln(target / baseline), and each side's value */
	size_t n;
	struct seq_test t;
	struct seq_look look;
	bool looked, sure;
};

struct session {
	const struct remeasure_opts *o;
	const struct run_matrix *m; /* without postprocessors: applied once at the end */
	struct run_job job;	    /* the job, its collector run once per round */
	struct run_step step;
	const struct run_checkout *co[2];
	const char *home;
	struct profile *round[2]; /* this round's profile of each side */
	struct profile *acc[2];	  /* every counted round's, merged */
	double load_before;
	char **said; /* the collectors' lines passed on, each once */
	size_t nsaid;
	const char *metric;
	struct loc *locs;
	size_t nlocs;
	size_t cur_round;
};

static int take(struct profile *p, void *arg)
{
	struct profile **slot = arg;

	profile_free(*slot);
	*slot = p;
	return 0;
}

/* The round number as each resource's "order", so merged rounds stay apart. */
static void set_order(struct profile *p, size_t round)
{
	struct column *c = table_col_get(p, &p->res, "order", COL_I64);

	for (size_t r = 0; r < p->res.nrows; r++)
		col_set_i64(&p->res, c, r, (int64_t)round);
}

/*
 * A collector's message on its way to the caller's callback: every round
 * runs the same collector, so a line already passed on (a note about the
 * machine) is not said again; progress lines are the caller's to draw.
 */
static void pass_message(void *arg, enum collect_msg kind, const char *text)
{
	struct session *s = arg;

	if (kind == COLLECT_MSG_ERR) {
		for (size_t i = 0; i < s->nsaid; i++)
			if (strcmp(s->said[i], text) == 0)
				return;
		s->said = xrealloc(s->said, (s->nsaid + 1) * sizeof(*s->said));
		s->said[s->nsaid++] = xstrdup(text);
	}
	s->o->message(s->o->message_arg, kind, text);
}

static int measure(void *arg, size_t side, size_t round)
{
	struct session *s = arg;
	struct run_env env = {
		.jobs_dir = s->o->jobs_dir,
		.logs_dir = s->o->logs_dir,
		.origin = s->co[side]->id,
		.quiet_collectors = true,
		.take = take,
		.take_arg = &s->round[side],
		.message = s->o->message ? pass_message : NULL,
		.message_arg = s,
	};
	struct run_result res = {0};
	int ret = run_checkout_enter(s->co[side]);

	if (ret == 0)
		ret = run_job_run(&env, s->m, &s->job, &res);
	if (ret == 0 && !res.ok)
		ret = err_set(ERR_CHILD, "at %.7s: %s", s->co[side]->id,
			      res.error ? res.error : "the job failed");
	if (ret == 0 && !s->round[side])
		ret = err_set(ERR_CHILD, "at %.7s: the job made no profile", s->co[side]->id);
	run_result_release(&res);
	{
		int back = run_checkout_leave(s->home);

		ret = ret ? ret : back;
	}
	if (ret < 0 || round == 0)
		return ret;
	set_order(s->round[side], round);
	if (!s->acc[side]) {
		s->acc[side] = s->round[side];
		s->round[side] = NULL;
	} else {
		run_profile_append(s->acc[side], s->round[side]);
	}
	s->cur_round = round;
	return 0;
}

/* The metric and locations that decide, from the first counted round. */
static int choose_locations(struct session *s, const struct profile *base,
			    const struct profile *target)
{
	struct sample_set sb, st;
	const struct sample_group *a, *b;
	size_t i = 0, j = 0;
	const char *loc;

	s->metric = s->o->metric ? s->o->metric : metric_shared(base, target);
	if (s->o->metric && !(metric_present(base, s->metric) && metric_present(target, s->metric)))
		return err_set(ERR_INVALID, "the job's profiles have no %s to compare (--on %s)",
			       s->metric, s->metric);
	samples_build(base, NULL, &sb);
	samples_build(target, NULL, &st);
	while ((loc = samples_next_pair(&sb, &st, &i, &j, &a, &b))) {
		if (!a || !b || (s->metric && !metric_location_is(loc, s->metric)))
			continue;
		s->locs = xrealloc(s->locs, (s->nlocs + 1) * sizeof(*s->locs));
		memset(&s->locs[s->nlocs], 0, sizeof(*s->locs));
		s->locs[s->nlocs].location = xstrdup(loc);
		seq_init(&s->locs[s->nlocs].t,
			 &(struct seq_params){s->o->cp.alpha, log1p(s->o->cp.min_effect),
					      FIRST_LOOK});
		s->nlocs++;
	}
	samples_free(&sb);
	samples_free(&st);
	return s->nlocs ? 0
			: err_set(ERR_INVALID,
				  "the two versions' profiles share no location to compare");
}

static double group_median(const struct sample_set *set, const char *location)
{
	const struct sample_group *g = samples_find(set, location);

	return g && g->n ? stats_median(g->v, g->n) : NAN;
}

/* This round's value per location and side, and its difference. */
static void add_round(struct session *s, const struct profile *base, const struct profile *target)
{
	struct sample_set set[2];

	samples_build(base, NULL, &set[0]);
	samples_build(target, NULL, &set[1]);
	for (size_t i = 0; i < s->nlocs; i++) {
		struct loc *l = &s->locs[i];
		double b = group_median(&set[0], l->location),
		       t = group_median(&set[1], l->location);

		if (!(b > 0) || !(t > 0)) {
			/* A zero (a count of nothing): equal is no change, else no ratio. */
			if (!(b == 0 && t == 0))
				continue;
			b = t = 1;
		}
		l->d = xrealloc(l->d, (l->n + 1) * sizeof(*l->d));
		l->v[0] = xrealloc(l->v[0], (l->n + 1) * sizeof(*l->v[0]));
		l->v[1] = xrealloc(l->v[1], (l->n + 1) * sizeof(*l->v[1]));
		l->d[l->n] = log(t / b);
		l->v[0][l->n] = b;
		l->v[1][l->n] = t;
		l->n++;
	}
	samples_free(&set[0]);
	samples_free(&set[1]);
}

/* An interim look, or the @last one when the budget is spent. */
static void look(struct session *s, struct loc *l, bool last)
{
	char line[512];

	if (last)
		seq_look_last(&l->t, l->d, l->n, &l->look);
	else
		seq_look(&l->t, l->d, l->n, &l->look);
	l->looked = true;
	l->sure = l->look.verdict != SEQ_UNSURE;
	if (!s->o->progress)
		return;
	snprintf(line, sizeof(line), "round %zu: %s %+.2f%% (%+.2f%% .. %+.2f%% at alpha %.2g)%s",
		 l->n, l->location, 100 * expm1(l->look.est), 100 * expm1(l->look.lo),
		 100 * expm1(l->look.hi), l->look.alpha_k, l->sure ? ": sure" : "");
	s->o->progress(s->o->progress_arg, line);
}

static int decide(void *arg, size_t rounds)
{
	struct session *s = arg;
	const struct profile *b = s->round[0] ? s->round[0] : s->acc[0];
	const struct profile *t = s->round[1] ? s->round[1] : s->acc[1];
	bool all = true;
	int ret = 0;

	if (rounds == 1)
		ret = choose_locations(s, b, t);
	if (ret < 0)
		return ret;
	add_round(s, b, t);
	for (size_t i = 0; i < s->nlocs; i++) {
		struct loc *l = &s->locs[i];

		if (!l->sure && seq_due(&l->t, l->n))
			look(s, l, false);
		all = all && l->sure;
	}
	return all;
}

/* What the last look says, as check reports a change. */
static void to_change(const struct session *s, const struct loc *l, struct change_list *out)
{
	struct change *c;
	struct check_params cp = s->o->cp;
	double ratio = exp(l->look.est), lo = exp(l->look.lo), hi = exp(l->look.hi);
	double p = l->look.lo > 0 || l->look.hi < 0 ? 0 : 1;

	XGROW(out->v, out->n + 1, out->cap);
	c = &out->v[out->n++];
	memset(c, 0, sizeof(*c));
	c->location = xstrdup(l->location);
	c->method = "rmit";
	/* The class from the interval at the level the last look spent. */
	cp.alpha = 0.5;
	c->cls = l->n ? degrade_classify_stat(ratio, lo, hi, p, &cp) : CH_UNKNOWN;
	c->rel_change = l->n ? ratio - 1 : NAN;
	c->ci_low = lo - 1;
	c->ci_high = hi - 1;
	c->confidence = l->look.p;
	c->confidence_kind = "p-value";
	c->baseline = l->n ? stats_median(l->v[0], l->n) : NAN;
	c->target = l->n ? stats_median(l->v[1], l->n) : NAN;
	c->n_baseline = c->n_target = l->n;
	if (!l->n)
		c->note = "no round gave both versions a value";
}

/* The job's collector once per round: one run for time (RMIT runs each
 * version once a round), its output out of the way. */
static void round_step(struct session *s, const struct run_job *job)
{
	const struct run_step *c = job->collector;
	bool time = strcmp(c->name, "time") == 0;
	int extra = time ? 3 : 1, k = 0;

	s->step = *c;
	s->step.argv = xcalloc((size_t)(c->argc + extra + 1), sizeof(char *));
	for (int i = 0; i < c->argc; i++)
		s->step.argv[k++] = xstrdup(c->argv[i]);
	if (time) {
		s->step.argv[k++] = xstrdup("--warmup=0");
		s->step.argv[k++] = xstrdup("--repeat=1");
	}
	s->step.argv[k++] = xstrdup("--output-handling=suppress");
	s->step.argc = k;
	s->job = *job;
	s->job.collector = &s->step;
}

/* Postprocessed as the matrix asks, the environment of all its rounds, a
 * note of how it was measured, and written as a pending profile. */
static int write_side(struct session *s, const struct run_matrix *m, int side, size_t rounds,
		      char **path)
{
	struct profile *p = s->acc[side];
	const struct run_notes notes = {s->o->message, s->o->message_arg};
	struct buf b = BUF_INIT;
	char *name;
	int ret = run_postprocess(m, p, &notes);

	if (ret < 0)
		return ret;
	machine_env_json(&b, p->cmd, s->load_before, machine_loadavg());
	collect_header_set(p, "environment", buf_detach(&b, NULL));
	buf_addf(&b, "{\"rounds\":%zu,\"against\":\"%s\",\"seed\":%llu}", rounds, s->co[!side]->id,
		 (unsigned long long)s->o->seed);
	collect_header_set(p, "interleaved", buf_detach(&b, NULL));
	name = collect_profile_name(p->cmd ? p->cmd : "cmd", p->collector ? p->collector : "job",
				    p->workload ? p->workload : "");
	ret = mkdir_p(s->o->jobs_dir);
	if (ret == 0)
		ret = collect_claim_path(s->o->jobs_dir, name, path);
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

static void session_free(struct session *s)
{
	for (int k = 0; k < 2; k++) {
		profile_free(s->round[k]);
		profile_free(s->acc[k]);
	}
	for (size_t i = 0; i < s->nlocs; i++) {
		free(s->locs[i].location);
		free(s->locs[i].d);
		free(s->locs[i].v[0]);
		free(s->locs[i].v[1]);
	}
	free(s->locs);
	for (size_t i = 0; i < s->nsaid; i++)
		free(s->said[i]);
	free(s->said);
	run_strv_free(s->step.argv);
}

static int remeasure_job(const struct remeasure_opts *o, const struct run_matrix *m,
			 const struct run_job *job, const struct run_checkout co[2],
			 const char *home, struct remeasure_result *r)
{
	struct run_matrix rounds_m = *m;
	struct session s = {.o = o, .m = &rounds_m, .co = {&co[0], &co[1]}, .home = home};
	struct rmit rm = {2, o->seed, measure, decide, &s};
	int ret;

	rounds_m.npostprocs = 0;
	round_step(&s, job);
	s.load_before = machine_loadavg();
	ret = rmit_run(&rm, &o->budget, &r->rounds, &r->why);
	for (size_t i = 0; ret == 0 && i < s.nlocs; i++) {
		if (!s.locs[i].sure)
			look(&s, &s.locs[i], true);
		to_change(&s, &s.locs[i], &r->changes);
	}
	r->metric = s.metric;
	for (int k = 0; k < 2 && ret == 0; k++)
		ret = write_side(&s, m, k, r->rounds, &r->profile[k]);
	session_free(&s);
	return ret;
}

int remeasure_run(struct git_repository *repo, const char *base_id, const char *target_id,
		  const struct run_matrix *m, const struct remeasure_opts *o,
		  struct remeasure_result **out, size_t *n)
{
	struct run_checkout co[2];
	struct run_job *jobs;
	size_t njobs = run_matrix_expand(m, &jobs);
	char *home = getcwd(NULL, 0);
	int ret = 0;

	*out = NULL;
	*n = 0;
	memset(co, 0, sizeof(co));
	if (njobs == 0)
		ret = err_set(ERR_INVALID, "--remeasure runs the job matrix, and it has no jobs "
					   "(.veles/config.yml, see docs/config.md)");
	if (ret == 0 && !home)
		ret = err_set(ERR_IO, "cannot read the current directory: %s", strerror(errno));
	for (int k = 0; k < 2 && ret == 0; k++)
		ret = run_checkout_open(repo, o->project_root, k ? target_id : base_id, o->build,
					&co[k]);
	if (ret == 0)
		*out = xcalloc(njobs, sizeof(**out));
	for (size_t i = 0; i < njobs && ret == 0; i++) {
		++*n;
		ret = remeasure_job(o, m, &jobs[i], co, home, &(*out)[i]);
	}
	for (int k = 0; k < 2; k++) {
		int rm = run_checkout_close(repo, &co[k]);

		ret = ret ? ret : rm;
	}
	free(home);
	free(jobs);
	return ret;
}

void remeasure_free(struct remeasure_result *r, size_t n)
{
	if (!r)
		return;
	for (size_t i = 0; i < n; i++) {
		free(r[i].profile[0]);
		free(r[i].profile[1]);
		change_list_free(&r[i].changes);
	}
	free(r);
}
