/*
 * The raw trace format shared by the runtime (libveles-trace.so) and the
 * collector that reads it (docs/trace-format.md). Little-endian, as the
 * x86-64 machines whose cycle counter the runtime reads.
 */
#ifndef VELES_TRACE_FORMAT_H
#define VELES_TRACE_FORMAT_H

#include <stdint.h>

#define VTR_MAGIC 0x5254564cu /* "LVTR" read as bytes: 4c 56 54 52 */
#define VTA_MAGIC 0x4154564cu /* "LVTA": a thread's sums (aggregate mode) */
#define VTR_VERSION 4

/*
 * Each thread's file, PID.TID.vtr (records) or PID.TID.agg (sums), starts
 * with this header, in a part of the file the runtime maps shared and
 * writes into as the program runs, so that a process killed outright
 * leaves what it recorded: the header says which records are whole.
 *
 * Records: the thread fills one of two buffers in the mapped part (at
 * buf[0] and buf[1], bufcap words each) and, when it is full, appends the
 * other, held since, to the file at @data. The records are, in order,
 * @flushed words from @data (VTR_STATE_FLUSHED of @state), the first
 * VTR_STATE_HELD words of the held buffer (VTR_STATE_BUF), then those of
 * the other buffer up to @done, an address in the runtime's mapping at
 * @base (none when @done is not inside that buffer). @state changes in
 * one store, so a reader never sees half of a switch. Sums: @done of
 * struct vtr_sum from @data. The rest of the mapped part holds the
 * runtime's own state, which readers ignore.
 */
struct vtr_header {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;
	uint32_t tid;
	uint64_t tsc0;	 /* records: the cycle counter the first record's delta counts from */
	uint64_t data;	 /* bytes from the file's start to the records (or sums) written */
	uint64_t base;	 /* records: the address the runtime mapped the file at */
	uint64_t done;	 /* records: one past the last whole record of the buffer being
			  * filled; sums: how many functions' sums are whole */
	uint64_t lost;	 /* calls the thread made that could not be recorded */
	uint64_t flags;	 /* VTR_FULL */
	uint64_t state;	 /* records: VTR_STATE_* */
	uint64_t buf[2]; /* records: the buffers' offsets in the file */
	uint64_t bufcap; /* records: words each buffer holds */
};

#define VTR_STATE_FLUSHED(s) ((s)&0xffffffffffull)    /* words at data */
#define VTR_STATE_HELD(s) (((s) >> 40) & 0x3fffffull) /* whole words in the held buffer */
#define VTR_STATE_BUF(s) ((unsigned)((s) >> 63))      /* which buffer is held */
#define VTR_STATE(flushed, held, buf)                                                              \
	((uint64_t)(flushed) | (uint64_t)(held) << 40 | (uint64_t)(buf) << 63)

/* The thread could not write its records (disk full) or sums (address
 * space): its later calls are not in the file. */
#define VTR_FULL 1u

/* Version 3's header (files written before): the records follow it up to
 * the end of the file. */
#define VTR_V3_HEADER 24

/*
 * Then records of 32-bit words. A word with VTR_SHORT set is a whole
 * record: a function numbered below 1024 (bits 20-29) entered or, with
 * VTR_SHORT_EXIT, returned from, VTR_SHORT_DELTA cycles (bits 0-19) after
 * the previous record. Any other record is two words: w0 is the function's
 * number with VTR_EXIT set on a return, w1 the cycles since the previous
 * record. Functions are numbered in order of first appearance in the file;
 * two numbers are reserved: VTR_DEFINE says the next number is the
 * function at the address in the two words that follow (low, high; four
 * words in all with its w1 of 0), and VTR_HIGH carries in w1 the high 32
 * bits of the next record's delta; VTR_SIZE, like VTR_DEFINE four words,
 * gives the structure size (--size) of the entry that follows it, a
 * signed 64-bit number in its last two words (low, high).
 */
#define VTR_SHORT 0x80000000u
#define VTR_SHORT_EXIT 0x40000000u
#define VTR_SHORT_SHIFT 20
#define VTR_SHORT_FUNCS 1024u
#define VTR_SHORT_DELTA 0xfffffu
#define VTR_EXIT 0x40000000u
#define VTR_INDEX 0x3fffffffu
#define VTR_DEFINE 0x3fffffffu
#define VTR_HIGH 0x3ffffffeu
#define VTR_SIZE 0x3ffffffdu

/*
 * Aggregate mode's histogram of inclusive cycles: log-linear
 * buckets, VTR_HIST_SUB to each power of two, so a bucket is at most a
 * quarter of its lower bound wide and a percentile read from it is off by
 * less than that. Values below 2 * VTR_HIST_SUB have a bucket each.
 */
#define VTR_HIST_SUB_BITS 2
#define VTR_HIST_SUB (1u << VTR_HIST_SUB_BITS)
#define VTR_HIST_BUCKETS ((64 - VTR_HIST_SUB_BITS + 1) * VTR_HIST_SUB)

/*
 * Aggregate mode (PID.TID.agg): after the header, @done of these, one per
 * function the thread called, numbered in order of first call. Its calls
 * are its histogram's sum; the least time is ~nmin (0: none yet).
 */
struct vtr_sum {
	uint64_t addr;
	uint64_t incl, excl;		 /* cycles, inclusive and exclusive */
	uint64_t nmin, max;		 /* ~least and greatest inclusive cycles of one call */
	uint64_t hist[VTR_HIST_BUCKETS]; /* calls by vtr_hist_bucket(inclusive cycles) */
};

/* The bucket of @v cycles: its power of two and the next bits below. */
static inline uint32_t vtr_hist_bucket(uint64_t v)
{
	uint32_t e;

	if (v < VTR_HIST_SUB)
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v);
	return (e - VTR_HIST_SUB_BITS + 1) * VTR_HIST_SUB +
	       (uint32_t)(v >> (e - VTR_HIST_SUB_BITS)) - VTR_HIST_SUB;
}

/* The least number of cycles bucket @k holds; bucket k + 1 starts past it. */
static inline uint64_t vtr_hist_lower(uint32_t k)
{
	uint32_t e = k / VTR_HIST_SUB;

	if (e == 0)
		return k;
	return (uint64_t)(VTR_HIST_SUB + k % VTR_HIST_SUB) << (e - 1);
}

#endif
