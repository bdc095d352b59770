/*
 * The verdicts of `check` on a version's page: what `veles check REV`
 * compares (each profile of the version with the profile of the same
 * configuration in each parent), by the library's comparison
 * (check_compare_pair) and the project's degradation.strategies, as JSON.
 * The pairing and printing of the CLI live in src/cli/cmd-check.c; this is
 * the server's own, built from the same library calls.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/profile_config.h"
#include "analyze/strategy.h"
#include "profile/profile.h"
#include "project/project.h"
#include "project/settings.h"
#include "project/version_profiles.h"
#include "serve/api.h"
#include "serve/proj_profile.h"
#include "util/buf.h"
#include "util/error.h"
#include "vcs/vcs.h"

static void change_json(const struct change *c, struct buf *b)
{
	buf_adds(b, "{\"location\":");
	buf_add_json_str(b, c->location, strlen(c->location));
	api_json_str(b, "method", c->method);
	buf_addf(b, ",\"class\":\"%s\",\"degradation\":%s,\"optimization\":%s",
		 change_class_name(c->cls), change_is_degradation(c->cls) ? "true" : "false",
		 change_is_optimization(c->cls) ? "true" : "false");
	buf_adds(b, ",\"rel_change\":");
	json_num(b, c->rel_change);
	buf_adds(b, ",\"ci_low\":");
	json_num(b, c->ci_low);
	buf_adds(b, ",\"ci_high\":");
	json_num(b, c->ci_high);
	buf_adds(b, ",\"confidence\":");
	json_num(b, c->confidence);
	api_json_str(b, "confidence_kind", c->confidence_kind);
	buf_adds(b, ",\"baseline\":");
	json_num(b, c->baseline);
	buf_adds(b, ",\"target\":");
	json_num(b, c->target);
	buf_addf(b, ",\"n_baseline\":%zu,\"n_target\":%zu", c->n_baseline, c->n_target);
	api_json_str(b, "note", c->note);
	api_json_str(b, "detail", c->detail);
	buf_addc(b, '}');
}

/* One compared pair: target profile @i of @t with profile @j of parent @pv. */
static int pair_json(const struct check_opts *co, const struct version_profiles *t, size_t i,
		     const struct version_profiles *pv, size_t j, const char *parent, bool first,
		     struct buf *b)
{
	struct change_list cl = {0};
	char *config = profile_config_title(t->p[i]);
	int ret = check_compare_pair(co, pv->p[j], pv->e[j].name, t->p[i], t->e[i].name, &cl);

	buf_adds(b, first ? "{\"profile\":" : ",{\"profile\":");
	buf_addf(b, "\"%s\",\"baseline\":\"%s\",\"baseline_version\":\"%s\"", t->e[i].blob,
		 pv->e[j].blob, parent);
	api_json_str(b, "name", t->e[i].name);
	api_json_str(b, "baseline_name", pv->e[j].name);
	api_json_str(b, "config", config);
	/* A pair that cannot be compared (a metric one side lacks) says so
	 * and the others are still shown, as the page is read, not scripted. */
	api_json_str(b, "error", ret < 0 ? err_msg() : NULL);
	buf_adds(b, ",\"changes\":[");
	for (size_t k = 0; ret == 0 && k < cl.n; k++) {
		buf_adds(b, k ? "," : "");
		change_json(&cl.v[k], b);
	}
	buf_adds(b, "]}");
	err_clear();
	change_list_free(&cl);
	free(config);
	return 0;
}

static int compare_all(const struct check_opts *co, const struct vcs_version *ver,
		       const struct version_profiles *t, const struct version_profiles *parents,
		       size_t np, struct buf *b)
{
	struct buf unmatched = BUF_INIT;
	bool first = true;

	buf_adds(b, "{\"pairs\":[");
	for (size_t i = 0; i < t->n; i++) {
		bool matched = false;

		for (size_t k = 0; k < np; k++) {
			ssize_t j = version_profiles_find(&parents[k], t->key[i]);

			if (j < 0)
				continue;
			matched = true;
			pair_json(co, t, i, &parents[k], (size_t)j, ver->parents[k], first, b);
			first = false;
		}
		if (!matched)
			buf_addf(&unmatched, "%s\"%s\"", unmatched.len ? "," : "", t->e[i].blob);
	}
	buf_addf(b, "],\"unmatched\":[%s]}", buf_str(&unmatched));
	buf_release(&unmatched);
	return 0;
}

int proj_check_json(struct project *pr, const struct vcs_version *ver,
		    const struct version_profiles *target, struct buf *b)
{
	struct version_profiles parents[4];
	struct check_strategies st = {0};
	struct check_opts co = {.strategies = &st};
	size_t np = ver->nparents < 4 ? ver->nparents : 4, loaded = 0;
	int ret;

	memset(parents, 0, sizeof(parents));
	check_params_default(&co.cp);
	ret = check_strategies_load(pr, &st);
	for (; ret == 0 && loaded < np; loaded++)
		ret = version_profiles_load(pr->store, ver->parents[loaded], &parents[loaded]);
	if (ret == 0)
		ret = compare_all(&co, ver, target, parents, np, b);
	for (size_t k = 0; k < loaded; k++)
		version_profiles_free(&parents[k]);
	check_strategies_free(&st);
	return ret;
}
