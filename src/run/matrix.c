/* The job matrix: reading it from config.yml and expanding it into jobs. */
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "collect/collector.h"
#include "config/config.h"
#include "run/run.h"
#include "util/common.h"

struct run_matrix *run_matrix_new(void)
{
	return xcalloc(1, sizeof(struct run_matrix));
}

static void steps_free(struct run_step *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i].pp && s[i].opts)
			s[i].pp->free_opts(s[i].opts);
		run_strv_free(s[i].argv);
		free(s[i].name);
	}
	free(s);
}

void run_matrix_free(struct run_matrix *m)
{
	if (!m)
		return;
	run_strv_free(m->cmds);
	run_strv_free(m->args);
	run_strv_free(m->workloads);
	run_strv_free(m->pre_run);
	steps_free(m->collectors, m->ncollectors);
	steps_free(m->postprocs, m->npostprocs);
	run_generators_free(m->gens, m->ngens);
	free(m);
}

/* A new step named @name; argv starts with the name. */
static struct run_step *step_add(struct run_step **steps, size_t *n, const char *name)
{
	struct run_step *s;

	*steps = xrealloc(*steps, (*n + 1) * sizeof(**steps));
	s = &(*steps)[(*n)++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->argv = xcalloc(2, sizeof(*s->argv));
	s->argv[0] = xstrdup(name);
	s->argc = 1;
	return s;
}

static void step_add_args(struct run_step *s, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		s->argv = xrealloc(s->argv, ((size_t)s->argc + 2) * sizeof(*s->argv));
		s->argv[s->argc++] = xstrdup(argv[i]);
		s->argv[s->argc] = NULL;
	}
}

void run_matrix_add_collector(struct run_matrix *m, int argc, char **argv)
{
	step_add_args(step_add(&m->collectors, &m->ncollectors, argv[0]), argc - 1, argv + 1);
}

/* Parses the step's options once; the same opts serve every job. Perun's
 * names (regression_analysis) are found too. */
static int step_parse_postproc(struct run_step *s)
{
	s->pp = postproc_find(s->name);
	if (!s->pp)
		return err_set(ERR_INVALID, "unknown postprocessor '%s'", s->name);
	return postproc_parse(s->pp, s->argc, s->argv, &s->opts, NULL);
}

int run_matrix_add_postproc(struct run_matrix *m, int argc, char **argv)
{
	struct run_step *s = step_add(&m->postprocs, &m->npostprocs, argv[0]);

	step_add_args(s, argc - 1, argv + 1);
	return step_parse_postproc(s);
}

const struct run_generator *run_matrix_generator(const struct run_matrix *m, const char *id)
{
	for (size_t i = 0; i < m->ngens; i++)
		if (strcmp(m->gens[i].id, id) == 0)
			return &m->gens[i];
	return NULL;
}

/* A value or a list of values at @key, into *@v. */
static int load_list(const struct config *c, const char *key, char ***v, size_t *n)
{
	const char *one = config_get(c, key);

	if (one) {
		if (*one)
			run_strv_add(v, n, one);
		return 0;
	}
	for (size_t i = 0;; i++) {
		char *item = xasprintf("%s.%zu", key, i);
		const char *value = config_get(c, item);
		bool has = config_has(c, item);
		int ret = 0;

		if (value)
			run_strv_add(v, n, value);
		else if (has)
			ret = config_error_at(c, item, "%s must hold plain values", key);
		free(item);
		if (ret < 0 || !has)
			return ret;
	}
}

/* collectors or postprocessors: a list of {name, params}. */
static int load_steps(const struct config *c, const char *key, struct run_step **steps, size_t *n,
		      bool postprocs)
{
	if (config_get(c, key) && *config_get(c, key))
		return config_error_at(c, key, "%s must be a list of {name, params}", key);
	for (size_t i = 0;; i++) {
		char *base = xasprintf("%s.%zu", key, i);
		char *name_key = xasprintf("%s.name", base);
		char *params = xasprintf("%s.params", base);
		const char *name = config_get(c, name_key);
		int ret = 0;

		if (!config_has(c, base)) {
			free(base), free(name_key), free(params);
			return 0;
		}
		if (!name || !*name)
			ret = config_error_at(c, base, "each of %s needs a name", key);
		else if (!postprocs && !collector_find(name))
			ret = config_error_at(c, name_key, "unknown collector '%s'", name);
		if (ret == 0) {
			struct run_step *s = step_add(steps, n, name);

			ret = run_params_argv(c, params, &s->argv, &s->argc);
			if (ret == 0 && postprocs && step_parse_postproc(s) < 0)
				ret = config_error_at(c, name_key, "%s", err_msg());
			/* A typo in a collector's params fails here, at its key,
			 * not when the job runs. */
			if (ret == 0 && !postprocs && collect_check_options(s->argc, s->argv) < 0) {
				ret = run_params_check(c, params, name, collect_check_options);
				if (ret == 0)
					ret = config_error_at(c, params, "%s", err_msg());
			}
		}
		free(base), free(name_key), free(params);
		if (ret < 0)
			return ret;
	}
}

/* The nearest file that sets @key, or NULL. */
static const struct config *nearest(struct config *const *cfgs, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (cfgs[i] && config_has(cfgs[i], key))
			return cfgs[i];
	return NULL;
}

static int load_parts(struct config *const *cfgs, size_t n, struct run_matrix *m)
{
	const struct config *c;
	int ret = 0;

	if ((c = nearest(cfgs, n, "cmds")))
		ret = load_list(c, "cmds", &m->cmds, &m->ncmds);
	if (ret == 0 && (c = nearest(cfgs, n, "args")))
		ret = load_list(c, "args", &m->args, &m->nargs);
	if (ret == 0 && (c = nearest(cfgs, n, "workloads")))
		ret = load_list(c, "workloads", &m->workloads, &m->nworkloads);
	if (ret == 0 && (c = nearest(cfgs, n, "execute.pre_run")))
		ret = load_list(c, "execute.pre_run", &m->pre_run, &m->npre_run);
	if (ret == 0 && (c = nearest(cfgs, n, "generators.workload")))
		ret = run_generators_load(c, &m->gens, &m->ngens);
	if (ret == 0 && (c = nearest(cfgs, n, "collectors")))
		ret = load_steps(c, "collectors", &m->collectors, &m->ncollectors, false);
	if (ret == 0 && (c = nearest(cfgs, n, "postprocessors")))
		ret = load_steps(c, "postprocessors", &m->postprocs, &m->npostprocs, true);
	if (ret == 0 && (c = nearest(cfgs, n, "profiles.register_after_run")))
		m->register_after_run = config_bool(c, "profiles.register_after_run", false);
	return ret;
}

int run_matrix_load(struct config *const *cfgs, size_t n, struct run_matrix **out)
{
	struct run_matrix *m = run_matrix_new();
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++)
		if (cfgs[i])
			ret = config_validate(cfgs[i]);
	if (ret == 0)
		ret = load_parts(cfgs, n, m);
	if (ret < 0) {
		run_matrix_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

size_t run_matrix_expand(const struct run_matrix *m, struct run_job **out)
{
	static char *const none[] = {"", NULL};
	char *const *args = m->nargs ? m->args : none;
	char *const *loads = m->nworkloads ? m->workloads : none;
	size_t nargs = m->nargs ? m->nargs : 1, nloads = m->nworkloads ? m->nworkloads : 1;
	size_t n = m->ncmds * nargs * nloads * m->ncollectors, k = 0;

	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t c = 0; c < m->ncmds; c++)
		for (size_t a = 0; a < nargs; a++)
			for (size_t w = 0; w < nloads; w++)
				for (size_t col = 0; col < m->ncollectors; col++)
					(*out)[k++] =
						(struct run_job){m->cmds[c], args[a], loads[w],
								 run_matrix_generator(m, loads[w]),
								 &m->collectors[col]};
	return n;
}
