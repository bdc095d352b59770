/* veles report: a flat profile of a recording, with callers under -g. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "perf/report.h"
#include "perf/session.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/optparse.h"

static const char report_about[] =
	"Reads a recording of `veles record` and prints where the samples fell:\n"
	"one line per command, object file and function, by share of the sampled\n"
	"period, functions named from the files' symbol tables (libelf), their\n"
	"separate debug files (by build-id or .gnu_debuglink, under\n"
	"$VELES_DEBUGINFO_PATH, default /usr/lib/debug) and /proc/kallsyms.";

enum { CALLERS_SHOWN = 5 };

static void on_sample(const struct perf_sample *smp, void *arg)
{
	perf_report_add(arg, smp);
}

static void on_sample_folded(const struct perf_sample *smp, void *arg)
{
	perf_folded_add(arg, smp);
}

static int print_folded(struct perf_session *s, uint64_t *lost)
{
	struct perf_folded f = {0};
	const char **keys;
	size_t n;
	int ret = perf_session_samples(s, on_sample_folded, &f, lost);

	if (ret < 0) {
		perf_folded_free(&f);
		return ret;
	}
	keys = perf_folded_sorted(&f, &n);
	for (size_t k = 0; k < n; k++)
		printf("%s %llu\n", keys[k], (unsigned long long)perf_folded_count(&f, keys[k]));
	free(keys);
	perf_folded_free(&f);
	return 0;
}

#define pct perf_report_pct

static void print_text(const struct perf_report *r, const char *event, double min, bool graph)
{
	printf("# Samples: %llu of event '%s'\n#\n", (unsigned long long)r->samples, event);
	printf("# Overhead  Samples  %-16s %-24s Symbol\n", "Command", "Shared Object");
	for (size_t i = 0; i < r->n; i++) {
		const struct perf_report_entry *e = &r->v[i];
		double p = pct(e->period, r->total);

		if (p < min)
			break;
		printf("%9.2f%% %8llu  %-16s %-24s [%c] %s\n", p, (unsigned long long)e->samples,
		       e->comm, e->dso, e->kernel ? 'k' : '.', e->sym);
		if (!graph)
			continue;
		size_t nc;
		struct perf_report_caller *c = perf_report_callers(e, &nc);

		for (size_t k = 0; k < nc && k < CALLERS_SHOWN; k++)
			printf("            %6.2f%%  <- %s\n", pct(c[k].period, e->period),
			       c[k].chain);
		free(c);
	}
}

static void json_callers(struct buf *b, const struct perf_report_entry *e)
{
	size_t nc;
	struct perf_report_caller *c = perf_report_callers(e, &nc);

	buf_adds(b, ",\"callers\":[");
	for (size_t k = 0; k < nc && k < CALLERS_SHOWN; k++) {
		buf_adds(b, k ? ",{\"chain\":" : "{\"chain\":");
		buf_add_json_str(b, c[k].chain, strlen(c[k].chain));
		buf_addf(b, ",\"percent\":%.2f}", pct(c[k].period, e->period));
	}
	buf_adds(b, "]");
	free(c);
}

static void print_json(const struct perf_report *r, const char *event, double min, bool graph)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"event\":");
	buf_add_json_str(&b, event, strlen(event));
	buf_addf(&b, ",\"samples\":%llu,\"entries\":[", (unsigned long long)r->samples);
	for (size_t i = 0; i < r->n && pct(r->v[i].period, r->total) >= min; i++) {
		const struct perf_report_entry *e = &r->v[i];

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

struct report_opts {
	const char *in, *format;
	bool graph, folded;
	double min;
	enum out_format fmt;
};

static int opt_min(void *ctx, const struct opt *opt, const char *arg)
{
	struct report_opts *o = ctx;
	char *end;

	UNUSED(opt);
	if ((o->min = strtod(arg, &end)) < 0 || *end || end == arg)
		return err_set(ERR_INVALID, "report: bad --min '%s'", arg);
	return 0;
}

static int report_parse(int argc, char **argv, struct report_opts *o)
{
	struct opt opts[] = {
		OPT_STRING('i', "input", &o->in, "FILE", "the recording (default veles.data)"),
		OPT_BOOL('g', "call-graph", &o->graph,
			 "under each function, its most frequent callers\n"
			 "(needs a recording made with -g)"),
		OPT_CALLBACK(0, "min", "PERCENT", opt_min,
			     "leave out lines below PERCENT (default 0.5)"),
		OPT_STRING(0, "format", &o->format, "FMT", "text (default) or json"),
		OPT_BOOL(0, "folded", &o->folded,
			 "one line per distinct stack, COMM;outer;...;inner COUNT:\n"
			 "the input of flame graph tools (needs -g recordings\n"
			 "for more than the sampled function)"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {
		"report",
		"veles report [-i FILE] [-g] [--min PERCENT] [--format text|json] [--folded]",
		report_about,
		opts,
		o,
		0};
	int n, ret = cli_parse_options(&p, argc, argv, &n);

	if (ret)
		return ret;
	if (o->format && cli_parse_format("report", o->format, &o->fmt) < 0)
		return 2;
	if (n)
		return cli_usage_error("report", "unexpected argument '%s'", argv[1]);
	return 0;
}

int cmd_report(struct cli_ctx *ctx, int argc, char **argv)
{
	struct report_opts o = {.in = "veles.data", .min = 0.5};
	struct perf_session *s;
	struct perf_report r = {0};
	uint64_t lost;
	int ret = report_parse(argc, argv, &o);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (perf_session_open(o.in, &s) < 0)
		return cli_fail();
	if (o.folded) {
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
		perf_report_free(&r);
		perf_session_free(s);
		return cli_fail();
	}
	perf_report_sort(&r);
	if (o.fmt == FORMAT_JSON)
		print_json(&r, perf_session_data(s)->event, o.min, o.graph);
	else
		print_text(&r, perf_session_data(s)->event, o.min, o.graph);
	if (lost)
		cli_warn("%llu samples were lost while recording", (unsigned long long)lost);
	perf_report_free(&r);
	perf_session_free(s);
	return 0;
}
