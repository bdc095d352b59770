/*
 * The import-module API of `veles monitor` (version 1): a shared object
 * loaded with `--import FILE[,OPTIONS]` adds its own data to sampling,
 * recording, playback and every output format, as collectl's import
 * modules do. See docs/monitor-modules.md for a worked example.
 *
 * A module exports one function, veles_monitor_module(), returning its
 * table of callbacks. Veles calls them in this order:
 *   init (once; a negative return unloads the module),
 *   get_header (playback only, with the recording's header),
 *   update_header (recording only: add lines to the file's header),
 *   then for each sample: get_data (live only: read and record()),
 *   init_interval, analyze (once per record carrying the discriminator,
 *   live or played back), the print callback of the output format (not
 *   for the first sample, which only primes counters), interval_end;
 *   finish at the end.
 * Only init, get_data and analyze are required.
 */
#ifndef VMON_MODULE_H
#define VMON_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define VMON_API_VERSION 1

struct vmon_ctx;    /* one per loaded module, owned by Veles */
struct vmon_text;   /* a line or block of output being built */
struct vmon_export; /* an export being built (lexpr, graphite, prometheus) */

/* What Veles hands the module; valid from init to finish. */
struct vmon_helpers {
	unsigned version; /* VMON_API_VERSION */
	/* @v in at most @width characters, dividing by 1000 (or 1024 when
	 * @size_kb, for sizes in KB) and appending K, M, G as needed; @dst
	 * holds 32 bytes. Returns the length. */
	size_t (*cvt)(char *dst, double v, int width, int size_kb);
	/* The increase of a counter of @width bits (32 or 64) from @prev to
	 * @cur, corrected when it wrapped. */
	uint64_t (*fix)(uint64_t prev, uint64_t cur, unsigned width);
	/* Records each line of file @path, prefixed by @prefix and a space,
	 * skipping @skip_head first and @skip_tail last lines; the number of
	 * lines recorded, or -1 when the file cannot be read. */
	int (*getproc)(struct vmon_ctx *c, const char *path, const char *prefix, int skip_head,
		       int skip_tail);
	/* The same for the output of shell command @cmd (costly: prefer files). */
	int (*getexec)(struct vmon_ctx *c, const char *cmd, const char *prefix);
	/* Records one line; it must start with the module's discriminator. */
	void (*record)(struct vmon_ctx *c, const char *line);
	/* Reports a problem on stderr, prefixed with the module's name; the
	 * module is unloaded after the current callback returns. */
	void (*error)(struct vmon_ctx *c, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	/* Seconds in the current interval (not a whole number). */
	double (*interval)(const struct vmon_ctx *c);
	/* The plot separator (--sep): never hard-code spaces in plot output. */
	char (*separator)(const struct vmon_ctx *c);
	/* "/sec", or "/int" with --on (then show counters per interval). */
	const char *(*rate)(const struct vmon_ctx *c);
	/* 1 with --on: counters per interval rather than per second. */
	int (*per_interval)(const struct vmon_ctx *c);
	/* Appends printf-style text to an output being built. */
	void (*append)(struct vmon_text *t, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	/* Adds one value to an export: "hello.hw1", "num/sec", 140. */
	void (*export_value)(struct vmon_export *e, const char *name, const char *units, double v);
	/* The module's own pointer, kept across callbacks. */
	void **(*data)(struct vmon_ctx *c);
};

enum vmon_brief { VMON_BRIEF_TITLE, VMON_BRIEF_HEADER, VMON_BRIEF_DATA };
enum vmon_plot { VMON_PLOT_HEADER, VMON_PLOT_DATA };

struct vmon_module {
	unsigned api_version; /* VMON_API_VERSION */
	const char *name;
	/* @options: the text after the first comma of --import (or ""). Sets
	 * *@discriminator, the word starting each of its records. Returns 0,
	 * or -1 to be unloaded (say why with error()). */
	int (*init)(struct vmon_ctx *c, const struct vmon_helpers *h, const char *options,
		    const char **discriminator);
	void (*get_data)(struct vmon_ctx *c);
	void (*analyze)(struct vmon_ctx *c, const char *line);
	void (*init_interval)(struct vmon_ctx *c);
	void (*interval_end)(struct vmon_ctx *c);
	void (*get_header)(struct vmon_ctx *c, const char *header);
	void (*update_header)(struct vmon_ctx *c, struct vmon_text *header);
	/* Appends to the brief title line, heading line or data line. */
	void (*print_brief)(struct vmon_ctx *c, enum vmon_brief type, struct vmon_text *line);
	/* Appends a verbose section (whole lines, the header when asked). */
	void (*print_verbose)(struct vmon_ctx *c, int print_header, struct vmon_text *out);
	/* Appends separator-led fields to the plot header or data line. */
	void (*print_plot)(struct vmon_ctx *c, enum vmon_plot type, struct vmon_text *line);
	void (*print_export)(struct vmon_ctx *c, struct vmon_export *e);
	void (*finish)(struct vmon_ctx *c);
};

/* The one symbol a module exports. */
const struct vmon_module *veles_monitor_module(void);

#endif
