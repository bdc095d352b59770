/*
 * Sampling a target (ptarget.h) into a record file (docs/perf-data.md):
 * the core of `veles record` and of the server's record runs. The records
 * can be followed while they are written (hooks), for live views.
 */
#ifndef COLLECT_PERF_PSAMPLE_H
#define COLLECT_PERF_PSAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/perf/ptarget.h"
#include "perf/datafile.h"
#include "perf/sampler.h"

enum { PSAMPLE_MAX_EVENTS = 16 };

struct psample_opts {
	const char *events;   /* comma-separated; NULL: cycles, else cpu-clock */
	unsigned long freq;   /* samples per second (0: 4000) */
	bool freq_given;      /* a tracepoint keeps every hit unless asked */
	unsigned long period; /* a sample every @period events instead */
	bool callchain;
};

/* Followers of a recording being made; any may be NULL. */
struct psample_hooks {
	void (*record)(void *arg, const void *rec, size_t len); /* each record */
	void (*tick)(void *arg); /* after each batch was read from the kernel */
	void *arg;
	int batch_ms; /* the longest wait between batches (0: 100) */
};

struct psample {
	const char *event; /* the list as given (the file's event name) */
	char *names[PSAMPLE_MAX_EVENTS];
	struct perf_event_attr attrs[PSAMPLE_MAX_EVENTS];
	size_t nev;
	struct perf_data_header h; /* as the file starts (for a live reader) */
	struct perf_sampler s;
	struct perf_data_writer w;
	struct ptarget target;
	bool created;
};

/*
 * Names the events: ERR_NOTFOUND for an unknown one, ERR_PARSE for a list
 * that cannot be sampled together (empty, too long, several that are not
 * all tracepoints), each with its message.
 */
int psample_events(struct psample *p, const struct psample_opts *o);
/* Starts the record file @path (written to a temporary file until
 * psample_commit), with the format of each tracepoint sampled. */
int psample_create(struct psample *p, const char *path);
/* Forks the command (held) or finds the threads, and opens the buffers. */
int psample_open(struct psample *p, const struct ptarget_spec *spec);
/* Lets the command run. */
int psample_start(struct psample *p);
/* Copies records to the file until the target ends or a stop. */
int psample_run(struct psample *p, const struct psample_hooks *hooks);
/* Closes the buffers (samples and lost stay counted in p->s). */
void psample_close(struct psample *p);
/* Renames the file into place (@ok) or removes it. */
int psample_commit(struct psample *p, bool ok);
void psample_free(struct psample *p);

#endif
