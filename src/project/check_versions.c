/* A check's orchestration (check_versions.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "project/check_versions.h"
#include "project/version_profiles.h"
#include "store/store.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

#define MAX_BASES 4

int check_run_pair(const struct check_run *c, struct check_report *r, const struct profile *base,
		   const char *base_name, const struct profile *target, const char *target_name)
{
	struct check_pair *pair;
	int ret = c->env_check ? c->env_check(c->arg, base, base_name, target, target_name) : 0;

	if (ret < 0)
		return ret;
	pair = check_report_pair(r, base_name, target_name, target);
	return check_compare_pair(&c->co, base, base_name, target, target_name, &pair->changes);
}

/* What one version's check works on. */
struct version_check {
	const struct check_run *c;
	const char *id;
	char (*bases)[41];
	struct version_profiles target, b[MAX_BASES];
	size_t nb;
	struct check_report *r;
};

/* Compares target profile @i with its match in each base; *@matched
 * says whether any base had one. */
static int pair_with_bases(struct version_check *v, size_t i, size_t nb, bool *matched)
{
	const struct version_profiles *t = &v->target;
	int ret = 0;

	*matched = false;
	for (size_t k = 0; k < nb && ret == 0; k++) {
		ssize_t j = version_profiles_find(&v->b[k], t->key[i]);
		size_t before = v->r->n;
		struct check_pair *pair;

		if (j < 0)
			continue;
		*matched = true;
		ret = check_run_pair(v->c, v->r, v->b[k].p[j], v->b[k].e[j].name, t->p[i],
				     t->e[i].name);
		if (v->r->n == before)
			break; /* refused before a pair was made */
		pair = &v->r->pairs[v->r->n - 1];
		memcpy(pair->baseline_version, v->bases[k], 41);
		memcpy(pair->target_version, v->id, 41);
		memcpy(pair->baseline_id, v->b[k].e[j].blob, 41);
		memcpy(pair->target_id, t->e[i].blob, 41);
	}
	return ret;
}

/* --collect-missing: measure the first base, then look again. */
static int collect_and_pair(struct version_check *v, struct store *s, size_t i, bool *matched)
{
	const struct version_profiles *t = &v->target;
	int ret = v->c->collect(v->c->arg, t->p[i], t->e[i].name, v->bases[0]);

	if (ret == 1) /* nothing ran */
		return 0;
	if (ret == 0) {
		version_profiles_free(&v->b[0]);
		ret = version_profiles_load(s, v->bases[0], &v->b[0]);
	}
	if (ret == 0)
		ret = pair_with_bases(v, i, 1, matched);
	if (ret == 0 && !*matched && v->c->warn) {
		char *msg = xasprintf("the profile collected on %.7s does not match %s's "
				      "configuration",
				      v->bases[0], t->e[i].name);

		v->c->warn(v->c->arg, msg);
		free(msg);
	}
	return ret;
}

int check_run_version(const struct check_run *c, struct store *s, const char *target,
		      char (*bases)[41], size_t nbases, struct check_report *r)
{
	struct version_check v = {.c = c, .id = target, .bases = bases, .r = r};
	int ret = version_profiles_load(s, target, &v.target);

	v.nb = nbases < MAX_BASES ? nbases : MAX_BASES;
	for (size_t k = 0; k < v.nb && ret == 0; k++)
		ret = version_profiles_load(s, bases[k], &v.b[k]);
	for (size_t i = 0; i < v.target.n && ret == 0; i++) {
		bool matched;

		ret = pair_with_bases(&v, i, v.nb, &matched);
		if (ret == 0 && !matched && c->collect && v.nb > 0)
			ret = collect_and_pair(&v, s, i, &matched);
		if (ret == 0 && !matched) {
			char *title = profile_config_title(v.target.p[i]);

			check_report_unmatched(r, v.target.e[i].name, title, target);
			free(title);
		}
	}
	version_profiles_free(&v.target);
	for (size_t k = 0; k < v.nb; k++)
		version_profiles_free(&v.b[k]);
	return ret;
}

struct walk {
	const struct check_run *c;
	struct store *s;
	struct check_report *r;
};

static int check_one(const struct vcs_version *ver, void *arg)
{
	struct walk *w = arg;
	char bases[MAX_BASES][41];
	size_t n = ver->nparents < MAX_BASES ? ver->nparents : MAX_BASES;

	for (size_t k = 0; k < n; k++)
		memcpy(bases[k], ver->parents[k], 41);
	return check_run_version(w->c, w->s, ver->id, bases, n, w->r);
}

int check_run_all(const struct check_run *c, struct vcs *v, struct store *s, struct check_report *r)
{
	struct walk w = {c, s, r};

	return vcs_walk(v, NULL, 0, check_one, &w);
}
