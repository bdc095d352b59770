/*
 * Veles's sampling file (docs/perf-data.md): a small header, then the
 * kernel's own records (struct perf_event_header + body) exactly as the ring
 * buffers held them, so every field perf_event_open(2) documents is kept.
 */
#ifndef PERF_DATAFILE_H
#define PERF_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PERF_DATA_MAGIC "VELESPD1"
#define PERF_DATA_VERSION 1

struct perf_data_header {
	char magic[8];	       /* "VELESPD1" */
	uint32_t version;      /* PERF_DATA_VERSION */
	uint32_t header_size;  /* this struct plus the event name that follows */
	uint64_t sample_type;  /* attr.sample_type of every sample */
	uint64_t period;       /* attr.sample_period or sample_freq */
	uint32_t freq;	       /* 1 when period is a frequency in Hz */
	uint32_t name_len;     /* bytes of the event's name after this struct */
	uint64_t event_type;   /* attr.type */
	uint64_t event_config; /* attr.config */
};

struct perf_data_writer {
	FILE *f;
	char *path, *tmp; /* written to tmp, renamed to path when done */
	uint64_t bytes;
};

int perf_data_create(struct perf_data_writer *w, const char *path, const struct perf_data_header *h,
		     const char *event);
int perf_data_write(struct perf_data_writer *w, const void *rec, size_t len);

/*
 * A record of Veles's own, numbered above the kernel's types: the format
 * file of a recorded tracepoint, so its samples' raw data decode without
 * the recording machine's tracefs. The body is the subsystem's name, NUL,
 * then the format file's text, NUL, padded with NULs to 8 bytes.
 */
#define PERF_RECORD_VELES_TPFORMAT 0x5646
int perf_data_write_tpformat(struct perf_data_writer *w, const char *system, const char *format);
/* Flushes, syncs and renames into place; on @ok false removes the file. */
int perf_data_close(struct perf_data_writer *w, bool ok);

/* A whole file in memory: its header, the event's name and the records. */
struct perf_data {
	struct perf_data_header h;
	char *event;
	unsigned char *buf;
	size_t len;	/* of buf */
	size_t records; /* offset of the first record in buf */
};

int perf_data_load(const char *path, struct perf_data *d);
void perf_data_free(struct perf_data *d);

#endif
