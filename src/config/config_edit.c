/*
 * `veles config set`: edits config.yml as text so comments and layout
 * survive (an emitter would drop them). libyaml's event marks say where
 * each node of the key's path is; the value is written in place of the old
 * scalar, or the missing parts of the path are inserted into the deepest
 * node that exists, in its own style: block or flow, mapping or sequence
 * (items are numbered, "workloads.0"; index N of an N-item list appends).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

#define MAX_PARTS 32
/* read_node() recurses per level: a file nested deeper is refused before
 * the stack runs out (a crafted file of nested '[' did). */
#define MAX_NESTING 1000

/* A node on the key's path, in bytes of the file. */
struct node {
	char kind;	   /* 's' scalar (or alias), 'm' mapping, 'q' sequence */
	bool flow;	   /* a flow collection, or a scalar inside one */
	bool empty;	   /* a scalar with nothing written: "key:" alone */
	size_t start, end; /* the scalar's text; a flow collection's closing bracket */
	size_t col;	   /* column of a block collection's keys or dashes */
	size_t last;	   /* just after the node's last content */
	size_t count;	   /* keys or items */
	size_t key_end;	   /* just after the key naming this node (0 at the root) */
	size_t key_col;
};

struct editor {
	const char *name; /* the file, for messages */
	const char *text;
	size_t len;
	size_t *line_at; /* byte offset of each line's start */
	size_t nlines;
	yaml_parser_t parser;
	char **parts;
	size_t nparts;
	struct node path[MAX_PARTS + 1]; /* path[d]: the node at parts[0..d) */
	size_t matched;			 /* deepest d found */
	bool have_root;
	size_t nesting; /* containers open in read_node() */
};

/* A mark (line and column in characters) as a byte offset: libyaml counts
 * characters, and a value may hold UTF-8. */
static size_t byte_of(const struct editor *e, const yaml_mark_t *m)
{
	size_t at, col = 0;

	if (m->line >= e->nlines)
		return e->len;
	at = e->line_at[m->line];
	while (at < e->len && col < m->column) {
		at++;
		while (at < e->len && ((unsigned char)e->text[at] & 0xc0) == 0x80)
			at++;
		col++;
	}
	return at;
}

static void index_lines(struct editor *e)
{
	size_t cap = 0;

	e->line_at = xgrow(NULL, sizeof(*e->line_at), 1, &cap);
	e->line_at[e->nlines++] = 0;
	for (size_t i = 0; i < e->len; i++)
		if (e->text[i] == '\n') {
			e->line_at = xgrow(e->line_at, sizeof(*e->line_at), e->nlines + 1, &cap);
			e->line_at[e->nlines++] = i + 1;
		}
}

static int next_event(struct editor *e, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&e->parser, ev))
		return err_set(ERR_PARSE, "%s:%zu:%zu: %s", e->name,
			       e->parser.problem_mark.line + 1, e->parser.problem_mark.column + 1,
			       e->parser.problem ? e->parser.problem : "invalid YAML");
	return 0;
}

/*
 * Reads the node that starts with @ev (consumed), into @self. @depth is how
 * many parts of the path lead to it when @on_path.
 */
static int read_node(struct editor *e, yaml_event_t *ev, bool in_flow, size_t depth, bool on_path,
		     struct node *self)
{
	yaml_event_type_t end_type;
	int ret = 0;

	self->start = byte_of(e, &ev->start_mark);
	self->col = ev->start_mark.column;
	self->flow = in_flow;
	if (ev->type == YAML_SCALAR_EVENT || ev->type == YAML_ALIAS_EVENT) {
		self->kind = 's';
		self->end = self->last = byte_of(e, &ev->end_mark);
		self->empty = ev->type == YAML_SCALAR_EVENT && ev->data.scalar.length == 0 &&
			      ev->data.scalar.plain_implicit && self->start == self->end;
		yaml_event_delete(ev);
		goto done;
	}
	if (ev->type == YAML_MAPPING_START_EVENT) {
		self->kind = 'm';
		self->flow = in_flow || ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
		end_type = YAML_MAPPING_END_EVENT;
	} else {
		self->kind = 'q';
		self->flow = in_flow || ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
		end_type = YAML_SEQUENCE_END_EVENT;
	}
	yaml_event_delete(ev);
	if (e->nesting == MAX_NESTING)
		return err_set(ERR_INVALID, "%s: nested more than %d levels deep", e->name,
			       MAX_NESTING);
	e->nesting++;
	self->last = self->start;
	for (;;) {
		struct node child = {0};
		char num[32];
		const char *name = num;
		char *key = NULL;

		if ((ret = next_event(e, ev)) < 0)
			break;
		if (ev->type == end_type) {
			if (self->flow) {
				self->end = byte_of(e, &ev->start_mark);
				self->last = byte_of(e, &ev->end_mark);
			}
			yaml_event_delete(ev);
			break;
		}
		if (self->kind == 'm') {
			/* A key: a scalar as a rule (a complex key is read and ignored). */
			if (ev->type == YAML_SCALAR_EVENT)
				key = xstrdup((const char *)ev->data.scalar.value);
			ret = read_node(e, ev, self->flow, depth, false, &child);
			if (ret == 0)
				ret = next_event(e, ev);
			if (ret < 0) {
				free(key);
				break;
			}
			child.key_end = child.last;
			child.key_col = child.col;
			name = key ? key : "";
		} else {
			snprintf(num, sizeof(num), "%zu", self->count);
		}
		self->count++;
		{
			bool deeper = on_path && depth < e->nparts && depth < MAX_PARTS &&
				      strcmp(name, e->parts[depth]) == 0;
			size_t key_end = child.key_end, key_col = child.key_col;

			memset(&child, 0, sizeof(child));
			child.key_end = key_end;
			child.key_col = key_col;
			ret = read_node(e, ev, self->flow, depth + 1, deeper, &child);
		}
		free(key);
		if (ret < 0)
			break;
		if (child.last > self->last)
			self->last = child.last;
	}
	e->nesting--;
done:
	if (ret == 0 && on_path) {
		e->path[depth] = *self;
		if (depth > e->matched)
			e->matched = depth;
		if (depth == 0)
			e->have_root = true;
	}
	return ret;
}

/* Walks the file and fills e->path along the key. */
static int scan(struct editor *e)
{
	yaml_event_t ev;
	int ret = 0;
	bool done = false;

	yaml_parser_initialize(&e->parser);
	yaml_parser_set_input_string(&e->parser, (const unsigned char *)e->text, e->len);
	while (!done && ret == 0 && (ret = next_event(e, &ev)) == 0) {
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (e->have_root) {
				yaml_event_delete(&ev);
				ret = err_set(ERR_INVALID, "the file holds more than one document");
				break;
			}
			ret = read_node(e, &ev, false, 0, true, &e->path[0]);
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			/* fall through */
		default:
			yaml_event_delete(&ev);
		}
	}
	yaml_parser_delete(&e->parser);
	return ret;
}

static bool needs_quotes(const char *v, bool flow)
{
	if (!*v || strchr(":#{}[],&*!|>'\"%@`", v[0]) || v[0] == '-' || v[0] == '?')
		return true;
	if (strstr(v, ": ") || strstr(v, " #") || strchr(v, '\n'))
		return true;
	if (flow && strpbrk(v, ",[]{}"))
		return true;
	return v[strlen(v) - 1] == ' ' || v[0] == ' ';
}

static void add_value(struct buf *b, const char *value, bool flow)
{
	if (needs_quotes(value, flow))
		buf_add_json_str(b, value, strlen(value));
	else
		buf_adds(b, value);
}

static void indent(struct buf *b, size_t n)
{
	while (n--)
		buf_addc(b, ' ');
}

/* What follows "- " in block style, its content at column @ind. */
static void block_item(struct buf *b, char **parts, size_t n, const char *value, size_t ind);

/* What follows "KEY:" in block style, for a key at column @ind. */
static void block_value(struct buf *b, char **parts, size_t n, const char *value, size_t ind)
{
	if (n == 0) {
		buf_addc(b, ' ');
		add_value(b, value, false);
		return;
	}
	buf_addc(b, '\n');
	indent(b, ind + 2);
	if (str_all_digits(parts[0])) {
		buf_adds(b, "- ");
		block_item(b, parts + 1, n - 1, value, ind + 4);
	} else {
		buf_adds(b, parts[0]);
		buf_addc(b, ':');
		block_value(b, parts + 1, n - 1, value, ind + 2);
	}
}

static void block_item(struct buf *b, char **parts, size_t n, const char *value, size_t ind)
{
	if (n == 0) {
		add_value(b, value, false);
	} else if (str_all_digits(parts[0])) {
		buf_adds(b, "- ");
		block_item(b, parts + 1, n - 1, value, ind + 2);
	} else {
		buf_adds(b, parts[0]);
		buf_addc(b, ':');
		block_value(b, parts + 1, n - 1, value, ind);
	}
}

static void flow_value(struct buf *b, char **parts, size_t n, const char *value)
{
	if (n == 0) {
		add_value(b, value, true);
	} else if (str_all_digits(parts[0])) {
		buf_addc(b, '[');
		flow_value(b, parts + 1, n - 1, value);
		buf_addc(b, ']');
	} else {
		buf_addc(b, '{');
		buf_adds(b, parts[0]);
		buf_adds(b, ": ");
		flow_value(b, parts + 1, n - 1, value);
		buf_addc(b, '}');
	}
}

/* The dotted key of parts[0..n), for messages. */
static const char *key_of(struct buf *b, char **parts, size_t n)
{
	buf_reset(b);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, '.');
		buf_adds(b, parts[i]);
	}
	return buf_str(b);
}

/* A list that does not exist yet starts at item 0. */
static int check_new_indexes(char **parts, size_t from, size_t n, struct buf *name)
{
	for (size_t i = from; i < n; i++) {
		const char *list = key_of(name, parts, i);

		if (str_all_digits(parts[i]) && strcmp(parts[i], "0") != 0)
			return err_set(ERR_INVALID,
				       "'%s' is not a list yet: its first item is %s.0", list,
				       list);
	}
	return 0;
}

/* The end of the line holding byte @at - 1 (where a block entry follows). */
static size_t line_end(const struct editor *e, size_t at)
{
	const char *nl = at < e->len ? memchr(e->text + at, '\n', e->len - at) : NULL;

	return nl ? (size_t)(nl - e->text) : e->len;
}

/* Into the deepest node found: the path's missing parts. */
static int insert(const struct editor *e, const char *value, size_t *at, struct buf *add)
{
	const struct node *nd = &e->path[e->matched];
	char **rest = e->parts + e->matched;
	size_t n = e->nparts - e->matched;
	struct buf name = BUF_INIT;
	const char *here = key_of(&name, e->parts, e->matched);
	int ret = 0;

	if (nd->kind == 's' && !nd->empty) {
		ret = err_set(ERR_INVALID, "'%s' is a value, not a section", here);
	} else if (nd->kind == 'm' && str_all_digits(rest[0])) {
		ret = err_set(ERR_INVALID, "'%s' is a map, not a list: it has no item %s", here,
			      rest[0]);
	} else if (nd->kind == 'q' && !str_all_digits(rest[0])) {
		ret = err_set(ERR_INVALID, "'%s' is a list: its items are numbered (%s.0)", here,
			      here);
	} else if (nd->kind == 'q' && (strlen(rest[0]) > 9 || (size_t)atol(rest[0]) != nd->count)) {
		ret = err_set(ERR_INVALID, "'%s' has %zu item%s: set %s.0 to %s.%zu (%zu appends)",
			      here, nd->count, nd->count == 1 ? "" : "s", here, here, nd->count,
			      nd->count);
	} else {
		ret = check_new_indexes(e->parts, e->matched + (nd->kind == 'q'), e->nparts, &name);
	}
	buf_release(&name);
	if (ret < 0)
		return ret;
	if (!e->have_root || (nd->kind == 's' && e->matched == 0)) {
		/* An empty file (or comments only): a new top-level key. */
		*at = e->len;
		if (e->len && e->text[e->len - 1] != '\n')
			buf_addc(add, '\n');
		buf_adds(add, rest[0]);
		buf_addc(add, ':');
		block_value(add, rest + 1, n - 1, value, 0);
		buf_addc(add, '\n');
	} else if (nd->kind == 's') {
		/* "key:" with nothing after it becomes a section. */
		if (nd->flow) {
			*at = nd->start;
			buf_addc(add, ' ');
			flow_value(add, rest, n, value);
		} else {
			*at = line_end(e, nd->key_end);
			/* The key's value is written as if the key had the parts. */
			block_value(add, rest, n, value, nd->key_col);
		}
	} else if (nd->flow) {
		*at = nd->end;
		if (nd->count)
			buf_adds(add, ", ");
		if (nd->kind == 'm') {
			buf_adds(add, rest[0]);
			buf_adds(add, ": ");
		}
		flow_value(add, rest + 1, n - 1, value);
	} else {
		*at = e->matched == 0 ? e->len : line_end(e, nd->last);
		if (*at == e->len && e->len && e->text[e->len - 1] == '\n')
			(*at)--;
		buf_addc(add, '\n');
		indent(add, nd->col);
		if (nd->kind == 'm') {
			buf_adds(add, rest[0]);
			buf_addc(add, ':');
			block_value(add, rest + 1, n - 1, value, nd->col);
		} else {
			buf_adds(add, "- ");
			block_item(add, rest + 1, n - 1, value, nd->col + 2);
		}
	}
	return 0;
}

/* The edited text of @e with @key set to @value, into @out. */
static int edit(struct editor *e, const char *value, struct buf *out)
{
	struct buf add = BUF_INIT, name = BUF_INIT;
	size_t at, cut;
	int ret;

	index_lines(e);
	ret = scan(e);
	if (ret < 0)
		return ret;
	if (e->have_root && e->matched == e->nparts) {
		const struct node *nd = &e->path[e->matched];

		if (nd->kind != 's') {
			const char *key = key_of(&name, e->parts, e->nparts);

			if (nd->kind == 'm')
				ret = err_set(ERR_INVALID,
					      "'%s' holds other keys; set one of them instead",
					      key);
			else
				ret = err_set(ERR_INVALID,
					      "'%s' is a list; set its items instead (%s.0, ...)",
					      key, key);
			buf_release(&name);
			return ret;
		}
		if (nd->empty) {
			/* "key:" alone: the value goes after the colon. */
			at = cut = nd->start;
			if (!nd->flow)
				buf_addc(&add, ' ');
		} else {
			at = nd->start;
			cut = nd->end;
		}
		add_value(&add, value, nd->flow);
		/* A block scalar ("|") ends with its last line break. */
		if (cut > at && e->text[cut - 1] == '\n')
			buf_addc(&add, '\n');
	} else {
		ret = insert(e, value, &at, &add);
		cut = at;
	}
	if (ret == 0) {
		buf_add(out, e->text, at);
		buf_add(out, add.data ? add.data : "", add.len);
		buf_add(out, e->text + cut, e->len - cut);
		if (!out->len || out->data[out->len - 1] != '\n')
			buf_addc(out, '\n');
	}
	buf_release(&add);
	buf_release(&name);
	return ret;
}

static bool valid_key(const char *key)
{
	const char *p;

	if (!*key || key[0] == '.' || key[strlen(key) - 1] == '.' || strstr(key, ".."))
		return false;
	for (p = key; *p; p++)
		if (!(*p == '.' || *p == '_' || *p == '-' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* The edit must read back as what was asked: a layout this editor
 * misjudged is refused rather than written. */
static int check_result(const char *path, const struct buf *out, const char *key, const char *value)
{
	struct config *c;
	int ret = config_load_text(path, buf_str(out), out->len, &c);

	if (ret < 0)
		return ret;
	if (!config_get(c, key) || strcmp(config_get(c, key), value) != 0)
		ret = err_set(ERR_INVALID,
			      "cannot set '%s' in the layout of %s; use `veles config edit`", key,
			      path);
	config_free(c);
	return ret;
}

int config_set_file(const char *path, const char *key, const char *value)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	char *copy, *parts[MAX_PARTS], *save = NULL, *tok;
	struct editor e = {0};
	int ret;

	if (!valid_key(key))
		return err_set(ERR_INVALID,
			       "invalid key '%s': use dotted names like collect.warn_dirty", key);
	ret = file_read_all(path, &text);
	if (ret < 0 && ret != ERR_NOTFOUND)
		return ret;
	copy = xstrdup(key);
	for (tok = strtok_r(copy, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		if (e.nparts == MAX_PARTS) {
			free(copy);
			buf_release(&text);
			return err_set(ERR_INVALID, "key '%s' is nested too deeply", key);
		}
		parts[e.nparts++] = tok;
	}
	e.name = path;
	e.text = buf_str(&text);
	e.len = text.len;
	e.parts = parts;
	ret = edit(&e, value, &out);
	if (ret == 0)
		ret = config_parse_check(path, buf_str(&out), out.len);
	if (ret == 0)
		ret = check_result(path, &out, key, value);
	if (ret == 0) {
		char *dir = xstrdup(path);
		char *slash = strrchr(dir, '/');

		if (slash) {
			*slash = '\0';
			ret = mkdir_p(dir);
		}
		free(dir);
	}
	if (ret == 0)
		ret = file_write_atomic(path, out.data, out.len);
	free(e.line_at);
	free(copy);
	buf_release(&text);
	buf_release(&out);
	return ret;
}
