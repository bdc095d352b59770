/* The job matrix of a project's configuration files (run.h). */
#include "config/config.h"
#include "project/project_config.h"
#include "run/run.h"

int run_matrix_load_project(const char *root, struct run_matrix **m)
{
	struct project_config_files f;
	struct config *cfgs[PROJECT_CONFIG_MAX];
	int ret;

	/* Every file, nearest first; a missing file is empty. */
	project_config_files(root, &f);
	ret = project_config_load(&f, cfgs);
	if (ret == 0)
		ret = run_matrix_load(cfgs, f.n, m);
	project_config_unload(cfgs);
	project_config_files_release(&f);
	return ret;
}
