/* The trace collector: function times of a program built with the trace
 * runtime's flags (docs/collect-trace.md). */
#ifndef COLLECT_TRACE_TRACE_H
#define COLLECT_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "collect/collector.h"

struct profile;
struct trace_data;
struct sym_cache;

extern const struct collector trace_collector;

/* -f FUNC[#SAMPLE]: a function to keep, and every how many calls. */
struct trace_rule {
	char *func;
	long sample; /* 0: the global sampling */
};

/* --size FUNC:ARGN: the structure size is FUNC's ARGN-th argument. */
struct trace_size {
	char *func;
	int argn; /* 1..6, the integer argument registers */
};

struct trace_opts {
	struct trace_size *sizes;
	size_t nsizes;
	struct trace_rule *rules; /* none: every function */
	size_t nrules;
	long global_sampling; /* keep every Nth call; 1 = all */
	bool aggregate;
	bool dynamic;	/* uprobes rather than the runtime */
	bool userspace; /* -s userspace: every function of the binary */
};

/* The flags `veles cflags trace` prints. */
#define TRACE_CFLAGS "-finstrument-functions -g"

/*
 * Builds the trace profile of @d: one resource per kept call (in aggregate
 * mode, per function and thread), named through @syms. Returns NULL with
 * an error set when the main program has no symbols.
 */
struct profile *trace_build_profile(const struct trace_data *d, const struct trace_opts *o,
				    struct sym_cache *syms, const char *cmd);
/* The path of libveles-trace.so: $VELES_TRACE_LIB, beside the build, or installed. */
char *trace_runtime_path(void);

#endif
