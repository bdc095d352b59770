/* How `veles stat` writes counts: perf's layouts, plus the derived ratios. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "collect/perf/stat_text.h"
#include "perf/counters.h"
#include "perf/metrics.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* The ratio of event @i, from every event's count in the same span. */
static struct perf_metric metric_of(const struct stat_out *o, const struct pcount_value *s,
				    size_t i, double span_ns)
{
	struct perf_count *counts = xcalloc(o->cs->n, sizeof(*counts));
	struct perf_metric m;

	for (size_t k = 0; k < o->cs->n; k++)
		counts[k] = (struct perf_count){s[k].value,
						!o->cs->v[k].unsupported && s[k].running > 0};
	m = perf_metric(o->cs, counts, i, span_ns);
	free(counts);
	return m;
}

/* The count as text ("<not supported>" / "<not counted>") and its unit. */
static const char *value_text(const struct perf_counter *c, const struct pcount_value *s, char *buf,
			      size_t len, const char **unit)
{
	/* The unit is the event's, counted or not, as perf prints it. */
	*unit = perf_is_clock(c) ? "msec" : "";
	if (c->unsupported)
		return "<not supported>";
	if (!s->running)
		return "<not counted>";
	if (perf_is_clock(c))
		snprintf(buf, len, "%.2f", s->value / 1e6);
	else
		snprintf(buf, len, "%.0f", s->value);
	return buf;
}

/* Never scaled (running == enabled, both 0 included) is 100%, as in perf. */
static double pct_running(const struct pcount_value *s)
{
	return s->enabled && s->running != s->enabled
		       ? 100.0 * (double)s->running / (double)s->enabled
		       : 100.0;
}

static void text_line(const struct stat_out *o, const struct pcount_value *s, size_t i,
		      const struct perf_metric *m, double t, struct buf *out)
{
	const struct perf_counter *c = &o->cs->v[i];
	const char *unit;
	char buf[64];
	const char *v = value_text(c, &s[i], buf, sizeof(buf), &unit);
	struct buf line = BUF_INIT;

	if (t >= 0)
		buf_addf(&line, "%16.9f ", t);
	buf_addf(&line, "%18s %-4s %-32s", v, unit, c->name);
	if (m->unit)
		buf_addf(&line, " # %8.3f %s", m->value, m->unit);
	if (!c->unsupported && s[i].running && s[i].running < s[i].enabled)
		buf_addf(&line, "  (%.2f%%)", pct_running(&s[i]));
	while (line.len && line.data[line.len - 1] == ' ')
		line.data[--line.len] = '\0';
	buf_add(out, line.data, line.len);
	buf_addc(out, '\n');
	buf_release(&line);
}

static void csv_line(const struct stat_out *o, const struct pcount_value *s, size_t i,
		     const struct perf_metric *m, double t, struct buf *out)
{
	const struct perf_counter *c = &o->cs->v[i];
	const char *unit, *sep = o->sep;
	char buf[64];
	const char *v = value_text(c, &s[i], buf, sizeof(buf), &unit);

	if (t >= 0)
		buf_addf(out, "%.9f%s", t, sep);
	buf_addf(out, "%s%s%s%s%s%s%llu%s%.2f%s", v, sep, unit, sep, c->name, sep,
		 (unsigned long long)s[i].running, sep, pct_running(&s[i]), sep);
	if (m->unit)
		buf_addf(out, "%.3f%s%s\n", m->value, sep, m->unit);
	else
		buf_addf(out, "%s\n", sep);
}

static void json_line(const struct stat_out *o, const struct pcount_value *s, size_t i,
		      const struct perf_metric *m, double t, struct buf *b)
{
	const struct perf_counter *c = &o->cs->v[i];
	const char *unit;
	char buf[64];

	value_text(c, &s[i], buf, sizeof(buf), &unit);
	buf_adds(b, "{");
	if (t >= 0)
		buf_addf(b, "\"interval\":%.9f,", t);
	buf_adds(b, "\"event\":");
	buf_add_json_str(b, c->name, strlen(c->name));
	if (c->unsupported || !s[i].running)
		buf_addf(b, ",\"counter-value\":null,\"supported\":%s",
			 c->unsupported ? "false" : "true");
	else
		buf_addf(b, ",\"counter-value\":%.10g,\"supported\":true",
			 perf_is_clock(c) ? s[i].value / 1e6 : s[i].value);
	buf_addf(b,
		 ",\"unit\":\"%s\",\"raw-value\":%llu,\"enabled-ns\":%llu,\"running-ns\":%llu"
		 ",\"pcnt-running\":%.2f",
		 unit, (unsigned long long)s[i].raw, (unsigned long long)s[i].enabled,
		 (unsigned long long)s[i].running, pct_running(&s[i]));
	if (m->unit && isfinite(m->value))
		buf_addf(b, ",\"metric-value\":%.6g,\"metric-unit\":\"%s\"", m->value, m->unit);
	buf_adds(b, "}\n");
}

void stat_text_interval_header(const struct stat_out *o, struct buf *out)
{
	if (o->fmt == STAT_TEXT)
		buf_adds(out, "#           time             counts unit events\n");
}

void stat_text(const struct stat_out *o, const struct pcount_value *samples, double span_ns,
	       double t, struct buf *out)
{
	for (size_t i = 0; i < o->cs->n; i++) {
		struct perf_metric m = metric_of(o, samples, i, span_ns);

		if (o->fmt == STAT_CSV)
			csv_line(o, samples, i, &m, t, out);
		else if (o->fmt == STAT_JSON)
			json_line(o, samples, i, &m, t, out);
		else
			text_line(o, samples, i, &m, t, out);
	}
}

void stat_text_title(char **argv, int argc, int pid, bool system_wide, struct buf *out)
{
	buf_adds(out, "\n Performance counter stats for ");
	if (pid)
		buf_addf(out, "process id '%d'", pid);
	else if (system_wide)
		buf_adds(out, "'system wide'");
	else
		for (int i = 0; i < argc; i++)
			buf_addf(out, "%s%s%s", i ? " " : "'", argv[i], i + 1 == argc ? "'" : "");
	buf_adds(out, ":\n\n");
}

void stat_text_times(double elapsed, const struct rusage *ru, struct buf *out)
{
	buf_addf(out, "\n%18.9f seconds time elapsed\n", elapsed);
	if (ru)
		buf_addf(out, "\n%18.9f seconds user\n%18.9f seconds sys\n",
			 (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6,
			 (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
	buf_addc(out, '\n');
}
