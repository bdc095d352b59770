/* Loading import modules and calling them at each step (see vmon-module.h). */
#ifndef MONITOR_MODULES_H
#define MONITOR_MODULES_H

#include "monitor/monitor.h"
#include "monitor/vmon-module.h"
#include "util/buf.h"

struct vmon_ctx {
	struct mon_modules *mods;
	const struct vmon_module *m;
	void *dl;
	char *file;
	const char *disc;
	size_t disclen;
	void *data;
	unsigned index; /* its place among the loaded modules, kept in records */
	bool failed;
	bool bad_record; /* record() was given a line not its own: said once */
};

struct mon_modules {
	size_t n;
	struct vmon_ctx **v;
	struct mon_sample *sample; /* get_data records into it */
	double secs;
	char sep;
	bool per_interval;
	/* A module that cannot be loaded is skipped with a warning instead of
	 * failing the load (a recording shown where one of its modules is not). */
	bool skip_unloadable;
	/* Where the modules' errors and the warnings about them go. */
	mon_say_fn say;
	void *say_arg;
};

/* Loads "file1,opts:file2" (bare names are looked up in mon_module_dirs()).
 * A module whose init fails is reported through ms->say and unloaded; a
 * file that cannot be loaded is an error (a warning with skip_unloadable). */
int mon_modules_load(struct mon_modules *ms, const char *spec);
/* The directories searched for a bare module name, colon-separated, in
 * order: $VELES_MODULE_PATH, the build tree's plugins (a veles run from its
 * build tree), the installed directory, and that directory relative to the
 * running veles. */
char *mon_module_dirs(void);
void mon_modules_unload(struct mon_modules *ms);

void mon_modules_update_header(struct mon_modules *ms, struct buf *header);
void mon_modules_get_header(struct mon_modules *ms, const char *header);
void mon_modules_get_data(struct mon_modules *ms, struct mon_sample *s);
/* init_interval, then analyze of each record of @s its module claims. */
void mon_modules_analyze(struct mon_modules *ms, const struct mon_sample *s, double secs);
void mon_modules_interval_end(struct mon_modules *ms);
void mon_modules_brief(struct mon_modules *ms, enum vmon_brief type, struct buf *b);
/* @header: whether the record's sections print their headings. */
void mon_modules_verbose(struct mon_modules *ms, bool header, struct buf *b);
void mon_modules_plot(struct mon_modules *ms, enum vmon_plot type, struct buf *b);
/* Each module's print_export as name-value lines. */
void mon_modules_export(struct mon_modules *ms, struct buf *b);

#endif
