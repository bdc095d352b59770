/*
 * Separate debug files: where a stripped object's symbols went when its
 * distribution split them off (objcopy --only-keep-debug), found by its
 * GNU build-id or its .gnu_debuglink, the way debuggers look for them.
 */
#ifndef PERF_DEBUGFILE_H
#define PERF_DEBUGFILE_H

#include <gelf.h>

/*
 * The path of the separate debug file of @e (opened from @path), or NULL.
 * Tried in order: ROOT/.build-id/xx/rest.debug for each ROOT of
 * $VELES_DEBUGINFO_PATH (colon-separated, default /usr/lib/debug), then the
 * debuglink name in @path's directory, in its .debug/ subdirectory and
 * under ROOT + that directory. A candidate is taken only when its build-id
 * matches @e's, or, where either has none, when the debuglink's CRC-32
 * matches the candidate's contents. The caller frees the result.
 */
char *perf_debug_file(Elf *e, const char *path);

#endif
