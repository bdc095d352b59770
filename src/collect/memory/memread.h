/*
 * Reading what libveles-memory.so wrote (docs/memory-format.md): one file
 * per process image, decoded into events, the stack table and the maps.
 */
#ifndef COLLECT_MEMORY_MEMREAD_H
#define COLLECT_MEMORY_MEMREAD_H

#include <stddef.h>
#include <stdint.h>

struct mem_event {
	uint64_t ns; /* CLOCK_MONOTONIC */
	uint64_t addr;
	uint64_t old; /* realloc: the released address */
	uint64_t size;
	uint32_t stack; /* 0: unknown */
	uint32_t tid;
	uint8_t kind; /* enum vmem_kind */
};

struct mem_stack {
	uint64_t *pc;
	uint32_t n;
	int defined;
};

struct mem_file {
	uint32_t pid, ppid;
	uint64_t start_ns;
	char *exe;  /* NULL when not recorded */
	char *maps; /* the last maps block, NUL-terminated; NULL when none */
	int end;    /* enum vmem_end, 0 when the file stops short */
	int end_signal;
	struct mem_event *ev;
	size_t nev, cap;
	struct mem_stack *stacks; /* indexed by id */
	size_t nstacks;
	int truncated;	   /* the last block was cut short (a crash mid-write) */
	uint64_t *flushed; /* the live buffers written out (FLUSHED blocks) */
	size_t nflushed;
	size_t nlive; /* events taken from the live file (a killed process) */
};

/* Decodes @len bytes into @f (zeroed by the caller); ERR_PARSE naming
 * @name when the data is not a memory record file at all. A block cut
 * short at the end is dropped and sets f->truncated. */
int mem_parse(const unsigned char *data, size_t len, const char *name, struct mem_file *f);
int mem_read_file(const char *path, struct mem_file *f);
/* Adds to @f, parsed from its record file, the events still in the
 * threads' buffers of its live file (@len bytes of @data): those a
 * process killed outright never wrote out. The buffers that FLUSHED
 * blocks name are left out; so is a record cut short. */
void mem_parse_live(const unsigned char *data, size_t len, struct mem_file *f);
/* The same from the file @path (no file: nothing to add). */
int mem_read_live(const char *path, struct mem_file *f);
void mem_file_release(struct mem_file *f);

/* "malloc", "free", "operator new", ...; NULL for an unknown kind. */
const char *mem_kind_name(int kind);
/* An event that releases memory (free, delete). */
int mem_kind_frees(int kind);

#endif
