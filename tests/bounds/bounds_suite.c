/*
 * bounds-suite: runs the bounds analysis on the programs of
 * tests/data/bounds/ and compares each bound with the one derived by hand
 * and written in the program's comment:
 *
 *   @bound FUNC LINE CLASS: EXPR   the loop at LINE (hand-derived)
 *   @total FUNC CLASS: EXPR        the function's total (hand-derived)
 *   @ours FUNC LINE: EXPR          what Veles prints, where it is not
 *   @ours-total FUNC: EXPR         the hand bound (sound, but looser)
 *   @domain NAME >= K              sample NAME only from K up
 *
 * `bounds-suite check FILE` is one test: every bound must be sound (never
 * below the hand bound at any sample point, infinite where it is) and equal
 * to the hand bound, or exactly what @ours says. `bounds-suite report
 * FILE...` prints tab-separated rows for bench/bounds.sh, one per loop and
 * one per function total: file, function, line (0 for a total), ours, our
 * class, hand, hand class, class equal, exact, sound, and the milliseconds
 * the file took (parse and analysis; libclang is loaded before).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/bound_expr.h"
#include "collect/bounds/bound.h"
#include "collect/bounds/clang_lazy.h"
#include "collect/bounds/front.h"
#include "collect/bounds/ir.h"
#include "collect/bounds/sym.h"
#include "util/buf.h"
#include "util/common.h"

#define MAX_NOTES 64

struct note {
	char kind[16]; /* bound, total, ours, ours-total */
	char func[64];
	int line;
	char cls[32];
	char expr[256];
};

struct domain {
	char name[64];
	long min;
};

struct suite_file {
	struct note notes[MAX_NOTES];
	int nnotes;
	struct domain dom[8];
	int ndom;
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '/' || e[-1] == '*'))
		*--e = 0;
	return s;
}

static int read_notes(const char *path, struct suite_file *sf)
{
	FILE *fp = fopen(path, "r");
	char line[512];

	memset(sf, 0, sizeof(*sf));
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char *at = strstr(line, "@"), *colon;
		struct note *n;
		int cls = 0;

		if (!at || sf->nnotes == MAX_NOTES)
			continue;
		if (strncmp(at, "@domain ", 8) == 0 && sf->ndom < 8) {
			struct domain *d = &sf->dom[sf->ndom++];

			if (sscanf(at + 8, "%63s >= %ld", d->name, &d->min) != 2)
				sf->ndom--;
			continue;
		}
		colon = strstr(at, ": ");
		if (!colon)
			continue;
		*colon = 0;
		n = &sf->notes[sf->nnotes];
		memset(n, 0, sizeof(*n));
		snprintf(n->expr, sizeof(n->expr), "%s", trim(colon + 2));
		/* The class, which may hold a blank ("O(log n)"), runs to the colon. */
		if (sscanf(at, "@bound %63s %d %n", n->func, &n->line, &cls) == 2 && cls)
			snprintf(n->kind, sizeof(n->kind), "bound");
		else if (sscanf(at, "@total %63s %n", n->func, &cls) == 1 && cls &&
			 strncmp(at, "@total", 6) == 0)
			snprintf(n->kind, sizeof(n->kind), "total");
		else if (sscanf(at, "@ours-total %63s", n->func) == 1 &&
			 strncmp(at, "@ours-total", 11) == 0)
			snprintf(n->kind, sizeof(n->kind), "ours-total");
		else if (sscanf(at, "@ours %63s %d", n->func, &n->line) == 2)
			snprintf(n->kind, sizeof(n->kind), "ours");
		else
			continue;
		if (cls)
			snprintf(n->cls, sizeof(n->cls), "%s", trim(at + cls));
		sf->nnotes++;
	}
	fclose(fp);
	return 0;
}

static const struct note *find_note(const struct suite_file *sf, const char *kind, const char *func,
				    int line)
{
	for (int i = 0; i < sf->nnotes; i++)
		if (strcmp(sf->notes[i].kind, kind) == 0 && strcmp(sf->notes[i].func, func) == 0 &&
		    sf->notes[i].line == line)
			return &sf->notes[i];
	return NULL;
}

/* ---- comparing two expressions at sample points ---- */

static const long samples[] = {-7, -1, 0, 1, 2, 3, 5, 8, 13, 100};

struct point {
	const char *const *names;
	int n;
	const long *v;
};

static double point_value(const char *name, void *arg)
{
	const struct point *p = arg;

	for (int i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return (double)p->v[i];
	return NAN;
}

static long domain_min(const struct suite_file *sf, const char *name)
{
	for (int i = 0; i < sf->ndom; i++)
		if (strcmp(sf->dom[i].name, name) == 0)
			return sf->dom[i].min;
	return -1000000;
}

/* Compares @ours with @hand at every sample: *exact when equal at all,
 * *sound when never below. */
static void compare(const struct suite_file *sf, const char *ours, const char *hand, bool *exact,
		    bool *sound)
{
	struct bexpr *o, *h;
	const char *names[8];
	const char *const *on, *const *hn;
	int n = 0, non, nhn;
	long v[8];
	size_t total = 1;

	*exact = *sound = false;
	if (bexpr_parse(ours, &o) < 0)
		return;
	if (bexpr_parse(hand, &h) < 0) {
		bexpr_free(o);
		return;
	}
	non = bexpr_names(o, &on);
	nhn = bexpr_names(h, &hn);
	for (int i = 0; i < non + nhn && n < 8; i++) {
		const char *name = i < non ? on[i] : hn[i - non];
		bool dup = false;

		for (int k = 0; k < n; k++)
			dup |= strcmp(names[k], name) == 0;
		if (!dup)
			names[n++] = name;
	}
	for (int i = 0; i < n && total < 100000; i++)
		total *= ARRAY_SIZE(samples);
	*exact = *sound = true;
	for (size_t idx = 0; idx < total; idx++) {
		struct point p = {names, n, v};
		size_t rest = idx;
		bool skip = false;
		double a, b;

		for (int i = 0; i < n; i++) {
			v[i] = samples[rest % ARRAY_SIZE(samples)];
			rest /= ARRAY_SIZE(samples);
			skip |= v[i] < domain_min(sf, names[i]);
		}
		if (skip)
			continue;
		a = bexpr_eval(o, point_value, &p);
		b = bexpr_eval(h, point_value, &p);
		if (!(fabs(a - b) < 1e-6 || (isinf(a) && isinf(b))))
			*exact = false;
		if (a < b - 1e-6)
			*sound = false;
	}
	bexpr_free(o);
	bexpr_free(h);
}

/* ---- one file ---- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct verdict {
	bool cls, exact, sound, as_recorded;
};

/* Ours against the hand note @hand, and the recorded @ours note if any. */
static struct verdict judge(const struct suite_file *sf, const struct func_bounds *fb,
			    const struct poly *bound, const struct note *hand,
			    const struct note *recorded, struct buf *text)
{
	struct verdict v = {false, false, false, false};
	struct bclass hc;
	struct buf cls = BUF_INIT;

	buf_reset(text);
	sym_print(fb->sx, bound, text);
	sym_class_print(sym_class_of(fb->sx, bound), &cls);
	v.cls = bclass_parse(hand->cls, &hc) && strcmp(buf_str(&cls), hand->cls) == 0;
	compare(sf, buf_str(text), hand->expr, &v.exact, &v.sound);
	v.as_recorded = recorded ? strcmp(buf_str(text), recorded->expr) == 0 : v.exact && v.cls;
	buf_release(&cls);
	return v;
}

static void report_row(const char *path, const struct func_bounds *fb, int line,
		       const struct poly *bound, const struct note *hand, const struct verdict *v,
		       const struct buf *text, double seconds)
{
	struct buf cls = BUF_INIT;

	sym_class_print(sym_class_of(fb->sx, bound), &cls);
	printf("%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.3f\n", path, fb->name, line,
	       buf_str(text), buf_str(&cls), hand->expr, hand->cls, v->cls, v->exact, v->sound,
	       seconds * 1e3);
	buf_release(&cls);
}

static int run_file(const char *path, bool report)
{
	struct suite_file sf;
	struct ir_func **fs;
	int nf, failures = 0;
	double t0, t1;
	struct buf text = BUF_INIT;

	if (read_notes(path, &sf) < 0) {
		fprintf(stderr, "%s: cannot read\n", path);
		return 1;
	}
	t0 = now();
	if (front_parse(path, NULL, 0, &fs, &nf) < 0) {
		fprintf(stderr, "%s: %s\n", path, err_msg());
		return 1;
	}
	for (int i = 0; i < nf; i++) {
		struct func_bounds fb;
		const struct note *hand = find_note(&sf, "total", fs[i]->name, 0);
		struct verdict v;

		bound_function(fs[i], &fb);
		t1 = now();
		for (int l = 0; l < fb.nloops; l++) {
			const struct note *h =
				find_note(&sf, "bound", fb.name, fb.loops[l].src.line);

			if (!h) {
				fprintf(stderr, "%s: %s: no @bound for the loop at line %d\n", path,
					fb.name, fb.loops[l].src.line);
				failures++;
				continue;
			}
			v = judge(&sf, &fb, fb.loops[l].bound, h,
				  find_note(&sf, "ours", fb.name, fb.loops[l].src.line), &text);
			if (report)
				report_row(path, &fb, fb.loops[l].src.line, fb.loops[l].bound, h,
					   &v, &text, t1 - t0);
			if (!v.sound || !v.as_recorded) {
				fprintf(stderr, "%s: %s line %d: ours %s, hand %s %s%s\n", path,
					fb.name, fb.loops[l].src.line, buf_str(&text), h->cls,
					h->expr, v.sound ? "" : " (UNSOUND)");
				failures++;
			}
		}
		if (hand) {
			v = judge(&sf, &fb, fb.total, hand,
				  find_note(&sf, "ours-total", fb.name, 0), &text);
			if (!v.sound || !v.as_recorded) {
				fprintf(stderr, "%s: %s total: ours %s, hand %s %s%s\n", path,
					fb.name, buf_str(&text), hand->cls, hand->expr,
					v.sound ? "" : " (UNSOUND)");
				failures++;
			}
			if (report)
				report_row(path, &fb, 0, fb.total, hand, &v, &text, t1 - t0);
		}
		func_bounds_release(&fb);
	}
	front_funcs_free(fs, nf);
	buf_release(&text);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct clang_api *cx;
	int ret = 0;

	if (argc < 3 || (strcmp(argv[1], "check") && strcmp(argv[1], "report"))) {
		fprintf(stderr, "usage: bounds-suite check|report FILE.c...\n");
		return 2;
	}
	/* Loaded once up front: the files' times are their parse and analysis. */
	if (clang_lazy_load(&cx) < 0) {
		fprintf(stderr, "bounds-suite: %s\n", err_msg());
		return 77;
	}
	for (int i = 2; i < argc; i++)
		ret |= run_file(argv[i], strcmp(argv[1], "report") == 0);
	return ret;
}
