/* Inside the version context: the backend contract and shared helpers. */
#ifndef VCS_VCS_INTERNAL_H
#define VCS_VCS_INTERNAL_H

#include "vcs/git_lazy.h"

#include "vcs/vcs.h"

struct vcs_ops {
	const char *name;
	/* The oid of the current version; ERR_NOTFOUND when there is none. */
	int (*head)(struct vcs *v, git_oid *out);
	char *(*branch)(struct vcs *v);
	/* Backend-specific spellings ("v3"); returns 1 when @rev is not one. */
	int (*resolve)(struct vcs *v, const char *rev, git_oid *out);
	int (*is_dirty)(struct vcs *v, bool *dirty);
};

struct vcs {
	enum vcs_kind kind;
	const struct vcs_ops *ops;
	git_repository *repo;
	char *root;
	/* Work-tree-relative prefix of .veles/ ("sub/.veles/"), for status. */
	char *veles_prefix;
	/* Keeps the strings of the last vcs_version_info() alive. */
	git_commit *info;
};

extern const struct vcs_ops vcs_git_ops;
extern const struct vcs_ops vcs_plain_ops;

#include "util/strmap.h"

#define VCS_PLAIN_REF "refs/veles/versions"

/* Opens or creates ROOT/.veles/store.git; 1 when there is none and
 * @create is false. */
int vcs_plain_open(struct vcs *v, bool create);
/* Fills the git backend's fields once the repository is open. */
int vcs_git_setup(struct vcs *v);

/* 1-based position of @id on the plain version line. */
int vcs_plain_counter(struct vcs *v, const git_oid *id, unsigned *out);

/*
 * The same number for many versions, as a walk meets them: a pulled line
 * merges into ours, so the line is not always straight, and each version's
 * number is its first parent's plus one, remembered here so that every
 * commit is read once. Zero-initialise; free with vcs_plain_numbers_free().
 */
struct plain_numbers {
	struct strmap ids; /* hex id -> index into num */
	unsigned *num;
	size_t cap;
};
int vcs_plain_number(struct vcs *v, struct plain_numbers *pn, const git_oid *id, unsigned *out);
void vcs_plain_numbers_free(struct plain_numbers *pn);

void vcs_fill_version(const git_commit *c, struct vcs_version *out);

#endif
