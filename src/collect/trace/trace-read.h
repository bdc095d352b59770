/*
 * Reading what libveles-trace.so wrote (docs/trace-format.md): each
 * process's calibration and loaded objects (PID.meta), each thread's
 * records (PID.TID.vtr) turned into calls with inclusive and exclusive
 * cycles, or each thread's sums (PID.TID.agg) in aggregate mode. A
 * process killed outright leaves whole records up to each file's
 * committed end, and a meta file without the calibration at exit.
 */
#ifndef COLLECT_TRACE_READ_H
#define COLLECT_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_object {
	uint64_t bias, lo, hi; /* load bias; [lo, hi) its executable segment */
	char *path;
};

struct trace_proc {
	int pid;
	unsigned long lost; /* signal handlers' calls the runtime could not record */
	double ns_per_tick; /* 0 until calibrated (no "clock" line: trace_calibrate) */
	bool has_start;	    /* the "start" line: the counter and the clock then */
	uint64_t tsc_start;
	double sec_start;
	struct trace_object *objs;
	size_t nobjs;
};

/* One returned call (records), or one function's sums on a thread (aggregate). */
struct trace_call {
	uint64_t addr;
	uint64_t incl, excl; /* cycles */
	uint64_t order;	     /* entry number in its thread, from 0; aggregate: calls */
	int pid, tid;
	uint32_t depth; /* open calls around it when it was entered */
	bool has_size;	/* --size: the argument read at entry */
	int64_t size;
};

/* Aggregate mode: what a function's sums on a thread add to its trace_call. */
struct trace_agg {
	uint64_t min, max;     /* inclusive cycles of its quickest and slowest call */
	size_t hist_at, nhist; /* its non-empty buckets: trace_data.hist[hist_at...] */
};

/* One non-empty bucket of a histogram (runtime/trace-format.h). */
struct trace_bucket {
	uint32_t k;
	uint64_t n;
};

struct trace_data {
	struct trace_proc *procs;
	size_t nprocs;
	struct trace_call *calls;
	size_t ncalls, cap;
	uint64_t bytes;		/* of records read */
	int aggregate;		/* the calls are sums */
	struct trace_agg *aggs; /* aggregate: per call, in step with calls */
	struct trace_bucket *hist;
	size_t nhist, hist_cap;
	size_t nthreads; /* thread files read (records or sums) */
	size_t nfull;	 /* threads whose file filled: their later calls are missing */
	/* Calls that threads could not record, by process: each thread's
	 * file says, and trace_read_dir adds them to the process's lost. */
	struct trace_lost {
		int pid;
		unsigned long n;
	} * lost;
	size_t nlost;
	/* The dynamic mode names what it probed itself: a call whose addr has
	 * TRACE_NAMED set is names[addr & ~TRACE_NAMED]. */
	char **names;
	long *name_sample; /* per name: keep every Nth call; 0: the rules say */
	size_t nnames;
};

#define TRACE_NAMED (1ull << 63)

/* @name's TRACE_NAMED address in @d, added on first use. */
uint64_t trace_data_name(struct trace_data *d, const char *name);

/* Reads every file the runtime wrote to @dir. 0 or a negative ERR_*. */
int trace_read_dir(const char *dir, struct trace_data *out);
/* Parses one thread's records (a .vtr file's contents) into @out. */
int trace_read_records(const void *data, size_t len, const char *name, struct trace_data *out);
/* Parses one thread's sums (an .agg file's contents, version 4) into @out. */
int trace_read_sums(const void *data, size_t len, const char *name, struct trace_data *out);
/* Parses one thread's sums in version 3's text into @out. */
int trace_read_aggregate(const char *text, const char *name, int pid, int tid,
			 struct trace_data *out);
/* Parses one process's .meta text into @proc. */
int trace_read_meta(const char *text, const char *name, struct trace_proc *proc);
/* Each process with no calibration at exit (killed, or it exec'd): its
 * counter rate from its start to @tsc_now, @sec_now (CLOCK_MONOTONIC)
 * read on this machine after it ended. */
void trace_calibrate(struct trace_data *d, uint64_t tsc_now, double sec_now);
/* Appends @c to d->calls. */
void trace_data_add_call(struct trace_data *d, const struct trace_call *c);
const struct trace_proc *trace_proc_find(const struct trace_data *d, int pid);
void trace_data_free(struct trace_data *d);

#endif
