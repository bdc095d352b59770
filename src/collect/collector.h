/*
 * The collector interface. Each collector runs in the phases the seeds name
 * (before, collect, after) behind this one contract and is registered in
 * the table in collector.c. Collectors never include CLI headers: the CLI
 * hands them a collect_env and their own arguments.
 */
#ifndef COLLECT_COLLECTOR_H
#define COLLECT_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct profile;

enum output_handling {
	OUTPUT_DEFAULT,	 /* the command writes to our terminal */
	OUTPUT_CAPTURE,	 /* written to .veles/logs/ and shown as well */
	OUTPUT_SUPPRESS, /* sent to /dev/null */
};

struct collect_ctx;
struct opt;

/* What a collector tells the user, through the front end (library code
 * never prints). */
enum collect_msg {
	COLLECT_MSG_OUT,      /* text for standard output: a summary, the help */
	COLLECT_MSG_ERR,      /* a whole line for standard error: a note, a warning */
	COLLECT_MSG_PROGRESS, /* a transient status line ("Collecting 4/10 ..."); "" clears it */
	COLLECT_MSG_WARN,     /* a warning (a postprocessor's note in a run): the front end
			       * marks it as one */
};

/* What the caller (the CLI, or the job runner) knows about the project. */
struct collect_env {
	/*
	 * The directory the command runs in, against which its relative
	 * paths (the program, --binary, bounds' sources) are resolved: a
	 * checkout's root, say. NULL: the current directory. The collectors
	 * hand it to the command (spawn_opts.cwd) and never change their own.
	 */
	const char *cwd;
	const char *jobs_dir; /* where the profile is written */
	const char *logs_dir; /* where captured output goes */
	const char *origin;   /* the code version measured, or NULL */
	bool quiet;	      /* no summary on stdout */
	bool progress;	      /* may draw progress on stderr (it is a terminal) */
	/*
	 * Called with the finished profile (c->profile, header filled) just
	 * before it is written, so the job runner can postprocess it. It may
	 * take the profile (set c->profile to NULL): nothing is written then.
	 * A negative return is the collection's error.
	 */
	int (*transform)(struct collect_ctx *c, void *arg);
	void *transform_arg;
	/* When not NULL, receives the written profile's path (caller frees),
	 * or NULL when nothing was written. */
	char **out_path;
	/* When not NULL, receives the wait status of the command's last run
	 * (0 when it did not run). */
	int *cmd_status;
	/* The profile's file name (Perun's --profile-name), or a template
	 * for it (format.output_profile_template, see collect_template_name);
	 * NULL: BIN-COLLECTOR-WORKLOAD-TIMESTAMP. */
	const char *profile_name;
	const char *name_template;
	/* Receives what the collector says (see enum collect_msg); NULL:
	 * nothing is shown. */
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *message_arg;
};

/* One collection in progress, shared by the phases. */
struct collect_ctx {
	const struct collect_env *env;
	char **argv;	  /* the profiled command, NULL-terminated */
	char **argv_copy; /* what argv points to when collect_parse_options() made it */
	int argc;
	const char *workload; /* header.workload; default: the arguments */
	double timeout;	      /* seconds, 0 = none */
	enum output_handling output;
	struct profile *profile; /* set by the collect phase */
	/* More profiles of the same run (collect memory --children separate),
	 * each written after c->profile as NAME-SUFFIX.perf, header filled but
	 * not given to env->transform; freed by the driver. */
	struct collect_extra {
		struct profile *profile;
		char *suffix;
	} * extra;
	size_t nextra;
	void *state;	    /* the collector's own */
	int last_status;    /* wait status of the last run of the command */
	char *profile_path; /* where the profile was written */
	bool quiet;	    /* env->quiet or -q */
	bool help;	    /* -h came: nothing to collect; help_text says how to use it */
	char *help_text;    /* the collector's usage, made by collect_parse_options() */
	const char *output_arg, *timeout_arg; /* the common options, checked after parsing */
	char *name;	/* BIN-COLLECTOR-WORKLOAD-TIMESTAMP, no suffix; set before before() */
	char *log_path; /* env->logs_dir/NAME.log, for --output-handling capture */
	double load_before, load_after; /* 1-minute load averages around the phases */
};

struct collector {
	const char *name;
	const char *summary; /* one line for `veles collect --help` */
	/* Parses the collector's options from @argv (argv[0] is its name)
	 * with collect_parse_options(), which sets c->argv to the command.
	 * Returns 0 or an error. */
	int (*parse)(struct collect_ctx *c, int argc, char **argv);
	int (*before)(struct collect_ctx *c); /* may be NULL */
	int (*collect)(struct collect_ctx *c);
	int (*after)(struct collect_ctx *c); /* may be NULL */
	void (*release)(struct collect_ctx *c);
};

/*
 * Parses a collector's options from its table @o->opts (util/optparse.h)
 * followed by the common ones, as "collect NAME": the options end at the
 * command (after "--" or at the first operand), which becomes c->argv.
 * With -h, sets c->help and c->help_text from @o's usage, about and the
 * tables. Returns 0 or ERR_INVALID with a message naming the option.
 */
struct collect_options {
	const char *usage; /* "veles collect time [OPTIONS] -- COMMAND [ARGS...]" */
	const char *about; /* what the collector does, for the help */
	const struct opt *opts;
	void *ctx; /* given to the table's callbacks */
	/* No command is needed (collect bounds reads source): c->argv may
	 * then hold no words (c->argc 0). */
	bool command_optional;
};
int collect_parse_options(struct collect_ctx *c, const char *name, const struct collect_options *o,
			  int argc, char **argv);

/* Formats a message and gives it to c->env->message, if set. */
void collect_say(const struct collect_ctx *c, enum collect_msg kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* How a collector should run the command: output handling, log, timeout,
 * and the directory it runs in (env->cwd). */
struct spawn_opts;
void collect_spawn_opts(const struct collect_ctx *c, struct spawn_opts *o);
/* "LD_PRELOAD=@lib" ahead of whatever the user preloads already, for a
 * command's own environment (spawn_opts.env); caller frees. */
char *collect_preload_var(const char *lib);
/* A whole number of at least @min for option @opt; ERR_INVALID otherwise. */
int collect_parse_count(const char *name, const char *opt, const char *arg, long min, long *out);

/* Sets header member @key of @p to the raw JSON @json (taken), replacing
 * one already there. */
void collect_header_set(struct profile *p, const char *key, char *json);

/* BIN-TOOL-WORKLOAD-TIMESTAMP (local time), each part made safe for a file
 * name and never starting with '.' or '-': how profiles in .veles/jobs/
 * are named. */
char *collect_profile_name(const char *cmd, const char *tool, const char *workload);
/*
 * A profile's name as Perun's format.output_profile_template makes it
 * from @p's header (tokens %collector%, %postprocessors%, %cmd%,
 * %workload%, %type%, %date%, %origin%, %counter%, %UNIT.PARAM%, %%), in
 * *@out without ".perf" (caller frees); ERR_INVALID for a bad template.
 */
int collect_template_name(const char *tmpl, const struct profile *p, char **out);
/* Checks a profile's file name as asked for (@what: the option that gave
 * it), before ".perf": ERR_INVALID when empty, a path or starting with
 * '.' or '-'. */
int collect_name_check(const char *what, const char *name);
/* Checks a template's syntax without a profile; ERR_INVALID if bad. */
int collect_template_check(const char *tmpl);

/*
 * Claims DIR/NAME.perf (or NAME-2.perf, ...) with O_EXCL, so two profiles
 * made in the same second never overwrite each other; an atomic save then
 * replaces the empty claim. *@path is the claimed file's path.
 */
int collect_claim_path(const char *dir, const char *name, char **path);

/*
 * Checks options for a collector as `veles collect` would parse them, with
 * no command run: @argv is the collector's name and its options. 0, or
 * ERR_INVALID with the collector's message.
 */
int collect_check_options(int argc, char **argv);

const struct collector *collector_find(const char *name);
/* All built-in collectors, NULL-terminated. */
const struct collector *const *collector_list(void);

/*
 * Runs `veles collect NAME ARGS...`: parses, runs the phases, fills the
 * header, collector_info and origin, and writes the profile atomically to
 * env->jobs_dir as bin-collector-workload-timestamp.perf. Returns 0, or a
 * negative error with err_msg() set.
 */
int collect_main(const struct collect_env *env, int argc, char **argv);

#endif
