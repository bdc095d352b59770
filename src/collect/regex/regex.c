/*
 * veles collect regex: runs a command N times and makes a profile of what
 * it prints: every match of the user's patterns (or of a harness format's)
 * in its stdout, stderr or the files it writes is a resource
 * (docs/collect-regex.md). Lines that match nothing are counted and
 * reported, and a run in which nothing matched is an error.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "collect/collector.h"
#include "collect/meas.h"
#include "collect/regex/formats.h"
#include "collect/regex/regex.h"
#include "collect/regex/scan.h"
#include "collect/regex/summary.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "util/spawn.h"

#define NAME "regex"
/* Progress appears once a collection has run this long. */
#define PROGRESS_AFTER 1.0
/* A JSON document read from a stream larger than this is refused. */
#define DOC_MAX (256u << 20)

struct strv {
	char **v;
	size_t n;
};

struct rx_state {
	/* the options */
	struct strv patterns, ignores, files;
	const struct rx_format *format;
	const char *stream; /* as given, or NULL */
	const char *unit;   /* as given, or NULL */
	long repeat, warmup;
	/* the runs */
	struct spawner sp;
	bool sp_ready;
	struct rx_scan *scan;
	struct meas *meas;
	struct strv read; /* the files read after each run (globs) */
	unsigned streams; /* the streams parsed: SPAWN_STDOUT | SPAWN_STDERR, or 0 */
	struct buf doc;	  /* a JSON format's stream, this run */
	bool doc_too_big;
	bool measuring; /* false in warm-up runs: their output is not read */
	struct regex_totals totals;
	int *status; /* of each measured run */
	long done;
	double started; /* CLOCK_MONOTONIC seconds at the first run */
	bool drawn;	/* a progress line is on the terminal */
};

static void strv_add(struct strv *s, const char *v)
{
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = xstrdup(v);
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- options ---- */

static int pattern_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct rx_state *st = ctx;
	bool measure = o->short_name == 'e';

	/* Compiled here too, so that a job matrix's params are checked when
	 * config.yml is read. */
	if (rx_pattern_check(arg, measure) < 0)
		return err_prefix(ERR_INVALID, "collect " NAME);
	strv_add(measure ? &st->patterns : &st->ignores, arg);
	return 0;
}

static int file_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct rx_state *st = ctx;

	UNUSED(o);
	strv_add(&st->files, arg);
	return 0;
}

static int format_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct rx_state *st = ctx;

	UNUSED(o);
	st->format = rx_format_find(arg);
	if (!st->format)
		return err_set(ERR_INVALID,
			       "collect " NAME ": unknown --format '%s' (gbench, gbench-json, "
			       "hyperfine, criterion, go, pytest-benchmark, plain)",
			       arg);
	return 0;
}

static int stream_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct rx_state *st = ctx;

	UNUSED(o);
	if (strcmp(arg, "stdout") != 0 && strcmp(arg, "stderr") != 0 && strcmp(arg, "both") != 0)
		return err_set(ERR_INVALID,
			       "collect " NAME ": --stream is stdout, stderr or both, not '%s'",
			       arg);
	st->stream = arg;
	return 0;
}

/* --format's help: the formats, one a line (caller frees). */
static char *format_help(void)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "a harness's output:");
	for (const struct rx_format *const *f = rx_format_list(); *f; f++)
		buf_addf(&b, "\n%-17s %s", (*f)->name, (*f)->summary);
	return buf_detach(&b, NULL);
}

/* Each option on its own: the job matrix checks them one by one, so what
 * needs two of them together is checked in rx_before(). */
static int rx_parse(struct collect_ctx *c, int argc, char **argv)
{
	struct rx_state *st = xcalloc(1, sizeof(*st));
	char *formats = format_help();
	const struct opt opts[] = {
		OPT_CALLBACK('e', "pattern", "PATTERN", pattern_opt,
			     "a pattern (repeatable), e.g.\n"
			     "'(?<uid>\\w+): (?<amount>[\\d.]+) (?<unit>ms)'"),
		OPT_CALLBACK(0, "ignore", "PATTERN", pattern_opt,
			     "lines to skip without counting them unmatched"),
		OPT_CALLBACK(0, "format", "NAME", format_opt, formats),
		OPT_CALLBACK(0, "stream", "S", stream_opt, "stdout (default), stderr or both"),
		OPT_CALLBACK(0, "file", "PATH", file_opt,
			     "read this file (a glob) after each run, and not the\n"
			     "streams unless --stream is given (repeatable)"),
		OPT_STRING(0, "unit", &st->unit, "UNIT",
			   "the profile's unit (default: the format's; s for\n"
			   "times, B for sizes)"),
		OPT_LONG('r', "repeat", &st->repeat, "N", 1, "measured runs (default 1)"),
		OPT_LONG('w', "warmup", &st->warmup, "N", 0, "runs before, not read (default 0)"),
		OPT_END(),
	};
	const struct collect_options o = {
		.usage = "veles collect regex (-e PATTERN... | --format NAME) [OPTIONS] -- "
			 "COMMAND...",
		.about = "Runs COMMAND and makes a profile of the numbers it prints: every "
			 "match of\n"
			 "a PATTERN (PCRE2) in a line of its output is a resource. Named groups:\n"
			 "uid, amount (required), unit, subtype, structure_unit_size; any other\n"
			 "named group is an extra field. Amounts are converted to one unit per\n"
			 "profile. Lines that match nothing are counted and reported; a run in\n"
			 "which nothing matched is an error.",
		.opts = opts,
		.ctx = st,
	};
	int ret;

	st->repeat = 1;
	c->state = st;
	ret = collect_parse_options(c, NAME, &o, argc, argv);
	free(formats);
	if (ret < 0 || c->help)
		return ret;
	if (st->repeat > REGEX_MAX_RUNS || st->warmup > REGEX_MAX_RUNS)
		return err_set(ERR_INVALID, "collect " NAME ": at most %d runs", REGEX_MAX_RUNS);
	return 0;
}

/* ---- set-up ---- */

/* The value of the harness's option @opt in the command ("--export-json
 * F" or "--export-json=F"), or NULL. */
static const char *option_in_command(const struct collect_ctx *c, const char *opt)
{
	size_t len = strlen(opt);

	for (int i = 1; i < c->argc; i++) {
		if (strncmp(c->argv[i], opt, len) != 0)
			continue;
		if (c->argv[i][len] == '=')
			return c->argv[i] + len + 1;
		if (!c->argv[i][len] && i + 1 < c->argc)
			return c->argv[i + 1];
	}
	return NULL;
}

/* Which files are read after each run, and whether the streams are. */
static int choose_inputs(struct collect_ctx *c, struct rx_state *st)
{
	const struct rx_format *f = st->format;
	const char *named = f && f->file_option ? option_in_command(c, f->file_option) : NULL;

	for (size_t i = 0; i < st->files.n; i++)
		strv_add(&st->read, st->files.v[i]);
	if (!st->read.n && named)
		strv_add(&st->read, named);
	if (!st->read.n && f && f->files)
		for (size_t i = 0; f->files[i]; i++)
			strv_add(&st->read, f->files[i]);
	/* hyperfine and pytest-benchmark write their JSON only to a file. */
	if (!st->read.n && f && f->file_only)
		return err_set(ERR_INVALID,
			       "collect " NAME ": --format %s reads the file the command writes "
			       "with %s FILE: give it that option, or --file FILE",
			       f->name, f->file_option);
	if (st->read.n && !st->stream)
		st->streams = 0;
	else if (st->stream && strcmp(st->stream, "both") == 0)
		st->streams = SPAWN_STDOUT | SPAWN_STDERR;
	else if (st->stream && strcmp(st->stream, "stderr") == 0)
		st->streams = SPAWN_STDERR;
	else
		st->streams = SPAWN_STDOUT;
	if (f && f->parse && st->streams == (SPAWN_STDOUT | SPAWN_STDERR))
		return err_set(ERR_INVALID,
			       "collect " NAME ": --format %s reads one JSON document: "
			       "--stream stdout or stderr, not both",
			       f->name);
	return 0;
}

static int build_scan(struct collect_ctx *c, struct rx_state *st)
{
	int ret = 0;

	st->scan = rx_scan_new();
	rx_scan_set_default_uid(st->scan, c->argv[0]);
	if (st->format && st->format->setup)
		ret = st->format->setup(st->scan);
	for (size_t i = 0; ret == 0 && i < st->ignores.n; i++)
		ret = rx_scan_add_ignore(st->scan, st->ignores.v[i]);
	for (size_t i = 0; ret == 0 && i < st->patterns.n; i++)
		ret = rx_scan_add_measure(st->scan, st->patterns.v[i], NULL, NULL);
	return ret < 0 ? err_prefix(ret, "collect " NAME) : 0;
}

static void rx_sink(void *arg, int stream, const char *data, size_t len)
{
	struct rx_state *st = arg;

	if (!st->measuring)
		return;
	if (st->format && st->format->parse) {
		if (st->doc.len + len > DOC_MAX)
			st->doc_too_big = true;
		else
			buf_add(&st->doc, data, len);
		return;
	}
	rx_scan_feed(st->scan, stream == SPAWN_STDERR, data, len, st->meas);
}

static int rx_before(struct collect_ctx *c)
{
	struct rx_state *st = c->state;
	struct spawn_opts o;
	int ret;

	if (!st->patterns.n && !st->format)
		return err_set(ERR_INVALID,
			       "collect " NAME ": nothing to look for: give -e PATTERN or "
			       "--format NAME");
	if (st->patterns.n && st->format && st->format->parse)
		return err_set(ERR_INVALID,
			       "collect " NAME ": --format %s is read as JSON: it takes no -e "
			       "patterns",
			       st->format->name);
	ret = choose_inputs(c, st);
	if (ret == 0)
		ret = build_scan(c, st);
	if (ret < 0)
		return ret;
	st->meas = meas_new(st->unit ? st->unit : st->format ? st->format->unit : NULL);
	collect_spawn_opts(c, &o);
	if (st->streams) {
		o.sink = rx_sink;
		o.sink_arg = st;
		o.sink_streams = st->streams;
	}
	ret = spawner_init(&st->sp, c->argv, &o);
	st->sp_ready = true;
	if (ret < 0)
		return ret;
	st->status = xcalloc((size_t)st->repeat, sizeof(*st->status));
	return 0;
}

/* ---- the runs ---- */

static bool written_since(const struct stat *sb, const struct timespec *since)
{
	return sb->st_mtim.tv_sec > since->tv_sec ||
	       (sb->st_mtim.tv_sec == since->tv_sec && sb->st_mtim.tv_nsec >= since->tv_nsec);
}

/* One file the run wrote: a JSON document, or lines to scan. */
static int read_one(struct rx_state *st, const char *path, struct rx_counts *run)
{
	struct buf b = BUF_INIT;
	int ret = file_read_all(path, &b);

	if (ret == 0 && st->format && st->format->parse) {
		ret = st->format->parse(buf_str(&b), b.len, path, st->meas, run);
	} else if (ret == 0) {
		rx_scan_feed(st->scan, 0, b.data ? b.data : "", b.len, st->meas);
		rx_scan_flush(st->scan, st->meas);
	}
	buf_release(&b);
	return ret;
}

/*
 * The files of --file (or the format's) that the run wrote: a file older
 * than the run's start is a previous run's, skipped and counted. Stamps
 * come from the kernel's coarse clock, and so does @since.
 */
static int read_files(struct collect_ctx *c, struct rx_state *st, const struct timespec *since,
		      struct rx_counts *run, long n)
{
	unsigned long fresh = 0;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < st->read.n; i++) {
		glob_t g;

		if (glob(st->read.v[i], 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; ret == 0 && k < g.gl_pathc; k++) {
			struct stat sb;

			if (stat(g.gl_pathv[k], &sb) < 0 || !S_ISREG(sb.st_mode))
				continue;
			if (!written_since(&sb, since)) {
				st->totals.files_skipped++;
				continue;
			}
			ret = read_one(st, g.gl_pathv[k], run);
			fresh++;
		}
		globfree(&g);
	}
	st->totals.files_read += fresh;
	if (ret < 0)
		return err_prefix(ret, "collect " NAME);
	if (!fresh)
		return err_set(ERR_GENERIC,
			       "collect " NAME ": run %ld of '%s' wrote none of the files read "
			       "(%s%s): no profile written",
			       n, c->argv[0], st->read.v[0], st->read.n > 1 ? ", ..." : "");
	return 0;
}

static const char *streams_name(unsigned streams)
{
	return streams == SPAWN_STDERR			  ? "stderr"
	       : streams == (SPAWN_STDOUT | SPAWN_STDERR) ? "stdout and stderr"
							  : "stdout";
}

/* A measured run gave nothing: say what it printed instead. */
static int nothing_matched(struct collect_ctx *c, struct rx_state *st, const struct rx_counts *r,
			   long n)
{
	struct buf b = BUF_INIT;
	int ret;

	buf_addf(&b, "collect " NAME ": nothing matched in run %ld of '%s': ", n, c->argv[0]);
	if (!r->lines)
		buf_addf(&b, "it printed nothing on %s", streams_name(st->streams));
	else if (r->rejected) {
		buf_addf(&b, "%llu line%s matched but made no measurement (the first: ",
			 (unsigned long long)r->rejected, r->rejected == 1 ? "" : "s");
		regex_quote(&b, r->first_rejected ? r->first_rejected : "");
		buf_addf(&b, ": %s)", r->reject_why ? r->reject_why : "");
	} else if (r->unmatched) {
		buf_addf(&b, "none of its %llu line%s did (the first: ",
			 (unsigned long long)r->unmatched, r->unmatched == 1 ? "" : "s");
		regex_quote(&b, r->first_unmatched ? r->first_unmatched : "");
		buf_addc(&b, ')');
	} else {
		buf_addf(&b, "all of its %llu line%s were ignored", (unsigned long long)r->lines,
			 r->lines == 1 ? "" : "s");
	}
	buf_adds(&b, ": no profile written");
	/* A failed collection, not a usage error: exit status 1. */
	ret = err_set(ERR_GENERIC, "%s", buf_str(&b));
	buf_release(&b);
	return ret;
}

/* After a measured run: its last lines, its JSON, its files, its counts. */
static int finish_run(struct collect_ctx *c, struct rx_state *st, const struct timespec *since,
		      long n)
{
	struct rx_counts run = {0};
	int ret = 0;

	rx_scan_flush(st->scan, st->meas);
	if (st->doc_too_big)
		ret = err_set(ERR_INVALID, "collect " NAME ": run %ld printed over %u MiB of JSON",
			      n, DOC_MAX >> 20);
	else if (st->format && st->format->parse && st->streams)
		ret = st->format->parse(buf_str(&st->doc), st->doc.len, streams_name(st->streams),
					st->meas, &run);
	if (ret < 0)
		ret = err_prefix(ret, "collect " NAME);
	if (ret == 0 && st->read.n)
		ret = read_files(c, st, since, &run, n);
	rx_scan_take_counts(st->scan, &run);
	if (ret == 0 && !run.matched)
		ret = nothing_matched(c, st, &run, n);
	rx_counts_add(&st->totals.counts, &run);
	rx_counts_release(&run);
	buf_reset(&st->doc);
	return ret;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress_clear(struct collect_ctx *c, struct rx_state *st)
{
	if (st->drawn)
		collect_say(c, COLLECT_MSG_PROGRESS, "%s", "");
	st->drawn = false;
}

/* "Collecting 4/10 ..." on a terminal, once the runs take a while. */
static void progress_draw(struct collect_ctx *c, struct rx_state *st, long i, bool warm)
{
	if (!c->env->progress || c->quiet || mono_now() - st->started < PROGRESS_AFTER)
		return;
	collect_say(c, COLLECT_MSG_PROGRESS, "%s %ld/%ld ...", warm ? "Warming up" : "Collecting",
		    i + 1, warm ? st->warmup : st->repeat);
	st->drawn = true;
}

static int rx_run(struct collect_ctx *c, struct rx_state *st, long i, bool warm)
{
	struct spawn_result r;
	struct timespec since;
	char status[96];
	int ret;

	st->measuring = !warm;
	meas_set_order(st->meas, i + 1);
	/* The command's own output starts on a clean line. */
	if (c->output != OUTPUT_SUPPRESS)
		progress_clear(c, st);
	clock_gettime(CLOCK_REALTIME_COARSE, &since);
	ret = spawner_run(&st->sp, &r);
	if (ret < 0)
		return ret;
	progress_draw(c, st, i, warm);
	c->last_status = r.status;
	if (r.timed_out)
		return err_set(ERR_CHILD,
			       "collect " NAME ": '%s' timed out after %g s in %s run %ld of %ld "
			       "(%s): no profile written",
			       c->argv[0], c->timeout, warm ? "warm-up" : "measured", i + 1,
			       warm ? st->warmup : st->repeat,
			       spawn_status_str(r.status, status, sizeof(status)));
	if (warm || spawn_interrupted())
		return 0;
	st->status[i] = r.status;
	ret = finish_run(c, st, &since, i + 1);
	if (ret == 0)
		st->done = i + 1;
	return ret;
}

static int rx_collect(struct collect_ctx *c)
{
	struct rx_state *st = c->state;
	int ret = 0;

	st->started = mono_now();
	for (long i = 0; i < st->warmup && ret == 0 && !spawn_interrupted(); i++)
		ret = rx_run(c, st, i, true);
	for (long i = 0; i < st->repeat && ret == 0 && !spawn_interrupted(); i++)
		ret = rx_run(c, st, i, false);
	progress_clear(c, st);
	if (ret < 0 || spawn_interrupted())
		return ret;
	st->totals.runs = st->done;
	c->profile = meas_take(st->meas);
	regex_header(c->profile, &st->totals);
	return 0;
}

/* ---- the profile and the summary ---- */

static void json_list(struct buf *b, const char *key, const struct strv *v)
{
	if (!v->n)
		return;
	buf_addf(b, ",\"%s\":[", key);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			buf_addc(b, ',');
		buf_add_json_str(b, v->v[i], strlen(v->v[i]));
	}
	buf_addc(b, ']');
}

static void json_opt(struct buf *b, const char *key, const char *v)
{
	if (!v)
		return;
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, v, strlen(v));
}

/* The options as given: `veles check --collect-missing` replays them. */
static char *params_json(const struct rx_state *st)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "{\"repeat\":%ld,\"warmup\":%ld", st->repeat, st->warmup);
	json_opt(&b, "format", st->format ? st->format->name : NULL);
	json_list(&b, "pattern", &st->patterns);
	json_list(&b, "ignore", &st->ignores);
	json_opt(&b, "stream", st->stream);
	json_list(&b, "file", &st->files);
	json_opt(&b, "unit", st->unit);
	buf_addc(&b, '}');
	return buf_detach(&b, NULL);
}

/* "command exited with status 3 in 2 of 10 runs", when any run failed. */
static void warn_status(struct collect_ctx *c, const struct rx_state *st)
{
	long failed = 0, same = 0;
	int first = 0;
	char what[96];

	for (long i = 0; i < st->done; i++) {
		int s = st->status[i];

		if (WIFEXITED(s) && WEXITSTATUS(s) == 0)
			continue;
		if (!failed++)
			first = s;
		same += s == first;
	}
	if (!failed)
		return;
	spawn_status_str(first, what, sizeof(what));
	if (same == failed)
		collect_say(c, COLLECT_MSG_ERR, "Warning: command %s in %ld of %ld runs", what,
			    failed, st->done);
	else
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: command failed in %ld of %ld runs (the first %s)", failed,
			    st->done, what);
}

static int rx_after(struct collect_ctx *c)
{
	struct rx_state *st = c->state;

	free(c->profile->collector_params);
	c->profile->collector_params = params_json(st);
	if (!c->quiet)
		regex_summary(c, c->profile, &st->totals);
	warn_status(c, st);
	return 0;
}

static void rx_release(struct collect_ctx *c)
{
	struct rx_state *st = c->state;

	if (!st)
		return;
	if (st->sp_ready)
		spawner_release(&st->sp);
	strv_free(&st->patterns);
	strv_free(&st->ignores);
	strv_free(&st->files);
	strv_free(&st->read);
	rx_scan_free(st->scan);
	meas_free(st->meas);
	buf_release(&st->doc);
	rx_counts_release(&st->totals.counts);
	free(st->status);
	free(st);
	c->state = NULL;
}

const struct collector regex_collector = {
	.name = NAME,
	.summary = "numbers a command prints, picked by patterns or a harness's format",
	.parse = rx_parse,
	.before = rx_before,
	.collect = rx_collect,
	.after = rx_after,
	.release = rx_release,
};
