/*
 * filter: keeps the resources that match conditions such as 'amount>100',
 * 'subtype=malloc' or 'uid~^SLList_' and drops the rest
 * (docs/postprocess/filter.md).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

#define NAME "filter"

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_MATCH, OP_NOMATCH };

struct cond {
	char *text; /* as given, for the record */
	char *key;
	enum op op;
	char *value;
	bool value_is_num;
	double num;
	regex_t re; /* OP_MATCH, OP_NOMATCH */
};

struct filter_opts {
	struct cond *c;
	size_t n;
	bool any;
};

static void filter_usage(void)
{
	printf("usage: veles postprocess PROFILE filter --where COND... [--any]\n"
	       "\n"
	       "Keeps the resources that satisfy every COND (any one with --any) and drops\n"
	       "the others. COND is KEY OP VALUE, OP one of = != < <= > >= ~ !~ (~ matches\n"
	       "a POSIX extended regular expression anywhere in the value). Both sides are\n"
	       "compared as numbers when both are numbers, else as text. A resource without\n"
	       "KEY fails the condition. 'uid' is the uid as `veles show` prints it.\n"
	       "\n"
	       "  --where COND   a condition, e.g. 'amount>100', 'uid~^SLList_' (repeatable)\n"
	       "  --any          keep resources satisfying at least one condition\n"
	       "  --no-any       every condition (the default)\n");
}

static void filter_free(void *opts)
{
	struct filter_opts *o = opts;

	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		if (o->c[i].op == OP_MATCH || o->c[i].op == OP_NOMATCH)
			regfree(&o->c[i].re);
		free(o->c[i].text);
		free(o->c[i].key);
		free(o->c[i].value);
	}
	free(o->c);
	free(o);
}

static bool parse_num(const char *s, double *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && !isnan(*out);
}

/* The operator at @s and its length; 0 for none. */
static size_t op_at(const char *s, enum op *op)
{
	static const struct {
		const char *text;
		enum op op;
	} ops[] = {{"!=", OP_NE}, {"!~", OP_NOMATCH}, {"<=", OP_LE}, {">=", OP_GE},
		   {"=", OP_EQ},  {"<", OP_LT},	      {">", OP_GT},  {"~", OP_MATCH}};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t len = strlen(ops[i].text);

		if (strncmp(s, ops[i].text, len) == 0) {
			*op = ops[i].op;
			return len;
		}
	}
	return 0;
}

static int cond_parse(const char *text, struct cond *c)
{
	size_t k = strcspn(text, "=!<>~"), len;

	memset(c, 0, sizeof(*c));
	len = text[k] ? op_at(text + k, &c->op) : 0;
	if (k == 0 || len == 0)
		return err_set(ERR_INVALID,
			       "postprocess " NAME ": --where '%s' is not KEY OP VALUE "
			       "(OP one of = != < <= > >= ~ !~)",
			       text);
	c->text = xstrdup(text);
	c->key = xstrndup(text, k);
	c->value = xstrdup(text + k + len);
	c->value_is_num = parse_num(c->value, &c->num);
	if (c->op == OP_MATCH || c->op == OP_NOMATCH) {
		int rc = regcomp(&c->re, c->value, REG_EXTENDED | REG_NOSUB);
		char msg[128];

		if (rc) {
			regerror(rc, &c->re, msg, sizeof(msg));
			c->op = OP_EQ; /* nothing compiled to free */
			return err_set(ERR_INVALID, "postprocess " NAME ": --where '%s': %s", text,
				       msg);
		}
	}
	return 0;
}

static int filter_parse(int argc, char **argv, void **out)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"where", required_argument, NULL, 'w'},
		{"any", no_argument, NULL, 'a'},
		{"no-any", no_argument, NULL, 'A'},
		{NULL, 0, NULL, 0},
	};
	struct filter_opts *o = xcalloc(1, sizeof(*o));
	int opt, ret = 0;

	*out = NULL;
	optind = 1;
	opterr = 0;
	while (ret == 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			filter_usage();
			filter_free(o);
			return 0;
		}
		if (opt == 'a' || opt == 'A') {
			o->any = opt == 'a';
		} else if (opt == 'w') {
			o->c = xrealloc(o->c, (o->n + 1) * sizeof(*o->c));
			ret = cond_parse(optarg, &o->c[o->n++]); /* freed with @o either way */
		} else {
			ret = pp_bad_option(NAME, opt, argv);
		}
	}
	if (ret == 0 && optind < argc)
		ret = err_set(ERR_INVALID, "postprocess " NAME ": unexpected argument '%s'",
			      argv[optind]);
	if (ret == 0 && o->n == 0)
		ret = err_set(ERR_INVALID,
			      "postprocess " NAME ": give at least one --where KEY OP VALUE");
	if (ret < 0) {
		filter_free(o);
		return ret;
	}
	*out = o;
	return 0;
}

static char *filter_params(const void *opts)
{
	const struct filter_opts *o = opts;
	struct buf b = BUF_INIT;
	bool first = true;

	buf_adds(&b, "{\"where\":[");
	for (size_t i = 0; i < o->n; i++) {
		if (i)
			buf_addc(&b, ',');
		buf_add_json_str(&b, o->c[i].text, strlen(o->c[i].text));
	}
	buf_addc(&b, ']');
	first = false;
	pp_json_bool(&b, &first, "any", o->any);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* A resource's value of @key as text and, when it is one, as a number. */
static const char *row_value(const struct profile *p, size_t row, const char *key,
			     struct buf *scratch, double *num, bool *is_num)
{
	size_t at;
	const struct column *c;
	const char *s;

	*is_num = false;
	if (strcmp(key, "uid") == 0) {
		s = profile_uid(p, row, scratch);
		*is_num = parse_num(s, num);
		return s;
	}
	c = profile_attr(p, row, key, NULL, &at);
	if (!c)
		return NULL;
	if (c->kind == COL_I64 || c->kind == COL_F64) {
		*num = col_num(c, at);
		*is_num = true;
		buf_reset(scratch);
		buf_addf(scratch, "%.15g", *num);
		return buf_str(scratch);
	}
	s = col_text(p, c, at);
	if (s)
		*is_num = parse_num(s, num);
	return s;
}

static bool cond_holds(const struct cond *c, const struct profile *p, size_t row,
		       struct buf *scratch)
{
	double num;
	bool is_num;
	const char *s = row_value(p, row, c->key, scratch, &num, &is_num);
	int cmp;

	if (!s)
		return false;
	if (c->op == OP_MATCH || c->op == OP_NOMATCH)
		return (regexec(&c->re, s, 0, NULL, 0) == 0) == (c->op == OP_MATCH);
	if (is_num && c->value_is_num)
		cmp = (num > c->num) - (num < c->num);
	else
		cmp = strcmp(s, c->value);
	switch (c->op) {
	case OP_EQ:
		return cmp == 0;
	case OP_NE:
		return cmp != 0;
	case OP_LT:
		return cmp < 0;
	case OP_LE:
		return cmp <= 0;
	case OP_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}

static int filter_run(struct profile *p, const void *opts)
{
	const struct filter_opts *o = opts;
	size_t n = profile_nres(p);
	bool *keep = xmalloc(n + 1);
	struct buf scratch = BUF_INIT;

	for (size_t r = 0; r < n; r++) {
		size_t i;

		for (i = 0; i < o->n; i++)
			if (cond_holds(&o->c[i], p, r, &scratch) == o->any)
				break;
		/* all: no condition failed; any: one held */
		keep[r] = o->any ? i < o->n : i == o->n;
	}
	profile_res_keep(p, keep);
	free(keep);
	buf_release(&scratch);
	return 0;
}

const struct postproc pp_filter = {
	.name = NAME,
	.summary = "keep only the resources that match conditions (uid~REGEX, amount>100, ...)",
	.usage = filter_usage,
	.parse = filter_parse,
	.params_json = filter_params,
	.run = filter_run,
	.free_opts = filter_free,
};
