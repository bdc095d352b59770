/*
 * Recordings: "VELESMON1\n", then a zstd stream of records, each a tag
 * byte, a varint length and a payload. 'H' is the header (text lines
 * "key: value" describing the machine, the tables and the modules); 'S' is
 * a sample: its time, then each table with its row names when they changed
 * and its values as zigzag varints of the difference from the previous
 * sample, then the modules' text records. Differences are small, so a
 * sample of cpu, disk, memory and network takes a few hundred bytes before
 * compression. The stream is flushed after every sample: a recording cut
 * short plays back up to its last whole sample. Every MON_FRAME_SAMPLES
 * samples a new zstd frame starts with a 'T' record (the previous sample's
 * time in microseconds, a varint) and a sample whose tables are sent whole,
 * so playback finds its feet again after a damaged frame. Readers skip
 * record tags they do not know.
 */
#ifndef MONITOR_RECORD_H
#define MONITOR_RECORD_H

#include <stdio.h>

#include "monitor/monitor.h"
#include "util/buf.h"

#define MON_MAGIC "VELESMON1\n"
#define MON_FRAME_SAMPLES 128

struct mon_writer {
	FILE *f;
	void *zc; /* ZSTD_CCtx */
	struct mon_sample prev;
	bool have_prev;
	struct buf rec, out;
	unsigned long nsamples;
};

/* Creates @path and writes the header text @header. */
int mon_writer_open(struct mon_writer *w, const char *path, const char *header);
int mon_writer_add(struct mon_writer *w, const struct mon_sample *s);
/* Ends the stream and closes the file. */
int mon_writer_close(struct mon_writer *w);

/* Encodes @s as a sample record's payload after @prev (NULL: none). */
void mon_encode_sample(struct buf *b, const struct mon_sample *s, const struct mon_sample *prev);

struct mon_player {
	char *data; /* the decompressed stream */
	size_t len, pos;
	char *header;
	struct mon_sample s[2]; /* the last two samples: one is the base of the next */
	unsigned cur;		/* which of s[] was decoded last */
	unsigned gen;
	bool have_prev;
	int64_t us;   /* the last sample's time in microseconds */
	bool damaged; /* the stream ended inside a record or frame */
	unsigned long nsamples;
	size_t *ends; /* where each frame's output ends in data */
	size_t nends, iend;
	unsigned gaps; /* damaged parts skipped */
};

/* Reads and decompresses @path; a damaged end is remembered, not an error. */
int mon_player_open(struct mon_player *p, const char *path);
/* The next sample into *@s: 1, 0 at the end, negative on bad data. The
 * sample stays valid until the call after next, so a caller can keep the
 * previous one to compute rates without copying. */
int mon_player_next(struct mon_player *p, const struct mon_sample **s);
void mon_player_close(struct mon_player *p);
/* Whether @path starts like a recording (a quick look at its magic). */
bool mon_file_is_recording(const char *path);
/* Value of "key: value" in a header, copied into @out; false if absent. */
bool mon_header_get(const char *header, const char *key, char *out, size_t cap);
/* The whole value of @key (malloc'd), or NULL when the header has none. */
char *mon_header_dup(const char *header, const char *key);

#endif
