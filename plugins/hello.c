/*
 * hello: the reference import module (the seed's hello.ph in C). It reads
 * nothing: three counters grow by 100, 200 and 300 per sample, and are
 * shown as rates in every format. Options: "quiet" leaves it out of brief
 * output; anything else makes init fail, which unloads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/vmon-module.h"

static const struct vmon_helpers *H;
static unsigned long long counter[3]; /* what get_data records */
static unsigned long long prev[3], cur[3];
static double rate[3];
static int quiet, primed;

static int hello_init(struct vmon_ctx *c, const struct vmon_helpers *h, const char *options,
		      const char **discriminator)
{
	H = h;
	if (!strcmp(options, "quiet")) {
		quiet = 1;
	} else if (options[0]) {
		h->error(c, "unknown option '%s' (quiet)", options);
		return -1;
	}
	*discriminator = "hw";
	return 0;
}

static void hello_get_data(struct vmon_ctx *c)
{
	char line[64];

	for (int i = 0; i < 3; i++) {
		counter[i] += 100ull * (unsigned)(i + 1);
		snprintf(line, sizeof(line), "hw hello%d %llu", i + 1, counter[i]);
		H->record(c, line);
	}
}

/* "hw helloN VALUE" */
static void hello_analyze(struct vmon_ctx *c, const char *line)
{
	int n;
	unsigned long long v;

	if (sscanf(line, "hw hello%d %llu", &n, &v) != 2 || n < 1 || n > 3)
		return;
	prev[n - 1] = cur[n - 1];
	cur[n - 1] = v;
	if (primed) {
		double secs = H->interval(c);

		rate[n - 1] = (double)H->fix(prev[n - 1], cur[n - 1], 64);
		if (!H->per_interval(c) && secs > 0)
			rate[n - 1] /= secs;
	}
}

static void hello_interval_end(struct vmon_ctx *c)
{
	(void)c;
	primed = 1;
}

static void hello_update_header(struct vmon_ctx *c, struct vmon_text *h)
{
	(void)c;
	H->append(h, "hello: 3 counters\n");
}

static void hello_brief(struct vmon_ctx *c, enum vmon_brief type, struct vmon_text *line)
{
	char num[32];

	(void)c;
	if (quiet)
		return;
	if (type == VMON_BRIEF_TITLE) {
		H->append(line, "<-------Hello------->");
		return;
	}
	for (int i = 0; i < 3; i++) {
		if (type == VMON_BRIEF_HEADER) {
			H->append(line, "  Hello%d", i + 1);
			continue;
		}
		H->cvt(num, rate[i], 6, 0);
		H->append(line, " %6s", num);
	}
}

static void hello_verbose(struct vmon_ctx *c, int print_header, struct vmon_text *out)
{
	if (print_header)
		H->append(out, "\n# HELLO SUMMARY (%s)\n#  Hello1  Hello2  Hello3\n", H->rate(c));
	H->append(out, " %7.0f %7.0f %7.0f\n", rate[0], rate[1], rate[2]);
}

static void hello_plot(struct vmon_ctx *c, enum vmon_plot type, struct vmon_text *line)
{
	char sep = H->separator(c);

	for (int i = 0; i < 3; i++)
		if (type == VMON_PLOT_HEADER)
			H->append(line, "%c[HW]Hello%d", sep, i + 1);
		else
			H->append(line, "%c%.0f", sep, rate[i]);
}

static void hello_export(struct vmon_ctx *c, struct vmon_export *e)
{
	static const char *const names[] = {"hello.hello1", "hello.hello2", "hello.hello3"};

	(void)c;
	for (int i = 0; i < 3; i++)
		H->export_value(e, names[i], "num/sec", rate[i]);
}

static const struct vmon_module hello = {
	.api_version = VMON_API_VERSION,
	.name = "hello",
	.init = hello_init,
	.get_data = hello_get_data,
	.analyze = hello_analyze,
	.interval_end = hello_interval_end,
	.update_header = hello_update_header,
	.print_brief = hello_brief,
	.print_verbose = hello_verbose,
	.print_plot = hello_plot,
	.print_export = hello_export,
};

const struct vmon_module *veles_monitor_module(void)
{
	return &hello;
}
