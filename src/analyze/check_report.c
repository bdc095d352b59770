/* What a check found, and whether it fails (check_report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/check_report.h"
#include "analyze/profile_config.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"

struct check_pair *check_report_add(struct check_report *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->pairs = xrealloc(r->pairs, r->cap * sizeof(*r->pairs));
	}
	memset(&r->pairs[r->n], 0, sizeof(r->pairs[0]));
	return &r->pairs[r->n++];
}

struct check_pair *check_report_pair(struct check_report *r, const char *base_name,
				     const char *target_name, const struct profile *target)
{
	struct check_pair *pair = check_report_add(r);

	pair->baseline_name = xstrdup(base_name);
	pair->target_name = xstrdup(target_name);
	pair->config = profile_config_title(target);
	pair->config_full = profile_config_title_full(target);
	pair->config_key = profile_config_key(target);
	return pair;
}

void check_report_unmatched(struct check_report *r, const char *name, const char *config,
			    const char *version)
{
	struct check_unmatched *u;

	if (r->without_baseline == r->unmatched_cap) {
		r->unmatched_cap = r->unmatched_cap ? 2 * r->unmatched_cap : 4;
		r->unmatched = xrealloc(r->unmatched, r->unmatched_cap * sizeof(*r->unmatched));
	}
	u = &r->unmatched[r->without_baseline++];
	u->name = xstrdup(name);
	u->config = xstrdup(config);
	snprintf(u->version, sizeof(u->version), "%s", version ? version : "");
}

void check_report_free(struct check_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->pairs[i].baseline_name);
		free(r->pairs[i].target_name);
		free(r->pairs[i].config);
		free(r->pairs[i].config_full);
		free(r->pairs[i].config_key);
		change_list_free(&r->pairs[i].changes);
	}
	free(r->pairs);
	for (size_t i = 0; i < r->without_baseline; i++) {
		free(r->unmatched[i].name);
		free(r->unmatched[i].config);
	}
	free(r->unmatched);
	memset(r, 0, sizeof(*r));
}

static const struct {
	const char *name;
	enum change_class from;
} fail_levels[] = {
	{"maybe", CH_MAYBE_DEGRADATION},
	{"degradation", CH_DEGRADATION},
	{"severe", CH_SEVERE_DEGRADATION},
};

int check_parse_fail_on(const char *arg, enum change_class *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(fail_levels); i++) {
		if (strcmp(arg, fail_levels[i].name) == 0) {
			*out = fail_levels[i].from;
			return 0;
		}
	}
	return err_set(ERR_INVALID, "--fail-on wants maybe, degradation or severe, not '%s'", arg);
}

const char *check_fail_on_name(enum change_class c)
{
	for (size_t i = 0; i < ARRAY_SIZE(fail_levels); i++)
		if (fail_levels[i].from == c)
			return fail_levels[i].name;
	return "degradation";
}

/* The degradation classes run from Total (0) to Maybe: a class fails when
 * it is at least as bad as the mildest failing one. */
bool check_fails(const struct check_report *r, enum change_class c)
{
	return change_is_degradation(c) && c <= r->fail_from;
}

size_t check_report_failing(const struct check_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->pairs[i].changes.n; j++)
			n += check_fails(r, r->pairs[i].changes.v[j].cls);
	return n;
}

void check_report_counts(const struct check_report *r, struct check_counts *n)
{
	memset(n, 0, sizeof(*n));
	for (size_t i = 0; i < r->n; i++) {
		for (size_t j = 0; j < r->pairs[i].changes.n; j++) {
			enum change_class c = r->pairs[i].changes.v[j].cls;

			if (c == CH_MAYBE_DEGRADATION)
				n->maybe++;
			else if (change_is_degradation(c))
				n->degradations++;
			else if (change_is_optimization(c))
				n->optimizations++;
			else
				n->other++;
			n->failing += check_fails(r, c);
		}
	}
}

static const char *plural(size_t n, const char *s)
{
	return n == 1 ? "" : s;
}

void check_summary(struct buf *b, const struct check_report *r)
{
	struct check_counts n;

	check_report_counts(r, &n);
	buf_addf(b,
		 "%zu degradation%s, %zu maybe degradation%s, %zu optimization%s, %zu other "
		 "result%s",
		 n.degradations, plural(n.degradations, "s"), n.maybe, plural(n.maybe, "s"),
		 n.optimizations, plural(n.optimizations, "s"), n.other, plural(n.other, "s"));
	if (r->without_baseline)
		buf_addf(b, "; %zu profile%s had no baseline", r->without_baseline,
			 plural(r->without_baseline, "s"));
	if (n.failing)
		buf_addf(b, "; %zu fail%s the check", n.failing, n.failing == 1 ? "s" : "");
	else
		buf_adds(b, "; none fails the check");
	buf_addf(b, " (--fail-on %s)", check_fail_on_name(r->fail_from));
}

bool check_pair_disjoint(const struct check_pair *p, struct buf *b)
{
	const char *sep[2] = {"", ""};
	struct buf side[2] = {BUF_INIT, BUF_INIT};
	size_t shown[2] = {0, 0}, total[2] = {0, 0};

	for (size_t i = 0; i < p->changes.n; i++) {
		enum change_class c = p->changes.v[i].cls;

		if (c != CH_NOT_IN_BASELINE && c != CH_NOT_IN_TARGET)
			return false;
	}
	for (size_t i = 0; i < p->changes.n; i++) {
		int k = p->changes.v[i].cls == CH_NOT_IN_TARGET ? 0 : 1;

		if (total[k]++ < 3) {
			buf_addf(&side[k], "%s%s", sep[k], p->changes.v[i].location);
			sep[k] = ", ";
			shown[k]++;
		}
	}
	for (int k = 0; k < 2; k++)
		if (total[k] > shown[k])
			buf_addf(&side[k], ", ... (%zu)", total[k]);
	buf_addf(b, "%s and %s share no location: the baseline has %s, the target %s",
		 p->baseline_name, p->target_name, total[0] ? buf_str(&side[0]) : "none",
		 total[1] ? buf_str(&side[1]) : "none");
	buf_release(&side[0]);
	buf_release(&side[1]);
	return true;
}

const char **check_pair_titles(const struct check_report *r)
{
	const char **t = xcalloc(r->n + 1, sizeof(*t));
	size_t *first = xcalloc(r->n + 1, sizeof(*first));
	bool *clash = xcalloc(r->n + 1, sizeof(*clash));
	struct strmap seen = {0};
	size_t *id = xcalloc(r->n + 1, sizeof(*id));

	/* Two configurations whose brief titles read alike (the same
	 * postprocessors with other parameters) are both named in full. */
	for (size_t i = 0; i < r->n; i++) {
		const struct check_pair *p = &r->pairs[i];
		bool added;

		id[i] = strmap_intern(&seen, p->config, &added);
		if (added)
			first[id[i]] = i;
		else if (p->config_key && r->pairs[first[id[i]]].config_key &&
			 strcmp(p->config_key, r->pairs[first[id[i]]].config_key) != 0)
			clash[id[i]] = true;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct check_pair *p = &r->pairs[i];

		t[i] = (r->verbose || clash[id[i]]) && p->config_full ? p->config_full : p->config;
	}
	strmap_free(&seen);
	free(first);
	free(clash);
	free(id);
	return t;
}

size_t check_report_unjudged(const struct check_report *r, const char **note)
{
	size_t n = 0;

	*note = NULL;
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->pairs[i].changes.n; j++)
			if (r->pairs[i].changes.v[j].note)
				*note = r->pairs[i].changes.v[j].note, n++;
	return n;
}
