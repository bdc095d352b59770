/* The monitor's loops: live sampling at absolute deadlines, and playback. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monitor/export.h"
#include "monitor/modules.h"
#include "monitor/procs.h"
#include "monitor/record.h"
#include "monitor/run.h"
#include "util/common.h"

volatile int mon_stop;
static volatile sig_atomic_t child_exited;

static void on_child(int sig)
{
	UNUSED(sig);
	child_exited = 1;
}

/* The time of a sample, in whole microseconds as recordings keep it, so
 * what is shown live is what a playback shows, to the last digit. */
static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000) / 1e6;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double mono_secs(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

static double mono_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return mono_secs(&now);
}

/* Waits until @at (monotonic seconds), or a signal (the command's end, a
 * stop); with a prometheus export, answers its requests meanwhile. */
static void wait_until(struct mon_export *e, double at)
{
	struct timespec ts = {(time_t)at, (long)((at - floor(at)) * 1e9)};

	/* Serving, even when late or back to back (-i 0): a look at the
	 * listening socket answers a waiting request. */
	if (e && e->listen_fd >= 0) {
		mon_export_wait(e, at);
		return;
	}
	/* Late already (or back to back): no system call to sleep for nothing. */
	if (mono_now() >= at)
		return;
	while (!mon_stop && !child_exited &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* What a recording says about where and how it was made. */
static char *make_header(const struct mon_run_opts *o, unsigned tables, struct mon_modules *mods)
{
	struct utsname u;
	struct buf b = BUF_INIT;

	uname(&u);
	buf_addf(&b, "version: 1\nhost: %s\nkernel: %s %s\nmachine: %s\n", u.nodename, u.sysname,
		 u.release, u.machine);
	buf_addf(&b, "cpus: %ld\ninterval: %g\nsubsystems: %s\ntables: %u\n",
		 sysconf(_SC_NPROCESSORS_ONLN), o->interval, o->letters ? o->letters : "cdn",
		 tables);
	buf_addf(&b, "modules: %s\n", o->imports ? o->imports : "");
	mon_modules_update_header(mods, &b);
	return buf_detach(&b, NULL);
}

extern char **environ;

struct loop {
	const struct mon_run_opts *o;
	struct mon_out out;
	struct mon_interval iv;
	struct mon_sample s[2];
	struct mon_writer w;
	struct mon_modules mods;
	struct mon_export exp;
	struct mon_procsel procsel;
	bool exporting;
	bool recording;
	pid_t child;	/* the command of `veles monitor -- CMD`, or 0 */
	double kill_at; /* monotonic seconds of the next timeout signal; 0: none */
	int kill_stage; /* 0: none sent, 1: SIGTERM sent, 2: SIGKILL sent */
	double t0;	/* the first sample's time */
	struct buf scratch;
	unsigned long n; /* samples taken */
};

/* -d4: the raw sample, as it is recorded, a line at a time. */
static void debug_dump(const struct loop *l, const struct mon_sample *s)
{
	struct buf b = BUF_INIT;

	if (!l->o->say)
		return;
	mon_say(l->o->say, l->o->say_arg, ">>> %.3f <<<", s->t);
	for (int t = 0; t < MT_COUNT; t++) {
		const struct mon_table *tab = &s->tab[t];

		for (size_t r = 0; r < tab->nrows; r++) {
			buf_reset(&b);
			buf_addf(&b, "%s %s", mon_tabdefs[t].name, tab->names[r]);
			for (size_t k = 0; k < mon_tabdefs[t].ncols; k++)
				buf_addf(&b, " %llu",
					 (unsigned long long)
						 tab->vals[r * mon_tabdefs[t].ncols + k]);
			l->o->say(l->o->say_arg, buf_str(&b));
		}
	}
	for (size_t i = 0; i < s->nmod; i++)
		l->o->say(l->o->say_arg, s->mod[i].line);
	buf_release(&b);
}

/* --profile: the interval's values, each line prefixed with its time. */
static void add_values(struct loop *l, const struct mon_interval *iv)
{
	buf_reset(&l->scratch);
	mon_out_values(&l->out, iv, &l->scratch);
	for (const char *p = l->scratch.data; p && *p;) {
		size_t n = strcspn(p, "\n");

		buf_addf(l->o->values, "%.3f %.*s\n", iv->cur->t - l->t0, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* Prints or exports the interval from @prev to @cur. */
static int show_interval(struct loop *l, const struct mon_sample *prev,
			 const struct mon_sample *cur)
{
	mon_interval_compute(&l->iv, prev, cur);
	if (l->o->values)
		add_values(l, &l->iv);
	if (l->o->quiet)
		return 0;
	if (l->exporting)
		return mon_export_interval(&l->exp, &l->out, &l->iv);
	mon_out_interval(&l->out, &l->iv);
	return 0;
}

/* Shows (or, recording, stores) sample @cur after @prev. */
static int handle(struct loop *l, const struct mon_sample *prev, const struct mon_sample *cur)
{
	/* Recording prints nothing, as collectl's -f, unless plot lines or an
	 * export were asked for too (or -d4). */
	bool show = prev &&
		    (!l->recording || l->o->debug >= 4 || l->o->format == MON_PLOT || l->exporting);

	if (l->recording) {
		int rc = mon_writer_add(&l->w, cur);

		if (rc < 0)
			return rc;
	}
	if (l->o->debug >= 4)
		debug_dump(l, cur);
	mon_modules_analyze(&l->mods, cur, prev ? cur->t - prev->t : 0);
	if (show) {
		int rc = show_interval(l, prev, cur);

		if (rc < 0)
			return rc;
	}
	mon_modules_interval_end(&l->mods);
	return 0;
}

/* Whether the command has exited (its status is kept); a last sample is
 * still taken by the caller's loop only while it runs. */
static bool child_done(struct loop *l)
{
	int status;

	if (waitpid(l->child, &status, WNOHANG) != l->child)
		return false;
	if (l->o->cmd_status)
		*l->o->cmd_status = status;
	l->child = 0;
	return true;
}

/* The timeout: SIGTERM when it expires, SIGKILL after a grace period; a
 * command that has already exited is only reaped. */
static void timeout_signal(struct loop *l)
{
	if (!l->child || child_done(l))
		return;
	if (l->kill_stage == 0) {
		kill(l->child, SIGTERM);
		if (l->o->timed_out)
			*l->o->timed_out = true;
		l->kill_at += MON_TIMEOUT_GRACE;
	} else {
		kill(l->child, SIGKILL);
		l->kill_at = 0;
	}
	l->kill_stage++;
}

static bool timeout_due(const struct loop *l)
{
	return l->child && l->kill_at > 0 && mono_now() >= l->kill_at;
}

/* Sleeps until @start + @k intervals on the monotonic clock, so the time
 * spent sampling does not push later samples back; the command's timeout
 * is enforced meanwhile. */
static void sleep_until(struct loop *l, const struct timespec *start, long k)
{
	double at = mono_secs(start) + l->o->interval * (double)k;

	for (;;) {
		bool kill_first = l->child && l->kill_at > 0 && l->kill_at < at;

		wait_until(l->exporting ? &l->exp : NULL, kill_first ? l->kill_at : at);
		if (!timeout_due(l))
			return;
		timeout_signal(l);
	}
}

/* Waits for a command still running when sampling stopped (-c, Ctrl-C),
 * its timeout still enforced. */
static void wait_child(struct loop *l)
{
	while (l->child && l->kill_at > 0 && !child_done(l)) {
		/* Short naps: a command that ends between the check and the
		 * sleep is noticed soon, without a race on SIGCHLD. */
		double at = fmin(l->kill_at, mono_now() + 0.05);
		struct timespec ts = {(time_t)at, (long)((at - floor(at)) * 1e9)};

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (timeout_due(l))
			timeout_signal(l);
	}
	if (l->child) {
		int status;

		waitpid(l->child, &status, 0);
		if (l->o->cmd_status)
			*l->o->cmd_status = status;
		l->child = 0;
	}
}

static int start_child(struct loop *l)
{
	struct sigaction sa = {.sa_handler = on_child};
	posix_spawn_file_actions_t fa;
	int rc;

	sigaction(SIGCHLD, &sa, NULL); /* ends the wait for the next sample */
	posix_spawn_file_actions_init(&fa);
	if (l->o->cmd_output) {
		posix_spawn_file_actions_addopen(&fa, 1, l->o->cmd_output,
						 O_WRONLY | O_CREAT | O_APPEND, 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	/* After the open: a relative cmd_output is ours, not CMD's. */
	if (l->o->cmd_cwd)
		posix_spawn_file_actions_addchdir_np(&fa, l->o->cmd_cwd);
	rc = posix_spawnp(&l->child, l->o->cmd[0], &fa, NULL, l->o->cmd, environ);
	posix_spawn_file_actions_destroy(&fa);

	if (rc) {
		l->child = 0;
		return err_set(ERR_CHILD, "cannot run %s: %s", l->o->cmd[0], strerror(rc));
	}
	if (l->o->timeout > 0)
		l->kill_at = mono_now() + l->o->timeout;
	return 0;
}

static int live(struct loop *l)
{
	const struct mon_run_opts *o = l->o;
	struct mon_reader r;
	struct timespec start;
	int rc = 0;
	double cpu0 = 0;

	mon_reader_init(&r, o->proc_root ? o->proc_root : "/proc", mon_out_tables(&l->out));
	r.procsel = l->out.procsel;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long k = 0; !mon_stop && (o->count < 0 || k <= o->count); k++) {
		struct mon_sample *cur = &l->s[k & 1], *prev = k ? &l->s[(k - 1) & 1] : NULL;

		/* A command that ended by the first sample's end is sampled
		 * again at once: its one interval is its whole run. */
		if (k && (!o->cmd || l->child))
			sleep_until(l, &start, k);
		if (k == 1)
			cpu0 = cpu_seconds();
		mon_sample_reset(cur);
		cur->t = now_real();
		if (!k)
			l->t0 = cur->t;
		rc = mon_reader_read(&r, cur);
		if (rc >= 0)
			mon_modules_get_data(&l->mods, cur);
		if (rc < 0 || (rc = handle(l, prev, cur)) < 0)
			break;
		l->n++;
		/* The command starts after the first sample, so its whole run
		 * is measured, however short. */
		if (!k && o->cmd && (rc = start_child(l)) < 0)
			break;
		/* The command's end closes its last (shorter) interval. */
		if (k && o->cmd && (!l->child || child_done(l)))
			break;
		if (timeout_due(l))
			timeout_signal(l);
	}
	if (o->self && l->n > 1)
		mon_say(o->say, o->say_arg,
			"veles monitor: %.3f ms of cpu per sample over %lu samples",
			(cpu_seconds() - cpu0) * 1e3 / (double)(l->n - 1), l->n - 1);
	mon_reader_close(&r);
	wait_child(l); /* stopped early (-c, Ctrl-C): wait for the command */
	return rc;
}

/* What the recording says: its subsystems (unless -s chose) and interval. */
static int playback_setup(struct loop *l, const struct mon_player *p)
{
	char v[64], t[32];

	if (mon_header_get(p->header, "interval", v, sizeof(v))) {
		double secs = atof(v);

		l->out.millis = secs < 1 || secs != floor(secs);
	}
	if (l->o->letters)
		return 0;
	if (!mon_header_get(p->header, "subsystems", v, sizeof(v)) || !v[0])
		snprintf(v, sizeof(v), "cdn");
	/* Recordings made before Z meant each process used it for the
	 * process counts and loads, now z: their tables have no processes. */
	if (mon_header_get(p->header, "tables", t, sizeof(t)) &&
	    !(strtoul(t, NULL, 10) & (1u << MT_PROC)))
		for (char *z = strchr(v, 'Z'); z; z = strchr(z, 'Z'))
			*z = 'z';
	return mon_out_init(&l->out, v);
}

static int playback(struct loop *l)
{
	struct mon_player p;
	const struct mon_sample *prev = NULL, *cur;
	int rc = mon_player_open(&p, l->o->playback);
	long k = 0;

	if (rc >= 0)
		rc = playback_setup(l, &p);
	if (rc < 0) {
		mon_player_close(&p);
		return rc;
	}
	mon_modules_get_header(&l->mods, p.header);
	while (!mon_stop && (l->o->count < 0 || k <= l->o->count)) {
		rc = mon_player_next(&p, &cur);
		if (rc <= 0)
			break;
		if (!prev)
			l->t0 = cur->t;
		if (l->mods.n)
			mon_modules_analyze(&l->mods, cur, prev ? cur->t - prev->t : 0);
		if (prev && (rc = show_interval(l, prev, cur)) < 0)
			break;
		if (l->mods.n)
			mon_modules_interval_end(&l->mods);
		/* Playback does not wait: a prometheus export answers the
		 * requests waiting every so many intervals. */
		if (l->exporting && !(k & 255))
			mon_export_wait(&l->exp, 0);
		prev = cur;
		k++;
	}
	/* A damaged recording plays what it holds; one that holds not one
	 * whole sample is an error, not an empty success. */
	if (rc >= 0 && p.damaged && !p.nsamples)
		rc = err_set(ERR_PARSE, "%s is damaged: it holds no whole sample", l->o->playback);
	else if (rc >= 0 && p.damaged && p.gaps)
		mon_say(l->o->say, l->o->say_arg,
			"veles monitor: %s is damaged: played back %lu samples, skipping %u "
			"damaged part%s",
			l->o->playback, p.nsamples, p.gaps, p.gaps == 1 ? "" : "s");
	else if (rc >= 0 && p.damaged)
		mon_say(l->o->say, l->o->say_arg,
			"veles monitor: %s is damaged: played back its first %lu samples",
			l->o->playback, p.nsamples);
	mon_player_close(&p);
	return rc < 0 ? rc : 0;
}

int mon_run(const struct mon_run_opts *o)
{
	struct loop l = {.o = o};
	int rc = 0;

	l.out.f = o->out;
	l.out.format = o->format;
	l.out.sep = o->sep;
	l.out.per_interval = o->per_interval;
	l.out.hr_set = o->hr_set;
	l.out.hr = o->hr;
	l.out.millis = o->interval < 1 || o->interval != floor(o->interval);
	l.iv.per_interval = o->per_interval;
	l.mods.sep = o->sep;
	l.mods.per_interval = o->per_interval;
	l.mods.skip_unloadable = o->imports_optional;
	l.mods.say = o->say;
	l.mods.say_arg = o->say_arg;
	l.out.mods = &l.mods;
	l.out.batch = o->playback != NULL;
	/* Without -s: a recording's own subsystems (see playback_setup), else cdn. */
	if (o->letters || !o->playback)
		rc = mon_out_init(&l.out, o->letters ? o->letters : "cdn");
	if (o->procfilt || o->top) {
		l.procsel.sort = -1;
		if (rc >= 0 && o->procfilt)
			rc = mon_procsel_filter(&l.procsel, o->procfilt);
		if (rc >= 0 && o->top)
			rc = mon_procsel_top(&l.procsel, o->top);
		l.out.procsel = &l.procsel;
	}
	if (rc >= 0 && o->imports)
		rc = mon_modules_load(&l.mods, o->imports);
	if (rc >= 0 && o->export_spec) {
		rc = mon_export_parse(&l.exp, o->export_spec);
		if (rc >= 0)
			rc = mon_export_open(&l.exp, o->out);
		l.exporting = rc >= 0;
	}
	if (rc >= 0 && o->record) {
		char *h = make_header(o, mon_out_tables(&l.out), &l.mods);

		rc = mon_writer_open(&l.w, o->record, h);
		l.recording = rc >= 0;
		free(h);
	}
	if (rc >= 0)
		rc = o->playback ? playback(&l) : live(&l);
	if (l.recording) {
		int wrc = mon_writer_close(&l.w);

		rc = rc < 0 ? rc : wrc;
	}
	if (o->export_spec) /* parsed, opened or not */
		mon_export_close(&l.exp);
	mon_out_flush(&l.out);
	if (o->out)
		fflush(o->out);
	buf_release(&l.scratch);
	mon_modules_unload(&l.mods);
	mon_out_release(&l.out);
	mon_interval_release(&l.iv);
	mon_sample_release(&l.s[0]);
	mon_sample_release(&l.s[1]);
	return rc;
}
