/* The monitor's loops: live sampling at absolute deadlines, and playback. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "monitor/record.h"
#include "monitor/run.h"
#include "util/common.h"

volatile int mon_stop;

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Sleeps until @start + @k intervals on the monotonic clock, so the time
 * spent sampling does not push later samples back. */
static void sleep_until(const struct timespec *start, double interval, long k)
{
	double at = (double)start->tv_sec + (double)start->tv_nsec / 1e9 + interval * (double)k;
	struct timespec ts = {(time_t)at, (long)((at - floor(at)) * 1e9)};

	while (!mon_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* What a recording says about where and how it was made. */
static char *make_header(const struct mon_run_opts *o, unsigned tables)
{
	struct utsname u;
	struct buf b = BUF_INIT;

	uname(&u);
	buf_addf(&b, "version: 1\nhost: %s\nkernel: %s %s\nmachine: %s\n", u.nodename, u.sysname,
		 u.release, u.machine);
	buf_addf(&b, "cpus: %ld\ninterval: %g\nsubsystems: %s\ntables: %u\n",
		 sysconf(_SC_NPROCESSORS_ONLN), o->interval, o->letters, tables);
	buf_addf(&b, "modules: %s\n", o->imports ? o->imports : "");
	return buf_detach(&b, NULL);
}

struct loop {
	const struct mon_run_opts *o;
	struct mon_out out;
	struct mon_interval iv;
	struct mon_sample s[2];
	struct mon_writer w;
	bool recording;
	unsigned long n; /* samples taken */
};

/* Shows (or, recording, stores) sample @cur after @prev. */
static int handle(struct loop *l, struct mon_sample *prev, struct mon_sample *cur)
{
	if (l->recording) {
		int rc = mon_writer_add(&l->w, cur);

		if (rc < 0)
			return rc;
	}
	if (l->o->debug >= 4 && l->recording)
		fprintf(stderr, ">>> %.3f <<< sample %lu recorded\n", cur->t, l->n);
	if (!prev || (l->recording && !l->o->debug))
		return 0;
	mon_interval_compute(&l->iv, prev, cur);
	mon_out_interval(&l->out, &l->iv);
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
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long k = 0; !mon_stop && (o->count < 0 || k <= o->count); k++) {
		struct mon_sample *cur = &l->s[k & 1], *prev = k ? &l->s[(k - 1) & 1] : NULL;

		if (k)
			sleep_until(&start, o->interval, k);
		if (k == 1)
			cpu0 = cpu_seconds();
		mon_sample_reset(cur);
		cur->t = now_real();
		rc = mon_reader_read(&r, cur);
		if (rc < 0 || (rc = handle(l, prev, cur)) < 0)
			break;
		l->n++;
	}
	if (o->self && l->n > 1)
		fprintf(stderr, "veles monitor: %.3f ms of cpu per sample over %lu samples\n",
			(cpu_seconds() - cpu0) * 1e3 / (double)(l->n - 1), l->n - 1);
	mon_reader_close(&r);
	return rc;
}

static int playback(struct loop *l)
{
	struct mon_player p;
	const struct mon_sample *prev = NULL, *cur;
	int rc = mon_player_open(&p, l->o->playback);
	long k = 0;

	if (rc < 0)
		return rc;
	while (!mon_stop && (l->o->count < 0 || k <= l->o->count)) {
		rc = mon_player_next(&p, &cur);
		if (rc <= 0)
			break;
		if (prev) {
			mon_interval_compute(&l->iv, prev, cur);
			mon_out_interval(&l->out, &l->iv);
		}
		prev = cur;
		k++;
	}
	if (rc >= 0 && p.damaged)
		fprintf(stderr, "veles monitor: %s is damaged: played back its first %lu samples\n",
			l->o->playback, p.nsamples);
	mon_player_close(&p);
	return rc < 0 ? rc : 0;
}

int mon_run(const struct mon_run_opts *o)
{
	struct loop l = {.o = o};
	int rc;

	l.out.f = o->out;
	l.out.format = o->format;
	l.out.sep = o->sep;
	l.out.per_interval = o->per_interval;
	l.out.millis = o->interval < 1 || o->interval != floor(o->interval);
	l.iv.per_interval = o->per_interval;
	rc = mon_out_init(&l.out, o->letters);
	if (rc >= 0 && o->record) {
		char *h = make_header(o, mon_out_tables(&l.out));

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
	fflush(o->out);
	mon_out_release(&l.out);
	mon_interval_release(&l.iv);
	mon_sample_release(&l.s[0]);
	mon_sample_release(&l.s[1]);
	return rc;
}
