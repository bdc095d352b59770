/* Sampling into a record file (psample.h). */
#include <stdlib.h>
#include <string.h>

#include "collect/perf/psample.h"
#include "perf/perf.h"
#include "util/error.h"
#include "util/xalloc.h"

/*
 * What to sample of an event. A tracepoint also keeps its raw fields
 * (PERF_SAMPLE_RAW, for veles script) and, unless -F or -c says otherwise,
 * every occurrence: a tracepoint's rate is the program's, not a clock's.
 */
static void sampling(const struct psample_opts *o, struct perf_event_attr *attr)
{
	bool tp = attr->type == PERF_TYPE_TRACEPOINT;
	unsigned long period = o->period ? o->period : (tp && !o->freq_given ? 1 : 0);

	attr->sample_type = PERF_SAMPLER_TYPE | (o->callchain ? PERF_SAMPLE_CALLCHAIN : 0) |
			    (tp ? PERF_SAMPLE_RAW : 0);
	attr->freq = period == 0;
	if (period)
		attr->sample_period = period;
	else
		attr->sample_freq = o->freq ? o->freq : 4000;
}

/* A,B,...: each name parsed; more than one must all be tracepoints, whose
 * samples say which they are (their raw data starts with the event's id). */
static int split_events(struct psample *p)
{
	char *list = xstrdup(p->event), *save = NULL;
	int ret = 0;

	for (char *n = strtok_r(list, ",", &save); n && ret == 0; n = strtok_r(NULL, ",", &save)) {
		if (p->nev == PSAMPLE_MAX_EVENTS) {
			ret = err_set(ERR_PARSE, "at most %d events", PSAMPLE_MAX_EVENTS);
			break;
		}
		p->names[p->nev] = xstrdup(n);
		ret = perf_event_parse(n, &p->attrs[p->nev++]);
	}
	free(list);
	if (ret < 0)
		return ret;
	if (p->nev == 0)
		return err_set(ERR_PARSE, "-e needs an event name");
	for (size_t i = 0; p->nev > 1 && i < p->nev; i++)
		if (p->attrs[i].type != PERF_TYPE_TRACEPOINT)
			return err_set(ERR_PARSE,
				       "several events must all be tracepoints (%s is not one)",
				       p->names[i]);
	return 0;
}

int psample_events(struct psample *p, const struct psample_opts *o)
{
	int ret;

	p->event = o->events;
	if (!p->event) {
		/* The default falls back to cpu-clock without a PMU. */
		p->event = "cycles";
		perf_event_parse(p->event, &p->attrs[0]);
		if (perf_probe(&p->attrs[0]) != 0) {
			p->event = "cpu-clock";
			perf_event_parse(p->event, &p->attrs[0]);
		}
		p->names[p->nev++] = xstrdup(p->event);
	} else if ((ret = split_events(p)) != 0) {
		return ret;
	}
	for (size_t i = 0; i < p->nev; i++)
		sampling(o, &p->attrs[i]);
	return 0;
}

/* The format file of each tracepoint, kept in the recording (docs/perf-data.md). */
static int write_formats(struct psample *p)
{
	int ret = 0;

	for (size_t i = 0; i < p->nev && ret == 0; i++) {
		char *text = NULL, *sys;

		if (p->attrs[i].type != PERF_TYPE_TRACEPOINT)
			continue;
		if ((ret = perf_tracepoint_format(p->names[i], &text)) < 0)
			break;
		sys = xstrndup(p->names[i], strcspn(p->names[i], ":"));
		ret = perf_data_write_tpformat(&p->w, sys, text);
		free(sys);
		free(text);
	}
	return ret;
}

int psample_create(struct psample *p, const char *path)
{
	struct perf_data_header h = {.magic = PERF_DATA_MAGIC, .version = PERF_DATA_VERSION};
	int ret;

	h.name_len = (uint32_t)strlen(p->event);
	h.header_size = (uint32_t)(sizeof(h) + h.name_len);
	h.sample_type = p->attrs[0].sample_type;
	h.freq = p->attrs[0].freq;
	h.period = h.freq ? p->attrs[0].sample_freq : p->attrs[0].sample_period;
	h.event_type = p->attrs[0].type;
	h.event_config = p->attrs[0].config;
	p->h = h;
	p->s.out = &p->w;
	if ((ret = perf_data_create(&p->w, path, &h, p->event)) < 0)
		return ret;
	p->created = true;
	return write_formats(p);
}

int psample_open(struct psample *p, const struct ptarget_spec *spec)
{
	struct ptarget *t = &p->target;
	int ret = ptarget_open(t, spec);
	pid_t child = spec->system_wide ? PERF_SAMPLER_ALL : t->ch.pid;

	if (ret < 0)
		return ret;
	if (t->tids && perf_sampler_synthesize(&p->w, spec->pid ? spec->pid : spec->tid) < 0)
		return ERR_IO;
	for (size_t i = 0; i < p->nev && ret == 0; i++)
		ret = perf_sampler_open(&p->s, p->names[i], &p->attrs[i], child, t->tids, t->ntids);
	/* Named after the events are open, so no thread falls in between. */
	if (ret == 0 && spec->system_wide && perf_sampler_synthesize_all(&p->w) < 0)
		return ERR_IO;
	return ret;
}

int psample_start(struct psample *p)
{
	return ptarget_start(&p->target);
}

/* Buffers that hung up (their thread is gone) are left out of the poll. */
static void poll_fds(const struct psample *p, struct pollfd *fds)
{
	for (size_t i = 0; i < p->s.n; i++)
		if (fds[i].fd >= 0 && (fds[i].revents & (POLLHUP | POLLERR)))
			fds[i].fd = -1;
}

int psample_run(struct psample *p, const struct psample_hooks *hooks)
{
	struct psample_hooks none = {0};
	struct pollfd *fds = xcalloc(p->s.n ? p->s.n : 1, sizeof(*fds));
	int ret = 0, batch;
	bool ended = false;

	hooks = hooks ? hooks : &none;
	batch = hooks->batch_ms > 0 ? hooks->batch_ms : 100;
	p->s.on_record = hooks->record;
	p->s.on_record_arg = hooks->arg;
	for (size_t i = 0; i < p->s.n; i++)
		fds[i] = (struct pollfd){.fd = p->s.rings[i].fd, .events = POLLIN};
	while (!ended && ret == 0) {
		struct timespec dl;

		clock_gettime(CLOCK_MONOTONIC, &dl);
		dl.tv_nsec += (long)batch * 1000000L;
		dl.tv_sec += dl.tv_nsec / 1000000000L;
		dl.tv_nsec %= 1000000000L;
		ended = ptarget_wait(&p->target, &dl, fds, p->s.n);
		poll_fds(p, fds);
		ret = perf_sampler_drain(&p->s);
		if (ret == 0 && hooks->tick)
			hooks->tick(hooks->arg);
	}
	free(fds);
	ptarget_reap(&p->target);
	return ret;
}

void psample_close(struct psample *p)
{
	perf_sampler_close(&p->s);
}

int psample_commit(struct psample *p, bool ok)
{
	if (!p->created)
		return 0;
	p->created = false;
	return perf_data_close(&p->w, ok);
}

void psample_free(struct psample *p)
{
	perf_sampler_close(&p->s);
	if (p->created)
		perf_data_close(&p->w, false);
	ptarget_release(&p->target);
	for (size_t i = 0; i < p->nev; i++)
		free(p->names[i]);
	p->nev = 0;
}
