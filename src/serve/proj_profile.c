/* Registered profiles found by id, their headers as JSON, and the branches
 * and tags of a version (proj_profile.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "project/project.h"
#include "project/select.h"
#include "serve/api.h"
#include "serve/proj_profile.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/git_lazy.h"
#include "vcs/vcs.h"

bool proj_hex_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return n >= 4 && n <= 40 && s[n] == '\0';
}

int proj_profile_open(struct project *pr, const char *spec, struct proj_profile *out)
{
	struct store_entry e = {0};
	struct buf raw = BUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!proj_hex_id(spec))
		return err_set(ERR_PARSE, "'%s' is no profile id (4 to 40 hex digits)", spec);
	ret = profile_find_id(pr->store, NULL, spec, &e, out->version);
	if (ret < 0)
		return ret;
	out->e.type = e.type;
	out->e.name = e.name;
	memcpy(out->e.blob, e.blob, sizeof(e.blob));
	ret = store_read(pr->store, e.blob, &raw);
	if (ret == 0)
		ret = profile_load_mem(raw.data, raw.len, e.name, &out->p);
	buf_release(&raw);
	if (ret < 0)
		proj_profile_release(out);
	return ret;
}

void proj_profile_release(struct proj_profile *pp)
{
	free(pp->e.type);
	free(pp->e.name);
	profile_free(pp->p);
	memset(pp, 0, sizeof(*pp));
}

/* The time in a profile's name ("prog-time-...-2026-11-22-10-00-00.perf"),
 * as "2026-11-22 10:00:00", or false when it has none. */
static bool name_time(const char *name, char out[20])
{
	static const char pat[] = "dddd-dd-dd-dd-dd-dd";
	const char *end = strstr(name, ".perf");
	size_t n = end ? (size_t)(end - name) : strlen(name), k = sizeof(pat) - 1;
	const char *s;

	for (size_t off = 0; off + k <= n; off++) {
		s = name + n - k - off;
		size_t i;

		for (i = 0; i < k; i++)
			if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != '-')
				break;
		if (i == k) {
			memcpy(out, s, k);
			out[k] = '\0';
			out[10] = ' ';
			out[13] = out[16] = ':';
			return true;
		}
	}
	return false;
}

void proj_profile_json(const struct store_entry *e, const char *version, const struct profile *p,
		       struct buf *b)
{
	char shortid[PROFILE_SHORT_ID + 1], when[20];
	char *config = profile_config_title(p), *key = profile_config_key(p);
	size_t npp = 0;
	char **pp = profile_config_postprocessors(p, &npp);

	buf_addf(b, "\"id\":\"%s\",\"short\":\"%s\"", e->blob, profile_short_id(e->blob, shortid));
	api_json_str(b, "name", e->name);
	api_json_str(b, "version", version);
	api_json_str(b, "type", p->type);
	api_json_str(b, "config", config);
	api_json_str(b, "config_key", key);
	api_json_str(b, "cmd", p->cmd);
	api_json_str(b, "args", p->args);
	api_json_str(b, "workload", p->workload);
	api_json_str(b, "collector", p->collector);
	buf_addf(b, ",\"collector_params\":%s", p->collector_params ? p->collector_params : "null");
	buf_adds(b, ",\"postprocessors\":[");
	for (size_t i = 0; i < npp; i++) {
		buf_adds(b, i ? "," : "");
		buf_add_json_str(b, pp[i], strlen(pp[i]));
		free(pp[i]);
	}
	buf_adds(b, "]");
	api_json_str(b, "origin", p->origin);
	api_json_str(b, "when", name_time(e->name, when) ? when : NULL);
	buf_addf(b, ",\"resources\":%zu", profile_nres(p));
	free(pp);
	free(config);
	free(key);
}

/* Appends the refs matching @glob whose commit is @id. */
static void refs_matching(git_repository *repo, const char *glob, const char *kind, const char *id,
			  bool *first, struct buf *b)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	size_t skip = strlen(glob) - 1; /* "refs/heads/" */

	if (git_reference_iterator_glob_new(&it, repo, glob) < 0)
		return;
	while (git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);
		git_object *obj = NULL;
		char spec[1100], hex[41];

		/* Tags may be annotated: their commit is the peeled object. */
		snprintf(spec, sizeof(spec), "%s^{commit}", name);
		if (strlen(name) < sizeof(spec) - 10 &&
		    git_revparse_single(&obj, repo, spec) == 0) {
			git_oid_tostr(hex, sizeof(hex), git_object_id(obj));
			if (strcmp(hex, id) == 0) {
				buf_adds(b, *first ? "{\"name\":" : ",{\"name\":");
				buf_add_json_str(b, name + skip, strlen(name + skip));
				buf_addf(b, ",\"kind\":\"%s\"}", kind);
				*first = false;
			}
			git_object_free(obj);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
}

void proj_refs_json(struct project *pr, const char *id, struct buf *b)
{
	bool first = true;

	buf_addc(b, '[');
	if (vcs_kind(pr->vcs) == VCS_GIT) {
		git_repository *repo = vcs_store_repo(pr->vcs);

		refs_matching(repo, "refs/heads/*", "branch", id, &first, b);
		refs_matching(repo, "refs/tags/*", "tag", id, &first, b);
	}
	buf_addc(b, ']');
	err_clear();
}
