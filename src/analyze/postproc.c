/* The postprocessor table, the record each run leaves, and option helpers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

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
	for (const struct postproc *const *p = table; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

/* Appends {"name":NAME,"params":PARAMS} to the compact JSON array. */
static void record_run(struct profile *p, const char *name, const char *params)
{
	struct buf b = BUF_INIT;
	const char *old = p->postprocessors;

	if (old && strcmp(old, "[]") != 0) {
		buf_add(&b, old, strlen(old) - 1); /* drop the closing ']' */
		buf_addc(&b, ',');
	} else {
		buf_addc(&b, '[');
	}
	buf_adds(&b, "{\"name\":");
	buf_add_json_str(&b, name, strlen(name));
	buf_addf(&b, ",\"params\":%s}]", params ? params : "{}");
	free(p->postprocessors);
	p->postprocessors = buf_detach(&b, NULL);
}

static void (*notify_fn)(const char *msg);

void postproc_set_notify(void (*fn)(const char *msg))
{
	notify_fn = fn;
}

void pp_notify(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!notify_fn)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	notify_fn(buf_str(&b));
	buf_release(&b);
}

int postproc_apply(const struct postproc *pp, const void *opts, struct profile *p)
{
	int ret = pp->run(p, opts);
	char *params;

	if (ret < 0)
		return ret;
	params = pp->params_json(opts);
	record_run(p, pp->name, params);
	free(params);
	return 0;
}

int postproc_run_argv(struct profile *p, int argc, char **argv)
{
	const struct postproc *pp = argc > 0 ? postproc_find(argv[0]) : NULL;
	void *opts = NULL;
	int ret;

	if (!pp)
		return err_set(ERR_INVALID, "unknown postprocessor '%s'", argc > 0 ? argv[0] : "");
	ret = pp->parse(argc, argv, &opts);
	if (ret < 0)
		return ret;
	if (!opts)
		return 1;
	ret = postproc_apply(pp, opts, p);
	pp->free_opts(opts);
	return ret;
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

int pp_bad_option(const char *pp, int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		return err_set(ERR_INVALID, "postprocess %s: option %s needs a value", pp, arg);
	if (optopt && optopt != '?')
		return err_set(ERR_INVALID, "postprocess %s: unknown option -%c", pp, optopt);
	return err_set(ERR_INVALID, "postprocess %s: unknown option %s", pp, arg);
}
