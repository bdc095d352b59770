/*
 * `veles log`'s list of versions, newest first, each with its profiles:
 * in full as git log shows a commit, one line each (--oneline), or JSON.
 */
#ifndef VIEW_LOG_VIEW_H
#define VIEW_LOG_VIEW_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct vcs_version;
struct version_slot;

struct log_view {
	bool json, oneline;
	bool plain;   /* a plain project: versions by number */
	size_t shown; /* versions rendered so far */
};

/* Appends version @v with its profiles @s (NULL: none). */
void log_view_version(struct buf *out, struct log_view *lv, const struct vcs_version *v,
		      const struct version_slot *s);
/* Appends what closes the list (JSON's bracket). */
void log_view_end(struct buf *out, const struct log_view *lv);

#endif
