/*
 * Return addresses to function, source file and line, with libdw over the
 * maps a process recorded. libdw (and libstdc++ for demangling C++ names)
 * are loaded when the first profile is symbolised, so they cost nothing
 * to the rest of veles.
 */
#ifndef COLLECT_MEMORY_SYMBOLS_H
#define COLLECT_MEMORY_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

struct sym_frame {
	const char *function; /* demangled; "module+0xOFFSET" when there is no symbol */
	const char *source;   /* "unreachable" without line information, as the seed has it */
	int line;	      /* 0 without line information */
	bool runtime;	      /* inside libveles-memory.so itself */
	/* The caller an inlined function was folded into, at the line of the
	 * call; NULL for the function the code lies in. The chain does not
	 * move when the symboliser grows. */
	const struct sym_frame *next;
};

struct symbolizer;

/* A symboliser for one process image's @maps text (/proc/PID/maps);
 * ERR_GENERIC when libdw cannot be loaded. */
int sym_open(const char *maps, struct symbolizer **out);
/* The frame of return address @pc, innermost first: where functions were
 * inlined there, ->next leads through their callers. The strings and the
 * chain live as long as @s. */
const struct sym_frame *sym_lookup(struct symbolizer *s, uint64_t pc);
void sym_close(struct symbolizer *s);

/* The demangled form of a C++ symbol (caller frees), or NULL when @name is
 * not one or no demangler is available. */
char *sym_demangle(const char *name);

#endif
