/*
 * The front end of the bounds collector: parses a C file with libclang and
 * builds the intermediate form (ir.h) of every function defined in it.
 */
#ifndef COLLECT_BOUNDS_FRONT_H
#define COLLECT_BOUNDS_FRONT_H

struct ir_func;

/*
 * Parses @path, with the compiler flags @cflags, and returns the functions
 * it defines (not those of the headers it includes) in source order.
 * Errors (a missing file, a C++ file, a parse error) are one line:
 * "FILE:LINE:COL: error: ...".
 */
int front_parse(const char *path, char *const *cflags, int ncflags, struct ir_func ***funcs,
		int *nfuncs);
void front_funcs_free(struct ir_func **funcs, int n);

#endif
