/* The trace collector: function times of a program built with the trace
 * runtime's flags (docs/collect-trace.md). */
#ifndef COLLECT_TRACE_TRACE_H
#define COLLECT_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "collect/collector.h"

struct profile;
struct trace_data;
struct sym_cache;

extern const struct collector trace_collector;

/*
 * -f [LIB#]FUNC[#SAMPLE]: a function to keep, and every how many calls;
 * -u [LIB#]PROBE[#SAMPLE] or -u [LIB#]START#END[#SAMPLE]: a USDT probe
 * (with its _end pair, if any) or an explicit pair.
 */
struct trace_rule {
	char *func;    /* the function, or the USDT probe (a pair's start) */
	char *lib;     /* NULL: the binary */
	char *end;     /* -u START#END: the pair's end probe */
	long sample;   /* 0: the global sampling */
	bool implicit; /* added by --size: may name a USDT probe as well */
};

/* --size FUNC:ARGN: the structure size is FUNC's (or a USDT probe's)
 * ARGN-th argument; --size 'FUNC:ARG->member' a member of the structure
 * ARG points to, located through DWARF. */
struct trace_size {
	char *func;
	int argn;     /* 1..6 for a function, 1..12 for a USDT probe */
	char *arg;    /* 'ARG->member': the parameter's name, else NULL */
	char *member; /* the member's name (a.b for nested ones) */
};

enum trace_strategy {
	STRATEGY_CUSTOM,    /* the -f and -u rules only */
	STRATEGY_USERSPACE, /* every function of the binary */
	STRATEGY_ALL,	    /* and of its libraries */
};

struct trace_opts {
	struct trace_size *sizes;
	size_t nsizes;
	struct trace_rule *rules; /* none: every function */
	size_t nrules;
	struct trace_rule *usdts; /* -u */
	size_t nusdts;
	long global_sampling; /* keep every Nth call; 1 = all */
	bool aggregate;
	bool dynamic;	/* uprobes rather than the runtime */
	bool userspace; /* -s userspace or all: every function of the binary */
	enum trace_strategy strategy;
	bool sampled;	/* u_sampled, a_sampled */
	bool with_usdt; /* a strategy probes the binary's USDT probes too */
	char *binary;	/* -b: whose functions; NULL: the command's */
	char **libs;	/* -l: libraries probed too */
	size_t nlibs;
	FILE *watch; /* -w: where each step is logged, or NULL */
};

/* -w: one line of the collection's log (nothing without -w). */
void trace_watch(const struct trace_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The flags `veles cflags trace` prints, and with --pg: mcount's entry
 * hook before the prologue, the exit taken by a return trampoline. */
#define TRACE_CFLAGS "-finstrument-functions -g"
#define TRACE_PG_CFLAGS "-pg -mfentry -g"

/*
 * Builds the trace profile of @d: one resource per kept call (in aggregate
 * mode, per function and thread), named through @syms. Returns NULL with
 * an error set when the main program has no symbols.
 */
struct profile *trace_build_profile(const struct trace_data *d, const struct trace_opts *o,
				    struct sym_cache *syms, const char *cmd);
/* --size for the mcount build's runtime: @env gets VELES_TRACE_SIZE, the
 * sized functions of @argv's executable, found as a command started in
 * @cwd (NULL: ours) would find it (docs/trace-format.md). */
int trace_size_env(const struct trace_opts *o, char *const *argv, const char *cwd,
		   struct sym_cache *syms, char **env);
/* The path of libveles-trace.so: $VELES_TRACE_LIB, beside the build, or installed. */
char *trace_runtime_path(void);

#endif
