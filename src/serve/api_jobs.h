/* /api/project/jobs (api_jobs.c): a project's jobs on its versions. */
#ifndef SERVE_API_JOBS_H
#define SERVE_API_JOBS_H

#include "serve/api_project.h"

void api_jobs_get(struct serve *s, const struct req *r, struct resp *out);
void api_jobs_post(struct serve *s, const struct req *r, struct resp *out);

#endif
