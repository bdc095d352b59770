/*
 * The starter script of `veles script -g python`: a Python handler per
 * tracepoint of a recording, printing each of its fields. The names in it
 * come from the recording (its format files), which anyone may have
 * written, so none is pasted into the code as it is: a name is a Python
 * identifier only when it is one (ASCII, not a keyword, not taken), and
 * is otherwise replaced by a made-up one, its text kept in an escaped
 * string literal.
 */
#ifndef PERF_PYGEN_H
#define PERF_PYGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "perf/tpstream.h"
#include "util/buf.h"

/* Appends the whole script for @n formats to @out. */
void pygen_script(const struct tp_format *formats, size_t n, struct buf *out);

/* Whether @s may stand in Python code as a name: [A-Za-z_][A-Za-z0-9_]*
 * and not a keyword. */
bool pygen_is_identifier(const char *s);
/*
 * Appends @s as a double-quoted Python string literal: printable ASCII as
 * itself (but for '\' and '"'), every other byte as \xNN, so no line
 * break, control or bidirectional character reaches the file. With
 * @percent, '%' is doubled (the literal is a %-format).
 */
void pygen_add_str(struct buf *b, const char *s, bool percent);

#endif
