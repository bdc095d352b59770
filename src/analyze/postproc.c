/* The postprocessor table, the record each run leaves, and option helpers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "analyze/pprecord.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

extern const struct postproc pp_normalizer;
extern const struct postproc pp_regression_analysis;
extern const struct postproc pp_moving_average;
extern const struct postproc pp_regressogram;
extern const struct postproc pp_kernel_regression;
extern const struct postproc pp_filter;
extern const struct postproc pp_clusterizer;

/* One entry a line, so postprocessors land without touching each other. */
/* clang-format off */
static const struct postproc *const table[] = {
	&pp_normalizer,
	&pp_regression_analysis,
	&pp_moving_average,
	&pp_regressogram,
	&pp_kernel_regression,
	&pp_filter,
	&pp_clusterizer,
	NULL,
};
/* clang-format on */

const struct postproc *const *postproc_list(void)
{
	return table;
}

const struct postproc *postproc_find(const char *name)
{
	for (const struct postproc *const *p = table; *p; p++) {
		size_t i;

		/* Perun's regression_analysis is our regression-analysis. */
		for (i = 0; name[i] &&
			    (name[i] == (*p)->name[i] || (name[i] == '_' && (*p)->name[i] == '-'));
		     i++)
			;
		if (!name[i] && !(*p)->name[i])
			return *p;
	}
	return NULL;
}

int postproc_parse_options(const char *name, const struct postproc_options *o, int argc,
			   char **argv, int *nop, char **help)
{
	const struct opt all[] = {
		OPT_INCLUDE(o->opts),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	char *prefix = xasprintf("postprocess %s", name);
	struct optparse p = {.name = prefix,
			     .usage = o->usage,
			     .about = o->about,
			     .opts = help ? all : o->opts,
			     .ctx = o->ctx,
			     .flags = OPTP_UNDERSCORES | (help ? 0 : OPTP_NO_HELP)};
	int ret = opt_parse(&p, argc, argv, nop);

	if (ret == OPT_HELP) {
		struct buf b = BUF_INIT;

		opt_help(&p, &b);
		*help = buf_detach(&b, NULL);
		ret = 0;
	} else if (ret == 0 && *nop && !o->operands) {
		ret = err_set(ERR_INVALID, "postprocess %s: unexpected argument '%s'", name,
			      argv[1]);
	}
	free(prefix);
	return ret;
}

int postproc_parse(const struct postproc *pp, int argc, char **argv, void **opts, char **help)
{
	char *h = NULL;
	int ret;

	*opts = NULL;
	if (help)
		*help = NULL;
	ret = pp->parse(argc, argv, opts, help ? help : &h);
	if (ret == 0 && h) {
		free(h);
		return err_set(ERR_INVALID, "postprocess %s: --help is not an option here",
			       pp->name);
	}
	return ret;
}

/* Appends {"name":NAME,"params":PARAMS} to the profile's records. */
static int record_run(struct profile *p, const char *name, const char *params)
{
	struct pp_records r;
	int ret = pp_records_read(p->postprocessors, &r);

	if (ret == 0)
		ret = pp_records_add(&r, name, params ? params : "{}");
	if (ret == 0) {
		free(p->postprocessors);
		p->postprocessors = pp_records_json(&r);
	}
	pp_records_free(&r);
	return ret;
}

void pp_say(const struct postproc_env *env, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!env || !env->message)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	env->message(env->message_arg, buf_str(&b));
	buf_release(&b);
}

int postproc_run(const struct postproc *pp, const void *opts, struct profile *p,
		 const struct postproc_env *env)
{
	int ret = pp->run(p, opts, env);
	char *params;

	if (ret < 0)
		return ret;
	params = pp->params_json(opts);
	ret = record_run(p, pp->name, params);
	free(params);
	return ret;
}

int postproc_run_argv_env(struct profile *p, int argc, char **argv, const struct postproc_env *env,
			  char **help)
{
	const struct postproc *pp = argc > 0 ? postproc_find(argv[0]) : NULL;
	char *h = NULL;
	void *opts = NULL;
	int ret;

	if (!pp)
		return err_set(ERR_INVALID, "unknown postprocessor '%s'", argc > 0 ? argv[0] : "");
	ret = pp->parse(argc, argv, &opts, help ? help : &h);
	free(h);
	if (ret < 0)
		return ret;
	if (!opts)
		return 1;
	ret = postproc_run(pp, opts, p, env);
	pp->free_opts(opts);
	return ret;
}

int postproc_run_argv(struct profile *p, int argc, char **argv)
{
	return postproc_run_argv_env(p, argc, argv, NULL, NULL);
}

static void json_key(struct buf *b, bool *first, const char *key)
{
	if (!*first)
		buf_addc(b, ',');
	*first = false;
	buf_add_json_str(b, key, strlen(key));
	buf_addc(b, ':');
}

void pp_json_str(struct buf *b, bool *first, const char *key, const char *s)
{
	json_key(b, first, key);
	if (s)
		buf_add_json_str(b, s, strlen(s));
	else
		buf_adds(b, "null");
}

void pp_json_num(struct buf *b, bool *first, const char *key, double v)
{
	json_key(b, first, key);
	if (isfinite(v))
		buf_addf(b, "%.17g", v);
	else
		buf_adds(b, "null");
}

void pp_json_bool(struct buf *b, bool *first, const char *key, bool v)
{
	json_key(b, first, key);
	buf_adds(b, v ? "true" : "false");
}

int pp_parse_double(const char *pp, const char *opt, const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v))
		return err_set(ERR_INVALID, "postprocess %s: %s wants a number, not '%s'", pp, opt,
			       arg);
	*out = v;
	return 0;
}

int pp_choice(const char *pp, const char *opt, const char *arg, const char *const *allowed)
{
	struct buf list = BUF_INIT;
	int ret;

	for (int i = 0; allowed[i]; i++)
		if (strcmp(allowed[i], arg) == 0)
			return i;
	for (int i = 0; allowed[i]; i++)
		buf_addf(&list, "%s%s", i ? ", " : "", allowed[i]);
	ret = err_set(ERR_INVALID, "postprocess %s: unknown %s '%s' (%s)", pp, opt, arg,
		      buf_str(&list));
	buf_release(&list);
	return ret;
}
