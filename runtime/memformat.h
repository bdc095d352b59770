/*
 * The binary records libveles-memory.so writes and `veles collect memory`
 * reads (docs/memory-format.md). Shared by the runtime and the reader, so
 * it holds constants only: no code, no dependencies.
 */
#ifndef RUNTIME_MEMFORMAT_H
#define RUNTIME_MEMFORMAT_H

/* The file header: magic, then u32 version, pid, ppid, reserved, u64 start. */
#define VMEM_MAGIC "VELESMEM"
#define VMEM_MAGIC_LEN 8
#define VMEM_VERSION 2
#define VMEM_HEADER_LEN 32

/* A block: u8 kind, u32 payload length (little-endian), payload. */
#define VMEM_BLOCK_HEAD 5
enum vmem_block {
	VMEM_BLOCK_EVENTS = 1,	/* u32 tid, u64 base ns, then records */
	VMEM_BLOCK_MAPS = 2,	/* the text of /proc/self/maps */
	VMEM_BLOCK_EXE = 3,	/* the executable's path */
	VMEM_BLOCK_END = 4,	/* u64 ns, u8 how: the process ended (enum vmem_end) */
	VMEM_BLOCK_FLUSHED = 5, /* u64 seq: the live buffer of that number is written */
};
#define VMEM_EVENTS_HEAD 12 /* tid + base ns */

/*
 * The live file, PATH.live beside the record file PATH: each thread's
 * buffer, mapped shared, so that what a process killed outright (SIGKILL)
 * had recorded is still there. It is a run of slots, one per thread state,
 * each a whole number of pages; a slot starts with magic, then u64 the
 * bytes of its buffer whose records are whole (the block head included),
 * u64 the buffer's number (its seq: a FLUSHED block of the same number in
 * the record file says it was written there), u32 where the buffer starts
 * in the slot and u32 the slot's size. The buffer is an events block whose
 * length field is not kept: tid and base time are.
 */
#define VMEM_LIVE_MAGIC "VELESLIV"
#define VMEM_LIVE_LEN 8
#define VMEM_LIVE_SEQ 16
#define VMEM_LIVE_BUF 24
#define VMEM_LIVE_SLOT 28
#define VMEM_LIVE_HEAD 32
#define VMEM_LIVE_SUFFIX ".live"

enum vmem_end {
	VMEM_END_EXIT = 1,   /* exit() or a return from main */
	VMEM_END__EXIT = 2,  /* _exit() or _Exit() */
	VMEM_END_SIGNAL = 3, /* a fatal signal; the next byte is its number */
	VMEM_END_EXEC = 4,   /* the process image was replaced */
};

/*
 * Event kinds: the low 5 bits of a record's first byte; the top three are
 * flags. Every event then has prefix varints dt (ns since the previous
 * event of the block; only with VMEM_F_TIME, else 0), stack id (not with
 * VMEM_F_SAME: then the id of the block's previous event of the same class,
 * allocation or release, or 0 for the first) and the zigzag difference of
 * its address from the block's previous address (divided by 16 with
 * VMEM_F_ADDR16); allocations add the size, and the realloc kinds the
 * zigzag difference of the old address from the new one.
 */
#define VMEM_F_TIME 0x80
#define VMEM_F_ADDR16 0x40
#define VMEM_F_SAME 0x20
#define VMEM_KIND_MASK 0x1f
enum vmem_kind {
	VMEM_MALLOC = 1,
	VMEM_CALLOC,
	VMEM_REALLOC,
	VMEM_FREE,
	VMEM_POSIX_MEMALIGN,
	VMEM_ALIGNED_ALLOC,
	VMEM_MEMALIGN,
	VMEM_VALLOC,
	VMEM_PVALLOC,
	VMEM_REALLOCARRAY,
	VMEM_NEW,
	VMEM_NEW_ARRAY,
	VMEM_DELETE,
	VMEM_DELETE_ARRAY,
	VMEM_KIND_MAX = VMEM_DELETE_ARRAY,
	/* A stack's first use: varint id, varint n, n zigzag frame differences;
	 * a whole first byte, no flags. */
	VMEM_STACK = 31,
};

#define VMEM_MAX_FRAMES 64
/* Stack ids are dense from 1 and no more than this: the writer's table of
 * stacks has this many slots (memory_priv.h); a reader refuses larger. */
#define VMEM_MAX_STACKS (1u << 20)

#endif
