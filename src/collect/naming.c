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

#include "analyze/pprecord.h"
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

static void add_scalar(struct buf *b, const struct pp_value *v)
{
	if (v->kind == PPV_STRING || v->kind == PPV_NUMBER)
		add_value(b, v->text);
	else if (v->kind == PPV_TRUE || v->kind == PPV_FALSE)
		add_value(b, v->kind == PPV_TRUE ? "True" : "False");
	else
		add_value(b, NULL);
}

/* The params of unit @unit: the collector's, or a postprocessor's. */
static const struct pp_value *unit_params(const struct profile *p, const struct pp_records *posts,
					  const struct pp_value *coll, const char *unit)
{
	if (p->collector && strcmp(p->collector, unit) == 0)
		return coll;
	for (size_t i = 0; i < posts->n; i++)
		if (strcmp(posts->v[i].name, unit) == 0)
			return &posts->v[i].params;
	return NULL;
}

static void add_param(struct buf *b, const struct profile *p, const char *token)
{
	char *unit = xstrdup(token), *param = strchr(unit, '.');
	struct pp_records posts;
	struct pp_value coll;
	const struct pp_value *params, *v;

	/* Unreadable JSON names nothing: the value is "_" then. */
	if (pp_records_read(p->postprocessors, &posts) < 0)
		memset(&posts, 0, sizeof(posts));
	if (pp_params_read(p->collector_params, &coll) < 0)
		memset(&coll, 0, sizeof(coll));
	*param++ = '\0';
	params = unit_params(p, &posts, &coll, unit);
	v = params ? pp_value_find(params, param) : NULL;
	if (v)
		add_scalar(b, v);
	else
		add_value(b, NULL);
	pp_records_free(&posts);
	pp_value_free(&coll);
	free(unit);
}

/* "after-A-and-B" of the postprocessors' names, or "_". */
static void add_postprocessors(struct buf *b, const struct profile *p)
{
	struct pp_records posts;

	if (pp_records_read(p->postprocessors, &posts) < 0)
		memset(&posts, 0, sizeof(posts));
	if (!posts.n)
		buf_addc(b, '_');
	for (size_t i = 0; i < posts.n; i++) {
		buf_adds(b, i ? "-and-" : "after-");
		add_value(b, posts.v[i].name);
	}
	pp_records_free(&posts);
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

int collect_name_check(const char *what, const char *name)
{
	if (*name && !strchr(name, '/') && name[0] != '.' && name[0] != '-')
		return 0;
	return err_set(ERR_INVALID,
		       "%s '%s': a file name for .veles/jobs/, not empty, a path or starting with "
		       "'.' or '-'",
		       what, name);
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
