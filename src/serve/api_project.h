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

/* api_history.c: the history from the store index (store_index.h). */
void api_project_versions(struct serve *s, const struct req *r, struct resp *out);
void api_project_metrics(struct serve *s, const struct req *r, struct resp *out);
void api_project_history(struct serve *s, const struct req *r, struct resp *out);
/* api_profile.c: GET versions/REV, profiles/ID, profiles/ID/views/NAME */
void api_project_version(struct serve *s, const struct req *r, struct resp *out);
void api_project_profile(struct serve *s, const struct req *r, struct resp *out);
/* api_diff.c: GET diff?a=X&b=Y */
void api_project_diff(struct serve *s, const struct req *r, struct resp *out);

#endif
