/*
 * Version context: which code version a profile measured.
 *
 * Two backends behind one contract. "git": the project is a git work tree;
 * versions are its commits and Veles data lives in the project's own object
 * database under refs/veles/. "plain": any other directory; versions are
 * commits on refs/veles/versions inside the bare .veles/store.git, made by
 * `veles version new`, and shown with a counter (v1, v2, ...).
 */
#ifndef VCS_VCS_H
#define VCS_VCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct git_repository git_repository;
typedef struct git_signature git_signature;

enum vcs_kind { VCS_GIT, VCS_PLAIN };

struct vcs;

struct vcs_version {
	char id[41]; /* full hex id */
	char short_id[16];
	unsigned counter; /* plain: 1-based version number; git: 0 */
	const char *author;
	const char *email;
	int64_t time;	     /* seconds since the epoch */
	int tz_offset;	     /* minutes east of UTC */
	const char *summary; /* first line of the message */
	const char *message;
	size_t nparents;
	char parents[4][41]; /* the first four parents */
};

/* Opens the version context of the project rooted at @root (the directory
 * holding .veles/). Creates .veles/store.git for a plain directory when
 * @create is true. */
int vcs_open(const char *root, bool create, struct vcs **out);
void vcs_close(struct vcs *v);

enum vcs_kind vcs_kind(const struct vcs *v);
const char *vcs_kind_name(const struct vcs *v); /* "git" or "plain" */

/* The repository that holds refs/veles/: the project's for git, the
 * store's for plain. Owned by @v. */
git_repository *vcs_store_repo(struct vcs *v);

/* The current version (HEAD); ERR_NOTFOUND when there is none yet. */
int vcs_head(struct vcs *v, char id[41]);
/* The branch HEAD is on, or NULL when detached or plain; caller frees. */
char *vcs_branch(struct vcs *v);
/* Resolves a revision (full or abbreviated id, branch, tag, HEAD~2, "v3"
 * for plain) to a full id; a clear error when it names nothing. */
int vcs_resolve(struct vcs *v, const char *rev, char id[41]);
/* Fills @out for version @id; strings stay valid until the next call. */
int vcs_version_info(struct vcs *v, const char *id, struct vcs_version *out);
/* True when the work tree has uncommitted changes to tracked files
 * (untracked files and .veles/ are ignored). Always false for plain. */
int vcs_is_dirty(struct vcs *v, bool *dirty);

/*
 * Calls @fn for each version reachable from @from (NULL: HEAD), newest
 * first in git log order; stops early when @fn returns non-zero and
 * returns that value. @limit 0 means all.
 */
int vcs_walk(struct vcs *v, const char *from, size_t limit,
	     int (*fn)(const struct vcs_version *ver, void *arg), void *arg);
/* vcs_walk() without @hide and its ancestors: the versions of git's
 * HIDE..FROM. */
int vcs_walk_range(struct vcs *v, const char *hide, const char *from, size_t limit,
		   int (*fn)(const struct vcs_version *ver, void *arg), void *arg);

/* Plain only: records a new version with message @msg on top of the
 * current one and makes it current. */
int vcs_new_version(struct vcs *v, const char *msg, char id[41]);

/*
 * A plain directory's version line after a pull: the line at @ref (fetched
 * from @remote) joins the local one. Fast-forwards when the local line is
 * behind, merges both lines into a version with two parents when they
 * parted, and does nothing for a git project or a missing @ref. *@how is
 * then "fast-forward", "merged" or NULL (nothing changed).
 */
int vcs_plain_join(struct vcs *v, const char *ref, const char *remote, const char **how);

/* Loads the TLS certificates that start-up skipped (tls_defer.c); call
 * before any network operation. */
void vcs_tls_enable(void);

/* libgit2's message for the last failed call, in our error buffer.
 * @code is libgit2's (negative) code; returns the matching ERR_*. */
int vcs_git_error(int code, const char *what);

/* Who to record as the author of Veles commits: user.name/user.email from
 * git config, else "Veles <veles@localhost>"; free with
 * git_signature_free(). */
int vcs_signature(struct vcs *v, git_signature **out);

/*
 * Without libgit2 (vcs_quick.c): what a git work tree's own files tell.
 * vcs_quick_head() returns 0 and HEAD's id for the git project at @root,
 * 1 when the files do not tell (a plain project, no commit yet, an unusual
 * layout): then ask vcs_open(). vcs_quick_clean() is true only when the
 * index and work tree certainly match commit @head; false means "ask
 * vcs_is_dirty()", not "dirty".
 */
int vcs_quick_head(const char *root, char id[41]);
bool vcs_quick_clean(const char *root, const char *head);

/* The project root given to vcs_open(). */
const char *vcs_root(const struct vcs *v);

#endif
