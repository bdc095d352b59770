/*
 * Does a program keep frame pointers? `collect memory` walks stacks by
 * frame pointers, and asks the runtime for libunwind where they are not
 * (docs/collect-memory.md, "Stacks").
 */
#ifndef COLLECT_MEMORY_FRAMECHECK_H
#define COLLECT_MEMORY_FRAMECHECK_H

/* 1 when at least half the functions of the x86-64 ELF file @path (up to
 * 256 from its symbol table) set up a frame pointer, 0 when fewer do, -1
 * when it cannot tell (not such a file, fewer than 4 functions). */
int memory_frame_pointers(const char *path);

#endif
