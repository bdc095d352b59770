/*
 * veles cflags trace [--pg] [--link]: the compiler flags that build a
 * program for `veles collect trace --instrumented` (docs/collect-trace.md),
 * so a build can say CFLAGS="$(veles cflags trace)". veles cflags fuzz
 * [--link]: those of a program whose edges `veles fuzz` counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collect/trace/trace.h"
#include "fuzz/fuzz.h"
#include "util/common.h"
#include "util/optparse.h"

#define CFLAGS_USAGE "veles cflags trace [--pg] [--link] | veles cflags fuzz [--link]"
/* clang's: GCC has -fsanitize-coverage=trace-pc, without the guards. */
#define FUZZ_CFLAGS "-fsanitize-coverage=trace-pc-guard"

static const char cflags_about[] =
	"Prints the compiler flags that build a program for\n"
	"`veles collect trace --instrumented`: " TRACE_CFLAGS ".\n"
	"The collector preloads the trace runtime, so nothing more is needed.\n"
	"\n"
	"`veles cflags fuzz` prints the flags of a program whose edge counts\n"
	"`veles fuzz` reads: " FUZZ_CFLAGS " (clang only).\n"
	"With --link, also those that link the runtime, libveles-fuzzcov.a, whole:\n"
	"clang $(veles cflags fuzz --link) prog.c -o prog. Without the runtime the\n"
	"program counts no edges. Outside `veles fuzz` it runs as usual.";

/*
 * The fuzz runtime is an archive linked whole: its strong callbacks then
 * replace the weak ones clang links in with -fsanitize-coverage.
 */
static int print_fuzz_link_flags(void)
{
	char *lib = fz_runtime_path();

	if (!lib)
		return cli_usage_error("cflags", "the fuzz runtime libveles-fuzzcov.a is not "
						 "installed (set VELES_FUZZ_LIB to its path)");
	printf(" -Wl,--whole-archive %s -Wl,--no-whole-archive", lib);
	free(lib);
	return 0;
}

/* -L and -rpath of the directory holding libveles-trace.so. */
static int print_link_flags(void)
{
	char *lib = trace_runtime_path(), *slash;

	if (!lib)
		return cli_usage_error("cflags", "the trace runtime libveles-trace.so is not "
						 "installed (set VELES_TRACE_LIB to its path)");
	slash = strrchr(lib, '/');
	if (slash)
		*slash = '\0';
	printf(" -L%s -Wl,-rpath,%s -lveles-trace", slash ? lib : ".", slash ? lib : ".");
	free(lib);
	return 0;
}

int cmd_cflags(struct cli_ctx *ctx, int argc, char **argv)
{
	bool link = false, pg = false, fuzz;
	struct opt opts[] = {
		OPT_BOOL(0, "pg", &pg,
			 "the flags of the mcount build instead: " TRACE_PG_CFLAGS ".\n"
			 "A hook before each function's prologue and a return trampoline\n"
			 "record the same calls: cheaper per call, and the functions GCC\n"
			 "inlines are not traced. Linking with -pg too is harmless: while\n"
			 "tracing, gprof's gmon.out is not written"),
		OPT_BOOL(0, "link", &link,
			 "also the flags that link the runtime into the program (then it\n"
			 "records whenever VELES_TRACE_DIR is set)"),
		OPT_HELP_LINE(),
		OPT_END(),
	};
	struct optparse p = {"cflags", CFLAGS_USAGE, cflags_about, opts, NULL, 0};
	int n, ret;

	if ((ret = cli_parse_options(&p, argc, argv, &n)))
		return ret < 0 ? 0 : ret;
	if (n != 1 || (strcmp(argv[1], "trace") != 0 && strcmp(argv[1], "fuzz") != 0))
		return cli_usage_error("cflags", "usage: " CFLAGS_USAGE);
	fuzz = strcmp(argv[1], "fuzz") == 0;
	if (fuzz && pg)
		return cli_usage_error("cflags", "usage: " CFLAGS_USAGE);
	printf("%s", fuzz ? FUZZ_CFLAGS : pg ? TRACE_PG_CFLAGS : TRACE_CFLAGS);
	if (link && (fuzz ? print_fuzz_link_flags() : print_link_flags()) != 0)
		return 2;
	printf("\n");
	return 0;
}
