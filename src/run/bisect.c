/* The first slow version between good and bad (bisect.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/bisect_search.h"
#include "run/bisect.h"
#include "util/common.h"
#include "util/error.h"
#include "vcs/vcs.h"

/* The versions after good up to bad on bad's first-parent line, oldest
 * first; ERR_INVALID when good is not on that line. */
static int first_parent_line(struct vcs *vcs, const char *good, const char *bad, char (**out)[41],
			     size_t *n)
{
	char(*v)[41] = NULL;
	char at[41];
	size_t len = 0;
	struct vcs_version ver;
	int ret;

	memcpy(at, bad, 41);
	while (strcmp(at, good) != 0) {
		if ((ret = vcs_version_info(vcs, at, &ver)) < 0) {
			free(v);
			return ret;
		}
		v = xrealloc(v, (len + 1) * sizeof(*v));
		memcpy(v[len++], at, 41);
		if (ver.nparents == 0) {
			free(v);
			return err_set(ERR_INVALID,
				       "%.7s is not an ancestor of %.7s on its first-parent line",
				       good, bad);
		}
		memcpy(at, ver.parents[0], 41);
	}
	for (size_t i = 0; i < len / 2; i++) {
		char t[41];

		memcpy(t, v[i], 41);
		memcpy(v[i], v[len - 1 - i], 41);
		memcpy(v[len - 1 - i], t, 41);
	}
	*out = v;
	*n = len;
	return 0;
}

struct search {
	struct bisect *b;
	struct side *good, *bad, *cand;
};

static int classify(void *arg, size_t i, size_t left, int *verdict)
{
	struct search *s = arg;
	struct side *c = &s->cand[i];
	int ret;

	bisect_progress(s->b, "%zu version%s left, measuring %.7s", left, left > 1 ? "s" : "",
			c->id);
	ret = bisect_classify(s->b, s->good, s->bad, c, verdict);
	if (ret == 0 && s->b->step)
		s->b->step(s->b->arg, c->id, *verdict);
	if (ret == 0 && *verdict < 0)
		bisect_say(s->b, BISECT_RESULT,
			   "cannot tell whether %.7s is slow: after %lu rounds it is neither like "
			   "%.7s nor like %.7s",
			   c->id, s->b->max_runs, s->good->id, s->bad->id);
	/* Its worktree is not needed again: the search moves past it (its
	 * comparison with good, vs_good, stays for the report). */
	side_close(s->b, c);
	return ret;
}

static void outcome(const struct bisect *b, const struct side *good, const struct side *first,
		    struct bisect_outcome *out)
{
	out->found = true;
	memcpy(out->first, first->id, 41);
	out->cls = bisect_judge(b, good, first, &out->rel, &out->ngood, &out->nfirst);
}

/* Binary search over @line (oldest first; its last is bad). */
static int search(struct bisect *b, struct side *good, struct side *bad, char (*line)[41], size_t n,
		  struct bisect_outcome *out)
{
	struct search s = {b, good, bad, NULL};
	size_t first = 0;
	int ret;

	if (n == 0)
		return err_set(ERR_INVALID, "no version after %.7s up to %.7s", good->id, bad->id);
	s.cand = xcalloc(n, sizeof(*s.cand));
	for (size_t i = 0; i < n; i++)
		memcpy(s.cand[i].id, line[i], 41);
	ret = bisect_search(n, classify, &s, &first);
	if (ret == 0 && strcmp(line[first], bad->id) == 0) {
		outcome(b, good, bad, out);
	} else if (ret == 0) {
		/* Measured during the search without interleaving: once more for the report. */
		if (!b->interleave)
			ret = side_measure_block(b, &s.cand[first], b->runs);
		if (ret == 0)
			outcome(b, good, &s.cand[first], out);
	}
	for (size_t i = 0; i < n; i++)
		side_close(b, &s.cand[i]);
	free(s.cand);
	return ret;
}

int bisect_find(struct bisect *b, const char *bad_id, struct bisect_outcome *out)
{
	struct side good = {0}, bad = {0};
	char(*line)[41] = NULL;
	size_t n = 0;
	bool slower = false;
	int ret;

	memset(out, 0, sizeof(*out));
	memcpy(good.id, b->good_id, 41);
	memcpy(bad.id, bad_id, 41);
	ret = first_parent_line(b->vcs, good.id, bad.id, &line, &n);
	if (ret == 0)
		ret = side_open(b, &good);
	if (ret == 0)
		ret = side_open(b, &bad);
	if (ret == 0)
		ret = bisect_bracket(b, &good, &bad, &slower);
	if (ret == 0 && slower)
		ret = search(b, &good, &bad, line, n, out);
	side_close(b, &good);
	side_close(b, &bad);
	free(line);
	env_info_release(&b->good_env);
	memset(&b->good_env, 0, sizeof(b->good_env));
	return ret;
}
