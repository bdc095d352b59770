/*
 * Temporary directories that a killed veles does not strand. Each is
 * $TMPDIR/veles-WHAT-XXXXXX (/tmp when TMPDIR is unset or empty) and holds
 * .owner, which its process keeps flocked while it uses the directory. The
 * kernel drops the flock of a process that dies, however it dies, so a
 * later veles removes the directories whose .owner nobody holds
 * (tmpdir_sweep); one that the user keeps (--keep-temps) loses its .owner.
 */
#ifndef UTIL_TMPDIR_H
#define UTIL_TMPDIR_H

#include <stdbool.h>
#include <stddef.h>

struct tmpdir {
	char *path; /* NULL: none (a zeroed struct is none) */
	int fd;	    /* .owner, flocked, while path is set; -1 once released */
};

/* $TMPDIR, or /tmp. */
const char *tmpdir_base(void);
/* Makes $TMPDIR/veles-@what-XXXXXX, owned by this process. */
int tmpdir_make(const char *what, struct tmpdir *t);
/* Removes the directory and all in it (unless none was made or it was
 * kept); frees @t's fields. */
void tmpdir_remove(struct tmpdir *t);
/* Leaves the directory to the user: no owner, never swept; @t lets go of
 * it (a tmpdir_remove() after does nothing). */
void tmpdir_keep(struct tmpdir *t);
/* Whether @dir has an .owner that a live process holds; false when it has
 * none (or it cannot be read). */
bool tmpdir_owned(const char *dir);
/* Whether @dir is a veles temporary directory whose owner is gone. */
bool tmpdir_stranded(const char *dir);
/*
 * Removes every stranded veles-WHAT-* in $TMPDIR whose WHAT is @what, or
 * any WHAT but those in @except (a NULL-ended list) when @what is NULL.
 * Only the user's own. Returns how many it removed.
 */
size_t tmpdir_sweep(const char *what, const char *const *except);

#endif
