/*
 * /api/project/...: the project whose store the pages show (veles serve
 * run in a project). Each part of it has a row in the table below and its
 * handler in a file of its own; a handler runs with s->proj_mu held, as
 * libgit2's objects are not shared between threads.
 */
#include <string.h>

#include "project/project.h"
#include "serve/api.h"
#include "serve/api_jobs.h"
#include "serve/api_project.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

/* GET /api/project: where it is and its current version. */
static void project_info(struct serve *s, const struct req *r, struct resp *out)
{
	const struct project *p = s->proj;
	const char *base = strrchr(p->root, '/');
	struct vcs_version v;
	struct buf b = BUF_INIT;
	char head[41];

	UNUSED(r);
	buf_adds(&b, "{\"root\":");
	buf_add_json_str(&b, p->root, strlen(p->root));
	buf_adds(&b, ",\"name\":");
	base = base && base[1] ? base + 1 : p->root;
	buf_add_json_str(&b, base, strlen(base));
	buf_addf(&b, ",\"vcs\":\"%s\",\"head\":", vcs_kind_name(p->vcs));
	if (vcs_head(p->vcs, head) == 0 && vcs_version_info(p->vcs, head, &v) == 0) {
		buf_addf(&b, "{\"id\":\"%s\",\"short\":\"%s\",\"summary\":", v.id, v.short_id);
		buf_add_json_str(&b, v.summary ? v.summary : "", v.summary ? strlen(v.summary) : 0);
		buf_addc(&b, '}');
	} else {
		buf_adds(&b, "null");
	}
	buf_addf(&b, ",\"read_only\":%s}\n", s->read_only ? "true" : "false");
	err_clear();
	resp_json(out, 200, &b);
}

static const struct project_route {
	const char *name;   /* /api/project/NAME[/...]; "" for /api/project */
	const char *method; /* GET, POST, ... (HEAD goes with GET) */
	project_handler handler;
	/* The address's parts this row answers (/api/project/NAME is 3), 0
	 * for any: a row for NAME/ID goes before one for NAME alone. */
	size_t nsegs;
} routes[] = {
	{"", "GET", project_info, 0},
	{"versions", "GET", api_project_version, 4},
	{"versions", "GET", api_project_versions, 3},
	{"metrics", "GET", api_project_metrics, 3},
	{"history", "GET", api_project_history, 3},
	{"profiles", "GET", api_project_profile, 0},
	{"diff", "GET", api_project_diff, 0},
	{"jobs", "GET", api_jobs_get, 0},
	{"jobs", "POST", api_jobs_post, 0},
};

void api_project(struct serve *s, const struct req *r, struct resp *out)
{
	const char *name = r->nsegs > 2 ? r->segs[2] : "";
	bool known = false;

	if (!s->proj) {
		resp_error(out, 404, "this server shows no project (run veles serve in one)");
		return;
	}
	/* Rows for this many parts first, then rows for any. */
	for (size_t k = 0; k < 2 * ARRAY_SIZE(routes); k++) {
		size_t i = k % ARRAY_SIZE(routes);

		if (strcmp(routes[i].name, name) != 0 ||
		    (k < ARRAY_SIZE(routes) ? routes[i].nsegs != r->nsegs : routes[i].nsegs != 0))
			continue;
		known = true;
		if (!req_is(r, routes[i].method))
			continue;
		pthread_mutex_lock(&s->proj_mu);
		routes[i].handler(s, r, out);
		pthread_mutex_unlock(&s->proj_mu);
		return;
	}
	if (known)
		resp_error(out, 405, "that method is not allowed here");
	else
		resp_error(out, 404, "no such API address");
}
