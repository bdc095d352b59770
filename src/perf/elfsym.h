/*
 * The symbols of an ELF file's symbol table, read with libelf: the one
 * walk of .symtab and .dynsym under the sampler's symbols (perf/symbols.c)
 * and the trace collector's (collect/trace/trace-sym.c), each of which
 * keeps the symbols it wants.
 */
#ifndef PERF_ELFSYM_H
#define PERF_ELFSYM_H

#include <gelf.h>
#include <stdbool.h>

enum elfsym_table { ELFSYM_NONE, ELFSYM_SYMTAB, ELFSYM_DYNSYM };

/* Called with each symbol that has a name, defined or not. */
typedef void (*elfsym_fn)(const GElf_Sym *sym, const char *name, void *arg);

/* Calls @fn for the symbols of @e's .symtab (which names static
 * functions), or, when it has none and @dynsym, of its .dynsym (the
 * exported and imported ones); says which table it read. */
enum elfsym_table elfsym_each(Elf *e, bool dynsym, elfsym_fn fn, void *arg);

/* Whether @s is a function defined in the file (a GNU indirect function
 * too, when @ifunc). */
bool elfsym_is_func(const GElf_Sym *s, bool ifunc);

#endif
