/*
 * The profile writer: streams JSON straight from the columns into a buffer
 * flushed in 64 KiB chunks, never building a DOM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/json_sax.h"
#include "profile/numfmt.h"
#include "profile/write_priv.h"
#include "util/bgio.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/strpool.h"

/* Below this many resources a writer thread costs more than it saves. */
#define BG_WRITE_ROWS 100000

void jw_flush(struct jw *w)
{
	if (w->fd < 0)
		return;
	if (w->bg) {
		bgio_submit(w->bg, w->b);
		return;
	}
	if (!w->err && write_in_full(w->fd, w->b->data, w->b->len) < 0)
		w->err = errno;
	buf_reset(w->b);
}

static void newline(struct jw *w)
{
	int i;

	if (!w->indent)
		return;
	buf_grow(w->b, (size_t)w->depth * 2 + 1);
	w->b->data[w->b->len++] = '\n';
	for (i = 0; i < w->depth * 2; i++)
		w->b->data[w->b->len++] = ' ';
	w->b->data[w->b->len] = '\0';
}

void jw_open(struct jw *w, char c)
{
	buf_addc(w->b, c);
	w->depth++;
	w->first = true;
}

void jw_close(struct jw *w, char c)
{
	w->depth--;
	if (!w->first)
		newline(w);
	buf_addc(w->b, c);
	w->first = false;
	jw_maybe_flush(w);
}

void jw_key(struct jw *w, const char *key)
{
	if (!w->first)
		buf_addc(w->b, ',');
	w->first = false;
	newline(w);
	if (key) {
		buf_add_json_str(w->b, key, strlen(key));
		buf_adds(w->b, w->indent ? ": " : ":");
	}
}

void jw_str(struct jw *w, const char *s)
{
	buf_add_json_str(w->b, s, strlen(s));
}

/* Compact JSON text, re-indented when writing indented. */
void jw_raw(struct jw *w, const char *json)
{
	bool after_key = false;
	int level = 0, ev;
	struct jsax j;

	if (!w->indent || (json[0] != '{' && json[0] != '[')) {
		/* In pieces, so a long models list never grows the buffer
		 * past a chunk. */
		for (size_t left = strlen(json), k; left; json += k, left -= k) {
			k = left < JW_CHUNK ? left : JW_CHUNK;
			buf_add(w->b, json, k);
			jw_maybe_flush(w);
		}
		return;
	}
	jsax_init_mem(&j, json, strlen(json), "json");
	while ((ev = jsax_next(&j)) > 0) {
		if (ev == JEV_OBJ_END || ev == JEV_ARR_END) {
			jw_close(w, ev == JEV_OBJ_END ? '}' : ']');
			level--;
			continue;
		}
		if (ev == JEV_KEY) {
			jw_key(w, NULL);
			buf_add_json_str(w->b, j.s, j.slen);
			buf_adds(w->b, ": ");
			after_key = true;
			continue;
		}
		/* Elements start a line; a member's value follows its key. */
		if (level > 0 && !after_key)
			jw_key(w, NULL);
		after_key = false;
		if (ev == JEV_OBJ_START || ev == JEV_ARR_START) {
			jw_open(w, ev == JEV_OBJ_START ? '{' : '[');
			level++;
		} else if (ev == JEV_STR) {
			buf_add_json_str(w->b, j.s, j.slen);
		} else if (ev == JEV_INT || ev == JEV_DBL) {
			buf_add(w->b, j.raw, j.rawlen);
		} else {
			buf_adds(w->b, ev == JEV_TRUE	 ? "true"
				       : ev == JEV_FALSE ? "false"
							 : "null");
		}
	}
	jsax_release(&j);
}

void jw_i64(struct jw *w, int64_t v)
{
	buf_grow(w->b, NUMFMT_MAX);
	w->b->len += numfmt_i64(w->b->data + w->b->len, v);
	w->b->data[w->b->len] = '\0';
}

void jw_f64(struct jw *w, double v)
{
	buf_grow(w->b, NUMFMT_MAX);
	w->b->len += numfmt_f64(w->b->data + w->b->len, v);
	w->b->data[w->b->len] = '\0';
}

void jw_num(struct jw *w, double v)
{
	buf_grow(w->b, NUMFMT_MAX);
	w->b->len += numfmt_num(w->b->data + w->b->len, v);
	w->b->data[w->b->len] = '\0';
}

void jw_cell(struct jw *w, const struct profile *p, const struct column *c, size_t row)
{
	if (!col_has(c, row))
		buf_adds(w->b, "null");
	else if (c->kind == COL_I64)
		jw_i64(w, col_i64(c, row));
	else if (c->kind == COL_F64)
		jw_num(w, c->v.f64[row]);
	else if (c->kind == COL_STR)
		buf_add_json_str(w->b, strpool_get(p->pool, c->v.id[row]),
				 strpool_len(p->pool, c->v.id[row]));
	else
		jw_raw(w, strpool_get(p->pool, c->v.id[row]));
}

static void member_str(struct jw *w, const char *key, const char *val)
{
	if (!val)
		return;
	jw_key(w, key);
	jw_str(w, val);
}

static void members_raw(struct jw *w, const struct kv *kv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		jw_key(w, kv[i].key);
		jw_raw(w, kv[i].value);
	}
}

const char *profile_perun_type(const char *type)
{
	static const char *const known[] = {"memory", "mixed", "time"};

	if (!type || !*type)
		return type;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (strcmp(type, known[i]) == 0)
			return known[i];
	return "mixed";
}

/* Whether a key of header.units holds @type, as Perun's views look for one
 * ("mixed(time delta)" holds "mixed"). */
static bool units_name(const struct profile *p, const char *type)
{
	for (size_t i = 0; i < p->nunits; i++)
		if (strstr(p->units[i].key, type))
			return true;
	return false;
}

/*
 * Perun knows three profile types and fails on any other (`perun status`
 * dies on KeyError 'monitor'), so a type of ours is written as "mixed" and
 * kept in "veles_type", which Perun ignores and our reader takes back. The
 * unit of our type (or the first unit) is repeated under "mixed", where
 * Perun's views look, unless a unit's name holds it already.
 */
static void write_header(struct jw *w, const struct profile *p)
{
	const char *type = p->type ? p->type : "";
	const char *ptype = profile_perun_type(type);
	bool ours = ptype && strcmp(ptype, type) != 0;
	const char *unit = NULL;
	size_t i;

	if (ours && p->nunits && !units_name(p, ptype))
		unit = profile_units(p, type) ? profile_units(p, type) : p->units[0].value;
	jw_open(w, '{');
	member_str(w, "type", ours ? ptype : type);
	if (ours)
		member_str(w, "veles_type", type);
	member_str(w, "cmd", p->cmd);
	member_str(w, p->args_is_params ? "params" : "args", p->args);
	member_str(w, "workload", p->workload);
	if (p->nunits) {
		jw_key(w, "units");
		jw_open(w, '{');
		for (i = 0; i < p->nunits; i++)
			member_str(w, p->units[i].key, p->units[i].value);
		if (unit)
			member_str(w, ptype, unit);
		jw_close(w, '}');
	}
	members_raw(w, p->header_extra, p->nheader_extra);
	jw_close(w, '}');
}

static void write_collector_info(struct jw *w, const struct profile *p)
{
	jw_open(w, '{');
	member_str(w, "name", p->collector);
	if (p->collector_params) {
		jw_key(w, "params");
		jw_raw(w, p->collector_params);
	}
	jw_close(w, '}');
}

/* The profile, or with @meta_only all of it but the resources. */
static void write_profile(struct jw *w, const struct profile *p, bool meta_only)
{
	jw_open(w, '{');
	member_str(w, "origin", p->origin);
	jw_key(w, "header");
	write_header(w, p);
	if (p->collector || p->collector_params) {
		jw_key(w, "collector_info");
		write_collector_info(w, p);
	}
	jw_key(w, "postprocessors");
	jw_raw(w, p->postprocessors ? p->postprocessors : "[]");
	jw_key(w, "models");
	jw_raw(w, p->models ? p->models : "[]");
	if (!meta_only && p->layout == LAYOUT_GLOBAL)
		write_global(w, p);
	else if (!meta_only)
		write_typed(w, p);
	members_raw(w, p->extra, p->nextra);
	jw_close(w, '}');
	if (w->indent)
		buf_addc(w->b, '\n');
}

void profile_write_json(const struct profile *p, struct buf *out, bool indent)
{
	struct jw w = {.b = out, .fd = -1, .indent = indent};

	write_profile(&w, p, false);
}

int profile_write_part(const struct profile *p, const char *part, struct buf *out)
{
	struct jw w = {.b = out, .fd = -1};

	if (strcmp(part, "header") == 0)
		write_header(&w, p);
	else if (strcmp(part, "collector_info") == 0)
		write_collector_info(&w, p);
	else if (strcmp(part, "postprocessors") == 0)
		jw_raw(&w, p->postprocessors ? p->postprocessors : "[]");
	else if (strcmp(part, "models") == 0)
		jw_raw(&w, p->models ? p->models : "[]");
	else if (strcmp(part, "meta") == 0)
		write_profile(&w, p, true);
	else
		return err_set(ERR_INVALID,
			       "no part '%s' in a profile: use header, collector_info, "
			       "postprocessors, models or meta",
			       part);
	return 0;
}

int profile_write_fd(const struct profile *p, int fd, bool indent)
{
	struct buf b = BUF_INIT;
	struct jw w = {.b = &b, .fd = fd, .indent = indent};
	int err;

	/* A large profile is formatted while a second thread writes the
	 * previous chunk: the kernel's copy no longer adds to our time. A
	 * quarter megabyte is as fast as a megabyte (measured on 1M points)
	 * and keeps the three buffers in flight 2 MB smaller. */
	if (p->res.nrows >= BG_WRITE_ROWS && (w.bg = bgio_writer(fd)))
		w.chunk = 1 << 18;
	buf_grow(&b, (w.chunk ? w.chunk : JW_CHUNK) + 4096);
	write_profile(&w, p, false);
	jw_flush(&w);
	if (w.bg && (err = bgio_finish(w.bg)) && !w.err)
		w.err = err;
	buf_release(&b);
	if (w.err)
		return err_set(ERR_IO, "cannot write profile: %s", strerror(w.err));
	return 0;
}

/* Makes the rename itself durable. */
static void fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir =
		slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Plain profiles stream to a temporary file; only compressed ones are
 * built in memory first. */
static int save_plain(const struct profile *p, const char *path)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC), ret, e;

	if (fd < 0) {
		e = errno;
		free(tmp);
		return err_set(ERR_IO, "cannot write %s: %s", path, strerror(e));
	}
	ret = profile_write_fd(p, fd, false);
	if (ret < 0)
		err_prefix(ret, "%s", path);
	if (ret == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (close(fd) < 0 && ret == 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (ret == 0 && rename(tmp, path) < 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (ret < 0)
		unlink(tmp);
	else
		fsync_parent(path);
	free(tmp);
	return ret;
}

int profile_save(const struct profile *p, const char *path, enum compression comp)
{
	struct buf json = BUF_INIT, packed = BUF_INIT;
	int ret;

	if (comp == COMP_NONE)
		return save_plain(p, path);
	profile_write_json(p, &json, false);
	ret = compression_compress(comp, json.data, json.len, &packed);
	buf_release(&json);
	if (ret == 0)
		ret = file_write_atomic(path, packed.data, packed.len);
	buf_release(&packed);
	return ret;
}

int profile_save_compact(const struct profile *p, const char *path)
{
	struct buf packed = BUF_INIT;
	int ret = profile_encode(p, &packed);

	if (ret == 0)
		ret = file_write_atomic(path, packed.data, packed.len);
	buf_release(&packed);
	return ret;
}
