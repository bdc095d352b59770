/* Stacks merged into a tree of frames, laid out as nested rectangles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "view/flamegraph.h"

#define FG_WIDTH 1200.0
#define FG_ROW 17.0
#define FG_PAD 10.0
#define FG_MIN_PX 0.1 /* narrower frames are not drawn */
/* Frames kept from the root: deeper ones are summed into one frame. The
 * tree is walked recursively, and a profile's stack or depth may be
 * anything; no picture shows 34,000 pixels of rows anyway. */
#define FG_MAX_DEPTH 2000
#define FG_DEEPER "[deeper frames]"

struct node {
	char *name;
	double v[2]; /* inclusive value in base, target */
	struct node **kids;
	size_t nkids;
};

static struct node *child(struct node *n, const char *name)
{
	for (size_t i = 0; i < n->nkids; i++)
		if (strcmp(n->kids[i]->name, name) == 0)
			return n->kids[i];
	n->kids = xrealloc(n->kids, (n->nkids + 1) * sizeof(*n->kids));
	n->kids[n->nkids] = xcalloc(1, sizeof(struct node));
	n->kids[n->nkids]->name = xstrdup(name);
	return n->kids[n->nkids++];
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

/*
 * A trace's frames, read by yajl's event parser: the tree parser grows an
 * array one element at a time, which copies a 100,000-frame trace some
 * 10^10 times. A frame's name: "function" of an object frame (the seed's
 * memory traces), else "func" (sampled stacks), a string frame as is, and
 * "?" for anything else or an empty name.
 */
struct frames {
	char **name;
	size_t n, cap;
	int depth;	       /* of the value being read: 1 inside the trace */
	int key;	       /* in a frame object, the value read is of: 0 other, 1
				* "function", 2 "func" */
	char *function, *func; /* of the frame object being read */
};

static void frame_push(struct frames *f, const char *s, size_t len)
{
	f->name = xgrow(f->name, sizeof(*f->name), f->n + 1, &f->cap);
	f->name[f->n++] = len ? xstrndup(s, len) : xstrdup("?");
}

static int fr_string(void *ctx, const unsigned char *s, size_t len)
{
	struct frames *f = ctx;

	if (f->depth == 1)
		frame_push(f, (const char *)s, len);
	else if (f->depth == 2 && f->key && len) {
		char **slot = f->key == 1 ? &f->function : &f->func;

		free(*slot);
		*slot = xstrndup((const char *)s, len);
	}
	return 1;
}

static int fr_scalar(struct frames *f)
{
	if (f->depth == 1)
		frame_push(f, "", 0);
	return 1;
}

static int fr_null(void *ctx)
{
	return fr_scalar(ctx);
}

static int fr_bool(void *ctx, int b)
{
	UNUSED(b);
	return fr_scalar(ctx);
}

static int fr_number(void *ctx, const char *s, size_t len)
{
	UNUSED(s);
	UNUSED(len);
	return fr_scalar(ctx);
}

static int fr_open(void *ctx)
{
	struct frames *f = ctx;

	f->depth++;
	f->key = 0;
	return 1;
}

static int fr_key(void *ctx, const unsigned char *s, size_t len)
{
	struct frames *f = ctx;

	if (f->depth == 2)
		f->key = len == 8 && !memcmp(s, "function", 8) ? 1
			 : len == 4 && !memcmp(s, "func", 4)   ? 2
							       : 0;
	return 1;
}

static int fr_close(void *ctx)
{
	struct frames *f = ctx;
	const char *name;

	if (f->depth == 2) { /* a frame that is an object (or an array: "?") */
		name = f->function ? f->function : f->func ? f->func : "";
		frame_push(f, name, strlen(name));
		free(f->function);
		free(f->func);
		f->function = f->func = NULL;
	}
	f->depth--;
	f->key = 0;
	return 1;
}

static void frames_free(struct frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->name[i]);
	free(f->name);
	free(f->function);
	free(f->func);
}

/* The frames of @trace (a JSON array), in its order; none when it is not one. */
static void read_frames(const char *trace, struct frames *f)
{
	static const yajl_callbacks cb = {
		.yajl_null = fr_null,
		.yajl_boolean = fr_bool,
		.yajl_number = fr_number,
		.yajl_string = fr_string,
		.yajl_start_map = fr_open,
		.yajl_map_key = fr_key,
		.yajl_end_map = fr_close,
		.yajl_start_array = fr_open,
		.yajl_end_array = fr_close,
	};
	yajl_handle h = yajl_alloc(&cb, NULL, f);

	memset(f, 0, sizeof(*f));
	trace += strspn(trace, " \t\r\n");
	/* Only an array holds frames; a depth-1 value is one of them. */
	if (*trace == '[' &&
	    (yajl_parse(h, (const unsigned char *)trace, strlen(trace)) != yajl_status_ok ||
	     yajl_complete_parse(h) != yajl_status_ok)) {
		frames_free(f);
		memset(f, 0, sizeof(*f));
	}
	yajl_free(h);
}

/*
 * Adds @v along the stack @trace from the root. Traces list frames
 * innermost first, except a sampled stack's (`veles record --profile`),
 * which lists the callers outermost first and leaves the sampled function,
 * @leaf, to the resource's uid.
 */
static bool add_stack(struct node *root, const char *trace, const char *leaf, int side, double v)
{
	struct frames t;
	struct node *n = root;
	size_t len;

	read_frames(trace, &t);
	len = t.n;
	if (len == 0 && !leaf) {
		frames_free(&t);
		return false;
	}
	root->v[side] += v;
	for (size_t k = 0; k < len && k < FG_MAX_DEPTH; k++) {
		n = child(n, t.name[leaf ? k : len - 1 - k]);
		n->v[side] += v;
	}
	if (len >= FG_MAX_DEPTH) {
		n = child(n, FG_DEEPER);
		n->v[side] += v;
	} else if (leaf) {
		n = child(n, leaf);
		n->v[side] += v;
	}
	frames_free(&t);
	return true;
}

static size_t add_profile(struct node *root, const struct profile *p, const struct flame_opts *o,
			  int side)
{
	const char *of = o->of;
	const struct column *val = table_col(&p->res, of ? of : "amount");
	size_t n = profile_nres(p), used = 0;
	bool sampled = p->type && strcmp(p->type, "samples") == 0;
	struct buf scratch = BUF_INIT;

	for (size_t i = 0; val && i < n; i++) {
		const struct table *where;
		size_t at;
		const struct column *c = profile_attr(p, i, "trace", &where, &at);
		const char *trace = c && col_has(c, at) ? col_text(p, c, at) : NULL;
		double v = col_num(val, i);

		const char *leaf = sampled ? profile_uid(p, i, &scratch) : NULL;

		/* Counting: a memory profile's releases (amount 0) are not allocations. */
		if (o->count && !isnan(v))
			v = v != 0;
		if (trace && !isnan(v) && add_stack(root, trace, leaf, side, fabs(v)))
			used++;
	}
	buf_release(&scratch);
	return used;
}

/* ---- trace profiles: stacks from each call's thread, order and depth ---- */

struct call_ref {
	int64_t pid, thread, order, depth;
	size_t row;
};

static int cmp_call(const void *a, const void *b)
{
	const struct call_ref *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Adds @v along @frames[0..n) (outermost first) from the root. */
static void add_frames(struct node *root, char **frames, size_t n, int side, double v)
{
	struct node *nd = root;

	root->v[side] += v;
	for (size_t i = 0; i < n && i < FG_MAX_DEPTH; i++)
		if (frames[i]) {
			nd = child(nd, frames[i]);
			nd->v[side] += v;
		}
	if (n > FG_MAX_DEPTH) {
		nd = child(nd, FG_DEEPER);
		nd->v[side] += v;
	}
}

static bool trace_columns(const struct profile *p, const struct column **c)
{
	static const char *const names[] = {"pid", "tid", "order", "depth", "exclusive"};

	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		c[k] = table_col(&p->res, names[k]);
		/* Trace profiles written before the thread was Perun's "tid". */
		if (!c[k] && k == 1)
			c[k] = table_col(&p->res, "thread");
		if (!c[k])
			return false;
	}
	return true;
}

/*
 * A trace profile has no stacks, but each call its thread, its entry
 * number there and how many calls were open around it: in entry order a
 * call's callers are the last calls entered at each smaller depth. Each
 * call's exclusive time is added along its stack, so a frame's width is
 * its inclusive time. A caller the profile does not keep (-f, sampling)
 * leaves its level out.
 */
static size_t add_call_stacks(struct node *root, const struct profile *p, bool count, int side)
{
	const struct column *c[5];
	size_t n = profile_nres(p), used = 0, cap = 64;
	struct call_ref *calls;
	char **stack;
	struct buf scratch = BUF_INIT;

	if (!n || !trace_columns(p, c))
		return 0;
	calls = xmalloc(n * sizeof(*calls));
	for (size_t i = 0; i < n; i++)
		calls[i] = (struct call_ref){col_i64(c[0], i), col_i64(c[1], i), col_i64(c[2], i),
					     col_i64(c[3], i), i};
	qsort(calls, n, sizeof(*calls), cmp_call);
	stack = xcalloc(cap, sizeof(*stack));
	for (size_t i = 0; i < n; i++) {
		/* Beyond FG_MAX_DEPTH a call is one of the deeper frames. */
		size_t d = calls[i].depth < 0		   ? 0
			   : calls[i].depth > FG_MAX_DEPTH ? FG_MAX_DEPTH
							   : (size_t)calls[i].depth;
		double v = count ? 1 : col_num(c[4], calls[i].row);
		bool fresh = i == 0 || calls[i].pid != calls[i - 1].pid ||
			     calls[i].thread != calls[i - 1].thread;

		if (d + 1 >= cap) {
			stack = xrealloc(stack, (d + 64) * sizeof(*stack));
			memset(stack + cap, 0, (d + 64 - cap) * sizeof(*stack));
			cap = d + 64;
		}
		for (size_t k = fresh ? 0 : d; k < cap; k++) {
			free(stack[k]);
			stack[k] = NULL;
		}
		stack[d] = xstrdup(profile_uid(p, calls[i].row, &scratch));
		if (!isnan(v)) {
			add_frames(root, stack, d + 1, side, fabs(v));
			used++;
		}
	}
	for (size_t k = 0; k < cap; k++)
		free(stack[k]);
	free(stack);
	free(calls);
	buf_release(&scratch);
	return used;
}

struct layout {
	int wide;      /* the side whose values give widths */
	bool diff;     /* colours by change */
	double scale;  /* pixels per unit of value */
	double maxrel; /* largest |relative change| of any frame, for colours */
	int depth;     /* rows */
	struct buf *out;
};

/* Warm colours by hash for a single profile; red/blue by change for two. */
static void frame_colour(const struct layout *l, const struct node *n, char rgb[8])
{
	if (!l->diff) {
		unsigned h = 2166136261u;

		for (const char *s = n->name; *s; s++)
			h = (h ^ (unsigned char)*s) * 16777619u;
		snprintf(rgb, 8, "#%02x%02x%02x", 205 + h % 50, 80 + (h >> 8) % 130,
			 (h >> 16) % 55);
		return;
	}
	double rel = n->v[0] > 0 ? n->v[1] / n->v[0] - 1 : (n->v[1] > 0 ? 1 : 0);
	double k = l->maxrel > 0 ? fmin(1, fabs(rel) / l->maxrel) : 0;
	int fade = (int)(255 - 200 * k);

	if (rel > 0)
		snprintf(rgb, 8, "#ff%02x%02x", fade, fade);
	else if (rel < 0)
		snprintf(rgb, 8, "#%02x%02xff", fade, fade);
	else
		snprintf(rgb, 8, "#eeeeee");
}

static void max_rel(const struct node *n, double *m)
{
	if (n->v[0] > 0)
		*m = fmax(*m, fabs(n->v[1] / n->v[0] - 1));
	else if (n->v[1] > 0)
		*m = fmax(*m, 1);
	for (size_t i = 0; i < n->nkids; i++)
		max_rel(n->kids[i], m);
}

static int depth_of(const struct node *n)
{
	int d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		int k = depth_of(n->kids[i]);

		d = k > d ? k : d;
	}
	return d + 1;
}

static void draw(const struct layout *l, const struct node *n, double x, int level)
{
	double w = n->v[l->wide] * l->scale;
	double y = FG_PAD + 30 + (double)(l->depth - 1 - level) * FG_ROW;
	char rgb[8];

	if (w < FG_MIN_PX)
		return;
	frame_colour(l, n, rgb);
	buf_adds(l->out, "<g><title>");
	buf_add_xml(l->out, n->name, 400);
	if (l->diff)
		buf_addf(l->out, ": %.6g -> %.6g (%+.1f%%)", n->v[0], n->v[1],
			 n->v[0] > 0 ? 100 * (n->v[1] / n->v[0] - 1) : 100.0);
	else
		buf_addf(l->out, ": %.6g", n->v[l->wide]);
	buf_addf(l->out,
		 "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
		 "rx=\"2\"/>",
		 x, y, w, FG_ROW - 1, rgb);
	if (w > 30) {
		buf_addf(l->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FG_ROW - 5);
		buf_add_xml(l->out, n->name, (size_t)((w - 6) / 7));
		buf_adds(l->out, "</text>");
	}
	buf_adds(l->out, "</g>\n");
	for (size_t i = 0; i < n->nkids; i++) {
		draw(l, n->kids[i], x, level + 1);
		x += n->kids[i]->v[l->wide] * l->scale;
	}
}

int flamegraph_svg(const struct profile *base, const struct profile *target,
		   const struct flame_opts *o, struct buf *out)
{
	struct node *root = xcalloc(1, sizeof(*root));
	struct layout l = {.wide = base && o->negate ? 0 : 1, .diff = base != NULL, .out = out};
	size_t used = add_profile(root, target, o, 1);
	double height;

	root->name = xstrdup("all");
	if (base)
		used += add_profile(root, base, o, 0);
	if (!used && (!o->of || strcmp(o->of, "amount") == 0)) {
		used = add_call_stacks(root, target, o->count, 1);
		if (base)
			used += add_call_stacks(root, base, o->count, 0);
	}
	if (!used) {
		node_free(root);
		return err_set(ERR_INVALID, "no resource has a call stack (\"trace\") to draw");
	}
	l.depth = depth_of(root);
	l.scale = root->v[l.wide] > 0 ? (FG_WIDTH - 2 * FG_PAD) / root->v[l.wide] : 0;
	if (l.diff)
		max_rel(root, &l.maxrel);
	height = 2 * FG_PAD + 30 + l.depth * FG_ROW + 20;
	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		 "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, DejaVu Sans, sans-serif\" "
		 "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		 "<text x=\"%.0f\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">",
		 FG_WIDTH, height, FG_WIDTH, height, FG_WIDTH / 2);
	buf_add_xml(out,
		    o->title ? o->title
		    : base   ? "differential flame graph"
			     : "flame graph",
		    200);
	buf_adds(out, "</text>\n");
	draw(&l, root, FG_PAD, 0);
	buf_addf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">", FG_PAD, height - 8);
	if (l.diff)
		buf_addf(out, "widths: %s; red grew, blue shrank (deepest colour: %+.0f%% or more)",
			 l.wide ? "target" : "baseline", 100 * l.maxrel);
	else
		buf_addf(out, o->count ? "widths: inclusive count of %s" : "widths: inclusive %s",
			 o->of ? o->of : "amount");
	buf_adds(out, "</text>\n</svg>\n");
	node_free(root);
	return 0;
}
