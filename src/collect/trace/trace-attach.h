/*
 * What the dynamic mode probes: the functions (-f, the strategies) and
 * USDT probes (-u, --with-usdt) of the binary and its libraries, each
 * turned into places to put a uprobe (file, offset, semaphore), what a hit
 * there means and which argument gives the structure size.
 */
#ifndef COLLECT_TRACE_ATTACH_H
#define COLLECT_TRACE_ATTACH_H

#include <stddef.h>
#include <stdint.h>

#include "collect/trace/trace-usdt.h"

struct trace_opts;
struct trace_data;
struct sym_cache;

enum probe_kind {
	PROBE_ENTRY,	  /* a function's entry */
	PROBE_RETURN,	  /* its return (a uretprobe) */
	PROBE_USDT_START, /* a USDT pair's start */
	PROBE_USDT_END,	  /* and its end */
	PROBE_USDT_HIT,	  /* an unpaired USDT probe: timed from hit to hit */
};

struct probe_spec {
	char *path;	      /* the file probed */
	uint64_t off;	      /* the probe's file offset */
	uint64_t ref_ctr_off; /* a USDT semaphore's file offset; 0: none */
	enum probe_kind kind;
	uint64_t name;	      /* TRACE_NAMED address of what it measures */
	struct usdt_arg size; /* read at each hit; USDT_ARG_NONE: no size */
};

struct probe_plan {
	struct probe_spec *specs;
	size_t n;
};

/*
 * The probes @o asks for in @binary (the command's executable, or -b, as
 * a path from here) and its libraries (a -l PATH is relative to @cwd, the
 * command's directory; NULL: ours); their names go to d->names. Errors, one
 * line each: a function or USDT probe that is not there, a file without
 * symbols, a library not found.
 */
int trace_plan(const struct trace_opts *o, const char *binary, const char *cwd,
	       struct sym_cache *syms, struct trace_data *d, struct probe_plan *plan);
void trace_plan_free(struct probe_plan *plan);

#endif
