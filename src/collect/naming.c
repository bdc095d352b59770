/*
 * Profile names from a template, Perun's format.output_profile_template
 * (perun/profile/helpers.py, generate_profile_name): %collector%,
 * %postprocessors%, %cmd%, %workload%, %type%, %date%, %origin%,
 * %counter%, %UNIT.PARAM% (a collector's or postprocessor's parameter) and
 * %% for a percent sign; every other character is kept.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_tree.h>

#include "collect/collector.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

/* Perun's counter: how many names this process made. */
static unsigned name_counter;

/* Perun's sanitize_filepart: these characters become '_'. */
static void add_part(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_addc(b, strchr("# %&{}\\<>*?/ $!'\":@", *s) ? '_' : *s);
}

/* Perun's lookup_value: the value, or "_" when missing or empty. */
static void add_value(struct buf *b, const char *v)
{
	add_part(b, v && *v ? v : "_");
}

/* "[base name]" of a command or workload, as Perun names them. */
static void add_bracketed(struct buf *b, const char *v)
{
	const char *slash = v ? strrchr(v, '/') : NULL;

	buf_addc(b, '[');
	add_value(b, slash ? slash + 1 : v);
	buf_addc(b, ']');
}

/* The first value of @key anywhere inside @v (Perun's all_key_values_of). */
static yajl_val find_key(yajl_val v, const char *key)
{
	if (YAJL_IS_OBJECT(v)) {
		for (size_t i = 0; i < v->u.object.len; i++)
			if (strcmp(v->u.object.keys[i], key) == 0)
				return v->u.object.values[i];
		for (size_t i = 0; i < v->u.object.len; i++) {
			yajl_val r = find_key(v->u.object.values[i], key);

			if (r)
				return r;
		}
	} else if (YAJL_IS_ARRAY(v)) {
		for (size_t i = 0; i < v->u.array.len; i++) {
			yajl_val r = find_key(v->u.array.values[i], key);

			if (r)
				return r;
		}
	}
	return NULL;
}

static void add_scalar(struct buf *b, yajl_val v)
{
	if (YAJL_IS_STRING(v))
		add_value(b, YAJL_GET_STRING(v));
	else if (YAJL_IS_NUMBER(v))
		add_value(b, YAJL_GET_NUMBER(v));
	else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
		add_value(b, YAJL_IS_TRUE(v) ? "True" : "False");
	else
		add_value(b, NULL);
}

/* The params of unit @unit: the collector's, or a postprocessor's. */
static yajl_val unit_params(const struct profile *p, yajl_val posts, yajl_val coll,
			    const char *unit)
{
	if (p->collector && strcmp(p->collector, unit) == 0)
		return coll;
	for (size_t i = 0; YAJL_IS_ARRAY(posts) && i < posts->u.array.len; i++) {
		yajl_val pp = posts->u.array.values[i];
		const char *nk[] = {"name", NULL}, *pk[] = {"params", NULL};
		yajl_val name = yajl_tree_get(pp, nk, yajl_t_string);
		const char *s = name ? YAJL_GET_STRING(name) : NULL;

		if (s && strcmp(s, unit) == 0)
			return yajl_tree_get(pp, pk, yajl_t_any);
	}
	return NULL;
}

static void add_param(struct buf *b, const struct profile *p, const char *token)
{
	char *unit = xstrdup(token), *param = strchr(unit, '.');
	yajl_val posts = yajl_tree_parse(p->postprocessors ? p->postprocessors : "[]", NULL, 0);
	yajl_val coll = yajl_tree_parse(p->collector_params ? p->collector_params : "{}", NULL, 0);
	yajl_val params, v;

	*param++ = '\0';
	params = unit_params(p, posts, coll, unit);
	v = params ? find_key(params, param) : NULL;
	if (v)
		add_scalar(b, v);
	else
		add_value(b, NULL);
	yajl_tree_free(posts);
	yajl_tree_free(coll);
	free(unit);
}

/* "after-A-and-B" of the postprocessors' names, or "_". */
static void add_postprocessors(struct buf *b, const struct profile *p)
{
	yajl_val posts = yajl_tree_parse(p->postprocessors ? p->postprocessors : "[]", NULL, 0);
	const char *nk[] = {"name", NULL};
	size_t n = YAJL_IS_ARRAY(posts) ? posts->u.array.len : 0;

	if (!n)
		buf_addc(b, '_');
	for (size_t i = 0; i < n; i++) {
		yajl_val name = yajl_tree_get(posts->u.array.values[i], nk, yajl_t_string);

		buf_adds(b, i ? "-and-" : "after-");
		add_value(b, name ? YAJL_GET_STRING(name) : NULL);
	}
	yajl_tree_free(posts);
}

static int add_token(struct buf *b, const struct profile *p, const char *tok, size_t len)
{
	char *t = xstrndup(tok, len);
	int ret = 0;

	if (strcmp(t, "collector") == 0) {
		add_value(b, p->collector);
	} else if (strcmp(t, "postprocessors") == 0) {
		add_postprocessors(b, p);
	} else if (strcmp(t, "cmd") == 0) {
		add_bracketed(b, p->cmd);
	} else if (strcmp(t, "workload") == 0) {
		add_bracketed(b, p->workload);
	} else if (strcmp(t, "type") == 0) {
		add_value(b, p->type);
	} else if (strcmp(t, "origin") == 0) {
		add_value(b, p->origin);
	} else if (strcmp(t, "counter") == 0) {
		buf_addf(b, "%u", name_counter);
	} else if (strcmp(t, "date") == 0) {
		/* Perun's is UTC. */
		char stamp[32];
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d-%H-%M-%S", &tm);
		buf_adds(b, stamp);
	} else {
		/* collect_template_check() let only UNIT.PARAM through. */
		add_param(b, p, t);
	}
	free(t);
	return ret;
}

static const char *const tokens[] = {"collector", "postprocessors", "cmd",     "workload",
				     "type",	  "origin",	    "counter", "date"};

static bool token_known(const char *t, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(tokens); i++)
		if (strlen(tokens[i]) == len && memcmp(tokens[i], t, len) == 0)
			return true;
	/* UNIT.PARAM */
	return len > 2 && t[0] != '.' && t[len - 1] != '.' && memchr(t, '.', len);
}

int collect_template_check(const char *tmpl)
{
	const char *s = tmpl;

	while ((s = strchr(s, '%'))) {
		const char *end = strchr(s + 1, '%');

		if (!end)
			return err_set(ERR_INVALID,
				       "profile name template '%s': a '%%' is not closed (write "
				       "%%%% for a percent sign)",
				       tmpl);
		if (end > s + 1 && !token_known(s + 1, (size_t)(end - s - 1)))
			return err_set(ERR_INVALID,
				       "profile name template '%s': unknown token '%.*s' "
				       "(collector, postprocessors, cmd, workload, type, date, "
				       "origin, counter, UNIT.PARAM, or %%%% for a percent sign)",
				       tmpl, (int)(end - s + 1), s);
		s = end + 1;
	}
	if (strchr(tmpl, '/'))
		return err_set(ERR_INVALID, "profile name template '%s': a name, not a path", tmpl);
	return 0;
}

int collect_template_name(const char *tmpl, const struct profile *p, char **out)
{
	struct buf b = BUF_INIT;
	const char *s = tmpl;
	int ret = collect_template_check(tmpl);

	while (ret == 0 && *s) {
		const char *end;

		if (*s != '%') {
			buf_addc(&b, *s++);
			continue;
		}
		end = strchr(s + 1, '%');
		if (end == s + 1)
			buf_addc(&b, '%');
		else
			ret = add_token(&b, p, s + 1, (size_t)(end - s - 1));
		s = end + 1;
	}
	name_counter++;
	if (ret == 0 && (!b.len || b.data[0] == '.' || b.data[0] == '-'))
		ret = err_set(ERR_INVALID,
			      "profile name template '%s' makes the name '%s', which a profile "
			      "in .veles/jobs/ cannot have",
			      tmpl, buf_str(&b));
	if (ret < 0) {
		buf_release(&b);
		return ret;
	}
	*out = buf_detach(&b, NULL);
	return 0;
}
