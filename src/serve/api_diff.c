/*
 * The diff of two profiles or two versions: GET /api/project/diff?a=X&b=Y
 * (X and Y both profile ids, or both versions: then each profile of Y is
 * paired with X's of the same configuration, as `check` pairs them), the
 * table of `veles diff` per pair; GET /api/project/diff/flamegraph?a=P&b=Q
 * the differential flame graph of two profiles, the page `veles diff P Q
 * flamegraph -o x.html` writes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "project/project.h"
#include "project/select.h"
#include "project/version_profiles.h"
#include "serve/api.h"
#include "serve/api_project.h"
#include "serve/proj_profile.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "vcs/vcs.h"
#include "view/diff_table.h"
#include "view/flamegraph.h"

enum { DIFF_MAX_ROWS = 2000 };

static bool has_trace(const struct profile *p)
{
	return table_col(&p->types, "trace") != NULL;
}

static void side_json(const struct store_entry *e, const char *version, const struct profile *p,
		      struct buf *b)
{
	buf_addc(b, '{');
	proj_profile_json(e, version, p, b);
	buf_addc(b, '}');
}

/* One pair: both profiles, the table and whether a flame graph is there. */
static void pair_json(const struct store_entry *ea, const char *va, const struct profile *a,
		      const struct store_entry *eb, const char *vb, const struct profile *b,
		      const char *of, bool first, struct buf *out)
{
	struct diff_table t;
	int ret = diff_table_build(a, b, of, &t);

	buf_adds(out, first ? "{\"baseline\":" : ",{\"baseline\":");
	side_json(ea, va, a, out);
	buf_adds(out, ",\"target\":");
	side_json(eb, vb, b, out);
	buf_addf(out,
		 ",\"flamegraph\":%s,\"error\":", has_trace(a) || has_trace(b) ? "true" : "false");
	if (ret < 0)
		buf_add_json_str(out, err_msg(), strlen(err_msg()));
	else
		buf_adds(out, "null");
	buf_addf(out, ",\"total_rows\":%zu,\"rows\":[", ret < 0 ? 0 : t.n);
	for (size_t i = 0; ret == 0 && i < t.n && i < DIFF_MAX_ROWS; i++) {
		buf_adds(out, i ? ",{\"name\":" : "{\"name\":");
		buf_add_json_str(out, t.rows[i].name, strlen(t.rows[i].name));
		buf_adds(out, ",\"baseline\":");
		json_num(out, t.rows[i].base);
		buf_adds(out, ",\"target\":");
		json_num(out, t.rows[i].target);
		buf_adds(out, ",\"rel_change\":");
		json_num(out, t.rows[i].rel);
		buf_addc(out, '}');
	}
	buf_adds(out, "]}");
	if (ret == 0)
		diff_table_free(&t);
	err_clear();
}

static void version_side(struct project *pr, const char *id, struct buf *b)
{
	struct vcs_version v;

	buf_addf(b, "{\"kind\":\"version\",\"id\":\"%s\"", id);
	if (vcs_version_info(pr->vcs, id, &v) == 0) {
		buf_addf(b, ",\"short\":\"%s\",\"summary\":", v.short_id);
		buf_add_json_str(b, v.summary ? v.summary : "", v.summary ? strlen(v.summary) : 0);
	}
	buf_addc(b, '}');
	err_clear();
}

static void unmatched(const struct version_profiles *x, const struct version_profiles *y,
		      struct buf *b)
{
	bool first = true;

	buf_addc(b, '[');
	for (size_t i = 0; i < x->n; i++)
		if (version_profiles_find(y, x->key[i]) < 0) {
			buf_addf(b, "%s\"%s\"", first ? "" : ",", x->e[i].blob);
			first = false;
		}
	buf_addc(b, ']');
}

/* Two versions: each configuration both have, its newest profile on each side. */
static int diff_versions(struct project *pr, const char *a, const char *b, const char *of,
			 struct buf *out)
{
	struct version_profiles va = {0}, vb = {0};
	int ret = version_profiles_load(pr->store, a, &va);
	bool first = true;

	if (ret == 0)
		ret = version_profiles_load(pr->store, b, &vb);
	if (ret == 0) {
		buf_adds(out, "{\"a\":");
		version_side(pr, a, out);
		buf_adds(out, ",\"b\":");
		version_side(pr, b, out);
		buf_adds(out, ",\"pairs\":[");
		for (size_t j = 0; j < vb.n; j++) {
			ssize_t i = version_profiles_find(&va, vb.key[j]);

			if (i < 0 || version_profiles_find(&vb, vb.key[j]) != (ssize_t)j)
				continue;
			pair_json(&va.e[i], a, va.p[i], &vb.e[j], b, vb.p[j], of, first, out);
			first = false;
		}
		buf_adds(out, "],\"only_a\":");
		unmatched(&va, &vb, out);
		buf_adds(out, ",\"only_b\":");
		unmatched(&vb, &va, out);
		buf_adds(out, "}\n");
	}
	version_profiles_free(&va);
	version_profiles_free(&vb);
	return ret;
}

/* What X names: 1 a profile (opened into @pp), 2 a version (its id in
 * @id), or a negative error saying it names neither. */
static int resolve(struct project *pr, const char *x, struct proj_profile *pp, char id[41])
{
	int ret = proj_hex_id(x) ? proj_profile_open(pr, x, pp) : ERR_NOTFOUND;

	if (ret == 0)
		return 1;
	if (ret != ERR_NOTFOUND)
		return ret;
	if (vcs_resolve(pr->vcs, x, id) == 0)
		return 2;
	return err_set(ERR_NOTFOUND, "'%s' names no profile and no version", x);
}

static int diff_profiles(const struct proj_profile *a, const struct proj_profile *b, const char *of,
			 struct buf *out)
{
	buf_adds(out, "{\"a\":{\"kind\":\"profile\",\"id\":");
	buf_addf(out, "\"%s\"},\"b\":{\"kind\":\"profile\",\"id\":\"%s\"},\"pairs\":[", a->e.blob,
		 b->e.blob);
	pair_json(&a->e, a->version, a->p, &b->e, b->version, b->p, of, true, out);
	buf_adds(out, "],\"only_a\":[],\"only_b\":[]}\n");
	return 0;
}

static void flame_page(const struct proj_profile *a, const struct proj_profile *b, const char *of,
		       struct resp *out)
{
	struct buf la = BUF_INIT, lb = BUF_INIT;
	char *title;
	int ret;

	/* Titled as `veles diff A B flamegraph` titles it. */
	profile_ref_label(&la, a->e.blob, a->e.name, a->version);
	profile_ref_label(&lb, b->e.blob, b->e.name, b->version);
	title = xasprintf("%s -> %s", buf_str(&la), buf_str(&lb));
	ret = flamegraph_page(a->p, b->p, &(struct flame_opts){.of = of, .title = title},
			      &out->body);
	free(title);
	buf_release(&la);
	buf_release(&lb);
	if (ret < 0) {
		buf_reset(&out->body);
		resp_error(out, ret == ERR_INVALID ? 404 : 500, err_msg());
		return;
	}
	out->status = 200;
	out->ctype = "text/html; charset=utf-8";
	out->view_page = true;
}

void api_project_diff(struct serve *s, const struct req *r, struct resp *out)
{
	const char *x = req_param(r, "a"), *y = req_param(r, "b"), *of = req_param(r, "of");
	bool flame = r->nsegs == 4 && strcmp(r->segs[3], "flamegraph") == 0;
	struct proj_profile pa = {0}, pb = {0};
	char ia[41], ib[41];
	struct buf b = BUF_INIT;
	int ka, kb = 0;

	if (r->nsegs > 4 || (r->nsegs == 4 && !flame)) {
		resp_error(out, 404, "no such API address");
		return;
	}
	if (!x || !y || !*x || !*y) {
		resp_error(out, 400, "name what to compare: ?a=X&b=Y (profile ids or versions)");
		return;
	}
	ka = resolve(s->proj, x, &pa, ia);
	if (ka > 0)
		kb = resolve(s->proj, y, &pb, ib);
	if (ka < 0 || kb < 0) {
		api_fail(out, ka < 0 ? ka : kb);
	} else if (ka != kb || (flame && ka != 1)) {
		resp_error(out, 400,
			   flame ? "the flame graph compares two profiles: ?a=ID&b=ID"
				 : "compare two profiles or two versions, not one of each");
	} else if (flame) {
		flame_page(&pa, &pb, of, out);
	} else {
		int ret = ka == 1 ? diff_profiles(&pa, &pb, of, &b)
				  : diff_versions(s->proj, ia, ib, of, &b);

		if (ret < 0)
			api_fail(out, ret);
		else
			resp_json(out, 200, &b);
	}
	buf_release(&b);
	proj_profile_release(&pa);
	proj_profile_release(&pb);
}
