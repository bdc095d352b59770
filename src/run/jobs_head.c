/* The jobs of a matrix on the working tree (jobs.h). */
#include "project/origin.h"
#include "project/project.h"
#include "run/jobs.h"
#include "run/run.h"
#include "util/error.h"

int run_jobs_head(const struct run_matrix *m, struct project *p, const struct run_jobs_opts *o,
		  struct run_tally *t)
{
	char head[41];
	int has_head;

	if (run_jobs_any(m) < 0)
		return ERR_INVALID;
	if (m->register_after_run) {
		if ((has_head = project_head_quick(p, head)) < 0)
			return has_head;
		if (!has_head)
			return err_set(ERR_INVALID, "no version yet to register the profiles with");
	}
	if ((has_head = project_origin(p, true, head)) < 0)
		return has_head;
	return run_jobs_all(m, NULL, 0, has_head ? head : NULL, o, t);
}
