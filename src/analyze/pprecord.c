/* A profile's postprocessor records, read into structs and written back. */
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "analyze/pprecord.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

void pp_value_free(struct pp_value *v)
{
	for (size_t i = 0; i < v->n; i++) {
		pp_value_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
	memset(v, 0, sizeof(*v));
}

static void value_read(yajl_val j, struct pp_value *v)
{
	memset(v, 0, sizeof(*v));
	if (YAJL_IS_STRING(j)) {
		v->kind = PPV_STRING;
		v->text = xstrdup(YAJL_GET_STRING(j));
	} else if (YAJL_IS_NUMBER(j)) {
		v->kind = PPV_NUMBER;
		v->text = xstrdup(j->u.number.r);
		v->num = YAJL_GET_DOUBLE(j);
	} else if (YAJL_IS_TRUE(j) || YAJL_IS_FALSE(j)) {
		v->kind = YAJL_IS_TRUE(j) ? PPV_TRUE : PPV_FALSE;
	} else if (YAJL_IS_ARRAY(j)) {
		v->kind = PPV_LIST;
		v->n = j->u.array.len;
		v->items = xcalloc(v->n + 1, sizeof(*v->items));
		for (size_t i = 0; i < v->n; i++)
			value_read(j->u.array.values[i], &v->items[i]);
	} else if (YAJL_IS_OBJECT(j)) {
		v->kind = PPV_MAP;
		v->n = j->u.object.len;
		v->items = xcalloc(v->n + 1, sizeof(*v->items));
		v->keys = xcalloc(v->n + 1, sizeof(*v->keys));
		for (size_t i = 0; i < v->n; i++) {
			v->keys[i] = xstrdup(j->u.object.keys[i]);
			value_read(j->u.object.values[i], &v->items[i]);
		}
	}
}

static void record_read(yajl_val j, struct pp_record *rec)
{
	const char *name_path[] = {"name", NULL}, *params_path[] = {"params", NULL};
	yajl_val name = yajl_tree_get(j, name_path, yajl_t_string);
	yajl_val params = yajl_tree_get(j, params_path, yajl_t_object);

	rec->name = xstrdup(name ? YAJL_GET_STRING(name) : "?");
	if (params)
		value_read(params, &rec->params);
	else
		rec->params.kind = PPV_MAP;
}

static yajl_val parse(const char *json, const char *what)
{
	char err[128];
	yajl_val v = yajl_tree_parse(json, err, sizeof(err));

	if (!v)
		err_set(ERR_PARSE, "%s: not JSON", what);
	return v;
}

int pp_records_read(const char *json, struct pp_records *out)
{
	yajl_val list;

	memset(out, 0, sizeof(*out));
	if (!json)
		return 0;
	if (!(list = parse(json, "the profile's postprocessors")))
		return ERR_PARSE;
	if (YAJL_IS_NULL(list)) {
		yajl_tree_free(list);
		return 0;
	}
	if (!YAJL_IS_ARRAY(list)) {
		yajl_tree_free(list);
		return err_set(ERR_PARSE, "the profile's postprocessors are not a list of records");
	}
	out->v = xcalloc(list->u.array.len + 1, sizeof(*out->v));
	out->n = list->u.array.len;
	for (size_t i = 0; i < out->n; i++)
		record_read(list->u.array.values[i], &out->v[i]);
	yajl_tree_free(list);
	return 0;
}

void pp_records_free(struct pp_records *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		pp_value_free(&r->v[i].params);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

int pp_records_add(struct pp_records *r, const char *name, const char *params_json)
{
	yajl_val params = parse(params_json, "postprocessor parameters");
	struct pp_record *rec;

	if (!params)
		return ERR_PARSE;
	if (!YAJL_IS_OBJECT(params)) {
		yajl_tree_free(params);
		return err_set(ERR_PARSE, "postprocessor parameters: not a JSON object");
	}
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	rec = &r->v[r->n++];
	rec->name = xstrdup(name);
	value_read(params, &rec->params);
	yajl_tree_free(params);
	return 0;
}

int pp_params_read(const char *json, struct pp_value *out)
{
	yajl_val v;

	memset(out, 0, sizeof(*out));
	out->kind = PPV_MAP;
	if (!json)
		return 0;
	if (!(v = parse(json, "the parameters")))
		return ERR_PARSE;
	if (!YAJL_IS_OBJECT(v) && !YAJL_IS_NULL(v)) {
		yajl_tree_free(v);
		return err_set(ERR_PARSE, "the parameters are not a JSON object");
	}
	if (YAJL_IS_OBJECT(v))
		value_read(v, out);
	yajl_tree_free(v);
	return 0;
}

const struct pp_value *pp_value_find(const struct pp_value *v, const char *key)
{
	const struct pp_value *r = NULL;

	for (size_t i = 0; v->keys && i < v->n; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	for (size_t i = 0; !r && i < v->n; i++)
		r = pp_value_find(&v->items[i], key);
	return r;
}

static void value_json(const struct pp_value *v, struct buf *b)
{
	switch (v->kind) {
	case PPV_STRING:
		buf_add_json_str(b, v->text, strlen(v->text));
		return;
	case PPV_NUMBER:
		buf_adds(b, v->text);
		return;
	case PPV_TRUE:
	case PPV_FALSE:
		buf_adds(b, v->kind == PPV_TRUE ? "true" : "false");
		return;
	case PPV_LIST:
	case PPV_MAP:
		buf_addc(b, v->kind == PPV_LIST ? '[' : '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				buf_addc(b, ',');
			if (v->keys) {
				buf_add_json_str(b, v->keys[i], strlen(v->keys[i]));
				buf_addc(b, ':');
			}
			value_json(&v->items[i], b);
		}
		buf_addc(b, v->kind == PPV_LIST ? ']' : '}');
		return;
	default:
		buf_adds(b, "null");
	}
}

char *pp_records_json(const struct pp_records *r)
{
	struct buf b = BUF_INIT;

	buf_addc(&b, '[');
	for (size_t i = 0; i < r->n; i++) {
		buf_adds(&b, i ? ",{\"name\":" : "{\"name\":");
		buf_add_json_str(&b, r->v[i].name, strlen(r->v[i].name));
		buf_adds(&b, ",\"params\":");
		value_json(&r->v[i].params, &b);
		buf_addc(&b, '}');
	}
	buf_addc(&b, ']');
	return buf_detach(&b, NULL);
}

bool pp_name_equal(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(strchr("_-", *a) && strchr("_-", *b)))
			return false;
	return !*a && !*b;
}

bool pp_records_ran(const struct pp_records *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (pp_name_equal(r->v[i].name, name))
			return true;
	return false;
}

const struct pp_value *pp_record_param(const struct pp_record *rec, const char *key)
{
	for (size_t i = 0; rec->params.keys && i < rec->params.n; i++)
		if (strcmp(rec->params.keys[i], key) == 0)
			return &rec->params.items[i];
	return NULL;
}

static void argv_add(char ***argv, int *argc, char *s)
{
	*argv = xrealloc(*argv, ((size_t)*argc + 2) * sizeof(**argv));
	(*argv)[(*argc)++] = s;
	(*argv)[*argc] = NULL;
}

/* --key=value for one scalar (--key, --no-key for a flag); false: none. */
static bool option_of(const char *key, const struct pp_value *v, bool negate, struct buf *b)
{
	buf_reset(b);
	if (v->kind != PPV_STRING && v->kind != PPV_NUMBER && v->kind != PPV_TRUE &&
	    !(v->kind == PPV_FALSE && negate))
		return false;
	buf_addf(b, "--%s%s", v->kind == PPV_FALSE ? "no-" : "", key);
	for (char *c = b->data; *c; c++)
		*c = *c == '_' ? '-' : *c;
	if (v->kind == PPV_STRING || v->kind == PPV_NUMBER)
		buf_addf(b, "=%s", v->text);
	return true;
}

char **pp_record_argv(const struct pp_record *rec, int *argc)
{
	return pp_params_argv(rec->name, &rec->params, true, argc);
}

char **pp_params_argv(const char *name, const struct pp_value *p, bool negate, int *argc)
{
	struct buf b = BUF_INIT;
	char **argv = NULL;

	*argc = 0;
	argv_add(&argv, argc, xstrdup(name));
	for (size_t i = 0; p->keys && i < p->n; i++) {
		const struct pp_value *v = &p->items[i];
		size_t count = v->kind == PPV_LIST ? v->n : 1;

		for (size_t k = 0; k < count; k++)
			if (option_of(p->keys[i], v->kind == PPV_LIST ? &v->items[k] : v, negate,
				      &b))
				argv_add(&argv, argc, buf_detach(&b, NULL));
	}
	buf_release(&b);
	return argv;
}

void pp_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void pp_value_text(const struct pp_value *v, struct buf *out)
{
	switch (v->kind) {
	case PPV_STRING:
	case PPV_NUMBER:
		buf_adds(out, v->text);
		return;
	case PPV_TRUE:
	case PPV_FALSE:
		buf_adds(out, v->kind == PPV_TRUE ? "true" : "false");
		return;
	case PPV_LIST:
	case PPV_MAP:
		buf_addc(out, v->kind == PPV_LIST ? '[' : '{');
		for (size_t i = 0; i < v->n; i++) {
			buf_adds(out, i ? ", " : "");
			if (v->keys)
				buf_addf(out, "%s: ", v->keys[i]);
			pp_value_text(&v->items[i], out);
		}
		buf_addc(out, v->kind == PPV_LIST ? ']' : '}');
		return;
	default:
		buf_adds(out, "null");
	}
}

void pp_record_params_text(const struct pp_record *rec, struct buf *out)
{
	const struct pp_value *p = &rec->params;

	if (!p->n)
		return;
	buf_addc(out, '(');
	for (size_t i = 0; i < p->n; i++) {
		buf_addf(out, "%s%s=", i ? ", " : "", p->keys[i]);
		pp_value_text(&p->items[i], out);
	}
	buf_addc(out, ')');
}
