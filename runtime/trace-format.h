/*
 * The raw trace format shared by the runtime (libveles-trace.so) and the
 * collector that reads it (docs/trace-format.md). Little-endian, as the
 * x86-64 machines whose cycle counter the runtime reads.
 */
#ifndef VELES_TRACE_FORMAT_H
#define VELES_TRACE_FORMAT_H

#include <stdint.h>

#define VTR_MAGIC 0x5254564cu /* "LVTR" read as bytes: 4c 56 54 52 */
#define VTR_VERSION 1

/* Each thread's file PID.TID.vtr starts with this header. */
struct vtr_header {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;
	uint32_t tid;
	uint64_t tsc0; /* the cycle counter the first record's delta counts from */
};

/*
 * Then 8-byte records of two 32-bit words: w0 is the function's index
 * (numbered in order of first appearance in this file) with VTR_EXIT set on
 * a return, w1 the cycles since the previous record. Two indices are
 * reserved: VTR_DEFINE says the next index is the function at the address
 * in the following record's two words (low, high); VTR_HIGH carries the
 * high 32 bits of the next record's delta when it does not fit in 32.
 */
#define VTR_EXIT 0x80000000u
#define VTR_INDEX 0x7fffffffu
#define VTR_DEFINE 0x7fffffffu
#define VTR_HIGH 0x7ffffffeu

#endif
