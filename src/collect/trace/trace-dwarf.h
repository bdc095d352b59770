/*
 * --size 'FUNC:ARG->member': where a member of the structure a function's
 * parameter points to lies, from the program's DWARF (libdw, loaded on
 * first use), as a memory operand the probe hit's registers and stack
 * resolve: the parameter's register at entry plus the member's offset.
 */
#ifndef COLLECT_TRACE_DWARF_H
#define COLLECT_TRACE_DWARF_H

#include "collect/trace/trace-usdt.h"

/*
 * Fills @a for member @member (a.b for a nested one) of what parameter
 * @arg of @func in the ELF file @path points to. Errors, one line each:
 * no debug information, no such function, parameter or member, a member
 * that is not a 1, 2, 4 or 8-byte integer, a parameter past the sixth.
 */
int trace_dwarf_member(const char *path, const char *func, const char *arg, const char *member,
		       struct usdt_arg *a);

#endif
