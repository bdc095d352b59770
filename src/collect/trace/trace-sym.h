/*
 * Function names for the addresses the runtime recorded: the symbol tables
 * (.symtab, else .dynsym) of the objects a process had loaded, read with
 * libelf, each shifted by its object's load bias (PIE and libraries).
 */
#ifndef COLLECT_TRACE_SYM_H
#define COLLECT_TRACE_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_proc;

struct sym {
	uint64_t value, size;
	char *name;	 /* as in the symbol table */
	char *demangled; /* a C++ function's name demangled, else NULL */
};

/* The name a profile gives @s: a C++ function's demangled one. */
#define SYM_DISPLAY(s) ((s)->demangled ? (s)->demangled : (s)->name)

/*
 * @want names a function known as @name (mangled) and @demangled (or
 * NULL): either whole, or the demangled one without its parameters
 * ("ns::V::sum" for "ns::V::sum() const"), which names every overload.
 */
bool trace_name_matches(const char *want, const char *name, const char *demangled);

struct sym_file {
	char *path;
	struct sym *syms; /* functions, by value */
	size_t nsyms;
	int err;      /* 0, or why the file gave no symbols */
	int stripped; /* no .symtab: only the exported functions (.dynsym) */
	int hooks;    /* the trace entry hooks it calls (imports): TRACE_HOOK_* */
};

#define TRACE_HOOK_CYG 1    /* __cyg_profile_func_enter: -finstrument-functions */
#define TRACE_HOOK_MCOUNT 2 /* mcount, _mcount or __fentry__: -pg */

/* The symbol files read so far, shared by the processes of one trace. */
struct sym_cache {
	struct sym_file *files;
	size_t nfiles;
};

/*
 * The name of the function at @addr in @proc, or NULL when no object or
 * symbol covers it. A file that cannot be read counts as one without
 * symbols; trace_sym_file() tells which.
 */
const char *trace_sym_lookup(struct sym_cache *c, const struct trace_proc *proc, uint64_t addr);
/* The file's symbols, read on first use. */
const struct sym_file *trace_sym_file(struct sym_cache *c, const char *path);
void trace_sym_free(struct sym_cache *c);

#endif
