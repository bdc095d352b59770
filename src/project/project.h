/*
 * The project context every front end opens first: where the project is
 * (the directory holding .veles/), its local state (pending profiles in
 * .veles/jobs/, logs), and its version context and profile store.
 */
#ifndef PROJECT_PROJECT_H
#define PROJECT_PROJECT_H

#include <stdbool.h>

struct store;
struct vcs;

struct project {
	char *root;	 /* the project directory (holds .veles/) */
	char *veles_dir; /* ROOT/.veles */
	char *jobs_dir;	 /* ROOT/.veles/jobs: pending profiles */
	char *logs_dir;
	struct vcs *vcs;     /* NULL until project_open_store() */
	struct store *store; /* NULL until project_open_store() */
	/* Where warnings go (the front end's, set after project_find() or
	 * project_open(); NULL drops them): the library never prints. */
	void (*warn)(const char *msg, void *data);
	void *warn_data;
	/* A git work tree without .veles/ yet: a fresh clone is a project
	 * before `veles init`, its profiles under refs/veles/ and its recipe
	 * in the tracked file. */
	bool implicit;
};

/*
 * Finds the project around @start (a directory; NULL: the current one):
 * the nearest directory there or above that has a .veles/, or else is a
 * git work tree's top (p->implicit). Fills the path fields of @p;
 * ERR_NOTFOUND when there is none.
 */
int project_find(const char *start, struct project *p);
/* Opens the version context and store of the project project_find() found,
 * once (libgit2 is loaded then). */
int project_open_store(struct project *p);
/* project_find(), then project_open_store(). */
int project_open(const char *start, struct project *p);
/* Passes a warning to p->warn. */
void project_warn(const struct project *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Frees what @p holds and zeroes it; a zeroed @p is fine. */
void project_release(struct project *p);

/* The full id of version @rev (NULL: the current one, HEAD). ERR_NOTFOUND
 * when @rev is NULL and the project has no version yet. */
int project_version(struct project *p, const char *rev, char id[41]);

#endif
