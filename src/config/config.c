#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "config/config.h"
#include "config/config_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

const char config_template[] =
	"# Veles project configuration.\n"
	"#\n"
	"# `veles config get|set|edit` reads and writes this file. The file\n"
	"# ~/.config/veles/config.yml holds defaults for all your projects; where\n"
	"# both set a key, this one wins.\n"
	"\n"
	"collect:\n"
	"  # Warn when collecting with uncommitted changes: they are not part of\n"
	"  # the version the profile is filed under, and may skew it.\n"
	"  warn_dirty: true\n"
	"\n"
	"add:\n"
	"  # Keep a pending profile in .veles/jobs/ after `veles add` registers it.\n"
	"  keep_profile: false\n"
	"\n"
	"# The job matrix that `veles run matrix` runs: every command with every\n"
	"# argument string and every workload, under every collector; then the\n"
	"# postprocessors, in order (docs/config.md). For example:\n"
	"#\n"
	"# execute:\n"
	"#   pre_run:\n"
	"#     - make -j4\n"
	"# cmds:\n"
	"#   - ./list_search\n"
	"# args:\n"
	"#   - -q\n"
	"# workloads:\n"
	"#   - 100000\n"
	"#   - sizes            # the id of a generator below\n"
	"# generators:\n"
	"#   workload:\n"
	"#     - id: sizes\n"
	"#       type: integer\n"
	"#       min_range: 1000\n"
	"#       max_range: 10000\n"
	"#       step: 1000\n"
	"# collectors:\n"
	"#   - name: time\n"
	"#     params:\n"
	"#       repeat: 10\n"
	"#       warmup: 1\n"
	"# postprocessors:\n"
	"#   - name: normalizer\n"
	"# profiles:\n"
	"#   register_after_run: false\n";

/* @key and each prefix of it at a dot, into c->known. Longest first: a
 * prefix already there has its own prefixes there too, so each item costs
 * its own length, not the file's. */
static void note_known(struct config *c, const char *key)
{
	char *copy = xstrdup(key);
	bool added = false;

	strmap_intern(&c->known, copy, &added);
	for (char *dot = strrchr(copy, '.'); added && dot; dot = strrchr(copy, '.')) {
		*dot = '\0';
		strmap_intern(&c->known, copy, &added);
	}
	free(copy);
}

static void add_item(struct config *c, const char *key, const char *value, const yaml_mark_t *at)
{
	bool added = false;
	size_t i = strmap_intern(&c->item_at, key, &added);

	/* A repeated key: the later one wins, as in most YAML loaders. */
	if (!added) {
		free(c->items[i].value);
		c->items[i].value = xstrdup(value);
		c->items[i].line = at->line + 1;
		c->items[i].col = at->column + 1;
		return;
	}
	c->items = xgrow(c->items, sizeof(*c->items), c->n + 1, &c->cap);
	c->items[c->n] =
		(struct config_item){xstrdup(key), xstrdup(value), at->line + 1, at->column + 1};
	c->n++;
	note_known(c, key);
}

static void add_key(struct config *c, const char *key, const yaml_mark_t *at)
{
	bool added = false;
	size_t num = strmap_intern(&c->key_num, key, &added);

	if (added) {
		c->first_key = xgrow(c->first_key, sizeof(*c->first_key), num + 1, &c->first_cap);
		c->first_key[num] = c->nkeys;
		note_known(c, key);
	}
	c->keys = xgrow(c->keys, sizeof(*c->keys), c->nkeys + 1, &c->keys_cap);
	c->keys[c->nkeys] = (struct config_item){xstrdup(key), NULL, at->line + 1, at->column + 1};
	c->nkeys++;
}

/* Walking state: the dotted path so far, and per nesting level whether we
 * are in a mapping (expecting a key next) or a sequence (with a counter). */
struct walk {
	struct buf path;
	size_t marks[64];
	int kind[64]; /* 'm' mapping, 's' sequence */
	bool want_key[64];
	unsigned long seq[64];
	int depth;
};

static void path_push(struct walk *w, const char *part)
{
	w->marks[w->depth] = w->path.len;
	if (w->path.len)
		buf_addc(&w->path, '.');
	buf_adds(&w->path, part);
}

static void path_pop(struct walk *w)
{
	w->path.len = w->marks[w->depth];
	if (w->path.data)
		w->path.data[w->path.len] = '\0';
}

/* Called before a value (scalar or collection) at the current level. */
static void value_begin(struct walk *w)
{
	char num[32];

	if (w->depth > 0 && w->kind[w->depth - 1] == 's') {
		snprintf(num, sizeof(num), "%lu", w->seq[w->depth - 1]++);
		w->depth--;
		path_push(w, num);
		w->depth++;
	}
}

static void value_end(struct walk *w)
{
	if (w->depth > 0) {
		w->depth--;
		path_pop(w);
		if (w->kind[w->depth] == 'm')
			w->want_key[w->depth] = true;
		w->depth++;
	}
}

static int on_event(struct config *c, struct walk *w, const yaml_event_t *ev)
{
	const char *text;

	switch (ev->type) {
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (w->depth >= 63)
			return -1;
		value_begin(w);
		w->kind[w->depth] = ev->type == YAML_MAPPING_START_EVENT ? 'm' : 's';
		w->want_key[w->depth] = true;
		w->seq[w->depth] = 0;
		w->depth++;
		break;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		w->depth--;
		value_end(w);
		break;
	case YAML_SCALAR_EVENT:
		text = (const char *)ev->data.scalar.value;
		if (w->depth > 0 && w->kind[w->depth - 1] == 'm' && w->want_key[w->depth - 1]) {
			w->want_key[w->depth - 1] = false;
			w->depth--;
			path_push(w, text);
			w->depth++;
			add_key(c, buf_str(&w->path), &ev->start_mark);
			break;
		}
		value_begin(w);
		add_item(c, buf_str(&w->path), text, &ev->start_mark);
		value_end(w);
		break;
	default:
		break;
	}
	return 0;
}

/* "FILE:LINE:COL: problem", with what libyaml was reading and the key it
 * was under when it knows them: "(in the value of 'cmds': while parsing a
 * flow sequence at 2:7)". */
static int syntax_error(const char *name, const yaml_parser_t *parser, const struct walk *w)
{
	struct buf b = BUF_INIT;
	const char *key = buf_str(&w->path);
	int ret;

	buf_addf(&b, "%s:%zu:%zu: %s", name, parser->problem_mark.line + 1,
		 parser->problem_mark.column + 1,
		 parser->problem ? parser->problem : "invalid YAML");
	if (*key || parser->context) {
		buf_adds(&b, " (");
		if (*key)
			buf_addf(&b, "in the value of '%s'%s", key, parser->context ? ": " : "");
		if (parser->context)
			buf_addf(&b, "%s at %zu:%zu", parser->context,
				 parser->context_mark.line + 1, parser->context_mark.column + 1);
		buf_addc(&b, ')');
	}
	ret = err_set(ERR_PARSE, "%s", buf_str(&b));
	buf_release(&b);
	return ret;
}

static int parse_text(const char *name, const char *text, size_t len, struct config *c)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct walk w;
	int ret = 0;

	memset(&w, 0, sizeof(w));
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = syntax_error(name, &parser, &w);
			break;
		}
		if (on_event(c, &w, &ev) < 0) {
			ret = err_set(ERR_PARSE, "%s:%zu:%zu: nested too deeply", name,
				      ev.start_mark.line + 1, ev.start_mark.column + 1);
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	buf_release(&w.path);
	return ret;
}

int config_load(const char *path, struct config **out)
{
	struct config *c = xcalloc(1, sizeof(*c));
	struct buf text = BUF_INIT;
	int ret = file_read_all(path, &text);

	c->name = xstrdup(path);

	if (ret == ERR_NOTFOUND) {
		*out = c;
		return 0;
	}
	if (ret == 0)
		ret = parse_text(path, buf_str(&text), text.len, c);
	buf_release(&text);
	if (ret < 0) {
		config_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

static void items_free(struct config_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].key);
		free(items[i].value);
	}
	free(items);
}

int config_load_text(const char *name, const char *text, size_t len, struct config **out)
{
	struct config *c = xcalloc(1, sizeof(*c));
	int ret;

	c->name = xstrdup(name);
	ret = parse_text(name, text, len, c);
	if (ret < 0) {
		config_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

static void lookups_free(struct config *c)
{
	strmap_free(&c->item_at);
	strmap_free(&c->key_num);
	strmap_free(&c->known);
	free(c->first_key);
}

void config_free(struct config *c)
{
	if (!c)
		return;
	items_free(c->items, c->n);
	items_free(c->keys, c->nkeys);
	lookups_free(c);
	free(c->name);
	free(c);
}

const char *config_get(const struct config *c, const char *key)
{
	size_t i = c ? strmap_get(&c->item_at, key) : SIZE_MAX;

	return i < c->n ? c->items[i].value : NULL;
}

bool config_priv_has(const struct config *c, const char *key)
{
	return c && strmap_get(&c->known, key) != SIZE_MAX;
}

const struct config_item *config_priv_key(const struct config *c, const char *key)
{
	size_t num = strmap_get(&c->key_num, key);

	return num == SIZE_MAX ? NULL : &c->keys[c->first_key[num]];
}

void config_each(const struct config *c, void (*fn)(const char *key, const char *value, void *arg),
		 void *arg)
{
	size_t i;

	for (i = 0; c && i < c->n; i++)
		fn(c->items[i].key, c->items[i].value, arg);
}

bool config_bool(const struct config *c, const char *key, bool def)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	const char *v = config_get(c, key);
	size_t i;

	if (!v)
		return def;
	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return true;
		if (strcasecmp(v, no[i]) == 0)
			return false;
	}
	return def;
}

char *config_user_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/veles/config.yml", xdg);
	return xasprintf("%s/.config/veles/config.yml", home && *home ? home : "/");
}

int config_parse_check(const char *name, const char *text, size_t len)
{
	struct config c = {0};
	int ret = parse_text(name, text, len, &c);

	items_free(c.items, c.n);
	items_free(c.keys, c.nkeys);
	lookups_free(&c);
	return ret;
}
