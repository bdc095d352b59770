/* A matrix from `run job`'s options (jobs.h). */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "run/jobs.h"
#include "run/run.h"
#include "util/common.h"
#include "util/error.h"

void run_job_spec_release(struct run_job_spec *s)
{
	run_strv_free(s->cmds), run_strv_free(s->args), run_strv_free(s->loads);
	run_strv_free(s->cols), run_strv_free(s->pps);
	run_strv_free(s->col_params), run_strv_free(s->pp_params);
	memset(s, 0, sizeof(*s));
}

/* A -params value ("repeat: 3" or "{repeat: 3}") as options after *@argv. */
static int params_to_argv(const char *opt, const char *text, char ***argv, int *argc)
{
	char *doc =
		xasprintf("p: %s%s%s", text[0] == '{' ? "" : "{", text, text[0] == '{' ? "" : "}");
	struct config *c;
	int ret = config_load_text(opt, doc, strlen(doc), &c);

	if (ret == 0) {
		ret = run_params_argv(c, "p", argv, argc);
		config_free(c);
	}
	free(doc);
	return ret;
}

/* Step @name with its params (or none) as argv; *@argv is NULL-terminated. */
static int step_argv(const char *name, char *const *params, size_t nparams, size_t i,
		     const char *opt, char ***argv, int *argc)
{
	*argv = xcalloc(2, sizeof(**argv));
	*argc = 1;
	(*argv)[0] = xstrdup(name);
	if (i < nparams && *params[i])
		return params_to_argv(opt, params[i], argv, argc);
	return 0;
}

static int build_steps(struct run_matrix *m, const struct run_job_spec *s)
{
	int ret = 0;

	for (size_t i = 0; i < s->ncols && ret == 0; i++) {
		char **argv;
		int argc;

		ret = step_argv(s->cols[i], s->col_params, s->ncol_params, i, "--collector-params",
				&argv, &argc);
		if (ret == 0)
			run_matrix_add_collector(m, argc, argv);
		run_strv_free(argv);
	}
	for (size_t i = 0; i < s->npps && ret == 0; i++) {
		char **argv;
		int argc;

		ret = step_argv(s->pps[i], s->pp_params, s->npp_params, i, "--postprocessor-params",
				&argv, &argc);
		if (ret == 0)
			ret = run_matrix_add_postproc(m, argc, argv);
		run_strv_free(argv);
	}
	return ret;
}

int run_matrix_from_spec(struct run_matrix *cfg, const struct run_job_spec *s,
			 struct run_matrix **out)
{
	struct run_matrix *m;
	int ret;

	if (!s->ncmds || !s->ncols)
		return err_set(ERR_INVALID, "run job needs --cmd and --collector");
	m = run_matrix_new();
	for (size_t i = 0; i < s->ncmds; i++)
		run_strv_add(&m->cmds, &m->ncmds, s->cmds[i]);
	for (size_t i = 0; i < s->nargs; i++)
		run_strv_add(&m->args, &m->nargs, s->args[i]);
	for (size_t i = 0; i < s->nloads; i++)
		run_strv_add(&m->workloads, &m->nworkloads, s->loads[i]);
	m->gens = cfg->gens, m->ngens = cfg->ngens;
	cfg->gens = NULL, cfg->ngens = 0;
	m->pre_run = cfg->pre_run, m->npre_run = cfg->npre_run;
	cfg->pre_run = NULL, cfg->npre_run = 0;
	m->register_after_run = cfg->register_after_run;
	ret = build_steps(m, s);
	if (ret < 0) {
		run_matrix_free(m);
		return ret;
	}
	*out = m;
	return 0;
}
