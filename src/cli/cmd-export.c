/* veles export: a profile as Perun's JSON, whatever form it is kept in. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/select.h"
#include "profile/profile.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/optparse.h"

static const char export_about[] =
	"Writes PROFILE as JSON in Perun's format, whether it is kept in the\n"
	"compact form (the store, .veles/jobs/) or as JSON. PROFILE is chosen as\n"
	"for `veles show`: N or N@i (registered with the version), N@p (pending),\n"
	"a profile's name or id, or a path to a profile file (also outside any\n"
	"project).";

struct export_opts {
	const char *rev, *output, *spec;
	bool indent;
};

/* 0, 1 after --help, -1 after a usage error. */
static int parse_export(int argc, char **argv, struct export_opts *o)
{
	struct opt opts[] = {
		OPT_STRING('m', "minor", &o->rev, "REV",
			   "the version PROFILE belongs to (default: HEAD)"),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "write FILE (atomically) instead of standard output"),
		OPT_BOOL('i', "indent", &o->indent,
			 "indent by two spaces (default: compact, one line)"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {"export",	   "veles export [-m REV] [-o FILE] [-i] PROFILE",
			     export_about, opts,
			     NULL,	   0};
	int n, ret = cli_parse_options(&p, argc, argv, &n);

	if (ret)
		return ret < 0 ? 1 : -1;
	if (n != 1) {
		cli_usage_error("export", n == 0 ? "name one profile" : "name one profile only");
		return -1;
	}
	o->spec = argv[1];
	return 0;
}

/* The JSON to @o->output through a temporary file, or to stdout. */
static int write_out(const struct profile *p, const struct export_opts *o)
{
	char *tmp;
	int fd, ret;

	if (!o->output) {
		fflush(stdout);
		ret = profile_write_fd(p, STDOUT_FILENO, o->indent);
		if (ret == 0 && !o->indent && write(STDOUT_FILENO, "\n", 1) != 1)
			ret = err_set(ERR_IO, "cannot write profile: %s", strerror(errno));
		return ret;
	}
	tmp = xasprintf("%s.tmp.XXXXXX", o->output);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = err_set(ERR_IO, "cannot write %s: %s", o->output, strerror(errno));
		free(tmp);
		return ret;
	}
	ret = profile_write_fd(p, fd, o->indent);
	if (ret == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		ret = err_set(ERR_IO, "cannot write %s: %s", o->output, strerror(errno));
	if (close(fd) < 0 && ret == 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", o->output, strerror(errno));
	if (ret == 0 && rename(tmp, o->output) < 0)
		ret = err_set(ERR_IO, "cannot write %s: %s", o->output, strerror(errno));
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

int cmd_export(struct cli_ctx *ctx, int argc, char **argv)
{
	struct export_opts o = {0};
	struct profile_ref ref;
	struct profile *p = NULL;
	int ret = parse_export(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	/* A file named by path needs no project, as for show. */
	if (!ctx->vcs) {
		ret = ctx->root ? 0 : cli_find_root(ctx);
		if (ret < 0 && !o.rev && path_exists(o.spec) && !path_is_dir(o.spec)) {
			err_clear();
			if (profile_load(o.spec, &p) < 0)
				return cli_fail();
		} else if (ret < 0 || cli_open_vcs(ctx) < 0) {
			cli_fail();
			return 2;
		}
	}
	memset(&ref, 0, sizeof(ref));
	if (!p && ref_open(ctx, o.spec, o.rev, REF_DEFAULT_INDEX, &ref, &p) < 0)
		return cli_fail();
	ret = write_out(p, &o);
	profile_free(p);
	ref_release(&ref);
	if (ret < 0)
		return cli_fail();
	if (o.output)
		fprintf(stderr, "profile written to %s\n", o.output);
	return 0;
}
