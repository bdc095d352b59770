/* ROOT/.veles/: made by `veles init`, or by the first command that needs it. */
#include "vcs/git_lazy.h"
#include <stdlib.h>
#include <string.h>

#include "project/project_local.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "vcs/vcs.h"

void project_local_exclude(struct vcs *v, const char *root)
{
	git_repository *repo = vcs_kind(v) == VCS_GIT ? vcs_store_repo(v) : NULL;
	const char *workdir = repo ? git_repository_workdir(repo) : NULL;
	const char *rel = "";
	char *exclude, *line, *dir;
	struct buf text = BUF_INIT;
	size_t wlen;

	if (!workdir)
		return;
	wlen = strlen(workdir);
	if (strncmp(root, workdir, wlen - 1) == 0 && strlen(root) >= wlen)
		rel = root + wlen;
	exclude = xasprintf("%sinfo/exclude", git_repository_path(repo));
	line = xasprintf("/%s%s.veles/\n", rel, *rel ? "/" : "");
	if (file_read_all(exclude, &text) == ERR_NOTFOUND || !strstr(buf_str(&text), line)) {
		if (text.len && text.data[text.len - 1] != '\n')
			buf_addc(&text, '\n');
		buf_adds(&text, line);
		dir = xasprintf("%sinfo", git_repository_path(repo));
		if (mkdir_p(dir) == 0)
			file_write_atomic(exclude, text.data, text.len);
		free(dir);
	}
	err_clear();
	buf_release(&text);
	free(line);
	free(exclude);
}

int project_local_init(const char *root, struct vcs *v, const char *config_text, bool *fresh)
{
	char *veles = xasprintf("%s/.veles", root);
	char *sub[] = {xasprintf("%s/jobs", veles), xasprintf("%s/logs", veles)};
	char *config = xasprintf("%s/config.yml", veles);
	bool was_new = !path_exists(veles);
	int ret = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sub) && ret == 0; i++)
		ret = mkdir_p(sub[i]);
	if (ret == 0 && config_text && !path_exists(config))
		ret = file_write_atomic(config, config_text, strlen(config_text));
	if (ret == 0 && v)
		project_local_exclude(v, root);
	if (fresh)
		*fresh = was_new;
	for (i = 0; i < ARRAY_SIZE(sub); i++)
		free(sub[i]);
	free(config);
	free(veles);
	return ret;
}
