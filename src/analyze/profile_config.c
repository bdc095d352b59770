/* Naming a profile's configuration: the key that pairs, the titles that read. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* The postprocessors a profile ran, as raw JSON, or NULL for none: an
 * absent member, null and an empty list all say that nothing ran. */
static const char *ran_postprocessors(const struct profile *p)
{
	const char *s = p->postprocessors;

	if (!s)
		return NULL;
	s += strspn(s, " \t\r\n");
	if (strncmp(s, "null", 4) == 0 && !s[4 + strspn(s + 4, " \t\r\n")])
		return NULL;
	if (*s == '[') {
		const char *e = s + 1 + strspn(s + 1, " \t\r\n");

		if (*e == ']' && !e[1 + strspn(e + 1, " \t\r\n")])
			return NULL;
	}
	return p->postprocessors;
}

char *profile_config_key(const struct profile *p)
{
	const char *pp = ran_postprocessors(p) ? p->postprocessors : "";

	return xasprintf("%s %s%s%s (%s) %s%s%s", p->type ? p->type : "?", p->cmd ? p->cmd : "",
			 p->args && *p->args ? " " : "", p->args ? p->args : "",
			 p->workload ? p->workload : "", p->collector ? p->collector : "",
			 *pp ? " " : "", pp);
}

static yajl_val parse_list(const struct profile *p)
{
	char err[128];
	const char *text = ran_postprocessors(p);
	yajl_val v = text ? yajl_tree_parse(text, err, sizeof(err)) : NULL;

	if (v && !YAJL_IS_ARRAY(v)) {
		yajl_tree_free(v);
		return NULL;
	}
	return v;
}

/* A record's name, or "?" for one without. */
static const char *record_name(yajl_val rec)
{
	const char *path[] = {"name", NULL};
	yajl_val v = yajl_tree_get(rec, path, yajl_t_string);

	return v ? YAJL_GET_STRING(v) : "?";
}

/* A parameter's value as a reader writes it: 3, full, [a, b], {k: v}. */
static void add_value(struct buf *b, yajl_val v)
{
	if (YAJL_IS_STRING(v)) {
		buf_adds(b, YAJL_GET_STRING(v));
	} else if (YAJL_IS_NUMBER(v)) {
		buf_adds(b, v->u.number.r);
	} else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		buf_adds(b, YAJL_IS_TRUE(v) ? "true" : "false");
	} else if (YAJL_IS_ARRAY(v)) {
		buf_addc(b, '[');
		for (size_t i = 0; i < v->u.array.len; i++) {
			buf_adds(b, i ? ", " : "");
			add_value(b, v->u.array.values[i]);
		}
		buf_addc(b, ']');
	} else if (YAJL_IS_OBJECT(v)) {
		buf_addc(b, '{');
		for (size_t i = 0; i < v->u.object.len; i++) {
			buf_addf(b, "%s%s: ", i ? ", " : "", v->u.object.keys[i]);
			add_value(b, v->u.object.values[i]);
		}
		buf_addc(b, '}');
	} else {
		buf_adds(b, "null");
	}
}

static void add_params(struct buf *b, yajl_val rec)
{
	const char *path[] = {"params", NULL};
	yajl_val params = yajl_tree_get(rec, path, yajl_t_object);

	if (!params || !params->u.object.len)
		return;
	buf_addc(b, '(');
	for (size_t i = 0; i < params->u.object.len; i++) {
		buf_addf(b, "%s%s=", i ? ", " : "", params->u.object.keys[i]);
		add_value(b, params->u.object.values[i]);
	}
	buf_addc(b, ')');
}

static char *title(const struct profile *p, bool full)
{
	struct buf b = BUF_INIT;
	yajl_val list = parse_list(p);

	buf_adds(&b, p->cmd ? p->cmd : "?");
	if (p->args && *p->args)
		buf_addf(&b, " %s", p->args);
	if (p->workload && *p->workload && (!p->args || strcmp(p->args, p->workload) != 0))
		buf_addf(&b, " (workload %s)", p->workload);
	buf_addf(&b, " · %s", p->collector ? p->collector : p->type ? p->type : "?");
	for (size_t i = 0; list && i < list->u.array.len; i++) {
		buf_adds(&b, i ? ", " : " + ");
		buf_adds(&b, record_name(list->u.array.values[i]));
		if (full)
			add_params(&b, list->u.array.values[i]);
	}
	/* Not a list of records: shown as it is rather than hidden. */
	if (!list && ran_postprocessors(p))
		buf_addf(&b, " + %s", p->postprocessors);
	yajl_tree_free(list);
	return buf_detach(&b, NULL);
}

char *profile_config_title(const struct profile *p)
{
	return title(p, false);
}

char *profile_config_title_full(const struct profile *p)
{
	return title(p, true);
}

char **profile_config_postprocessors(const struct profile *p, size_t *n)
{
	yajl_val list = parse_list(p);
	size_t count = list ? list->u.array.len : 0;
	char **names = xcalloc(count + 1, sizeof(*names));

	for (size_t i = 0; i < count; i++)
		names[i] = xstrdup(record_name(list->u.array.values[i]));
	*n = count;
	yajl_tree_free(list);
	return names;
}
