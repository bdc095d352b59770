/*
 * Symbols for sampled addresses: the function symbols of ELF files (the
 * .symtab, else that of the separate debug file found by build-id or
 * .gnu_debuglink, else .dynsym, through libelf) and of the kernel
 * (/proc/kallsyms).
 */
#ifndef PERF_SYMBOLS_H
#define PERF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_sym {
	uint64_t start, end;
	char *name;
};

/* One object file's functions, and how its file offsets map to addresses. */
struct perf_dso {
	char *path;
	char *short_name; /* the file name without directories */
	struct perf_sym *syms;
	size_t nsyms;
	struct perf_load *loads;
	size_t nloads;
};

/* Loads @path's symbols; a file that cannot be read gives an empty dso. */
struct perf_dso *perf_dso_load(const char *path);
/* Loads /proc/kallsyms (addresses are zero without root: no symbols). */
struct perf_dso *perf_kernel_load(void);
/* The file perf_kernel_load() reads: the fuzz target of record files
 * points it at a small file of the same format, since reading the real
 * one takes a tenth of a second. */
extern const char *perf_kallsyms_path;
void perf_dso_free(struct perf_dso *d);
/* The function containing file offset @off (kernel: address), or NULL. */
const struct perf_sym *perf_dso_find(const struct perf_dso *d, uint64_t off);
const struct perf_sym *perf_dso_find_addr(const struct perf_dso *d, uint64_t addr);
/* The file offset where address @addr of the file is loaded from; false
 * when no PT_LOAD segment holds it. */
bool perf_dso_offset(const struct perf_dso *d, uint64_t addr, uint64_t *off);

#endif
