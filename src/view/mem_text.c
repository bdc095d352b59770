/*
 * The memory view (veles show PROFILE memory, docs/cli/show.md): the
 * report of mem_report.h as text or JSON, the allocation sites ranked by
 * count, by bytes and by their share of the peak, the leaks by stack.
 */
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/human.h"
#include "view/mem_report.h"
#include "view/views.h"

#define DEFAULT_TOP 10

static const char *human(unsigned long long bytes, char *out, size_t len)
{
	return human_num(out, len, (double)bytes, (double)bytes, HUMAN_BYTES, 2);
}

static const char *row_time(const struct mem_report *v, size_t row)
{
	size_t at;
	const struct column *c = profile_attr(v->p, row, "time", NULL, &at);
	const char *text = c ? col_text(v->p, c, at) : NULL;

	return text ? text : "?";
}

enum order { BY_COUNT, BY_BYTES, BY_PEAK };

/* A site or a leak in a ranking: everything the order needs, so the
 * comparison reads no context. */
struct rank {
	unsigned long long key;
	const char *uid;
	size_t type; /* leaks: the stack's resource type, the last tie-break */
	size_t idx;
};

static int rank_cmp(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	int c;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if ((c = strcmp(x->uid, y->uid)))
		return c;
	return x->type < y->type ? -1 : x->type > y->type;
}

static unsigned long long key_of(const struct mem_site *s, enum order key)
{
	return key == BY_COUNT ? s->count : key == BY_BYTES ? s->bytes : s->peak;
}

/* The sites with a non-zero @key, largest first, into @r; returns how many. */
static size_t top_sites(const struct mem_report *v, enum order key, struct rank *r)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nsites; i++)
		if (key_of(&v->sites[i], key))
			r[n++] = (struct rank){key_of(&v->sites[i], key), v->sites[i].uid, 0, i};
	qsort(r, n, sizeof(*r), rank_cmp);
	return n;
}

/* The leaks' stacks, largest first, into @r (room for v->nleaks). */
static void top_leaks(const struct mem_report *v, struct rank *r)
{
	for (size_t i = 0; i < v->nleaks; i++)
		r[i] = (struct rank){v->leaks[i].leaked, v->sites[v->leaks[i].site].uid,
				     v->leaks[i].type, i};
	qsort(r, v->nleaks, sizeof(*r), rank_cmp);
}

/* A type's stack, one frame a line, from its trace's JSON text. */
static void text_trace(const struct mem_report *v, size_t type, struct buf *o)
{
	const char *t = mem_report_trace(v, type);

	while ((t = strstr(t, "\"function\":\""))) {
		const char *fn = t + 12, *end = strchr(fn, '"');
		const char *src = strstr(t, "\"source\":\""), *line = strstr(t, "\"line\":");

		if (!end || !src || !line)
			break;
		buf_addf(o, "        %.*s", (int)(end - fn), fn);
		src += 10;
		if (strncmp(src, "unreachable\"", 12) != 0)
			buf_addf(o, "  %.*s:%ld", (int)strcspn(src, "\""), src,
				 strtol(line + 7, NULL, 10));
		buf_addc(o, '\n');
		t = end;
	}
}

static void text_top(const struct mem_report *v, enum order key, const char *title, size_t limit,
		     struct rank *r, struct buf *o)
{
	size_t n = top_sites(v, key, r);
	char a[32];

	if (!n)
		return;
	buf_addf(o, "\n%s:\n", title);
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct mem_site *s = &v->sites[r[i].idx];

		if (key == BY_COUNT)
			buf_addf(o, "  %10llu calls  %12s  %s\n", s->count,
				 human(s->bytes, a, sizeof(a)), s->uid);
		else if (key == BY_BYTES)
			buf_addf(o, "  %12s  %10llu calls  %s\n", human(s->bytes, a, sizeof(a)),
				 s->count, s->uid);
		else
			buf_addf(o, "  %12s  %s\n", human(s->peak, a, sizeof(a)), s->uid);
	}
}

static void text_leaks(const struct mem_report *v, size_t limit, struct buf *o)
{
	struct rank *r = xmalloc((v->nleaks ? v->nleaks : 1) * sizeof(*r));
	char a[32];

	top_leaks(v, r);
	if (v->nleaks)
		buf_adds(o, "\nLeaks (never freed), by stack, largest first:\n");
	for (size_t i = 0; i < v->nleaks && i < limit; i++) {
		const struct mem_leak *l = &v->leaks[r[i].idx];

		buf_addf(o, "  %12s in %llu block%s  %s\n", human(l->leaked, a, sizeof(a)),
			 l->blocks, l->blocks == 1 ? "" : "s", v->sites[l->site].uid);
		text_trace(v, l->type, o);
	}
	free(r);
}

static void text_report(const struct mem_report *v, const char *name, size_t limit, struct buf *o)
{
	const struct mem_totals *t = &v->t;
	struct rank *r = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*r));
	char a[32], b[32];

	buf_addf(o, "Profile:               %s\n", name);
	buf_addf(o, "Command:               %s\n", v->p->cmd ? v->p->cmd : "");
	buf_addf(o, "Total allocated:       %s in %llu allocations", human(t->bytes, a, sizeof(a)),
		 t->allocs);
	if (t->allocs)
		buf_addf(o, " (%s on average)", human(t->bytes / t->allocs, b, sizeof(b)));
	buf_addf(o, "\nReleases:              %llu\n", t->frees);
	buf_addf(o, "Temporary allocations: %llu (%.1f%%)\n", t->temporary,
		 t->allocs ? 100.0 * (double)t->temporary / (double)t->allocs : 0.0);
	if (t->peak_row != SIZE_MAX)
		buf_addf(o, "Peak heap:             %s at %s s\n", human(t->peak, a, sizeof(a)),
			 row_time(v, t->peak_row));
	else
		buf_adds(o, "Peak heap:             0 B\n");
	buf_addf(o, "Leaked:                %s in %llu block%s\n", human(t->leaked, a, sizeof(a)),
		 t->leaked_blocks, t->leaked_blocks == 1 ? "" : "s");
	text_leaks(v, limit, o);
	text_top(v, BY_COUNT, "Top sites by allocations", limit, r, o);
	text_top(v, BY_BYTES, "Top sites by bytes allocated", limit, r, o);
	text_top(v, BY_PEAK, "Top sites by memory held at the peak", limit, r, o);
	free(r);
}

/* A site's object, the @i-th of its array, up to its leaks (@leaked bytes
 * in @blocks) and left open for what its caller adds. */
static void json_site_open(struct buf *o, size_t i, const struct mem_site *s,
			   unsigned long long leaked, unsigned long long blocks)
{
	buf_adds(o, i ? ",{\"uid\":" : "{\"uid\":");
	buf_add_json_str(o, s->uid, strlen(s->uid));
	buf_addf(o,
		 ",\"allocations\":%llu,\"bytes\":%llu,\"temporary\":%llu,"
		 "\"peak\":%llu,\"leaked\":%llu,\"leaked_blocks\":%llu",
		 s->count, s->bytes, s->temporary, s->peak, leaked, blocks);
}

static void json_sites(struct buf *o, const struct mem_report *v, enum order key, size_t limit,
		       struct rank *r)
{
	size_t n = top_sites(v, key, r);

	buf_addc(o, '[');
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct mem_site *s = &v->sites[r[i].idx];

		json_site_open(o, i, s, s->leaked, s->leaked_blocks);
		buf_addc(o, '}');
	}
	buf_addc(o, ']');
}

/* The leaks by stack: their site's figures, what the stack leaked, and
 * the stack itself. */
static void json_leaks(struct buf *o, const struct mem_report *v, size_t limit)
{
	struct rank *r = xmalloc((v->nleaks ? v->nleaks : 1) * sizeof(*r));

	top_leaks(v, r);
	buf_addc(o, '[');
	for (size_t i = 0; i < v->nleaks && i < limit; i++) {
		const struct mem_leak *l = &v->leaks[r[i].idx];
		const char *trace = mem_report_trace(v, l->type);

		json_site_open(o, i, &v->sites[l->site], l->leaked, l->blocks);
		buf_adds(o, ",\"trace\":");
		buf_adds(o, *trace == '[' ? trace : "null");
		buf_addc(o, '}');
	}
	buf_addc(o, ']');
	free(r);
}

static void json_report(const struct mem_report *v, const char *name, size_t limit, struct buf *o)
{
	const struct mem_totals *t = &v->t;
	struct rank *r = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*r));
	const char *when = t->peak_row != SIZE_MAX ? row_time(v, t->peak_row) : "0";

	buf_adds(o, "{\"profile\":");
	buf_add_json_str(o, name, strlen(name));
	buf_addf(o,
		 ",\"allocations\":%llu,\"releases\":%llu,\"bytes\":%llu,\"temporary\":%llu,"
		 "\"peak\":%llu,\"peak_time\":",
		 t->allocs, t->frees, t->bytes, t->temporary, t->peak);
	buf_add_json_str(o, when, strlen(when));
	buf_addf(o, ",\"leaked\":%llu,\"leaked_blocks\":%llu,\"leaks\":", t->leaked,
		 t->leaked_blocks);
	json_leaks(o, v, limit);
	buf_adds(o, ",\"by_count\":");
	json_sites(o, v, BY_COUNT, limit, r);
	buf_adds(o, ",\"by_bytes\":");
	json_sites(o, v, BY_BYTES, limit, r);
	buf_adds(o, ",\"by_peak\":");
	json_sites(o, v, BY_PEAK, limit, r);
	buf_adds(o, "}\n");
	free(r);
}

int view_memory(const struct profile *p, const char *name, size_t limit, bool json, struct buf *out)
{
	struct mem_report v;

	if (!p->type || strcmp(p->type, "memory") != 0)
		return err_set(ERR_INVALID, "the memory view needs a memory profile, not %s",
			       p->type ? p->type : "an untyped one");
	mem_report_build(p, &v);
	if (json)
		json_report(&v, name, limit ? limit : DEFAULT_TOP, out);
	else
		text_report(&v, name, limit ? limit : DEFAULT_TOP, out);
	mem_report_release(&v);
	return 0;
}
