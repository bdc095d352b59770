/*
 * The raw trace format shared by the runtime (libveles-trace.so) and the
 * collector that reads it (docs/trace-format.md). Little-endian, as the
 * x86-64 machines whose cycle counter the runtime reads.
 */
#ifndef VELES_TRACE_FORMAT_H
#define VELES_TRACE_FORMAT_H

#include <stdint.h>

#define VTR_MAGIC 0x5254564cu /* "LVTR" read as bytes: 4c 56 54 52 */
#define VTR_VERSION 3

/* Each thread's file PID.TID.vtr starts with this header. */
struct vtr_header {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;
	uint32_t tid;
	uint64_t tsc0; /* the cycle counter the first record's delta counts from */
};

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
 * Aggregate mode's histogram of inclusive cycles (PID.TID.agg): log-linear
 * buckets, VTR_HIST_SUB to each power of two, so a bucket is at most a
 * quarter of its lower bound wide and a percentile read from it is off by
 * less than that. Values below 2 * VTR_HIST_SUB have a bucket each.
 */
#define VTR_HIST_SUB_BITS 2
#define VTR_HIST_SUB (1u << VTR_HIST_SUB_BITS)
#define VTR_HIST_BUCKETS ((64 - VTR_HIST_SUB_BITS + 1) * VTR_HIST_SUB)

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
