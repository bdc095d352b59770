/*
 * The command-line shell: one file per command (cmd-NAME.c), one table in
 * veles.c. Commands get a cli_ctx with the project already opened when
 * their table flags ask for it.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "collect/collector.h"
#include "project/project.h"

enum cmd_flags {
	CMD_NEEDS_PROJECT = 1 << 0, /* find .veles/ upwards, open vcs + store */
	CMD_NEEDS_ROOT = 1 << 1,    /* find .veles/ upwards; cli_open_vcs() when needed */
	CMD_READ_ONLY = 1 << 2,	    /* keeps no local state: a fresh clone gets no .veles/ */
};

struct cli_ctx {
	/* The library's project context (project/project.h), whose fields the
	 * commands also name directly: ctx->root is ctx->project.root (two
	 * structs with one common initial sequence, C11 6.5.2.3). */
	union {
		struct project project;
		struct {
			char *root;	 /* the project directory (holds .veles/) */
			char *veles_dir; /* ROOT/.veles */
			char *jobs_dir;
			char *logs_dir;
			struct vcs *vcs;
			struct store *store;
		};
	};
	bool stderr_tty;
	bool stdout_tty;
	bool implicit;	/* a git work tree without .veles/ yet (cli_find_root) */
	bool read_only; /* cli_open_project() makes no .veles/ */
};

struct cli_command {
	const char *name;
	int (*fn)(struct cli_ctx *ctx, int argc, char **argv);
	unsigned flags;
	const char *summary;
};

/* Each returns the process exit status. */
int cmd_init(struct cli_ctx *ctx, int argc, char **argv);
int cmd_config(struct cli_ctx *ctx, int argc, char **argv);
int cmd_status(struct cli_ctx *ctx, int argc, char **argv);
int cmd_add(struct cli_ctx *ctx, int argc, char **argv);
int cmd_rm(struct cli_ctx *ctx, int argc, char **argv);
int cmd_log(struct cli_ctx *ctx, int argc, char **argv);
int cmd_show(struct cli_ctx *ctx, int argc, char **argv);
int cmd_export(struct cli_ctx *ctx, int argc, char **argv);
int cmd_push(struct cli_ctx *ctx, int argc, char **argv);
int cmd_pull(struct cli_ctx *ctx, int argc, char **argv);
int cmd_collect(struct cli_ctx *ctx, int argc, char **argv);
int cmd_commit(struct cli_ctx *ctx, int argc, char **argv);
int cmd_postprocess(struct cli_ctx *ctx, int argc, char **argv);
int cmd_check(struct cli_ctx *ctx, int argc, char **argv);
int cmd_diff(struct cli_ctx *ctx, int argc, char **argv);
int cmd_bisect(struct cli_ctx *ctx, int argc, char **argv);
int cmd_run(struct cli_ctx *ctx, int argc, char **argv);
int cmd_hook(struct cli_ctx *ctx, int argc, char **argv);
int cmd_monitor(struct cli_ctx *ctx, int argc, char **argv);
int cmd_cflags(struct cli_ctx *ctx, int argc, char **argv);
int cmd_list(struct cli_ctx *ctx, int argc, char **argv);
int cmd_stat(struct cli_ctx *ctx, int argc, char **argv);
int cmd_record(struct cli_ctx *ctx, int argc, char **argv);
int cmd_report(struct cli_ctx *ctx, int argc, char **argv);
int cmd_script(struct cli_ctx *ctx, int argc, char **argv);
int cmd_serve(struct cli_ctx *ctx, int argc, char **argv);
int cmd_runner(struct cli_ctx *ctx, int argc, char **argv);
int cmd_fuzz(struct cli_ctx *ctx, int argc, char **argv);

/* On a terminal, stdout and stderr show the control bytes and escape
 * sequences a crafted profile may hold as text (term-guard.c). */
void cli_guard_terminal(void);
/* Gives stdout back its raw bytes, for a full-screen (curses) view. */
void cli_unguard_stdout(void);

/* Prints "veles: MSG" on stderr; returns the exit status to use (1, or 2 for
 * usage errors, see cli_usage_error). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints err_msg() as one line; returns 1. */
int cli_fail(void);
/* "veles CMD: MSG" plus a hint to --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Parses a command's options from its table (util/optparse.h; @p->name is
 * the command, "status"). Returns 0 with the *@nop operands in argv[1..];
 * on -h or --help prints the help and returns -1 (the command then exits
 * 0); on a bad option prints it with a pointer to --help and returns 2.
 */
struct optparse;
int cli_parse_options(const struct optparse *p, int argc, char **argv, int *nop);
/* @argv[0..@n) and a NULL after them, for a command line to run: after
 * cli_parse_options() the options follow the operands. Free with free(). */
char **cli_argv_dup(char **argv, int n);
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A collector's messages (collect_env.message): output to stdout, lines
 * and progress to stderr. */
void cli_collect_message(void *arg, enum collect_msg kind, const char *text);

/* Finds the project around the current directory (the nearest directory
 * here or above with .veles/, or else at the top of a git work tree) and
 * fills the path fields of @ctx. */
int cli_find_root(struct cli_ctx *ctx);
/* cli_find_root, then opens its version context and store, and unless
 * ctx->read_only makes the local state a fresh clone lacks. */
int cli_open_project(struct cli_ctx *ctx);
/* Makes ROOT/.veles/ (jobs/, logs/, kept out of git) when the project was
 * found by its git work tree and has none yet. */
int cli_local_state(struct cli_ctx *ctx);
/* Opens the version context and store of the root cli_find_root() found
 * (once; for commands that can often do without, as libgit2 loads then). */
int cli_open_vcs(struct cli_ctx *ctx);
void cli_ctx_release(struct cli_ctx *ctx);
/* True when -h or --help is among the command's arguments (before "--"). */
bool cli_wants_help(int argc, char **argv);

enum out_format { FORMAT_TEXT, FORMAT_JSON };
/* Parses a --format value; -1 with a usage message when it is unknown. */
int cli_parse_format(const char *cmd, const char *value, enum out_format *out);
/* Parses a non-negative integer option value; -1 with a message if bad. */
int cli_parse_uint(const char *cmd, const char *opt, const char *value, unsigned long *out);
/* HEAD's id into @id; false when there is no version yet. */
bool cli_head(struct cli_ctx *ctx, char id[41]);
/* Full id of @rev (NULL: HEAD), or -1 with the error printed. */
int cli_resolve_version(struct cli_ctx *ctx, const char *rev, char id[41]);

#endif
