/* veles log: versions, newest first, with the profiles filed under each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/log.h"
#include "project/version_index.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/optparse.h"
#include "vcs/vcs.h"
#include "view/log_view.h"

struct log_state {
	struct version_index map;
	struct log_view lv;
	bool profiles_only;
	struct buf out;
};

static int show_version(const struct vcs_version *v, void *arg)
{
	struct log_state *st = arg;
	const struct version_slot *s = version_index_find(&st->map, v->id);

	if (st->profiles_only && !s)
		return 0;
	log_view_version(&st->out, &st->lv, v, s);
	/* Flush in blocks: one write per version would dominate on long logs. */
	if (st->out.len > 1 << 16) {
		fwrite(buf_str(&st->out), 1, st->out.len, stdout);
		buf_reset(&st->out);
	}
	return 0;
}

int cmd_log(struct cli_ctx *ctx, int argc, char **argv)
{
	struct log_state st = {0};
	long limit = 0;
	const char *perf = NULL, *output = NULL, *format = NULL;
	bool strict_env = false;
	enum out_format fmt = FORMAT_TEXT;
	const struct opt opts[] = {
		OPT_BOOL('s', "oneline", &st.lv.oneline,
			 "one line per version (-s, --short: Perun's spelling)"),
		{.kind = OPT_KIND_BOOL,
		 .long_name = "short",
		 .value = &st.lv.oneline,
		 .flags = OPT_HIDDEN},
		OPT_LONG('n', "max-count", &limit, "N", 0, "at most N versions"),
		OPT_BOOL(0, "profiles-only", &st.profiles_only,
			 "skip versions that have no profiles"),
		OPT_STRING(0, "format", &format, "FMT",
			   "text (default) or json (with each profile's name,\n"
			   "type and id)"),
		OPT_STRING(0, "perf", &perf, "KEY",
			   "instead, the history of one metric: for each location\n"
			   "(uid [subtype]) matching KEY, its median and quartiles per\n"
			   "version, oldest first, a sparkline, and the versions where\n"
			   "it shifted (change points); versions whose profiles were\n"
			   "measured in different environments (host, CPU, kernel,\n"
			   "governor, VM, compiler) are warned about"),
		OPT_BOOL(0, "strict-env", &strict_env,
			 "--perf: refuse such a history instead (exit 2)"),
		OPT_STRING('o', "output", &output, "FILE",
			   "--perf: the history chart as FILE.svg (a picture) or\n"
			   "FILE.html (interactive: hover for each point's commit)"),
		OPT_END(),
	};
	const struct optparse p = {
		.name = "log",
		.usage = "veles log [--oneline] [-n N] [--format text|json] [REV]\n"
			 "veles log --perf KEY [-n N] [--format text|json | -o FILE] "
			 "[--strict-env]\n"
			 "          [REV]",
		.about = "Lists the versions reachable from REV (default: HEAD), newest first, as\n"
			 "git log does, each with its profiles: their ids (any prefix of four "
			 "digits\n"
			 "or more names a profile wherever N@i does), N@i, types and names.",
		.opts = opts,
	};
	char from[41];
	int nop, ret = cli_parse_options(&p, argc, argv, &nop);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (format && cli_parse_format("log", format, &fmt) < 0)
		return 2;
	if (nop > 1)
		return cli_usage_error("log", "takes at most one revision");
	if (output && !perf)
		return cli_usage_error("log", "--output draws the chart of --perf KEY");
	if (nop && cli_resolve_version(ctx, argv[1], from) < 0)
		return 1;
	ret = nop ? 0 : vcs_head(ctx->vcs, from);
	if (ret == ERR_NOTFOUND) {
		if (fmt == FORMAT_JSON)
			puts("[]");
		return 0;
	}
	if (perf)
		return log_perf(ctx, from, (size_t)limit, perf, fmt, strict_env, output);
	st.lv.json = fmt == FORMAT_JSON;
	st.lv.plain = vcs_kind(ctx->vcs) == VCS_PLAIN;
	ret = version_index_build(ctx->store, st.lv.oneline, &st.map);
	if (ret == 0)
		ret = vcs_walk(ctx->vcs, from, (size_t)limit, show_version, &st);
	log_view_end(&st.out, &st.lv);
	fwrite(buf_str(&st.out), 1, st.out.len, stdout);
	buf_release(&st.out);
	version_index_free(&st.map);
	return ret < 0 ? cli_fail() : 0;
}
