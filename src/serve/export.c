/*
 * veles serve --export DIR: the project's pages as a static site (GitHub
 * Pages, any file server). The page is the same app; the answers of the
 * API's GET addresses it reads are files beside it, named by
 * export_file_name() (web/serve/api.js names them the same way in static
 * mode), and it routes by the address's #fragment, which needs no server.
 *
 * Each part of the pages lists the addresses it reads in the table
 * `parts` below, so that its screens work in the export too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/api.h"
#include "serve/api_project.h"
#include "serve/assets.h"
#include "serve/db.h"
#include "serve/export.h"
#include "serve/proj_profile.h"
#include "serve/proj_view.h"
#include "serve/request.h"
#include "serve/resp.h"
#include "serve/srv.h"
#include "serve/store_index.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"

struct uris {
	char **v;
	size_t n, cap;
};

static void add(struct uris *u, char *uri)
{
	XGROW(u->v, u->n + 1, u->cap);
	u->v[u->n++] = uri;
}

static int take_id(void *arg, const struct db_row *row)
{
	add(arg, xasprintf("/api/project/history?series=%lld", (long long)row->v[0].i));
	return 0;
}

/* The project's overview and history (api_history.c). */
static int history_uris(struct serve *s, struct uris *u)
{
	int ret = store_index_refresh(s);

	add(u, xstrdup("/api/project"));
	add(u, xstrdup("/api/project/versions?limit=100000"));
	add(u, xstrdup("/api/project/metrics"));
	if (ret == 0)
		ret = db_query(s->db, "SELECT id FROM ix_series WHERE points > 0 ORDER BY id", NULL,
			       0, take_id, u);
	return ret;
}

static int take_version(void *arg, const struct db_row *row)
{
	add(arg, xasprintf("/api/project/versions/%s", row->v[0].s));
	return 0;
}

static int take_profile(void *arg, const struct db_row *row)
{
	add(arg, xasprintf("/api/project/profiles/%s", row->v[0].s));
	return 0;
}

/* A version's page and its profiles' (api_profile.c), for every version
 * that has profiles (the index is fresh: history_uris came first). */
static int version_uris(struct serve *s, struct uris *u)
{
	int ret = db_query(s->db, "SELECT id FROM ix_versions WHERE profiles > 0 ORDER BY seq",
			   NULL, 0, take_version, u);

	if (ret == 0)
		ret = db_query(s->db, "SELECT DISTINCT blob FROM ix_profiles ORDER BY blob", NULL,
			       0, take_profile, u);
	return ret;
}

static int take_blob(void *arg, const struct db_row *row)
{
	add(arg, xstrdup(row->v[0].s));
	return 0;
}

/* The views of every profile's page (api_view.c) whose keys say they
 * apply; one the profile then cannot draw is left out of the site. */
static int view_uris(struct serve *s, struct uris *u)
{
	struct uris blobs = {0};
	int ret = db_query(s->db, "SELECT DISTINCT blob FROM ix_profiles ORDER BY blob", NULL, 0,
			   take_blob, &blobs);

	for (size_t i = 0; i < blobs.n && ret == 0; i++) {
		struct proj_profile pp = {0};
		const struct proj_view *v;

		ret = proj_profile_open(s->proj, blobs.v[i], &pp);
		for (size_t k = 0; ret == 0 && (v = proj_view_at(k)); k++)
			if (v->applies(pp.p) == 0)
				add(u, xasprintf("/api/project/profiles/%s/views/%s", blobs.v[i],
						 v->name));
		proj_profile_release(&pp);
	}
	for (size_t i = 0; i < blobs.n; i++)
		free(blobs.v[i]);
	free(blobs.v);
	err_clear();
	return ret;
}

static int take_pair(void *arg, const struct db_row *row)
{
	add(arg, xasprintf("/api/project/diff?a=%s&b=%s", row->v[1].s, row->v[0].s));
	return 0;
}

/* The diff each version's page links to: with its first parent, where
 * both have profiles (api_diff.c). Other pairs are the live server's. */
static int diff_uris(struct serve *s, struct uris *u)
{
	return db_query(s->db,
			"SELECT v.id, v.parent FROM ix_versions v JOIN ix_versions p ON p.id = "
			"v.parent WHERE v.profiles > 0 AND p.profiles > 0 ORDER BY v.seq",
			NULL, 0, take_pair, u);
}

/* Which GET addresses each part of the pages reads. */
static const struct export_part {
	const char *name;
	int (*uris)(struct serve *s, struct uris *u);
} parts[] = {
	{"history", history_uris},
	{"version", version_uris},
	{"views", view_uris},
	{"diff", diff_uris},
};

static bool plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-';
}

/* In the path, dots are escaped too: no ".." segment ever. */
static void escaped(struct buf *b, const char *s, size_t n, bool path)
{
	for (size_t i = 0; i < n; i++) {
		if (path ? s[i] == '/' || (plain_char(s[i]) && s[i] != '.') : plain_char(s[i]))
			buf_addc(b, s[i]);
		else
			buf_addf(b, "_%02x", (unsigned char)s[i]);
	}
}

/* The paging parameters: an export holds the whole list in one file. */
static bool dropped(const char *param, size_t n)
{
	return (n == 5 && strncmp(param, "limit", 5) == 0) ||
	       (n == 5 && strncmp(param, "after", 5) == 0);
}

char *export_file_name(const char *uri)
{
	const char *q = strchr(uri, '?');
	size_t plen = q ? (size_t)(q - uri) : strlen(uri);
	struct buf b = BUF_INIT;
	bool first = true;

	while (plen && uri[0] == '/')
		uri++, plen--;
	escaped(&b, uri, plen, true);
	for (const char *p = q; p && *p;) {
		const char *start = p + 1, *end = strchr(start, '&'), *eq;
		size_t n;

		end = end ? end : start + strlen(start);
		eq = memchr(start, '=', (size_t)(end - start));
		n = (size_t)((eq ? eq : end) - start);
		if (end > start && !dropped(start, n)) {
			buf_addc(&b, first ? '@' : '&');
			escaped(&b, start, (size_t)(end - start), false);
			first = false;
		}
		p = *end ? end : NULL;
	}
	buf_adds(&b, ".json");
	return buf_detach(&b, NULL);
}

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	int ret = 0;

	*slash = '\0';
	if (mkdir_p(path) < 0)
		ret = err_prefix(ERR_IO, "cannot make %s", path);
	*slash = '/';
	if (ret == 0)
		ret = file_write_atomic(path, data, len);
	free(path);
	return ret;
}

/* One address answered as the server would, into its file. */
static int export_uri(struct serve *s, const char *dir, const char *uri)
{
	struct req r;
	struct resp out = {0};
	char *name;
	int ret = req_parse(&r, "GET", uri, NULL, 0, NULL, 0);

	if (ret < 0)
		return ret;
	api_project(s, &r, &out);
	req_free(&r);
	/* A view a profile turns out not to have: the page says so live,
	 * and the site simply lacks it. */
	if (out.status != 200 && strstr(uri, "/views/")) {
		resp_free(&out);
		return 0;
	}
	if (out.status != 200) {
		ret = err_set(ERR_IO, "--export: %s answered %d: %.*s", uri, out.status,
			      (int)out.body.len, out.body.data ? out.body.data : "");
		resp_free(&out);
		return ret;
	}
	name = export_file_name(uri);
	/* A view's page for a frame: a file server must send it as HTML. */
	if (out.ctype && strncmp(out.ctype, "text/html", 9) == 0)
		memcpy(name + strlen(name) - 5, ".html", 5);
	ret = write_file(dir, name, out.body.data, out.body.len);
	free(name);
	resp_free(&out);
	return ret;
}

static const struct serve_asset *asset(const char *name)
{
	for (size_t i = 0; i < serve_assets_count; i++)
		if (strcmp(serve_assets[i].name, name) == 0)
			return &serve_assets[i];
	return NULL;
}

/* index.html for a static site: the assets beside it wherever the site
 * lives (GitHub Pages serves a project's under /NAME/), and the mark that
 * tells the app to read files instead of asking a server. */
static int write_page(const char *dir)
{
	const struct serve_asset *a = asset("index.html");
	struct buf b = BUF_INIT;
	const char *p, *end;
	int ret;

	if (!a)
		return err_set(ERR_IO, "--export: the page is not built in");
	p = (const char *)a->data;
	end = p + a->len;
	for (const char *m; (m = strstr(p, "\"/assets/")) && m < end; p = m + 2) {
		buf_add(&b, p, (size_t)(m - p) + 1);
		buf_adds(&b, "./");
	}
	buf_add(&b, p, (size_t)(end - p));
	p = strstr(buf_str(&b), "<head>");
	if (p) {
		size_t at = (size_t)(p - b.data) + 6;
		struct buf out = BUF_INIT;

		buf_add(&out, b.data, at);
		buf_adds(&out, "\n<meta name=\"veles-static\" content=\"1\">");
		buf_add(&out, b.data + at, b.len - at);
		buf_release(&b);
		b = out;
	}
	ret = write_file(dir, "index.html", b.data, b.len);
	buf_release(&b);
	for (size_t i = 0; i < serve_assets_count && ret == 0; i++) {
		char *name;

		if (strcmp(serve_assets[i].name, "index.html") == 0)
			continue;
		name = xasprintf("assets/%s", serve_assets[i].name);
		ret = write_file(dir, name, serve_assets[i].data, serve_assets[i].len);
		free(name);
	}
	/* GitHub Pages runs Jekyll, which drops files whose names start with
	 * an underscore, unless this file is there. */
	if (ret == 0)
		ret = write_file(dir, ".nojekyll", "", 0);
	return ret;
}

int serve_export(struct serve *s, const char *dir, size_t *files)
{
	struct uris u = {0};
	int ret = 0;

	*files = 0;
	if (!s->proj)
		return err_set(ERR_INVALID, "--export: run it in a project (there is none here)");
	pthread_mutex_lock(&s->proj_mu);
	for (size_t i = 0; i < ARRAY_SIZE(parts) && ret == 0; i++)
		ret = parts[i].uris(s, &u);
	pthread_mutex_unlock(&s->proj_mu);
	/* A site is not updated later: every verdict in it. */
	store_index_settle(s);
	if (ret == 0)
		ret = write_page(dir);
	for (size_t i = 0; i < u.n && ret == 0; i++, ++*files)
		ret = export_uri(s, dir, u.v[i]);
	for (size_t i = 0; i < u.n; i++)
		free(u.v[i]);
	free(u.v);
	return ret;
}
