/* The memory collector: every allocation of a program, with its call stack. */
#ifndef COLLECT_MEMORY_MEMORY_H
#define COLLECT_MEMORY_MEMORY_H

#include "collect/collector.h"

extern const struct collector memory_collector;

/* Seconds per snapshot unless -s says otherwise (the seed's example). */
#define MEMORY_DEFAULT_SAMPLING 0.025

/*
 * Where libveles-memory.so is: $VELES_MEMORY_LIB, else beside the build
 * tree's veles, else the installed library directory. Caller frees;
 * ERR_NOTFOUND when there is none.
 */
int memory_runtime_path(char **out);

/* ERR_INVALID naming @path when it is an ELF executable without a program
 * interpreter (statically linked: LD_PRELOAD cannot reach it). */
int memory_check_dynamic(const char *path);

#endif
