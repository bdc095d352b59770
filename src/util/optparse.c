#include "util/optparse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/xalloc.h"

/* The widest left column before help text moves to a line of its own. */
#define HELP_COLUMN_MAX 30

static bool takes_arg(const struct opt *o)
{
	return o->kind != OPT_KIND_BOOL && o->kind != OPT_KIND_HELP &&
	       !(o->kind == OPT_KIND_CALLBACK && (o->flags & OPT_NOARG));
}

static bool is_option(const struct opt *o)
{
	return o->kind >= OPT_KIND_BOOL;
}

static const struct opt *find_short(const struct opt *t, int c)
{
	for (; t->kind != OPT_KIND_END; t++) {
		const struct opt *in;

		if (t->kind == OPT_KIND_INCLUDE && (in = find_short(t->include, c)))
			return in;
		if (is_option(t) && t->short_name == c)
			return t;
	}
	return NULL;
}

/*
 * Exact name, else every option @name is a prefix of: the first in
 * *@prefix, and *@n counts those of other names. A name given twice is
 * the first option's: a table may restate an included option (its own
 * help, a short name) without making its prefixes ambiguous.
 */
static const struct opt *find_long(const struct opt *t, const char *name, size_t len,
				   const struct opt **prefix, int *n)
{
	for (; t->kind != OPT_KIND_END; t++) {
		const struct opt *in;

		if (t->kind == OPT_KIND_INCLUDE &&
		    (in = find_long(t->include, name, len, prefix, n)))
			return in;
		if (!is_option(t) || !t->long_name || strncmp(t->long_name, name, len) != 0)
			continue;
		if (t->long_name[len] == '\0')
			return t;
		if (*prefix && strcmp((*prefix)->long_name, t->long_name) == 0)
			continue;
		(*n)++;
		if (!*prefix)
			*prefix = t;
	}
	return NULL;
}

/* An option that an earlier one of the same long name in @root restates. */
static bool shadowed(const struct opt *root, const struct opt *o)
{
	const struct opt *prefix = NULL;
	int n = 0;

	return o->long_name &&
	       find_long(root, o->long_name, strlen(o->long_name), &prefix, &n) != o;
}

static int set_long(const struct optparse *p, const struct opt *o, const char *text,
		    const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < o->min)
		return err_set(ERR_INVALID, "%s: %s needs a whole number >= %ld, not '%s'", p->name,
			       text, o->min, arg);
	*(long *)o->value = v;
	return 0;
}

static int set_double(const struct optparse *p, const struct opt *o, const char *text,
		      const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || !(v > (double)o->min)) {
		if (o->min == 0)
			return err_set(ERR_INVALID, "%s: %s needs a positive number, not '%s'",
				       p->name, text, arg);
		return err_set(ERR_INVALID, "%s: %s needs a number greater than %ld, not '%s'",
			       p->name, text, o->min, arg);
	}
	*(double *)o->value = v;
	return 0;
}

static int apply(const struct optparse *p, const struct opt *o, const char *text, const char *arg)
{
	switch (o->kind) {
	case OPT_KIND_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_LONG:
		return set_long(p, o, text, arg);
	case OPT_KIND_DOUBLE:
		return set_double(p, o, text, arg);
	case OPT_KIND_CALLBACK:
		return o->cb(p->ctx, o, arg);
	case OPT_KIND_HELP:
		return OPT_HELP;
	default:
		return err_set(ERR_INVALID, "%s: unknown option '%s'", p->name, text);
	}
}

static bool wants_help(const struct optparse *p, const char *arg)
{
	int n = 0;
	const struct opt *prefix = NULL;

	if (p->flags & OPTP_NO_HELP)
		return false;
	if (strcmp(arg, "-h") == 0)
		return !find_short(p->opts, 'h');
	return strcmp(arg, "--help") == 0 && !find_long(p->opts, "help", 4, &prefix, &n);
}

/* An OPT_ARG2 option's second value, argv[*i + 1], given to its callback
 * after the first; *i moves past it. */
static int second_arg(const struct optparse *p, const struct opt *o, const char *text, int argc,
		      char **argv, int *i)
{
	if (!(o->flags & OPT_ARG2))
		return 0;
	if (*i + 1 >= argc)
		return err_set(ERR_INVALID, "%s: option '%s' needs two values", p->name, text);
	(*i)++;
	return apply(p, o, text, argv[*i]);
}

/* Applies @o's value @arg, then an OPT_ARG2 option's second value. */
static int apply_args(const struct optparse *p, const struct opt *o, const char *text,
		      const char *arg, int argc, char **argv, int *i)
{
	int ret = apply(p, o, text, arg);

	return ret ? ret : second_arg(p, o, text, argc, argv, i);
}

/* The alias spelled exactly @name (@len chars) with one dash or two. */
static const struct opt *find_alias(const struct opt *t, const char *name, size_t len,
				    bool one_dash)
{
	for (; t->kind != OPT_KIND_END; t++) {
		const struct opt *in;

		if (t->kind == OPT_KIND_INCLUDE &&
		    (in = find_alias(t->include, name, len, one_dash)))
			return in;
		if (t->kind == OPT_KIND_ALIAS && !(t->flags & OPT_ONE_DASH) == !one_dash &&
		    strlen(t->long_name) == len && strncmp(t->long_name, name, len) == 0)
			return t;
	}
	return NULL;
}

/* The option an alias stands for (its exact long name). */
static const struct opt *resolve(const struct optparse *p, const struct opt *a)
{
	const struct opt *prefix = NULL;
	int n = 0;

	return a ? find_long(p->opts, a->alias_of, strlen(a->alias_of), &prefix, &n) : NULL;
}

/* Option @o's value: after '=' (@eq), or the next argument; *i moves past it. */
static int take(const struct optparse *p, const struct opt *o, const char *eq, int argc,
		char **argv, int *i)
{
	char text[128];

	snprintf(text, sizeof(text), "--%s", o->long_name);
	if (!takes_arg(o)) {
		if (eq)
			return err_set(ERR_INVALID, "%s: option '%s' takes no value", p->name,
				       text);
		return apply(p, o, text, NULL);
	}
	if (eq || (o->flags & OPT_OPTARG))
		return apply_args(p, o, text, eq ? eq + 1 : NULL, argc, argv, i);
	if (*i + 1 >= argc)
		return err_set(ERR_INVALID, "%s: option '%s' needs a value", p->name, text);
	(*i)++;
	return apply_args(p, o, text, argv[*i], argc, argv, i);
}

/* "--name", "--name=VALUE" or "--name VALUE" at argv[*i]; *i moves past it. */
static int parse_long(const struct optparse *p, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o, *prefix = NULL;
	char key[128];
	int n = 0;

	if (len >= sizeof(key))
		return err_set(ERR_INVALID, "%s: unknown option '%s'", p->name, arg);
	memcpy(key, name, len);
	key[len] = '\0';
	for (char *c = key; (p->flags & OPTP_UNDERSCORES) && *c; c++)
		*c = *c == '_' ? '-' : *c;
	o = find_long(p->opts, key, len, &prefix, &n);
	if (!o)
		o = resolve(p, find_alias(p->opts, key, len, false));
	if (!o && n > 1)
		return err_set(ERR_INVALID, "%s: ambiguous option '%s'", p->name, arg);
	if (!o && !(o = prefix))
		return err_set(ERR_INVALID, "%s: unknown option '%s'", p->name, arg);
	return take(p, o, eq, argc, argv, i);
}

/* A one-dash alias ("-bn", "-bn=5") at argv[*i], or NULL. */
static const struct opt *dash_alias(const struct optparse *p, const char *arg)
{
	const char *eq = strchr(arg + 1, '=');
	size_t len = eq ? (size_t)(eq - arg - 1) : strlen(arg + 1);

	return resolve(p, find_alias(p->opts, arg + 1, len, true));
}

/* "-x", "-xVALUE", "-x VALUE" or flags together ("-qv") at argv[*i]. */
static int parse_short(const struct optparse *p, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

	for (const char *s = arg + 1; *s; s++) {
		const struct opt *o = find_short(p->opts, (unsigned char)*s);
		char text[128];

		if (!o)
			return err_set(ERR_INVALID, "%s: unknown option '-%c'", p->name, *s);
		/* Messages name the option by its long name, which says more. */
		if (o->long_name)
			snprintf(text, sizeof(text), "--%s", o->long_name);
		else
			snprintf(text, sizeof(text), "-%c", *s);
		if (!takes_arg(o)) {
			int ret = apply(p, o, text, NULL);

			if (ret != 0)
				return ret;
			continue;
		}
		if (s[1])
			return apply_args(p, o, text, s + 1, argc, argv, i);
		if (o->flags & OPT_OPTARG)
			return apply(p, o, text, NULL);
		if (*i + 1 >= argc)
			return err_set(ERR_INVALID, "%s: option '-%c' needs a value", p->name, *s);
		(*i)++;
		return apply_args(p, o, text, argv[*i], argc, argv, i);
	}
	return 0;
}

/* Operands first, in order, then every other argument: none is lost, so a
 * caller that owns argv's strings can still free them all. */
static void operands_first(int argc, char **argv, const bool *is_op)
{
	char **order = xcalloc((size_t)argc, sizeof(*order));
	int n = 0;

	for (int i = 1; i < argc; i++)
		if (is_op[i])
			order[n++] = argv[i];
	for (int i = 1; i < argc; i++)
		if (!is_op[i])
			order[n++] = argv[i];
	memcpy(argv + 1, order, (size_t)n * sizeof(*argv));
	free(order);
}

int opt_parse(const struct optparse *p, int argc, char **argv, int *nop)
{
	bool *is_op = xcalloc(argc > 0 ? (size_t)argc : 1, sizeof(*is_op));
	const struct opt *o;
	int n = 0, i, ret = 0;

	for (i = 1; i < argc && ret == 0; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "--") == 0) {
			if (p->flags & OPTP_KEEP_DASHDASH)
				is_op[i] = true;
			for (i++; i < argc; i++)
				is_op[i] = true;
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			is_op[i] = true;
			if (p->flags & OPTP_STOP_AT_OPERAND) {
				for (i++; i < argc; i++)
					is_op[i] = true;
				break;
			}
			continue;
		}
		if (wants_help(p, arg))
			ret = OPT_HELP;
		else if (arg[1] == '-')
			ret = parse_long(p, argc, argv, &i);
		else if ((o = dash_alias(p, arg)))
			ret = take(p, o, strchr(arg, '='), argc, argv, &i);
		else
			ret = parse_short(p, argc, argv, &i);
	}
	for (i = 1; i < argc; i++)
		n += is_op[i];
	if (ret == 0)
		operands_first(argc, argv, is_op);
	*nop = ret == 0 ? n : 0;
	free(is_op);
	return ret;
}

/* ---- help ---- */

static void left_column(const struct opt *o, struct buf *b)
{
	buf_adds(b, "  ");
	if (o->short_name)
		buf_addf(b, "-%c%s", o->short_name, o->long_name ? ", " : "");
	else
		buf_adds(b, "    ");
	if (o->long_name)
		buf_addf(b, "--%s", o->long_name);
	if (takes_arg(o) && o->argh)
		buf_addf(b, (o->flags & OPT_OPTARG) ? "[=%s]" : " %s", o->argh);
}

static size_t column_width(const struct opt *root, const struct opt *t, size_t w)
{
	for (; t->kind != OPT_KIND_END; t++) {
		struct buf b = BUF_INIT;

		if (t->kind == OPT_KIND_INCLUDE)
			w = column_width(root, t->include, w);
		if (!is_option(t) || (t->flags & OPT_HIDDEN) || !t->help || shadowed(root, t))
			continue;
		left_column(t, &b);
		if (b.len <= HELP_COLUMN_MAX && b.len > w)
			w = b.len;
		buf_release(&b);
	}
	return w;
}

static void help_text(struct buf *b, const char *help, size_t col)
{
	for (const char *s = help; *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (s != help)
			buf_addf(b, "%*s", (int)col, "");
		buf_add(b, s, len);
		buf_addc(b, '\n');
		s += len + (nl ? 1 : 0);
	}
}

static void help_table(const struct opt *root, const struct opt *t, size_t col, struct buf *b)
{
	for (; t->kind != OPT_KIND_END; t++) {
		size_t start = b->len;

		if (t->kind == OPT_KIND_INCLUDE) {
			help_table(root, t->include, col, b);
			continue;
		}
		if (t->kind == OPT_KIND_GROUP) {
			if (b->len < 2 || b->data[b->len - 2] != '\n')
				buf_addc(b, '\n');
			help_text(b, t->help, 0);
			continue;
		}
		if ((t->flags & OPT_HIDDEN) || !t->help || shadowed(root, t))
			continue;
		left_column(t, b);
		if (b->len - start > col - 2) {
			buf_addc(b, '\n');
			buf_addf(b, "%*s", (int)col, "");
		} else {
			buf_addf(b, "%*s", (int)(col - (b->len - start)), "");
		}
		help_text(b, t->help, col);
	}
}

void opt_help(const struct optparse *p, struct buf *out)
{
	const char *s = p->usage;

	for (bool first = true; s && *s; first = false) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		buf_adds(out, first ? "usage: " : "       ");
		buf_add(out, s, len);
		buf_addc(out, '\n');
		s += len + (nl ? 1 : 0);
	}
	if (p->about) {
		buf_addc(out, '\n');
		buf_adds(out, p->about);
		if (*p->about && p->about[strlen(p->about) - 1] != '\n')
			buf_addc(out, '\n');
	}
	buf_addc(out, '\n');
	help_table(p->opts, p->opts, column_width(p->opts, p->opts, 0) + 2, out);
}
