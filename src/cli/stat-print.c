/* How `veles stat` prints counts: perf's layouts, plus the derived ratios. */
#include <math.h>
#include <string.h>

#include "cli/stat.h"
#include "util/buf.h"

struct metric {
	double value;
	const char *unit; /* NULL: none */
};

static bool is_event(const struct perf_counter *c, uint32_t type, uint64_t config)
{
	return c->attr.type == type && c->attr.config == config;
}

/* The sample of the first supported event (@type, @config), or NULL. */
static const struct stat_sample *find(const struct stat_out *o, const struct stat_sample *s,
				      uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < o->cs->n; i++)
		if (!o->cs->v[i].unsupported && is_event(&o->cs->v[i], type, config) &&
		    s[i].running)
			return &s[i];
	return NULL;
}

static bool is_clock(const struct perf_counter *c)
{
	return is_event(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       is_event(c, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

/* Events per second of task time (of wall time without task-clock). */
static struct metric rate(double v, double secs)
{
	static const char *const units[] = {"/sec", "K/sec", "M/sec", "G/sec"};
	double r = secs > 0 ? v / secs : 0;
	size_t u = 0;

	while (r >= 1000 && u + 1 < sizeof(units) / sizeof(units[0])) {
		r /= 1000;
		u++;
	}
	return (struct metric){r, units[u]};
}

static struct metric ratio(const struct stat_sample *den, double num, double scale,
			   const char *unit)
{
	if (!den || den->value <= 0)
		return (struct metric){0, NULL};
	return (struct metric){num / den->value * scale, unit};
}

static struct metric hw_metric(const struct stat_out *o, const struct stat_sample *s,
			       const struct perf_counter *c, double v)
{
	const uint32_t HW = PERF_TYPE_HARDWARE;
	const struct stat_sample *task = find(o, s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	const struct stat_sample *cycles = find(o, s, HW, PERF_COUNT_HW_CPU_CYCLES);

	switch (c->attr.config) {
	case PERF_COUNT_HW_INSTRUCTIONS:
		return ratio(cycles, v, 1, "insn per cycle");
	case PERF_COUNT_HW_CPU_CYCLES:
		return ratio(task, v, 1, "GHz");
	case PERF_COUNT_HW_BRANCH_MISSES:
		return ratio(find(o, s, HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS), v, 100,
			     "% of all branches");
	case PERF_COUNT_HW_CACHE_MISSES:
		return ratio(find(o, s, HW, PERF_COUNT_HW_CACHE_REFERENCES), v, 100,
			     "% of all cache refs");
	case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
		return ratio(cycles, v, 100, "% frontend cycles idle");
	case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
		return ratio(cycles, v, 100, "% backend cycles idle");
	default:
		return (struct metric){0, NULL};
	}
}

static struct metric metric_of(const struct stat_out *o, const struct stat_sample *s, size_t i,
			       double span_ns)
{
	const struct perf_counter *c = &o->cs->v[i];
	const struct stat_sample *task = find(o, s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	double v = s[i].value;

	if (c->unsupported || !s[i].running)
		return (struct metric){0, NULL};
	if (is_clock(c))
		return ratio(&(struct stat_sample){.value = span_ns}, v, 1, "CPUs utilized");
	if (c->attr.type == PERF_TYPE_SOFTWARE && c->attr.config != PERF_COUNT_SW_DUMMY)
		return rate(v, (task ? task->value : span_ns) / 1e9);
	if (c->attr.type == PERF_TYPE_HARDWARE)
		return hw_metric(o, s, c, v);
	if (c->attr.type == PERF_TYPE_HW_CACHE &&
	    (c->attr.config >> 16) == PERF_COUNT_HW_CACHE_RESULT_MISS) {
		uint64_t access = c->attr.config & 0xffff;

		return ratio(find(o, s, PERF_TYPE_HW_CACHE, access), v, 100, "% of all accesses");
	}
	return (struct metric){0, NULL};
}

/* The count as text ("<not supported>" / "<not counted>") and its unit. */
static const char *value_text(const struct perf_counter *c, const struct stat_sample *s, char *buf,
			      size_t len, const char **unit)
{
	*unit = "";
	if (c->unsupported)
		return "<not supported>";
	if (!s->running)
		return "<not counted>";
	if (is_clock(c)) {
		*unit = "msec";
		snprintf(buf, len, "%.2f", s->value / 1e6);
	} else {
		snprintf(buf, len, "%.0f", s->value);
	}
	return buf;
}

static double pct_running(const struct stat_sample *s)
{
	return s->enabled ? 100.0 * (double)s->running / (double)s->enabled : 0;
}

static void print_text_line(const struct stat_out *o, const struct stat_sample *s, size_t i,
			    const struct metric *m, double t)
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
	fprintf(o->f, "%s\n", line.data);
	buf_release(&line);
}

static void print_csv_line(const struct stat_out *o, const struct stat_sample *s, size_t i,
			   const struct metric *m, double t)
{
	const struct perf_counter *c = &o->cs->v[i];
	const char *unit, *sep = o->sep;
	char buf[64];
	const char *v = value_text(c, &s[i], buf, sizeof(buf), &unit);

	if (t >= 0)
		fprintf(o->f, "%.9f%s", t, sep);
	fprintf(o->f, "%s%s%s%s%s%s%llu%s%.2f%s", v, sep, unit, sep, c->name, sep,
		(unsigned long long)s[i].running, sep, pct_running(&s[i]), sep);
	if (m->unit)
		fprintf(o->f, "%.3f%s%s\n", m->value, sep, m->unit);
	else
		fprintf(o->f, "%s\n", sep);
}

static void print_json_line(const struct stat_out *o, const struct stat_sample *s, size_t i,
			    const struct metric *m, double t)
{
	const struct perf_counter *c = &o->cs->v[i];
	const char *unit;
	char buf[64];
	struct buf b = BUF_INIT;

	value_text(c, &s[i], buf, sizeof(buf), &unit);
	buf_adds(&b, "{");
	if (t >= 0)
		buf_addf(&b, "\"interval\":%.9f,", t);
	buf_adds(&b, "\"event\":");
	buf_add_json_str(&b, c->name, strlen(c->name));
	if (c->unsupported || !s[i].running)
		buf_addf(&b, ",\"counter-value\":null,\"supported\":%s",
			 c->unsupported ? "false" : "true");
	else
		buf_addf(&b, ",\"counter-value\":%.10g,\"supported\":true",
			 is_clock(c) ? s[i].value / 1e6 : s[i].value);
	buf_addf(&b,
		 ",\"unit\":\"%s\",\"raw-value\":%llu,\"enabled-ns\":%llu,\"running-ns\":%llu"
		 ",\"pcnt-running\":%.2f",
		 unit, (unsigned long long)s[i].raw, (unsigned long long)s[i].enabled,
		 (unsigned long long)s[i].running, pct_running(&s[i]));
	if (m->unit && isfinite(m->value))
		buf_addf(&b, ",\"metric-value\":%.6g,\"metric-unit\":\"%s\"", m->value, m->unit);
	buf_adds(&b, "}\n");
	fwrite(b.data, 1, b.len, o->f);
	buf_release(&b);
}

void stat_print_interval_header(const struct stat_out *o)
{
	if (o->fmt == STAT_TEXT)
		fprintf(o->f, "#           time             counts unit events\n");
}

void stat_print(const struct stat_out *o, const struct stat_sample *samples, double span_ns,
		double t)
{
	for (size_t i = 0; i < o->cs->n; i++) {
		struct metric m = metric_of(o, samples, i, span_ns);

		if (o->fmt == STAT_CSV)
			print_csv_line(o, samples, i, &m, t);
		else if (o->fmt == STAT_JSON)
			print_json_line(o, samples, i, &m, t);
		else
			print_text_line(o, samples, i, &m, t);
	}
}
