/*
 * libveles: the library under every Veles front end (the veles command,
 * its web server, the Python binding). It opens a project, lists its
 * versions and profiles, loads a profile by path or by the names the
 * command line takes (N@i, N@p, an id prefix), reads it as typed columns,
 * selects and aggregates its resources, folds its call stacks, checks
 * two profiles or two versions for degradations, collects profiles, runs
 * the job matrix and bisects a slowdown. docs/libveles.md.
 *
 * Conventions:
 *   - every object is an opaque handle made by a veles_*_new/open/load
 *     function and freed by its veles_*_free, which accepts NULL;
 *   - a function that can fail returns 0 or a negative VELES_ERR_*, and
 *     veles_last_error() then holds one user-ready line (per thread);
 *   - the library never prints, exits or changes directory: warnings and
 *     progress go to the callback veles_set_log() sets;
 *   - a handle is used by one thread at a time.
 */
#ifndef VELES_H
#define VELES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes; the shared library's SONAME is
 * libveles.so.VELES_ABI_VERSION. A program may compare it with
 * veles_abi_version(), the ABI of the library it runs with. */
#define VELES_ABI_VERSION 1

int veles_abi_version(void);
/* The Veles release, "0.1.0". */
const char *veles_version(void);

/* ---- errors, messages, memory ---- */

enum veles_error {
	VELES_OK = 0,
	VELES_ERR_GENERIC = -1,
	VELES_ERR_NOMEM = -2,
	VELES_ERR_IO = -3,
	VELES_ERR_PARSE = -4,	 /* malformed input: a profile, YAML, a number */
	VELES_ERR_NOTFOUND = -5, /* a profile, version, key or file that is not there */
	VELES_ERR_INVALID = -6,	 /* valid syntax, wrong meaning: a bad option or condition */
	VELES_ERR_CONFLICT = -7,
	VELES_ERR_EXISTS = -8,
	VELES_ERR_CHILD = -9,
	VELES_ERR_INTERRUPTED = -10,
};

/* The message of this thread's last failure: one line, no "veles:" prefix. */
const char *veles_last_error(void);
/* "parse", "not found", ... for a VELES_ERR_* code. */
const char *veles_error_name(int code);

enum veles_log_level {
	VELES_LOG_PROGRESS = 0, /* what a long operation is doing */
	VELES_LOG_WARNING = 1,	/* something the user should know; the operation goes on */
};
typedef void (*veles_log_fn)(int level, const char *msg, void *data);
/* Where warnings and progress go (process-wide); NULL drops them, which
 * is the default. */
void veles_set_log(veles_log_fn fn, void *data);

/* Frees memory the library handed over (veles_profile_folded's text). */
void veles_free(void *ptr);

/* ---- tables: typed columns ---- */

typedef struct veles_table veles_table;

enum veles_kind {
	VELES_I32 = 0,	/* int32_t cells */
	VELES_I64 = 1,	/* int64_t cells */
	VELES_F64 = 2,	/* double cells */
	VELES_STR = 3,	/* uint32_t string ids: veles_table_string() */
	VELES_JSON = 4, /* uint32_t string ids of compact JSON text (lists, objects) */
};

/*
 * One column as the table keeps it, to wrap without copying. Row r's cell
 * is data[r], or data[index[r]] when index is not NULL (an attribute that
 * many rows share, such as a resource's uid: kept once per resource
 * type). A cell at or past len, or whose absent byte is 1, has no value.
 * The pointers stay valid while the table does.
 */
typedef struct veles_column {
	const char *name;
	int kind;	       /* enum veles_kind */
	const void *data;      /* len cells */
	size_t len;	       /* cells in data */
	const uint8_t *absent; /* NULL (every cell below len has a value), or len bytes */
	const uint32_t *index; /* NULL, or veles_table_nrows() entries */
} veles_column;

size_t veles_table_nrows(const veles_table *t);
size_t veles_table_ncols(const veles_table *t);
/* Column @i (0 <= i < ncols) into @out; VELES_ERR_NOTFOUND past the end. */
int veles_table_column(const veles_table *t, size_t i, veles_column *out);
/* The index of the column called @name, or -1. */
long veles_table_find(const veles_table *t, const char *name);
/* The text of string id @id of a VELES_STR or VELES_JSON column; "" for
 * an id the table does not have. */
const char *veles_table_string(const veles_table *t, uint32_t id);
/* String ids run from 0 to veles_table_nstrings() - 1. */
size_t veles_table_nstrings(const veles_table *t);
/* A cell as a number (NaN when it has none or is text), or as text (NULL
 * when it has none or is a number). */
double veles_table_num(const veles_table *t, size_t col, size_t row);
const char *veles_table_text(const veles_table *t, size_t col, size_t row);
/* Frees a table the caller owns (never veles_profile_resources()'). */
void veles_table_free(veles_table *t);

/* ---- projects ---- */

typedef struct veles_project veles_project;

/* Opens the project around @path (a directory in it; NULL: the current
 * one): the nearest directory with a .veles/, its versions and store. */
int veles_project_open(const char *path, veles_project **out);
void veles_project_free(veles_project *pr);
/* The project's directory (the one holding .veles/). */
const char *veles_project_root(const veles_project *pr);
/*
 * The versions reachable from @rev (NULL: HEAD), newest first, at most
 * @limit (0: all), one row each: id, short_id, author, email, time
 * (seconds since the epoch), summary, parents (ids separated by spaces),
 * profiles (how many are registered).
 */
int veles_project_versions(veles_project *pr, const char *rev, size_t limit, veles_table **out);
/*
 * The profiles registered to version @rev (NULL: HEAD) in `veles status`
 * order, whose row numbers are what N@i counts: index, id, name, type,
 * cmd, args, workload, collector, version.
 */
int veles_project_profiles(veles_project *pr, const char *rev, veles_table **out);
/* The pending profiles (.veles/jobs/) in N@p order: index, name, path,
 * type, cmd, args, workload, collector. */
int veles_project_pending(veles_project *pr, veles_table **out);

/* ---- profiles ---- */

typedef struct veles_profile veles_profile;

/* Loads a profile file: Perun's JSON (plain, gzip, zlib or zstd) or the
 * compact form the store keeps. */
int veles_profile_load(const char *path, veles_profile **out);
/*
 * Loads a profile of the project by any name the command line takes: a
 * path, N@i (of version @rev, NULL: HEAD), N@p, a bare N (an index of
 * @rev), a pending or registered file name, or a prefix of a profile id.
 */
int veles_project_load(veles_project *pr, const char *spec, const char *rev, veles_profile **out);
void veles_profile_free(veles_profile *p);
/* The file or entry name it was loaded by. */
const char *veles_profile_name(const veles_profile *p);
/* A registered profile's full id and version; "" otherwise. */
const char *veles_profile_id(const veles_profile *p);
const char *veles_profile_version(const veles_profile *p);
/* A header field as text: "type", "cmd", "args", "workload", "collector"
 * (collector_info.name) or "origin"; NULL when the profile has none. */
const char *veles_profile_get(const veles_profile *p, const char *field);
/*
 * A part of the profile as compact JSON: "header", "collector_info",
 * "postprocessors", "models" or "meta" (everything but the resources);
 * NULL with VELES_ERR_INVALID in veles_last_error() for another name.
 * Valid while @p is.
 */
const char *veles_profile_json(veles_profile *p, const char *part);
size_t veles_profile_nresources(const veles_profile *p);
/*
 * The resources, one row each: their own values (amount,
 * structure-unit-size, ...) as direct columns, their type's attributes
 * (uid, subtype, trace, ...) through an index. Owned by @p: never free
 * it; valid while @p is.
 */
const veles_table *veles_profile_resources(veles_profile *p);
/*
 * The profile's call stacks in the flame-graph "collapsed" format, one
 * line per stack, "outer;...;inner VALUE", VALUE the sum of @of
 * ("amount" when NULL) over the resources with that stack. From the
 * resources' "trace" attributes, or a trace profile's calls. Into *@out
 * (free with veles_free(), *@len bytes); VELES_ERR_INVALID when no
 * resource has a stack.
 */
int veles_profile_folded(const veles_profile *p, const char *of, char **out, size_t *len);

/* ---- postprocessing ---- */

/*
 * Runs a postprocessor on @p in memory, as `veles postprocess` would: @argv
 * is NULL-terminated, its name first and then its options as on the
 * command line ({"regression-analysis", "-m", "full", NULL}; Perun's
 * spellings too). Its models or resources change @p; what was read from
 * @p before (veles_profile_json, veles_profile_resources) is made afresh
 * on the next call. Its notes go to veles_set_log as warnings.
 * VELES_ERR_INVALID for an unknown postprocessor or a bad option.
 */
int veles_postprocess(veles_profile *p, const char *const *argv);

/* ---- views: what `veles show` draws ---- */

/*
 * The views that apply to @p (NULL: every view), in `veles show --help`
 * order, one row each: name, about (a line or a few), picture (1 when the
 * view draws SVG and HTML, not only text). The caller frees the table.
 */
int veles_views(const veles_profile *p, veles_table **out);

enum veles_view_target {
	VELES_VIEW_TEXT = 0, /* what `veles show` prints on a terminal */
	VELES_VIEW_SVG = 1,  /* a standalone SVG picture */
	VELES_VIEW_HTML = 2, /* a self-contained, interactive page */
};
/*
 * Renders view @name (NULL: "summary") of @p for @target into *@out (free
 * with veles_free(), *@len bytes), as `veles show PROFILE VIEW` would.
 * @options, NULL or a NULL-terminated list, are "key=value" strings (a
 * bare "key" is "key=true"), named as the show options are: of, per, by,
 * aggregation, stacked, accumulate, headers (one column each), filter-by
 * ("filter-by=uid=main"), sort-by, descending, subject (tableof:
 * resources or models), format (text or json; tableof: plain, markdown,
 * csv or json), title, limit, snapshot, rows, width (terminal columns,
 * default 80), verbose, compact. VELES_ERR_NOTFOUND for an unknown view,
 * VELES_ERR_INVALID for a bad option or a target the view cannot draw.
 */
int veles_render_view(const veles_profile *p, const char *name, int target,
		      const char *const *options, char **out, size_t *len);

/* ---- queries ---- */

typedef struct veles_query veles_query;

int veles_query_new(veles_query **out);
void veles_query_free(veles_query *q);
/* Adds a condition KEY OP VALUE ('amount>100', 'uid~^SLList_'); OP one
 * of = != < <= > >= ~ !~; VELES_ERR_INVALID when it does not parse. */
int veles_query_where(veles_query *q, const char *cond);
/* Non-zero: a resource needs only one condition to hold (default: all). */
void veles_query_any(veles_query *q, int any);
/*
 * Groups the selected resources by @field ("uid", "subtype", any
 * attribute; "uid" as `veles show` prints it), aggregating @of ("amount"
 * when NULL) by @agg: "count", "sum", "mean", "median", "min" or "max".
 */
int veles_query_group_by(veles_query *q, const char *field, const char *agg, const char *of);
/*
 * Runs @q over @p: without a group, the selected resources with every
 * column (values copied); with one, a row per group in order of its
 * value: FIELD, count, and AGG (unless AGG is count). The table's text is
 * @p's: free the table before @p.
 */
int veles_query_run(const veles_query *q, veles_profile *p, veles_table **out);

/* ---- checks: did the target degrade against the baseline? ---- */

typedef struct veles_check veles_check;

/* A check with `veles check`'s defaults; with @pr (may be NULL) the
 * project's degradation.strategies choose the methods. */
int veles_check_new(veles_project *pr, veles_check **out);
void veles_check_free(veles_check *c);
/*
 * Sets an option as `veles check` takes it: "method" (stat, aat, eto,
 * bmoe, int, loc, fast, lreg, preg, bounds), "alpha", "min-effect",
 * "severe", "test" (mann-whitney, welch), "rounds", "seed",
 * "aat-threshold", "on" (instructions, cycles, cpu, real, user, sys),
 * "models-type" (which models are paired: best-model, best-param,
 * best-nonparam, all-param, all-nonparam, all-models, best-both),
 * "strict-env" and "force" (true/false). A method may be named Perun's
 * way too ("average_amount_threshold"). VELES_ERR_INVALID for an unknown
 * key or a bad value.
 */
int veles_check_set(veles_check *c, const char *key, const char *value);
/*
 * Compares two profiles location by location: one row per location with
 * location, result (the class: "Degradation", "NoChange", ...), method,
 * rel_change (target / baseline - 1), ci_low, ci_high (its interval),
 * confidence, confidence_kind, baseline, target (the amounts compared),
 * n_baseline, n_target, note, detail, baseline_profile, target_profile,
 * baseline_id, target_id, baseline_version, target_version, config.
 */
int veles_check_profiles(veles_check *c, const veles_profile *base, const veles_profile *target,
			 veles_table **out);
/*
 * Compares each profile of version @target with the profile of version
 * @base that has the same configuration (type, command, arguments,
 * workload, collector, postprocessors), as `veles check head` does with a
 * parent; the rows of veles_check_profiles(). A target profile without a
 * match is a warning. Needs the project given to veles_check_new().
 */
int veles_check_versions(veles_check *c, const char *base, const char *target, veles_table **out);

/* ---- diffs and histories ---- */

/*
 * Two profiles side by side (`veles diff`): the values of @of ("amount"
 * when NULL) grouped by location (or by attribute @group_by), each group
 * aggregated by @agg ("sum", "mean", "median" (NULL), "min", "max",
 * "count"), one row per group of either side: name, baseline, target
 * (without a value where that side lacks the group) and rel_change
 * (target / baseline - 1), the largest changes either way first.
 * VELES_ERR_INVALID when @of is no numeric value of either profile.
 */
int veles_diff_profiles(const veles_profile *base, const veles_profile *target, const char *of,
			const char *group_by, const char *agg, veles_table **out);
/*
 * A metric's history (`veles log --perf KEY`): for every location matching
 * @match (exactly or as a substring) in the profiles of the versions
 * reachable from @rev (NULL: HEAD; at most @limit of them, 0: all), one
 * series per configuration and location, one row per point, oldest first:
 * series (its number), title, location, unit, version (full id), label,
 * median, q1, q3, n, change (1 where a change point starts a new
 * segment) and shift (the relative step there). VELES_ERR_NOTFOUND when
 * no location matches.
 */
int veles_history(veles_project *pr, const char *rev, size_t limit, const char *match,
		  veles_table **out);

/* ---- collection: what `veles collect`, `veles run matrix` and `veles
 * bisect` do ----
 *
 * These run commands. They run them in the current directory of the
 * process (checkouts of other versions: in a temporary git worktree),
 * with its environment. While they run, SIGINT and SIGTERM are caught:
 * the first is passed on to the running command and the operation ends
 * with VELES_ERR_INTERRUPTED, writing nothing more; the handlers found
 * are put back before they return. Collectors run quietly, as `veles
 * collect -q` (no summary: the profile holds it); what they warn of
 * reaches the log callback as VELES_LOG_WARNING, their progress
 * ("Collecting 3/10 ...") as VELES_LOG_PROGRESS.
 */

/*
 * Runs a collector on a command as `veles collect` does and writes the
 * profile, pending, into the project's .veles/jobs/ (atomically; a name
 * already there gets a -2, -3, ... suffix), filed under HEAD. @collector
 * is NULL-terminated: its name, then its options as on the command line
 * ({"time", "-r", "5", NULL}); @cmd the program and its arguments
 * ({"./prog", "100", NULL}). @options, NULL or NULL-terminated "key=value"
 * strings: "workload=TEXT" (header.workload; default: the arguments),
 * "name=FILE" (the profile's file name, Perun's --profile-name) and
 * "template=T" (its name template; default: the setting
 * format.output_profile_template, else BIN-COLLECTOR-WORKLOAD-TIMESTAMP).
 * *@path (when @path is not NULL) receives the file written (free with
 * veles_free()), NULL when the collector wrote none (trace --no-profile).
 * VELES_ERR_INVALID for an unknown collector, a bad option or no
 * command (nothing runs then); VELES_ERR_CHILD when the command cannot
 * be started. A command that exits with an error is a warning, as for
 * `veles collect`. A name not built in runs veles-collect-NAME from PATH
 * in the project's directory (docs/libveles.md): no @options then; *@path
 * is the one profile new in .veles/jobs/ (or NULL); its failing exit is
 * VELES_ERR_CHILD.
 */
int veles_collect(veles_project *pr, const char *const *collector, const char *const *cmd,
		  const char *const *options, char **path);

/*
 * Runs the project's job matrix (cmds x args x workloads x collectors, its
 * postprocessors; .veles/config.yml, veles.yml or the user's config.yml)
 * as `veles run matrix` does: on the working tree, filed under HEAD, when
 * @revs is NULL or empty; else on each version @revs names (NULL-terminated:
 * revisions, or A..B for the versions B has and A has not), each checked
 * out in a temporary worktree. The profiles stay pending in .veles/jobs/
 * (or are registered, when profiles.register_after_run is set). A failing
 * job does not stop the others: one row per job, in order: version, cmd,
 * args, workload, collector, ok (1 when it made a profile, else 0), error
 * (why not), path (the pending profile written), name (its file name),
 * registered (1 or 0), seconds. VELES_ERR_INVALID when the matrix has no
 * job or does not parse.
 */
int veles_run_matrix(veles_project *pr, const char *const *revs, veles_table **out);

/* ---- bisect: the first version that made a command slower ---- */

typedef struct veles_bisect veles_bisect;

/* A bisect of @pr (a git project) with `veles bisect`'s defaults. */
int veles_bisect_new(veles_project *pr, veles_bisect **out);
void veles_bisect_free(veles_bisect *b);
/*
 * Sets an option as `veles bisect` takes it: "build" (a shell command that
 * builds a checkout; default execute.pre_run), "runs" (rounds before the
 * first decision, at least 3; 10), "max-runs" (100), "on" (cpu, user,
 * real, sys: the time that decides), "min-effect" (0.02), "alpha" (0.05),
 * "seed", "strict-env" and "interleave" (true/false), "job" (measure with a
 * collector job, "time -r 5 -- ./prog 100", instead of timing the command)
 * and "location" (the job's location compared). VELES_ERR_INVALID for an
 * unknown key or a bad value.
 */
int veles_bisect_set(veles_bisect *b, const char *key, const char *value);
/*
 * Searches the first-parent line from @good to @bad (both revisions) for
 * the first version whose runs of @cmd (NULL-terminated; NULL with a
 * "job") are slower than good's, as `veles bisect` does: each version is
 * checked out in a temporary worktree and built there; the working tree is
 * not touched. One row per decision, in order, with columns version,
 * verdict, class, rel_change, n_good, n_version: a row per candidate
 * measured, verdict "good", "bad" or "unknown" (it could not be told
 * apart: the search ends), then, when found, a last row with verdict
 * "first", the first slow version, its class ("Degradation", ...), its
 * relative change against good and the values each side had. When bad is
 * not surely slower than good, the table is empty and a warning says so.
 * Progress goes to the log callback.
 */
int veles_bisect_run(veles_bisect *b, const char *good, const char *bad, const char *const *cmd,
		     veles_table **out);

#ifdef __cplusplus
}
#endif

#endif
