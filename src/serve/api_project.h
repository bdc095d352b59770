/*
 * The handlers of /api/project/... (api_project.c routes them, with the
 * project's lock held). Each part lives in a file of its own.
 */
#ifndef SERVE_API_PROJECT_H
#define SERVE_API_PROJECT_H

#include "serve/request.h"
#include "serve/resp.h"
#include "serve/srv.h"

typedef void (*project_handler)(struct serve *s, const struct req *r, struct resp *out);

#endif
