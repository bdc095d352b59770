/*
 * The JSON bodies of the server's POST requests (runs, sessions, project
 * jobs), read one member at a time: one parser, so that every endpoint
 * refuses a bad body with the same words.
 */
#ifndef SERVE_REQUEST_BODY_H
#define SERVE_REQUEST_BODY_H

#include <stddef.h>
#include <yajl/yajl_tree.h>

/* The @len bytes of @body as a JSON object (free with yajl_tree_free);
 * NULL after err_set(ERR_PARSE) when it holds a NUL, is not JSON or is
 * not an object. */
yajl_val body_parse(const char *body, size_t len);
/* Member @name of object @obj, or NULL. */
yajl_val body_member(yajl_val obj, const char *name);
/* A string member of at most @max bytes, copied into *@out; absent or
 * null: *@out NULL. ERR_PARSE naming the member otherwise. */
int body_string(yajl_val obj, const char *name, size_t max, char **out);
/* A number member: a JSON number, or one in a string as a form sends it.
 * 1 with *@out set; 0 when absent, null or "" (*@out untouched);
 * ERR_PARSE when it is no number. The caller checks the range. */
int body_number(yajl_val obj, const char *name, double *out);

#endif
