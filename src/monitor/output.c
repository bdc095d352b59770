/* Brief, verbose and plot output of an interval's views. */
#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/format.h"
#include "monitor/modules.h"
#include "monitor/output.h"
#include "monitor/procs.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

int mon_out_init(struct mon_out *o, const char *letters)
{
	for (const char *p = letters; *p; p++) {
		const struct mon_view *v = mon_view_find(*p);

		if (!v)
			return err_set(ERR_INVALID, "unknown subsystem '%c' (one of %s)", *p,
				       mon_view_letters());
		if (o->nviews == ARRAY_SIZE(o->views))
			return err_set(ERR_INVALID, "too many subsystems in '%s'", letters);
		o->views[o->nviews++] = v;
		if (v->detail && o->format == MON_BRIEF)
			o->format = MON_VERBOSE;
	}
	return 0;
}

unsigned mon_out_tables(const struct mon_out *o)
{
	unsigned t = 0;

	for (size_t i = 0; i < o->nviews; i++)
		t |= o->views[i]->tabs;
	return t;
}

void mon_out_release(struct mon_out *o)
{
	for (size_t i = 0; i < o->nviews; i++) {
		free(o->plot_rows[i]);
		free(o->vheads[i]);
		free(o->lxnames[i]);
	}
	buf_release(&o->line);
}

/* One number of field @fl into @b: width-padded unless @w is 0. */
static void add_num(struct buf *b, const struct mon_field *fl, double v, int w, bool cvt)
{
	char num[32];
	size_t n;

	buf_grow(b, 64);
	if (!w) { /* plot: straight into the line */
		b->len += mon_fmt_fixed(b->data + b->len, v, fl->decimals);
		return;
	}
	n = cvt && fl->decimals == 0 ? mon_cvt(num, v, fl->width, fl->size)
				     : mon_fmt_fixed(num, v, fl->decimals);
	b->len += mon_fmt_pad(b->data + b->len, num, n, w);
}

static void add_time(struct buf *b, const struct mon_out *o, double t, bool date)
{
	buf_grow(b, 40);
	b->len += mon_fmt_time(b->data + b->len, t, date, o->millis);
}

/* ---- brief: the views side by side, two header lines ---- */

static int brief_width(const struct mon_view *v)
{
	int w = 0;

	for (size_t i = 0; i < v->nfields; i++)
		if (v->fields[i].brief)
			w += v->fields[i].width + 1;
	return w;
}

/* "<--CPU-->" centred over the view's columns. */
static void brief_title(struct buf *b, const struct mon_view *v)
{
	int w = brief_width(v), t = (int)strlen(v->title), dash = w - t - 2;

	buf_addc(b, '<');
	for (int i = 0; i < dash / 2; i++)
		buf_addc(b, '-');
	buf_adds(b, v->title);
	for (int i = 0; i < dash - dash / 2; i++)
		buf_addc(b, '-');
	buf_addc(b, '>');
}

static void brief_header(struct mon_out *o, struct buf *b)
{
	buf_adds(b, o->millis ? "#            " : "#        ");
	for (size_t i = 0; i < o->nviews; i++)
		brief_title(b, o->views[i]);
	if (o->mods)
		mon_modules_brief(o->mods, VMON_BRIEF_TITLE, b);
	buf_adds(b, o->millis ? "\n#Time        " : "\n#Time    ");
	for (size_t i = 0; i < o->nviews; i++)
		for (size_t k = 0; k < o->views[i]->nfields; k++)
			if (o->views[i]->fields[k].brief)
				buf_addf(b, " %*s", o->views[i]->fields[k].width,
					 o->views[i]->fields[k].brief);
	if (o->mods)
		mon_modules_brief(o->mods, VMON_BRIEF_HEADER, b);
	buf_addc(b, '\n');
}

static void brief_line(struct mon_out *o, const struct mon_interval *iv, struct buf *b)
{
	double vals[MON_MAXFIELDS];

	add_time(b, o, iv->cur->t, false);
	buf_adds(b, " ");
	for (size_t i = 0; i < o->nviews; i++) {
		const struct mon_view *v = o->views[i];

		v->summary(iv, vals);
		for (size_t k = 0; k < v->nfields; k++)
			if (v->fields[k].brief) {
				buf_addc(b, ' ');
				add_num(b, &v->fields[k], vals[k], v->fields[k].width, true);
			}
	}
	if (o->mods)
		mon_modules_brief(o->mods, VMON_BRIEF_DATA, b);
	buf_addc(b, '\n');
}

/* ---- verbose: a section per view, a row per instance for details ---- */

static char *verbose_heading(const struct mon_view *v, const struct mon_out *o)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "\n# %s%s\n#", v->verbose_title,
		 v->rate ? (o->per_interval ? " (/int)" : " (/sec)") : "");
	if (v->detail)
		buf_addf(&b, "%-11s", "Name");
	for (size_t k = 0; k < v->nfields; k++)
		buf_addf(&b, " %*s", v->fields[k].width, v->fields[k].name);
	buf_addc(&b, '\n');
	return buf_detach(&b, NULL);
}

/* @s left-aligned in @width, as "%-*s". */
static void add_left(struct buf *b, const char *s, size_t width)
{
	size_t n = strlen(s);

	buf_grow(b, n + width);
	memcpy(b->data + b->len, s, n);
	if (n < width) {
		memset(b->data + b->len + n, ' ', width - n);
		n = width;
	}
	b->len += n;
	b->data[b->len] = '\0';
}

static void verbose_values(struct buf *b, const struct mon_view *v, const double *vals)
{
	for (size_t k = 0; k < v->nfields; k++) {
		buf_addc(b, ' ');
		add_num(b, &v->fields[k], vals[k], v->fields[k].width, false);
	}
	buf_addc(b, '\n');
}

/* Whether this interval's output has its headings (see --hr). */
static bool headings_due(const struct mon_out *o)
{
	if (!o->hr_set)
		return o->format == MON_VERBOSE || !o->nprinted;
	return o->hr ? o->nprinted % o->hr == 0 : !o->nprinted;
}

static void verbose_view(struct mon_out *o, const struct mon_interval *iv, size_t i, bool heads,
			 struct buf *b)
{
	const struct mon_view *v = o->views[i];
	double vals[MON_MAXFIELDS];
	const struct mon_table *t = &iv->cur->tab[v->tab];

	if (v->tab == MT_PROC) {
		mon_procs_verbose(o->procsel, iv, heads ? v->verbose_title : NULL, b);
		return;
	}
	if (!o->vheads[i])
		o->vheads[i] = verbose_heading(v, o);
	if (heads)
		buf_adds(b, o->vheads[i]);
	if (!v->detail) {
		v->summary(iv, vals);
		buf_adds(b, " ");
		verbose_values(b, v, vals);
		return;
	}
	for (size_t r = 0; r < t->nrows; r++) {
		if (v->skip && v->skip(iv, r))
			continue;
		v->detail(iv, r, vals);
		buf_addc(b, ' ');
		add_left(b, t->names[r], 11);
		verbose_values(b, v, vals);
	}
}

static void verbose_interval(struct mon_out *o, const struct mon_interval *iv, struct buf *b)
{
	char num[32];
	size_t n = mon_fmt_fixed(num, (double)(o->nprinted + 1), 0);
	bool heads = headings_due(o);

	buf_grow(b, 64);
	buf_adds(b, "### RECORD ");
	b->len += mon_fmt_pad(b->data + b->len, num, n, 4);
	buf_adds(b, " >>> ");
	add_time(b, o, iv->cur->t, true);
	buf_adds(b, " (");
	buf_grow(b, 64);
	b->len += mon_fmt_fixed(b->data + b->len, iv->secs, 3);
	buf_adds(b, " secs) ###\n");
	for (size_t i = 0; i < o->nviews; i++)
		verbose_view(o, iv, i, heads, b);
	if (o->mods)
		mon_modules_verbose(o->mods, heads, b);
	buf_addc(b, '\n');
}

/* ---- plot: one line per interval, headings "[CPU]User%" ---- */

/* Processes (-s Z) have lines of their own, as in collectl's process
 * file: the interval's line has the other views, if any. */
static bool is_procs(const struct mon_view *v)
{
	return v->tab == MT_PROC;
}

static bool plot_has_line(const struct mon_out *o)
{
	if (o->mods && o->mods->n)
		return true;
	for (size_t i = 0; i < o->nviews; i++)
		if (!is_procs(o->views[i]))
			return true;
	return false;
}

static bool plot_has_procs(const struct mon_out *o)
{
	for (size_t i = 0; i < o->nviews; i++)
		if (is_procs(o->views[i]))
			return true;
	return false;
}

/* Remembers which detail rows the header names, so every line has them. */
static void plot_fix_rows(struct mon_out *o, const struct mon_interval *iv, size_t i)
{
	const struct mon_view *v = o->views[i];
	const struct mon_table *t = &iv->cur->tab[v->tab];

	o->plot_rows[i] = xcalloc(t->nrows ? t->nrows : 1, MON_NAME);
	for (size_t r = 0; r < t->nrows; r++)
		if (!v->skip || !v->skip(iv, r))
			memcpy(o->plot_rows[i][o->nplot_rows[i]++], t->names[r], MON_NAME);
}

static void plot_header(struct mon_out *o, const struct mon_interval *iv, struct buf *b)
{
	if (!plot_has_line(o)) {
		mon_procs_plot_header(o->sep, b);
		return;
	}
	buf_adds(b, "#Date");
	buf_addc(b, o->sep);
	buf_adds(b, "Time");
	for (size_t i = 0; i < o->nviews; i++) {
		const struct mon_view *v = o->views[i];
		size_t nrows = 1;

		if (is_procs(v))
			continue;
		if (v->detail) {
			plot_fix_rows(o, iv, i);
			nrows = o->nplot_rows[i];
		}
		for (size_t r = 0; r < nrows; r++)
			for (size_t k = 0; k < v->nfields; k++) {
				buf_addc(b, o->sep);
				if (v->detail)
					buf_addf(b, "[%s:%s]%s", v->title, o->plot_rows[i][r],
						 v->fields[k].name);
				else
					buf_addf(b, "[%s]%s", v->title, v->fields[k].name);
			}
	}
	if (o->mods)
		mon_modules_plot(o->mods, VMON_PLOT_HEADER, b);
	buf_addc(b, '\n');
	if (plot_has_procs(o))
		mon_procs_plot_header(o->sep, b);
}

static void plot_values(struct mon_out *o, struct buf *b, const struct mon_view *v,
			const double *vals)
{
	buf_grow(b, v->nfields * 34);
	for (size_t k = 0; k < v->nfields; k++) {
		b->data[b->len++] = o->sep;
		b->len += mon_fmt_fixed(b->data + b->len, vals[k], v->fields[k].decimals);
	}
}

static void plot_detail(struct mon_out *o, const struct mon_interval *iv, size_t i, struct buf *b)
{
	const struct mon_view *v = o->views[i];
	const struct mon_table *t = &iv->cur->tab[v->tab];
	double vals[MON_MAXFIELDS];

	for (size_t r = 0; r < o->nplot_rows[i]; r++) {
		long row = r < t->nrows && !strcmp(t->names[r], o->plot_rows[i][r])
				   ? (long)r
				   : mon_table_find(t, o->plot_rows[i][r]);

		if (row >= 0)
			v->detail(iv, (size_t)row, vals);
		else
			memset(vals, 0, sizeof(vals));
		plot_values(o, b, v, vals);
	}
}

/* One line per shown process, each after the date and time. */
static void plot_procs(struct mon_out *o, const struct mon_interval *iv, struct buf *b)
{
	struct buf stamp = BUF_INIT;

	add_time(&stamp, o, iv->cur->t, true);
	if (o->sep != ' ')
		stamp.data[stamp.len - (o->millis ? 13 : 9)] = o->sep;
	for (size_t i = 0; i < o->nviews; i++)
		if (is_procs(o->views[i]))
			mon_procs_plot(o->procsel, iv, o->sep, stamp.data, b);
	buf_release(&stamp);
}

static void plot_line(struct mon_out *o, const struct mon_interval *iv, struct buf *b)
{
	double vals[MON_MAXFIELDS];

	if (!plot_has_line(o)) {
		plot_procs(o, iv, b);
		return;
	}
	add_time(b, o, iv->cur->t, true);
	if (o->sep != ' ')
		b->data[b->len - (o->millis ? 13 : 9)] = o->sep;
	for (size_t i = 0; i < o->nviews; i++) {
		if (is_procs(o->views[i]))
			continue;
		if (o->views[i]->detail) {
			plot_detail(o, iv, i, b);
			continue;
		}
		o->views[i]->summary(iv, vals);
		plot_values(o, b, o->views[i], vals);
	}
	if (o->mods)
		mon_modules_plot(o->mods, VMON_PLOT_DATA, b);
	buf_addc(b, '\n');
	if (plot_has_procs(o))
		plot_procs(o, iv, b);
}

/* ---- lexpr: "name value" lines per interval, as collectl's export ---- */

/* "[CPU]User%" as "cpu.user": lowercase letters and digits only. */
static void lexpr_name(struct buf *b, const char *title, const char *field)
{
	for (const char *p = title; *p; p++)
		buf_addc(b, (char)(*p | 0x20));
	buf_addc(b, '.');
	for (const char *p = field; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			buf_addc(b, *p);
		else if (*p >= 'A' && *p <= 'Z')
			buf_addc(b, (char)(*p | 0x20));
}

/* Every field's "name " of @v, one after the other, each NUL-terminated. */
static char *lexpr_names(const struct mon_view *v)
{
	struct buf b = BUF_INIT;

	for (size_t k = 0; k < v->nfields; k++) {
		lexpr_name(&b, v->title, v->fields[k].name);
		buf_addc(&b, ' ');
		buf_addc(&b, '\0');
	}
	return buf_detach(&b, NULL);
}

void mon_out_values(struct mon_out *o, const struct mon_interval *iv, struct buf *b)
{
	double vals[MON_MAXFIELDS];

	for (size_t i = 0; i < o->nviews; i++) {
		const struct mon_view *v = o->views[i];
		const char *name;

		if (v->detail)
			continue;
		if (!o->lxnames[i])
			o->lxnames[i] = lexpr_names(v);
		name = o->lxnames[i];
		v->summary(iv, vals);
		for (size_t k = 0; k < v->nfields; k++) {
			size_t n = strlen(name);

			buf_grow(b, n + 34); /* the name, a number, '\n' */
			memcpy(b->data + b->len, name, n);
			b->len += n;
			b->len += mon_fmt_fixed(b->data + b->len, vals[k], v->fields[k].decimals);
			b->data[b->len++] = '\n';
			b->data[b->len] = '\0'; /* a buf stays a string */
			name += n + 1;
		}
	}
	if (o->mods)
		mon_modules_export(o->mods, b);
}

/* The line, live, in one write(2) when nothing waits in the stream's
 * buffer: stdio would copy it into that buffer and flush it, another
 * layer of code to bring back into the cache at every sample. False for a
 * stream without a file descriptor (a memory stream) or with data pending. */
static bool write_direct(struct mon_out *o)
{
	int fd = fileno(o->f);
	const char *p = o->line.data;
	size_t n = o->line.len;

	if (fd < 0 || __fpending(o->f))
		return false;
	(void)write_in_full(fd, p, n); /* as through stdio, whose errors were not checked */
	buf_reset(&o->line);
	return true;
}

void mon_out_interval(struct mon_out *o, const struct mon_interval *iv)
{
	struct buf b = o->line;

	if (!o->batch)
		buf_reset(&b);
	if (o->format == MON_BRIEF) {
		if (headings_due(o))
			brief_header(o, &b);
		brief_line(o, iv, &b);
	} else if (o->format == MON_VERBOSE) {
		verbose_interval(o, iv, &b);

	} else {
		if (!o->nprinted)
			plot_header(o, iv, &b);
		plot_line(o, iv, &b);
	}
	o->line = b;
	o->nprinted++;
	if (o->batch && b.len < 1 << 16)
		return;
	/* Live, each interval reaches a pipe or file as it ends (tail -f). */
	if (!o->batch && write_direct(o))
		return;
	mon_out_flush(o);
	if (!o->batch)
		fflush(o->f);
}

void mon_out_flush(struct mon_out *o)
{
	if (o->line.len)
		fwrite(o->line.data, 1, o->line.len, o->f);
	buf_reset(&o->line);
}
