/*
 * A collector we do not have built in: a program veles-collect-NAME on
 * PATH, in any language (docs/cli/collect.md). It is told where to write
 * through its environment and writes its profile into the jobs directory
 * itself.
 */
#ifndef COLLECT_EXTERNAL_H
#define COLLECT_EXTERNAL_H

struct collect_external {
	const char *name;	  /* NAME: the program is veles-collect-NAME */
	const char *program;	  /* its path, as collect_external_find() gave it */
	char *const *argv;	  /* its arguments after the name, NULL-terminated */
	const char *project_root; /* VELES_PROJECT_ROOT */
	const char *jobs_dir;	  /* VELES_JOBS_DIR */
	const char *origin;	  /* VELES_ORIGIN, or NULL: no version yet */
};

/* The program for @name on PATH, into *@path (caller frees); ERR_NOTFOUND
 * when there is none. */
int collect_external_find(const char *name, char **path);
/*
 * Runs @x->program in the project root and waits. *@written (when not NULL) gets
 * the profile it wrote: the one .perf file new in the jobs directory, or
 * NULL when it wrote none or several. ERR_CHILD when it cannot start or
 * exits with an error, ERR_INTERRUPTED after a signal.
 */
int collect_external_run(const struct collect_external *x, char **written);

#endif
