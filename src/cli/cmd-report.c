/* veles report: a flat profile of a recording, with callers under -g. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "perf/session.h"
#include "util/buf.h"
#include "util/strmap.h"
#include "util/xalloc.h"

static const char report_usage[] =
	"usage: veles report [-i FILE] [-g] [--min PERCENT] [--format text|json] [--folded]\n"
	"\n"
	"Reads a recording of `veles record` and prints where the samples fell:\n"
	"one line per command, object file and function, by share of the sampled\n"
	"period, functions named from the files' symbol tables (libelf), their\n"
	"separate debug files (by build-id or .gnu_debuglink, under\n"
	"$VELES_DEBUGINFO_PATH, default /usr/lib/debug) and /proc/kallsyms.\n"
	"\n"
	"  -i, --input FILE   the recording (default veles.data)\n"
	"  -g, --call-graph   under each function, its most frequent callers\n"
	"                     (needs a recording made with -g)\n"
	"  --min PERCENT      leave out lines below PERCENT (default 0.5)\n"
	"  --format FMT       text (default) or json\n"
	"  --folded           one line per distinct stack, COMM;outer;...;inner COUNT:\n"
	"                     the input of flame graph tools (needs -g recordings\n"
	"                     for more than the sampled function)\n";

enum { CALLER_DEPTH = 4, CALLERS_SHOWN = 5 };

struct entry {
	const char *comm, *dso, *sym; /* owned by the session */
	bool kernel;
	uint64_t period, samples;
	struct strmap callers; /* "a <- b <- c" -> index into caller_period */
	uint64_t *caller_period;
	size_t caller_cap;
};

struct report {
	struct strmap keys;
	struct entry *v;
	size_t n, cap;
	uint64_t total, samples;
};

static void add_caller(struct entry *e, const struct perf_sample *smp)
{
	struct buf b = BUF_INIT;
	bool added;
	size_t i;

	for (i = 0; i < smp->nchain && i < CALLER_DEPTH; i++)
		buf_addf(&b, "%s%s", i ? " <- " : "", perf_loc_sym(&smp->chain[i]));
	if (!b.len)
		buf_adds(&b, "[no callers]");
	i = strmap_intern(&e->callers, b.data, &added);
	e->caller_period = xgrow(e->caller_period, sizeof(uint64_t), i + 1, &e->caller_cap);
	if (added)
		e->caller_period[i] = 0;
	e->caller_period[i] += smp->period;
	buf_release(&b);
}

static void on_sample(const struct perf_sample *smp, void *arg)
{
	struct report *r = arg;
	const char *dso = perf_loc_dso(&smp->at), *sym = perf_loc_sym(&smp->at);
	char *key = xasprintf("%s\x1f%s\x1f%s\x1f%d", smp->comm, dso, sym, smp->at.kernel);
	bool added;
	size_t i = strmap_intern(&r->keys, key, &added);

	free(key);
	if (added) {
		r->v = xgrow(r->v, sizeof(*r->v), i + 1, &r->cap);
		r->v[i] = (struct entry){
			.comm = smp->comm, .dso = dso, .sym = sym, .kernel = smp->at.kernel};
		r->n = i + 1;
	}
	r->v[i].period += smp->period;
	r->v[i].samples++;
	r->total += smp->period;
	r->samples++;
	add_caller(&r->v[i], smp);
}

/* Collapsed stacks: "comm;outermost;...;innermost" -> samples. */
struct folded {
	struct strmap stacks;
	uint64_t *count;
	size_t cap;
};

static void on_sample_folded(const struct perf_sample *smp, void *arg)
{
	struct folded *f = arg;
	struct buf b = BUF_INIT;
	bool added;
	size_t i;

	buf_adds(&b, smp->comm);
	for (i = smp->nchain; i-- > 0;)
		buf_addf(&b, ";%s", perf_loc_sym(&smp->chain[i]));
	buf_addf(&b, ";%s", perf_loc_sym(&smp->at));
	i = strmap_intern(&f->stacks, b.data, &added);
	f->count = xgrow(f->count, sizeof(*f->count), i + 1, &f->cap);
	if (added)
		f->count[i] = 0;
	f->count[i]++;
	buf_release(&b);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int print_folded(struct perf_session *s, uint64_t *lost)
{
	struct folded f = {0};
	char **keys;
	size_t n = 0;
	int ret = perf_session_samples(s, on_sample_folded, &f, lost);

	if (ret < 0) {
		free(f.count);
		strmap_free(&f.stacks);
		return ret;
	}
	keys = xcalloc(f.stacks.n ? f.stacks.n : 1, sizeof(*keys));
	for (size_t j = 0; j < f.stacks.cap; j++)
		if (f.stacks.keys[j])
			keys[n++] = f.stacks.keys[j];
	qsort(keys, n, sizeof(*keys), by_text);
	for (size_t k = 0; k < n; k++)
		printf("%s %llu\n", keys[k],
		       (unsigned long long)f.count[strmap_get(&f.stacks, keys[k])]);
	free(keys);
	free(f.count);
	strmap_free(&f.stacks);
	return 0;
}

static int by_period(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->period > y->period ? -1 : x->period < y->period;
}

struct caller {
	const char *chain;
	uint64_t period;
};

static int by_caller_period(const void *a, const void *b)
{
	const struct caller *x = a, *y = b;

	return x->period > y->period ? -1 : x->period < y->period;
}

/* An entry's callers, most frequent first; *@n of them. */
static struct caller *sorted_callers(const struct entry *e, size_t *n)
{
	struct caller *c = xcalloc(e->callers.n ? e->callers.n : 1, sizeof(*c));

	for (size_t j = 0; j < e->callers.cap; j++)
		if (e->callers.keys[j])
			c[e->callers.vals[j]] = (struct caller){
				e->callers.keys[j], e->caller_period[e->callers.vals[j]]};
	*n = e->callers.n;
	qsort(c, *n, sizeof(*c), by_caller_period);
	return c;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void print_text(const struct report *r, const char *event, double min, bool graph)
{
	printf("# Samples: %llu of event '%s'\n#\n", (unsigned long long)r->samples, event);
	printf("# Overhead  Samples  %-16s %-24s Symbol\n", "Command", "Shared Object");
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->v[i];
		double p = pct(e->period, r->total);

		if (p < min)
			break;
		printf("%9.2f%% %8llu  %-16s %-24s [%c] %s\n", p, (unsigned long long)e->samples,
		       e->comm, e->dso, e->kernel ? 'k' : '.', e->sym);
		if (!graph)
			continue;
		size_t nc;
		struct caller *c = sorted_callers(e, &nc);

		for (size_t k = 0; k < nc && k < CALLERS_SHOWN; k++)
			printf("            %6.2f%%  <- %s\n", pct(c[k].period, e->period),
			       c[k].chain);
		free(c);
	}
}

static void json_callers(struct buf *b, const struct entry *e)
{
	size_t nc;
	struct caller *c = sorted_callers(e, &nc);

	buf_adds(b, ",\"callers\":[");
	for (size_t k = 0; k < nc && k < CALLERS_SHOWN; k++) {
		buf_adds(b, k ? ",{\"chain\":" : "{\"chain\":");
		buf_add_json_str(b, c[k].chain, strlen(c[k].chain));
		buf_addf(b, ",\"percent\":%.2f}", pct(c[k].period, e->period));
	}
	buf_adds(b, "]");
	free(c);
}

static void print_json(const struct report *r, const char *event, double min, bool graph)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"event\":");
	buf_add_json_str(&b, event, strlen(event));
	buf_addf(&b, ",\"samples\":%llu,\"entries\":[", (unsigned long long)r->samples);
	for (size_t i = 0; i < r->n && pct(r->v[i].period, r->total) >= min; i++) {
		const struct entry *e = &r->v[i];

		buf_addf(&b, "%s{\"overhead\":%.2f,\"samples\":%llu,\"period\":%llu,\"command\":",
			 i ? ",\n" : "", pct(e->period, r->total), (unsigned long long)e->samples,
			 (unsigned long long)e->period);
		buf_add_json_str(&b, e->comm, strlen(e->comm));
		buf_adds(&b, ",\"object\":");
		buf_add_json_str(&b, e->dso, strlen(e->dso));
		buf_adds(&b, ",\"symbol\":");
		buf_add_json_str(&b, e->sym, strlen(e->sym));
		buf_addf(&b, ",\"kernel\":%s", e->kernel ? "true" : "false");
		if (graph)
			json_callers(&b, e);
		buf_adds(&b, "}");
	}
	buf_adds(&b, "]}\n");
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
}

static void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		strmap_free(&r->v[i].callers);
		free(r->v[i].caller_period);
	}
	free(r->v);
	strmap_free(&r->keys);
}

static int report_parse(int argc, char **argv, const char **in, bool *graph, double *min,
			enum out_format *fmt, bool *folded)
{
	static const struct option opts[] = {
		{"input", required_argument, NULL, 'i'},
		{"call-graph", no_argument, NULL, 'g'},
		{"min", required_argument, NULL, 'm'},
		{"format", required_argument, NULL, 'f'},
		{"folded", no_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "hi:g", opts, NULL)) != -1) {
		if (c == 'h')
			return fputs(report_usage, stdout), -1;
		if (c == 'i')
			*in = optarg;
		else if (c == 'g')
			*graph = true;
		else if (c == 'F')
			*folded = true;
		else if (c == 'f' && cli_parse_format("report", optarg, fmt) < 0)
			return 2;
		else if (c == 'm' && ((*min = strtod(optarg, &end)) < 0 || *end || end == optarg))
			return cli_usage_error("report", "bad --min '%s'", optarg);
		else if (c != 'f' && c != 'm' && c != 'F')
			return cli_bad_option("report", argv);
	}
	if (optind < argc)
		return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_report(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *in = "veles.data";
	bool graph = false, folded = false;
	double min = 0.5;
	enum out_format fmt = FORMAT_TEXT;
	struct perf_session *s;
	struct report r = {0};
	uint64_t lost;
	int ret = report_parse(argc, argv, &in, &graph, &min, &fmt, &folded);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (perf_session_open(in, &s) < 0)
		return cli_fail();
	if (folded) {
		if (print_folded(s, &lost) < 0) {
			perf_session_free(s);
			return cli_fail();
		}
		if (lost)
			cli_warn("%llu samples were lost while recording",
				 (unsigned long long)lost);
		perf_session_free(s);
		return 0;
	}
	if (perf_session_samples(s, on_sample, &r, &lost) < 0) {
		report_free(&r);
		perf_session_free(s);
		return cli_fail();
	}
	if (r.n > 1) /* r.v is NULL when there is no sample */
		qsort(r.v, r.n, sizeof(*r.v), by_period);
	if (fmt == FORMAT_JSON)
		print_json(&r, perf_session_data(s)->event, min, graph);
	else
		print_text(&r, perf_session_data(s)->event, min, graph);
	if (lost)
		cli_warn("%llu samples were lost while recording", (unsigned long long)lost);
	report_free(&r);
	perf_session_free(s);
	return 0;
}
