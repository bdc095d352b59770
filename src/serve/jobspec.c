/* A project job's description (jobspec.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/jobspec.h"
#include "serve/request_body.h"
#include "util/error.h"
#include "util/xalloc.h"

enum { MAX_REV = 256, MAX_TEXT = 8192 };

static const char *const kind_names[] = {"matrix", "remeasure", "bisect"};

const char *jobspec_kind_name(enum jobspec_kind k)
{
	return kind_names[k];
}

/* A string member (absent, null or "": NULL) of at most @max bytes. */
static int get_str(yajl_val obj, const char *name, size_t max, char **out)
{
	int ret = body_string(obj, name, max, out);

	if (*out && !**out) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

/* A number member in [@lo, @hi], whole when @whole; absent: *@out
 * untouched. */
static int get_num(yajl_val obj, const char *name, double lo, double hi, bool whole, double *out)
{
	double d;
	int ret = body_number(obj, name, &d);

	if (ret <= 0)
		return ret;
	if (!isfinite(d) || (whole && d != floor(d)) || d < lo || d > hi)
		return err_set(ERR_PARSE, "%s must be a %snumber from %g to %g", name,
			       whole ? "whole " : "", lo, hi);
	*out = d;
	return 0;
}

static int get_long(yajl_val obj, const char *name, double lo, double hi, long *out)
{
	double d = (double)*out;
	int ret = get_num(obj, name, lo, hi, true, &d);

	*out = (long)d;
	return ret;
}

static int get_kind(yajl_val obj, enum jobspec_kind *out)
{
	yajl_val v = body_member(obj, "kind");

	if (!v || !YAJL_IS_STRING(v))
		return err_set(ERR_PARSE, "kind must be matrix, remeasure or bisect");
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(*kind_names); i++)
		if (strcmp(v->u.string, kind_names[i]) == 0) {
			*out = (enum jobspec_kind)i;
			return 0;
		}
	return err_set(ERR_PARSE, "no job kind '%.40s': matrix, remeasure or bisect", v->u.string);
}

/* Every member, whatever the kind; what a kind does not use is refused
 * below, so a misspelt request does not run something else quietly. */
static int get_all(yajl_val o, struct jobspec *js)
{
	double seed = NAN;
	int ret = get_kind(o, &js->kind);

	if (ret == 0)
		ret = get_str(o, "version", MAX_REV, &js->version);
	if (ret == 0)
		ret = get_str(o, "base", MAX_REV, &js->base);
	if (ret == 0)
		ret = get_str(o, "good", MAX_REV, &js->good);
	if (ret == 0)
		ret = get_str(o, "command", MAX_TEXT, &js->command);
	if (ret == 0)
		ret = get_str(o, "job", MAX_TEXT, &js->job);
	if (ret == 0)
		ret = get_str(o, "location", MAX_TEXT, &js->location);
	if (ret == 0)
		ret = get_str(o, "build", MAX_TEXT, &js->build);
	if (ret == 0)
		ret = get_str(o, "on", 32, &js->on);
	if (ret == 0)
		ret = get_long(o, "max_rounds", 1, 100000, &js->max_rounds);
	if (ret == 0)
		ret = get_num(o, "time", 0.001, 1e7, false, &js->seconds);
	if (ret == 0)
		ret = get_long(o, "runs", 2, 100000, &js->runs);
	if (ret == 0)
		ret = get_long(o, "max_runs", 2, 100000, &js->max_runs);
	if (ret == 0)
		ret = get_num(o, "min_effect", 1e-6, 100, false, &js->min_effect);
	if (ret == 0)
		ret = get_num(o, "seed", 0, 4294967295.0, true, &seed);
	js->has_seed = !isnan(seed);
	js->seed = js->has_seed ? (long)seed : 0;
	return ret;
}

/* Options of one kind only. */
static int check_kind(const struct jobspec *js)
{
	bool remeasure = js->kind == JOB_REMEASURE, bisect = js->kind == JOB_BISECT;

	if (!js->version)
		return err_set(ERR_PARSE, "version is required (a commit, branch or tag)");
	if (js->base && !remeasure)
		return err_set(ERR_PARSE, "base is for a remeasure job");
	if ((js->max_rounds || js->seconds) && !remeasure)
		return err_set(ERR_PARSE, "max_rounds and time are for a remeasure job");
	if (js->on && js->kind == JOB_MATRIX)
		return err_set(ERR_PARSE, "on is for a remeasure or bisect job");
	if (!bisect && (js->good || js->command || js->job || js->location || js->build ||
			js->runs || js->max_runs || js->min_effect || js->has_seed))
		return err_set(ERR_PARSE, "good, command, job, location, build, runs, max_runs, "
					  "min_effect and seed are for a bisect job");
	if (!bisect)
		return 0;
	if (!js->good)
		return err_set(ERR_PARSE, "a bisect job needs good: a version known to be fast");
	if (!js->command == !js->job)
		return err_set(ERR_PARSE, "a bisect job needs command (a shell command to time) "
					  "or job (a collector job), one of them");
	if (js->location && !js->job)
		return err_set(ERR_PARSE, "location is for a bisect with job");
	return 0;
}

int jobspec_parse_request(const char *body, size_t len, struct jobspec *out)
{
	yajl_val v = body_parse(body, len);
	int ret;

	memset(out, 0, sizeof(*out));
	if (!v)
		return ERR_PARSE;
	ret = get_all(v, out);
	if (ret == 0)
		ret = check_kind(out);
	yajl_tree_free(v);
	if (ret < 0)
		jobspec_free(out);
	return ret;
}

static void add_str(struct buf *b, const char *key, const char *v)
{
	if (!v)
		return;
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, v, strlen(v));
}

void jobspec_json(const struct jobspec *js, struct buf *b)
{
	buf_addf(b, "{\"kind\":\"%s\"", jobspec_kind_name(js->kind));
	add_str(b, "version", js->version);
	add_str(b, "short", js->short_id);
	add_str(b, "summary", js->summary);
	add_str(b, "base", js->base);
	add_str(b, "good", js->good);
	add_str(b, "command", js->command);
	add_str(b, "job", js->job);
	add_str(b, "location", js->location);
	add_str(b, "build", js->build);
	add_str(b, "on", js->on);
	if (js->max_rounds)
		buf_addf(b, ",\"max_rounds\":%ld", js->max_rounds);
	if (js->seconds)
		buf_addf(b, ",\"time\":%.17g", js->seconds);
	if (js->runs)
		buf_addf(b, ",\"runs\":%ld", js->runs);
	if (js->max_runs)
		buf_addf(b, ",\"max_runs\":%ld", js->max_runs);
	if (js->min_effect)
		buf_addf(b, ",\"min_effect\":%.17g", js->min_effect);
	if (js->has_seed)
		buf_addf(b, ",\"seed\":%ld", js->seed);
	buf_addc(b, '}');
}

int jobspec_from_json(const char *json, struct jobspec *out)
{
	yajl_val v = body_parse(json, json ? strlen(json) : 0);
	int ret;

	memset(out, 0, sizeof(*out));
	if (!v)
		return err_set(ERR_PARSE, "this run is not a project job");
	ret = get_all(v, out);
	if (ret == 0)
		ret = get_str(v, "short", 64, &out->short_id);
	if (ret == 0)
		ret = get_str(v, "summary", MAX_TEXT, &out->summary);
	if (ret == 0 && !out->version)
		ret = err_set(ERR_PARSE, "this job names no version");
	yajl_tree_free(v);
	if (ret < 0)
		jobspec_free(out);
	return ret;
}

struct argv {
	char **v;
	size_t n, cap;
};

static void push(struct argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void push_opt(struct argv *a, const char *opt, const char *v)
{
	if (!v)
		return;
	push(a, opt);
	push(a, v);
}

static void push_num(struct argv *a, const char *opt, double v, bool whole)
{
	char s[64];

	if (!v)
		return;
	snprintf(s, sizeof(s), whole ? "%.0f" : "%.17g", v);
	push_opt(a, opt, s);
}

static void bisect_args(struct argv *a, const struct jobspec *js)
{
	push(a, "bisect");
	push_opt(a, "--good", js->good);
	push_opt(a, "--bad", js->version);
	push_opt(a, "--build", js->build);
	push_num(a, "--runs", (double)js->runs, true);
	push_num(a, "--max-runs", (double)js->max_runs, true);
	push_opt(a, "--on", js->on);
	push_num(a, "--min-effect", js->min_effect, false);
	if (js->has_seed) {
		char s[32];

		snprintf(s, sizeof(s), "%ld", js->seed);
		push_opt(a, "--seed", s);
	}
	if (js->job) {
		push_opt(a, "--job", js->job);
		push_opt(a, "--location", js->location);
		return;
	}
	push(a, "--");
	push(a, "/bin/sh");
	push(a, "-c");
	push(a, js->command);
}

char **jobspec_argv(const struct jobspec *js, const char *veles, const char *root)
{
	struct argv a = {0};

	push(&a, veles);
	push_opt(&a, "-C", root);
	switch (js->kind) {
	case JOB_MATRIX:
		push(&a, "run");
		push(&a, "matrix");
		push_opt(&a, "-m", js->version);
		break;
	case JOB_REMEASURE:
		push(&a, "check");
		push(&a, "head");
		push(&a, js->version);
		push(&a, "--remeasure");
		push_num(&a, "--max-rounds", (double)js->max_rounds, true);
		push_num(&a, "--time", js->seconds, false);
		push_opt(&a, "--on", js->on);
		break;
	case JOB_BISECT:
		bisect_args(&a, js);
		break;
	}
	return a.v;
}

void jobspec_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Quoted as a POSIX shell reads it, where it needs to be. */
static void add_word(struct buf *b, const char *w)
{
	bool plain = *w != '\0';

	for (const char *c = w; *c && plain; c++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       "-_./=:,+@%",
			       *c) != NULL;
	if (b->len)
		buf_addc(b, ' ');
	if (plain) {
		buf_adds(b, w);
		return;
	}
	buf_addc(b, '\'');
	for (const char *c = w; *c; c++)
		if (*c == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *c);
	buf_addc(b, '\'');
}

char *jobspec_command(const struct jobspec *js)
{
	char **argv = jobspec_argv(js, "veles", NULL);
	struct buf b = BUF_INIT;

	for (size_t i = 0; argv[i]; i++)
		add_word(&b, argv[i]);
	jobspec_argv_free(argv);
	return buf_detach(&b, NULL);
}

void jobspec_free(struct jobspec *js)
{
	free(js->version);
	free(js->base);
	free(js->good);
	free(js->short_id);
	free(js->summary);
	free(js->command);
	free(js->job);
	free(js->location);
	free(js->build);
	free(js->on);
	memset(js, 0, sizeof(*js));
}
