/* veles list: the events this machine can count, searchable. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "perf/perf.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"

static const char list_about[] =
	"Lists the events `veles stat` can count: generic hardware, software and\n"
	"cache events, kernel tracepoints (from tracefs), the PMU's own events\n"
	"(libpfm4 tables) and raw rNNN codes. PATTERN keeps the events whose name\n"
	"or description contains it (case-insensitive). Each event is tried with\n"
	"perf_event_open; those the kernel rejects are marked \"not supported\".";

static void print_text(const struct perf_event_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int w = printf("  %s ", v[i].name);

		printf("%*s[%s%s] %s\n", w < 44 ? 44 - w : 0, "", perf_kind_name(v[i].kind),
		       v[i].supported ? "" : ", not supported", v[i].desc);
	}
}

static void print_json(const struct perf_event_info *v, size_t n)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "[");
	for (size_t i = 0; i < n; i++) {
		buf_adds(&b, i ? ",\n {\"name\":" : "{\"name\":");
		buf_add_json_str(&b, v[i].name, strlen(v[i].name));
		buf_addf(&b, ",\"kind\":\"%s\",\"description\":", perf_kind_name(v[i].kind));
		buf_add_json_str(&b, v[i].desc, strlen(v[i].desc));
		buf_addf(&b, ",\"supported\":%s}", v[i].supported ? "true" : "false");
	}
	buf_adds(&b, "]\n");
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
}

int cmd_list(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *format = NULL;
	struct opt opts[] = {
		OPT_STRING(0, "format", &format, "FMT", "text (default) or json"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {
		"list", "veles list [PATTERN] [--format text|json]", list_about, opts, NULL, 0};
	enum out_format fmt = FORMAT_TEXT;
	struct perf_event_info *v;
	size_t n;
	int nop, ret;

	UNUSED(ctx);
	if ((ret = cli_parse_options(&p, argc, argv, &nop)))
		return ret < 0 ? 0 : ret;
	if (format && cli_parse_format("list", format, &fmt) < 0)
		return 2;
	if (nop > 1)
		return cli_usage_error("list", "unexpected argument '%s'", argv[2]);
	if (perf_event_list(nop ? argv[1] : NULL, &v, &n) < 0)
		return cli_fail();
	if (fmt == FORMAT_JSON)
		print_json(v, n);
	else
		print_text(v, n);
	perf_event_list_free(v, n);
	return 0;
}
