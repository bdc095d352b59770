/*
 * veles show PROFILE memory (docs/cli/show.md): the report of
 * view/mem_report.h printed as text or JSON, the allocation sites ranked
 * by count, by bytes and by their share of the peak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/show.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/human.h"
#include "view/mem_report.h"

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

enum order { BY_COUNT, BY_BYTES, BY_PEAK, BY_LEAKED };
static enum order sort_key;
static const struct mem_site *sort_sites;

static unsigned long long key_of(const struct mem_site *s)
{
	return sort_key == BY_COUNT   ? s->count
	       : sort_key == BY_BYTES ? s->bytes
	       : sort_key == BY_PEAK  ? s->peak
				      : s->leaked;
}

static int site_cmp(const void *a, const void *b)
{
	unsigned long long x = key_of(&sort_sites[*(const size_t *)a]);
	unsigned long long y = key_of(&sort_sites[*(const size_t *)b]);

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(sort_sites[*(const size_t *)a].uid, sort_sites[*(const size_t *)b].uid);
}

/* The sites with a non-zero @key, largest first; returns how many. */
static size_t top_sites(const struct mem_report *v, enum order key, size_t *idx)
{
	size_t n = 0;

	sort_key = key;
	sort_sites = v->sites;
	for (size_t i = 0; i < v->nsites; i++)
		if (key_of(&v->sites[i]))
			idx[n++] = i;
	qsort(idx, n, sizeof(*idx), site_cmp);
	return n;
}

/* A type's stack, one frame a line, from its trace's JSON text. */
static void print_trace(const struct mem_report *v, size_t type)
{
	const char *t = mem_report_trace(v, type);

	while ((t = strstr(t, "\"function\":\""))) {
		const char *fn = t + 12, *end = strchr(fn, '"');
		const char *src = strstr(t, "\"source\":\""), *line = strstr(t, "\"line\":");

		if (!end || !src || !line)
			break;
		printf("        %.*s", (int)(end - fn), fn);
		src += 10;
		if (strncmp(src, "unreachable\"", 12) != 0)
			printf("  %.*s:%ld", (int)strcspn(src, "\""), src,
			       strtol(line + 7, NULL, 10));
		printf("\n");
		t = end;
	}
}

static void print_top(const struct mem_report *v, enum order key, const char *title, size_t limit,
		      size_t *idx)
{
	size_t n = top_sites(v, key, idx);
	char a[32], b[32];

	if (!n)
		return;
	printf("\n%s:\n", title);
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct mem_site *s = &v->sites[idx[i]];

		if (key == BY_COUNT)
			printf("  %10llu calls  %12s  %s\n", s->count,
			       human(s->bytes, a, sizeof(a)), s->uid);
		else if (key == BY_BYTES)
			printf("  %12s  %10llu calls  %s\n", human(s->bytes, a, sizeof(a)),
			       s->count, s->uid);
		else
			printf("  %12s  %s\n", human(s->peak, a, sizeof(a)), s->uid);
	}
	(void)b;
}

static const struct mem_leak *sort_leaks;

static int leak_cmp(const void *a, const void *b)
{
	const struct mem_leak *x = &sort_leaks[*(const size_t *)a],
			      *y = &sort_leaks[*(const size_t *)b];

	if (x->leaked != y->leaked)
		return x->leaked > y->leaked ? -1 : 1;
	if (x->site != y->site)
		return strcmp(sort_sites[x->site].uid, sort_sites[y->site].uid);
	return x->type < y->type ? -1 : x->type > y->type;
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

/* The leaks' stacks, largest first, into @idx (room for v->nleaks). */
static void top_leaks(const struct mem_report *v, size_t *idx)
{
	for (size_t i = 0; i < v->nleaks; i++)
		idx[i] = i;
	sort_leaks = v->leaks;
	sort_sites = v->sites;
	qsort(idx, v->nleaks, sizeof(*idx), leak_cmp);
}

static void print_leaks(const struct mem_report *v, size_t limit)
{
	size_t *idx = xmalloc((v->nleaks ? v->nleaks : 1) * sizeof(*idx));
	char a[32];

	top_leaks(v, idx);
	if (v->nleaks)
		printf("\nLeaks (never freed), by stack, largest first:\n");
	for (size_t i = 0; i < v->nleaks && i < limit; i++) {
		const struct mem_leak *l = &v->leaks[idx[i]];

		printf("  %12s in %llu block%s  %s\n", human(l->leaked, a, sizeof(a)), l->blocks,
		       l->blocks == 1 ? "" : "s", v->sites[l->site].uid);
		print_trace(v, l->type);
	}
	free(idx);
}

static void text_report(const struct mem_report *v, const struct mem_totals *t, const char *name,
			size_t limit)
{
	size_t *idx = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*idx));
	char a[32], b[32];

	printf("Profile:               %s\n", name);
	printf("Command:               %s\n", v->p->cmd ? v->p->cmd : "");
	printf("Total allocated:       %s in %llu allocations", human(t->bytes, a, sizeof(a)),
	       t->allocs);
	if (t->allocs)
		printf(" (%s on average)", human(t->bytes / t->allocs, b, sizeof(b)));
	printf("\nReleases:              %llu\n", t->frees);
	printf("Temporary allocations: %llu (%.1f%%)\n", t->temporary,
	       t->allocs ? 100.0 * (double)t->temporary / (double)t->allocs : 0.0);
	if (t->peak_row != SIZE_MAX)
		printf("Peak heap:             %s at %s s\n", human(t->peak, a, sizeof(a)),
		       row_time(v, t->peak_row));
	else
		printf("Peak heap:             0 B\n");
	printf("Leaked:                %s in %llu block%s\n", human(t->leaked, a, sizeof(a)),
	       t->leaked_blocks, t->leaked_blocks == 1 ? "" : "s");
	print_leaks(v, limit);
	print_top(v, BY_COUNT, "Top sites by allocations", limit, idx);
	print_top(v, BY_BYTES, "Top sites by bytes allocated", limit, idx);
	print_top(v, BY_PEAK, "Top sites by memory held at the peak", limit, idx);
	free(idx);
}

static void json_sites(struct buf *o, const struct mem_report *v, enum order key, size_t limit,
		       size_t *idx)
{
	size_t n = top_sites(v, key, idx);

	buf_addc(o, '[');
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct mem_site *s = &v->sites[idx[i]];

		json_site_open(o, i, s, s->leaked, s->leaked_blocks);
		buf_addc(o, '}');
	}
	buf_addc(o, ']');
}

/* The leaks by stack: their site's figures, what the stack leaked, and
 * the stack itself. */
static void json_leaks(struct buf *o, const struct mem_report *v, size_t limit)
{
	size_t *idx = xmalloc((v->nleaks ? v->nleaks : 1) * sizeof(*idx));

	top_leaks(v, idx);
	buf_addc(o, '[');
	for (size_t i = 0; i < v->nleaks && i < limit; i++) {
		const struct mem_leak *l = &v->leaks[idx[i]];
		const struct mem_site *s = &v->sites[l->site];
		const char *trace = mem_report_trace(v, l->type);

		json_site_open(o, i, s, l->leaked, l->blocks);
		buf_adds(o, ",\"trace\":");
		if (*trace == '[')
			buf_adds(o, trace);
		else
			buf_adds(o, "null");
		buf_addc(o, '}');
	}
	buf_addc(o, ']');
	free(idx);
}

static void json_report(const struct mem_report *v, const struct mem_totals *t, const char *name,
			size_t limit)
{
	size_t *idx = xmalloc((v->nsites ? v->nsites : 1) * sizeof(*idx));
	struct buf o = BUF_INIT;
	const char *when = t->peak_row != SIZE_MAX ? row_time(v, t->peak_row) : "0";

	buf_adds(&o, "{\"profile\":");
	buf_add_json_str(&o, name, strlen(name));
	buf_addf(&o,
		 ",\"allocations\":%llu,\"releases\":%llu,\"bytes\":%llu,\"temporary\":%llu,"
		 "\"peak\":%llu,\"peak_time\":",
		 t->allocs, t->frees, t->bytes, t->temporary, t->peak);
	buf_add_json_str(&o, when, strlen(when));
	buf_addf(&o, ",\"leaked\":%llu,\"leaked_blocks\":%llu,\"leaks\":", t->leaked,
		 t->leaked_blocks);
	json_leaks(&o, v, limit);
	buf_adds(&o, ",\"by_count\":");
	json_sites(&o, v, BY_COUNT, limit, idx);
	buf_adds(&o, ",\"by_bytes\":");
	json_sites(&o, v, BY_BYTES, limit, idx);
	buf_adds(&o, ",\"by_peak\":");
	json_sites(&o, v, BY_PEAK, limit, idx);
	buf_adds(&o, "}\n");
	fwrite(o.data, 1, o.len, stdout);
	buf_release(&o);
	free(idx);
}

int show_memory(const struct profile *p, const char *name, const struct show_opts *o)
{
	struct mem_report v;
	size_t limit = o->limit ? o->limit : DEFAULT_TOP;

	if (!p->type || strcmp(p->type, "memory") != 0) {
		fprintf(stderr, "veles show: the memory view needs a memory profile, not %s\n",
			p->type ? p->type : "an untyped one");
		return -1;
	}
	mem_report_build(p, &v);
	if (o->fmt == FORMAT_JSON)
		json_report(&v, &v.t, name, limit);
	else
		text_report(&v, &v.t, name, limit);
	mem_report_release(&v);
	return 0;
}
