/*
 * A project's local state: ROOT/.veles/ with jobs/ (pending profiles) and
 * logs/. `veles init` makes it; in a git work tree, a command that needs it
 * makes it too (a fresh clone has the profiles under refs/veles/ and the
 * recipe in the tracked file, but no .veles/: it is never committed).
 */
#ifndef PROJECT_PROJECT_LOCAL_H
#define PROJECT_PROJECT_LOCAL_H

#include <stdbool.h>

struct vcs;

/*
 * Creates what is missing of ROOT/.veles/, jobs/ and logs/, and with
 * @config_text ROOT/.veles/config.yml holding it; in a git work tree (@v)
 * keeps .veles/ out of git. *@fresh (may be NULL): .veles/ was new.
 */
int project_local_init(const char *root, struct vcs *v, const char *config_text, bool *fresh);

/*
 * Keeps git from listing ROOT/.veles/ as untracked without touching files
 * the user commits (.gitignore): a line in the repository's info/exclude.
 * Best effort, as git's own exclude file is.
 */
void project_local_exclude(struct vcs *v, const char *root);

#endif
