/*
 * GET /api/project/versions, /metrics and /history: the project's history
 * from the store index (store_index.h), refreshed first so that a profile
 * added or pulled a moment ago is there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history.h"
#include "serve/api.h"
#include "serve/api_project.h"
#include "serve/db.h"
#include "serve/store_index.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"

static void str_member(struct buf *b, const char *key, const char *s)
{
	buf_addf(b, "\"%s\":", key);
	if (s)
		buf_add_json_str(b, s, strlen(s));
	else
		buf_adds(b, "null");
}

static void num(struct buf *b, const struct db_val *v)
{
	if (v->type == DB_REAL && isfinite(v->d))
		buf_addf(b, "%.17g", v->d);
	else if (v->type == DB_INT)
		buf_addf(b, "%lld", (long long)v->i);
	else
		buf_adds(b, "null");
}

static const char *text(const struct db_val *v)
{
	return v->type == DB_TEXT ? v->s : NULL;
}

/* Refreshes the index; false (the answer made) when that failed. */
static bool fresh(struct serve *s, struct resp *out)
{
	int ret = store_index_refresh(s);

	if (ret > 0)
		ret = err_set(ERR_IO, "cannot index the project's store");
	if (ret < 0)
		api_fail(out, ret == ERR_NOTFOUND ? ERR_IO : ret);
	return ret == 0;
}

/* ---- versions ---- */

struct refs_of {
	struct strmap at; /* version -> index into names */
	struct buf *names;
	size_t cap;
};

static int take_ref(void *arg, const struct db_row *row)
{
	struct refs_of *r = arg;
	const char *name = row->v[0].s, *kind = "head", *brief = name;
	bool added;
	size_t i = strmap_intern(&r->at, row->v[1].s, &added);

	if (added) {
		XGROW(r->names, i + 1, r->cap);
		r->names[i] = (struct buf)BUF_INIT;
	}
	if (strncmp(name, "refs/heads/", 11) == 0)
		kind = "branch", brief = name + 11;
	else if (strncmp(name, "refs/tags/", 10) == 0)
		kind = "tag", brief = name + 10;
	buf_adds(&r->names[i], r->names[i].len ? ",{" : "{");
	str_member(&r->names[i], "name", brief);
	buf_addf(&r->names[i], ",\"kind\":\"%s\"}", kind);
	return 0;
}

struct versions_out {
	struct buf *b;
	struct refs_of *refs;
	size_t n;
	char last[41];
};

static void parents_json(struct buf *b, const char *parents)
{
	buf_adds(b, ",\"parents\":[");
	for (const char *p = parents; p && strlen(p) >= 40; p += 41) {
		buf_addf(b, "%s\"%.40s\"", p == parents ? "" : ",", p);
		if (!p[40])
			break;
	}
	buf_addc(b, ']');
}

static int take_version(void *arg, const struct db_row *row)
{
	struct versions_out *o = arg;
	const struct db_val *v = row->v;
	size_t ri = strmap_get(&o->refs->at, v[0].s);

	buf_adds(o->b, o->n++ ? ",\n{" : "{");
	str_member(o->b, "id", v[0].s);
	buf_adds(o->b, ",");
	str_member(o->b, "label", text(&v[2]));
	buf_addf(o->b, ",\"time\":%lld,", (long long)v[3].i);
	str_member(o->b, "author", text(&v[4]));
	buf_adds(o->b, ",");
	str_member(o->b, "summary", text(&v[5]));
	parents_json(o->b, text(&v[1]));
	buf_addf(o->b, ",\"refs\":[%s]", ri != SIZE_MAX ? buf_str(&o->refs->names[ri]) : "");
	buf_addf(o->b, ",\"profiles\":%lld,\"verdict\":", (long long)v[6].i);
	if (v[7].type == DB_TEXT) {
		buf_adds(o->b, "{");
		str_member(o->b, "class", v[7].s);
		buf_adds(o->b, ",\"change\":");
		num(o->b, &v[8]);
		buf_adds(o->b, ",\"interval\":[");
		num(o->b, &v[9]);
		buf_adds(o->b, ",");
		num(o->b, &v[10]);
		buf_adds(o->b, "]}");
	} else {
		buf_adds(o->b, "null");
	}
	/* Still to make (the background makes it): null is not "none". */
	if (v[11].type == DB_INT && v[11].i)
		buf_adds(o->b, ",\"verdict_pending\":true");
	buf_addc(o->b, '}');
	snprintf(o->last, sizeof(o->last), "%s", v[0].s);
	return 0;
}

void api_project_versions(struct serve *s, const struct req *r, struct resp *out)
{
	const char *after = req_param(r, "after");
	struct refs_of refs = {0};
	struct buf b = BUF_INIT;
	struct versions_out o = {&b, &refs, 0, ""};
	long long limit;
	int64_t total = 0, from = INT64_MAX;
	int ret = 0;

	if (!req_param_int(r, "limit", 1, 100000, 200, &limit)) {
		resp_error(out, 400, err_msg());
		return;
	}
	if (!fresh(s, out))
		return;
	if (after) {
		ret = db_query_int(s->db, "SELECT seq FROM ix_versions WHERE id = ?",
				   &DB_TEXT(after), 1, -1, &from);
		if (ret == 0 && from < 0)
			ret = err_set(ERR_NOTFOUND, "after=%s: no such version in the history",
				      after);
	}
	if (ret == 0)
		ret = db_query_int(s->db, "SELECT COUNT(*) FROM ix_versions", NULL, 0, 0, &total);
	if (ret == 0)
		ret = db_query(s->db, "SELECT name, version FROM ix_refs ORDER BY name", NULL, 0,
			       take_ref, &refs);
	buf_addf(&b, "{\"total\":%lld,\"versions\":[", (long long)total);
	if (ret == 0) {
		struct db_val p[] = {DB_INT(from), DB_INT(limit)};

		ret = db_query(
			s->db,
			"SELECT id, parents, label, time, author, summary, profiles, verdict, "
			"change_rel, ci_low, ci_high, verdict_due FROM ix_versions WHERE seq < ? "
			"ORDER BY "
			"seq DESC LIMIT ?",
			p, 2, take_version, &o);
	}
	buf_adds(&b, "],\"next\":");
	if (o.n == (size_t)limit)
		buf_addf(&b, "\"%s\"", o.last);
	else
		buf_adds(&b, "null");
	buf_adds(&b, "}\n");
	for (size_t i = 0; i < refs.at.n; i++)
		buf_release(&refs.names[i]);
	free(refs.names);
	strmap_free(&refs.at);
	if (ret < 0) {
		buf_release(&b);
		api_fail(out, ret);
		return;
	}
	resp_json(out, 200, &b);
}

/* ---- metrics ---- */

static const char *const series_cols[] = {"config",   "config_full", "location",
					  "unit",     "type",	     "cmd",
					  "workload", "collector",   "postprocessors"};

struct metrics_out {
	struct buf *b;
	size_t n;
};

static void series_meta(struct buf *b, const struct db_row *row, size_t first)
{
	for (size_t k = 0; k < ARRAY_SIZE(series_cols); k++) {
		buf_adds(b, ",");
		str_member(b, series_cols[k], text(&row->v[first + k]));
	}
}

static int take_metric(void *arg, const struct db_row *row)
{
	struct metrics_out *o = arg;

	buf_addf(o->b, "%s{\"id\":%lld", o->n++ ? ",\n" : "", (long long)row->v[0].i);
	series_meta(o->b, row, 1);
	buf_addf(o->b, ",\"points\":%lld}", (long long)row->v[10].i);
	return 0;
}

#define SERIES_SELECT                                                                              \
	"SELECT s.id, s.config, s.config_full, s.location, s.unit, s.type, s.cmd, s.workload, "    \
	"s.collector, s.postprocessors, s.points, s.config_key FROM ix_series s"

void api_project_metrics(struct serve *s, const struct req *r, struct resp *out)
{
	struct buf b = BUF_INIT;
	struct metrics_out o = {&b, 0};
	int ret;

	if (!fresh(s, out))
		return;
	buf_adds(&b, "{\"metrics\":[");
	ret = db_query(s->db, SERIES_SELECT " WHERE s.points > 0 ORDER BY s.config, s.location",
		       NULL, 0, take_metric, &o);
	buf_adds(&b, "]}\n");
	if (ret < 0) {
		buf_release(&b);
		api_fail(out, ret);
		return;
	}
	resp_json(out, 200, &b);
}

/* ---- history ---- */

struct series_out {
	struct history h;
	struct buf meta;
	char *key, *location;
	struct buf blobs, verdicts;
	size_t nverdicts;
};

static int take_series(void *arg, const struct db_row *row)
{
	struct series_out *o = arg;
	struct history_series *hs;

	buf_addf(&o->meta, "\"id\":%lld", (long long)row->v[0].i);
	series_meta(&o->meta, row, 1);
	o->h.s = xcalloc(1, sizeof(*o->h.s));
	o->h.ns = 1;
	hs = o->h.s;
	hs->title = xstrdup(row->v[1].s);
	hs->title_full = xstrdup(row->v[2].s);
	hs->location = xstrdup(row->v[3].s);
	hs->unit = xstrdup(row->v[4].s);
	o->key = xstrdup(row->v[11].s);
	o->location = xstrdup(row->v[3].s);
	return 1;
}

static double real(const struct db_val *v)
{
	return v->type == DB_REAL ? v->d : v->type == DB_INT ? (double)v->i : NAN;
}

static int take_point(void *arg, const struct db_row *row)
{
	struct series_out *o = arg;
	struct history_series *hs = o->h.s;
	size_t at = history_add_version(&o->h, row->v[0].s, text(&row->v[1]), row->v[2].i,
					text(&row->v[3]));

	hs->pts = xgrow(hs->pts, sizeof(*hs->pts), hs->n + 1, &hs->cap);
	hs->pts[hs->n++] = (struct history_point){at,
						  real(&row->v[4]),
						  real(&row->v[5]),
						  real(&row->v[6]),
						  (size_t)row->v[7].i,
						  false,
						  NAN};
	buf_addf(&o->blobs, "%s\"%s\"", at ? "," : "", row->v[8].s);
	return 0;
}

static int take_verdict(void *arg, const struct db_row *row)
{
	struct series_out *o = arg;

	buf_addf(&o->verdicts, "%s\"%s\":{", o->nverdicts++ ? "," : "", row->v[0].s);
	str_member(&o->verdicts, "class", row->v[1].s);
	buf_adds(&o->verdicts, ",\"change\":");
	num(&o->verdicts, &row->v[2]);
	buf_adds(&o->verdicts, ",\"interval\":[");
	num(&o->verdicts, &row->v[3]);
	buf_adds(&o->verdicts, ",");
	num(&o->verdicts, &row->v[4]);
	buf_adds(&o->verdicts, "]}");
	return 0;
}

static void series_out_free(struct series_out *o)
{
	history_free(&o->h);
	buf_release(&o->meta);
	buf_release(&o->blobs);
	buf_release(&o->verdicts);
	free(o->key);
	free(o->location);
}

/* The series' history but its verdicts: "{id, ..., profiles: [...]". */
static int history_body(struct serve *s, long long id, struct series_out *o, struct buf *b)
{
	struct buf pts = BUF_INIT;
	int ret = db_query(s->db,
			   "SELECT v.id, v.label, v.time, v.summary, p.median, p.q1, p.q3, p.n, "
			   "p.blob FROM ix_points p JOIN ix_versions v ON v.seq = p.vseq "
			   "WHERE p.series = ? ORDER BY p.vseq",
			   &DB_INT(id), 1, take_point, o);

	if (ret == 0) {
		/* The change points as `log --perf` finds them. */
		history_finish(&o->h);
		history_series_json(&o->h, &pts);
		/* One series: its object without the array around it. */
		buf_addf(b, "{%s,\"history\":%.*s,\"versions\":", buf_str(&o->meta),
			 (int)(pts.len - 2), pts.data + 1);
		history_versions_json(&o->h, b);
		buf_addf(b, ",\"profiles\":[%s]", buf_str(&o->blobs));
	}
	buf_release(&pts);
	return ret;
}

static struct store_index_cached *cached(struct serve *s, long long id)
{
	for (size_t i = 0; i < STORE_INDEX_CACHED; i++)
		if (s->ix_cache[i].text && s->ix_cache[i].series == id &&
		    s->ix_cache[i].gen == s->ix_gen)
			return &s->ix_cache[i];
	return NULL;
}

static struct store_index_cached *remember(struct serve *s, long long id, const struct buf *body)
{
	struct store_index_cached *c = &s->ix_cache[s->ix_cache_next++ % STORE_INDEX_CACHED];

	free(c->text);
	*c = (struct store_index_cached){id, s->ix_gen, -1, xstrdup(buf_str(body)), body->len};
	return c;
}

static int history_json(struct serve *s, long long id, struct buf *b)
{
	struct series_out o = {.meta = BUF_INIT, .blobs = BUF_INIT, .verdicts = BUF_INIT};
	int64_t vgen = __atomic_load_n(&s->ix_vgen, __ATOMIC_ACQUIRE);
	struct store_index_cached *c;
	int ret = db_query(s->db, SERIES_SELECT " WHERE s.id = ?", &DB_INT(id), 1, take_series, &o);

	if (ret > 0)
		ret = 0; /* take_series stops at the first row */
	if (ret == 0 && !o.h.s)
		ret = err_set(ERR_NOTFOUND,
			      "series=%lld: no such series (see /api/project/metrics)", id);
	c = ret == 0 ? cached(s, id) : NULL;
	if (c && c->vgen == vgen) {
		buf_add(b, c->text, strlen(c->text));
		series_out_free(&o);
		return 0;
	}
	if (ret == 0) {
		struct db_val p[] = {DB_TEXT(o.key), DB_TEXT(o.location)};

		ret = db_query(
			s->db,
			"SELECT version, class, change_rel, ci_low, ci_high FROM ix_verdicts "
			"WHERE config_key = ? AND location = ?",
			p, 2, take_verdict, &o);
	}
	if (ret == 0 && c) {
		buf_add(b, c->text, c->body_len);
	} else if (ret == 0 && (ret = history_body(s, id, &o, b)) == 0) {
		c = remember(s, id, b);
	}
	if (ret == 0) {
		buf_addf(b, ",\"verdicts\":{%s}}\n", buf_str(&o.verdicts));
		/* The whole answer, while neither points nor verdicts change. */
		free(c->text);
		c->text = xstrdup(buf_str(b));
		c->vgen = vgen;
	}
	series_out_free(&o);
	return ret;
}

void api_project_history(struct serve *s, const struct req *r, struct resp *out)
{
	struct buf b = BUF_INIT;
	long long id;
	int ret;

	if (!req_param(r, "series")) {
		resp_error(out, 400, "history needs ?series=ID (see /api/project/metrics)");
		return;
	}
	if (!req_param_int(r, "series", 1, INT64_MAX, 0, &id)) {
		resp_error(out, 400, err_msg());
		return;
	}
	if (!fresh(s, out))
		return;
	ret = history_json(s, id, &b);
	if (ret < 0) {
		buf_release(&b);
		api_fail(out, ret);
		return;
	}
	resp_json(out, 200, &b);
}
