/* veles show: one profile as raw JSON, a table of resources, or a summary. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/select.h"
#include "cli/show.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

static const char show_usage[] =
	"usage: veles show [-m REV] [options] VIEW PROFILE\n"
	"       veles show [-m REV] [options] PROFILE [VIEW]\n"
	"\n"
	"Shows a registered or pending profile. PROFILE is N@i or a bare N (the\n"
	"Nth profile of the version, as `veles status` numbers them), N@p (a\n"
	"pending one), a path, a profile name, or a prefix of a profile's id.\n"
	"\n"
	"Views:\n"
	"  summary   header, units and per-resource statistics of the amounts\n"
	"            (count, mean, standard deviation, median, min, max); default\n"
	"  table     one row per resource: uid, type, subtype and every measured field\n"
	"  raw       the profile as JSON, indented (--compact for one line)\n"
	"  memory    a memory profile: peak heap, totals, temporary allocations,\n"
	"            leaks with their stacks, top sites (-n: how many; default 10)\n"
	"\n"
	"  -m, --minor REV   look PROFILE up in version REV (default: HEAD)\n"
	"  -n, --limit N     table: at most N rows\n"
	"  --compact         raw: no indentation\n"
	"  --format FMT      summary and table: text (default) or json\n";

static bool is_view(const char *s)
{
	return strcmp(s, "raw") == 0 || strcmp(s, "table") == 0 || strcmp(s, "summary") == 0 ||
	       strcmp(s, "memory") == 0;
}

static int parse_show_args(int argc, char **argv, struct show_opts *o)
{
	static const struct option opts[] = {
		{"minor", required_argument, NULL, 'm'}, {"limit", required_argument, NULL, 'n'},
		{"compact", no_argument, NULL, 'c'},	 {"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},	 {NULL, 0, NULL, 0},
	};
	int c, nargs;

	while ((c = getopt_long(argc, argv, "m:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->rev = optarg;
			break;
		case 'n':
			if (cli_parse_uint("show", "--limit", optarg, &o->limit) < 0)
				return -1;
			break;
		case 'c':
			o->compact = true;
			break;
		case 'f':
			if (cli_parse_format("show", optarg, &o->fmt) < 0)
				return -1;
			break;
		case 'h':
			fputs(show_usage, stdout);
			return 1;
		default:
			cli_bad_option("show", argv);
			return -1;
		}
	}
	nargs = argc - optind;
	if (nargs < 1 || nargs > 2) {
		cli_usage_error("show", "name a profile, and optionally a view");
		return -1;
	}
	o->view = "summary";
	o->spec = argv[optind];
	if (nargs == 2) {
		/* Both orders: the issue tracker's `show VIEW PROFILE` and the
		 * seeds' `show PROFILE VIEW`. */
		if (is_view(argv[optind])) {
			o->view = argv[optind];
			o->spec = argv[optind + 1];
		} else {
			o->view = argv[optind + 1];
		}
	} else if (is_view(o->spec)) {
		cli_usage_error("show", "which profile should the %s view show?", o->spec);
		return -1;
	}
	if (!is_view(o->view)) {
		cli_usage_error("show", "unknown view '%s': use raw, table, summary or memory",
				o->view);
		return -1;
	}
	return 0;
}

static void show_raw(const struct profile *p, const struct show_opts *o)
{
	struct buf b = BUF_INIT;

	profile_write_json(p, &b, !o->compact);
	if (!b.len || b.data[b.len - 1] != '\n')
		buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
}

int cmd_show(struct cli_ctx *ctx, int argc, char **argv)
{
	struct show_opts o = {0};
	struct profile_ref ref;
	struct profile *p;
	char version[41];
	const char *in_version = NULL;
	int ret = parse_show_args(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (o.rev && cli_resolve_version(ctx, o.rev, version) < 0)
		return 1;
	if (o.rev || cli_head(ctx, version))
		in_version = version;
	if (ref_resolve(ctx, o.spec, in_version, REF_DEFAULT_INDEX, &ref) < 0)
		return cli_fail();
	ret = ref_load(ctx, &ref, &p);
	if (ret < 0) {
		ref_release(&ref);
		return cli_fail();
	}
	if (strcmp(o.view, "raw") == 0)
		show_raw(p, &o);
	else if (strcmp(o.view, "table") == 0)
		show_table(p, &o);
	else if (strcmp(o.view, "memory") == 0)
		ret = show_memory(p, ref_name(&ref), &o);
	else
		show_summary(p, ref_name(&ref), &o);
	profile_free(p);
	ref_release(&ref);
	return ret < 0 ? 1 : 0;
}
