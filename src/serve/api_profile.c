/*
 * A version's page and a profile's page: GET /api/project/versions/REV
 * (the commit, its profiles, the verdicts of check against its parents)
 * and GET /api/project/profiles/ID[/views/NAME] (the header and the views
 * that apply; a view as `veles show ID VIEW -o x.html` draws it).
 */
#include <string.h>

#include "analyze/envinfo.h"
#include "profile/profile.h"
#include "project/project.h"
#include "project/version_profiles.h"
#include "serve/api.h"
#include "serve/api_project.h"
#include "serve/proj_profile.h"
#include "serve/proj_view.h"
#include "util/buf.h"
#include "util/error.h"
#include "vcs/vcs.h"

/* The commit: id, author, date, message, parents (with their summaries). */
static void commit_json(struct project *pr, const struct vcs_version *v, struct buf *b)
{
	char parents[4][41], head[41];
	size_t np = v->nparents;

	buf_addf(b, "\"id\":\"%s\",\"short\":\"%s\",\"counter\":%u", v->id, v->short_id,
		 v->counter);
	api_json_str(b, "author", v->author);
	api_json_str(b, "email", v->email);
	buf_addf(b, ",\"time\":%lld,\"tz_offset\":%d", (long long)v->time, v->tz_offset);
	api_json_str(b, "summary", v->summary);
	api_json_str(b, "message", v->message);
	buf_addf(b, ",\"head\":%s",
		 vcs_head(pr->vcs, head) == 0 && strcmp(head, v->id) == 0 ? "true" : "false");
	/* vcs_version_info's strings last until its next call: copy first. */
	memcpy(parents, v->parents, sizeof(parents));
	buf_adds(b, ",\"parents\":[");
	for (size_t k = 0; k < np && k < 4; k++) {
		struct vcs_version pv;

		buf_addf(b, "%s{\"id\":\"%s\"", k ? "," : "", parents[k]);
		if (vcs_version_info(pr->vcs, parents[k], &pv) == 0) {
			buf_addf(b, ",\"short\":\"%s\"", pv.short_id);
			api_json_str(b, "summary", pv.summary);
		}
		buf_addc(b, '}');
	}
	buf_adds(b, "],\"refs\":");
	proj_refs_json(pr, v->id, b);
	err_clear();
}

/* GET /api/project/versions/REV */
void api_project_version(struct serve *s, const struct req *r, struct resp *out)
{
	struct project *pr = s->proj;
	struct version_profiles vp = {0};
	struct vcs_version v;
	struct buf b = BUF_INIT;
	char id[41];
	int ret;

	if (r->nsegs != 4) {
		resp_error(out, 404, "no such API address");
		return;
	}
	ret = vcs_resolve(pr->vcs, r->segs[3], id);
	if (ret == 0)
		ret = vcs_version_info(pr->vcs, id, &v);
	if (ret < 0) {
		resp_error(out, 404, err_msg());
		return;
	}
	buf_addc(&b, '{');
	commit_json(pr, &v, &b);
	/* commit_json looked the parents up: the version's strings anew. */
	ret = vcs_version_info(pr->vcs, id, &v);
	if (ret == 0)
		ret = version_profiles_load(pr->store, id, &vp);
	buf_adds(&b, ",\"profiles\":[");
	for (size_t i = 0; ret == 0 && i < vp.n; i++) {
		buf_adds(&b, i ? ",{" : "{");
		proj_profile_json(&vp.e[i], id, vp.p[i], &b);
		buf_addc(&b, '}');
	}
	buf_adds(&b, "],\"check\":");
	if (ret == 0)
		ret = proj_check_json(pr, &v, &vp, &b);
	buf_addf(&b, ",\"read_only\":%s}\n", s->read_only ? "true" : "false");
	version_profiles_free(&vp);
	if (ret < 0) {
		buf_release(&b);
		api_fail(out, ret);
		return;
	}
	resp_json(out, 200, &b);
}

/* The per-type statistics of `show summary`, and where it was measured. */
static void profile_info(struct serve *s, const struct proj_profile *pp, struct resp *out)
{
	const struct profile *p = pp->p;
	struct env_info env;
	struct buf b = BUF_INIT, e = BUF_INIT;

	buf_addc(&b, '{');
	proj_profile_json(&pp->e, pp->version, p, &b);
	env_info_get(p, &env);
	if (env.present)
		env_info_describe(&env, &e);
	api_json_str(&b, "environment", env.present ? buf_str(&e) : NULL);
	env_info_release(&env);
	buf_adds(&b, ",\"units\":{");
	for (size_t i = 0; i < p->nunits; i++) {
		buf_adds(&b, i ? "," : "");
		buf_add_json_str(&b, p->units[i].key, strlen(p->units[i].key));
		buf_addc(&b, ':');
		buf_add_json_str(&b, p->units[i].value, strlen(p->units[i].value));
	}
	buf_addf(&b, "},\"models\":%s,", p->models ? p->models : "[]");
	proj_views_json(p, &b);
	buf_addf(&b, ",\"read_only\":%s}\n", s->read_only ? "true" : "false");
	buf_release(&e);
	resp_json(out, 200, &b);
}

/* GET /api/project/profiles/ID and /api/project/profiles/ID/views/NAME */
void api_project_profile(struct serve *s, const struct req *r, struct resp *out)
{
	const struct proj_view *view = NULL;
	struct proj_profile pp;
	int ret;

	if (r->nsegs == 6 && strcmp(r->segs[4], "views") == 0) {
		view = proj_view_find(r->segs[5]);
		if (!view) {
			resp_error(out, 404, "no such view (see the profile's \"views\")");
			return;
		}
	} else if (r->nsegs != 4) {
		resp_error(out, 404, "no such API address");
		return;
	}
	ret = proj_profile_open(s->proj, r->segs[3], &pp);
	if (ret < 0) {
		api_fail(out, ret);
		return;
	}
	if (view)
		proj_view_send(view, pp.p, out);
	else
		profile_info(s, &pp, out);
	proj_profile_release(&pp);
}
