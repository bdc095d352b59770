/*
 * An import module for t-monitor_modules.sh that uses every callback and
 * every helper of the API and logs each call to a file, so the test can
 * check the order Veles calls them in and what the helpers return.
 *
 * --import calls.so,LOG: logs to LOG. --import calls.so,fail: init fails
 * through error(). --import calls.so,LOG,late: analyze calls error() on
 * its second record (the module is unloaded, the run goes on).
 * --import calls.so,LOG,badrec: get_data also records lines that do not
 * start with the discriminator (Veles drops them, saying so once).
 *
 * Its records: "tc count N" (N grows by 1000 a sample), "tc load ..." (the
 * first line of /proc/loadavg, through getproc) and "tc exec 7" (through
 * getexec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/vmon-module.h"

static const struct vmon_helpers *H;
static FILE *logf;
static int late, badrec;
static unsigned long long counter, prev, cur, nrecords;

static void say(const char *fmt, const char *arg)
{
	if (!logf)
		return;
	fprintf(logf, fmt, arg);
	fputc('\n', logf);
	fflush(logf);
}

static int tc_init(struct vmon_ctx *c, const struct vmon_helpers *h, const char *options,
		   const char **discriminator)
{
	char path[512];
	const char *comma = strchr(options, ',');
	size_t n = comma ? (size_t)(comma - options) : strlen(options);

	H = h;
	*discriminator = "tc";
	if (!strcmp(options, "fail") || n >= sizeof(path)) {
		h->error(c, "init asked to fail");
		return -1;
	}
	memcpy(path, options, n);
	path[n] = '\0';
	late = comma && !strcmp(comma + 1, "late");
	badrec = comma && !strcmp(comma + 1, "badrec");
	logf = fopen(path, "w");
	if (!logf) {
		h->error(c, "cannot write %s", path);
		return -1;
	}
	*h->data(c) = logf;
	fprintf(logf, "init version %u\n", h->version);
	return 0;
}

static void tc_get_data(struct vmon_ctx *c)
{
	char line[64];

	say("get_data", "");
	counter += 1000;
	snprintf(line, sizeof(line), "tc count %llu", counter);
	H->record(c, line);
	if (badrec) {
		H->record(c, "xx stray");
		H->record(c, "tcx stray too");
	}
	if (H->getproc(c, "/proc/loadavg", "tc load", 0, 0) != 1)
		H->error(c, "getproc did not record one line");
	if (H->getexec(c, "echo 7", "tc exec") != 1)
		H->error(c, "getexec did not record one line");
}

static void tc_analyze(struct vmon_ctx *c, const char *line)
{
	say("analyze %s", line);
	if (late && ++nrecords == 2)
		H->error(c, "analyze asked to fail");
	sscanf(line, "tc count %llu", &cur);
}

static void tc_init_interval(struct vmon_ctx *c)
{
	say("init_interval", "");
	/* data() keeps what init stored */
	if (*H->data(c) != logf)
		H->error(c, "data() lost its pointer");
}

static void tc_interval_end(struct vmon_ctx *c)
{
	(void)c;
	say("interval_end", "");
	prev = cur;
}

static void tc_get_header(struct vmon_ctx *c, const char *header)
{
	(void)c;
	say("get_header %s", strstr(header, "tc: calls module\n") ? "found" : "missing");
}

static void tc_update_header(struct vmon_ctx *c, struct vmon_text *h)
{
	(void)c;
	say("update_header", "");
	H->append(h, "tc: calls module\n");
}

/* The counter's rate over the interval (fix() corrects a wrap). */
static double rate(const struct vmon_ctx *c)
{
	double d = (double)H->fix(prev, cur, 64);

	return H->per_interval(c) || H->interval(c) <= 0 ? d : d / H->interval(c);
}

static void tc_brief(struct vmon_ctx *c, enum vmon_brief type, struct vmon_text *line)
{
	char num[32];

	say("print_brief", "");
	if (type == VMON_BRIEF_TITLE) {
		H->append(line, "<-TC-->");
	} else if (type == VMON_BRIEF_HEADER) {
		H->append(line, " TCount");
	} else {
		H->cvt(num, rate(c), 6, 0);
		H->append(line, " %6s", num);
	}
}

static void tc_verbose(struct vmon_ctx *c, int print_header, struct vmon_text *out)
{
	say("print_verbose", "");
	if (print_header)
		H->append(out, "\n# TC SUMMARY (%s)\n#  Count\n", H->rate(c));
	H->append(out, " %7.0f\n", rate(c));
}

static void tc_plot(struct vmon_ctx *c, enum vmon_plot type, struct vmon_text *line)
{
	say("print_plot", "");
	if (type == VMON_PLOT_HEADER)
		H->append(line, "%c[TC]Count", H->separator(c));
	else
		H->append(line, "%c%.0f", H->separator(c), rate(c));
}

static void tc_export(struct vmon_ctx *c, struct vmon_export *e)
{
	say("print_export", "");
	H->export_value(e, "tc.count", "num", rate(c));
	H->export_value(e, "tc.interval_ms", "ms", H->interval(c) * 1000);
	/* A name exports must clean up: a space, a slash, a colon. */
	H->export_value(e, "tc.odd name/x:1", "num", 5);
}

static void tc_finish(struct vmon_ctx *c)
{
	(void)c;
	say("finish", "");
	if (logf)
		fclose(logf);
	logf = NULL;
}

static const struct vmon_module calls = {
	.api_version = VMON_API_VERSION,
	.name = "tc",
	.init = tc_init,
	.get_data = tc_get_data,
	.analyze = tc_analyze,
	.init_interval = tc_init_interval,
	.interval_end = tc_interval_end,
	.get_header = tc_get_header,
	.update_header = tc_update_header,
	.print_brief = tc_brief,
	.print_verbose = tc_verbose,
	.print_plot = tc_plot,
	.print_export = tc_export,
	.finish = tc_finish,
};

const struct vmon_module *veles_monitor_module(void)
{
	return &calls;
}
