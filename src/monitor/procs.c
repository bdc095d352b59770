/* Per-process data from /proc/PID/stat: reading, filtering, showing. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/format.h"
#include "monitor/procs.h"
#include "util/common.h"

/* The fields of mon_proc_row, as the view declares them. */
enum {
	PF_PID,
	PF_PRIO,
	PF_PPID,
	PF_THRD,
	PF_VSZ,
	PF_RSS,
	PF_CPU,
	PF_SYST,
	PF_USRT,
	PF_PCT,
	PF_ACCUM,
	PF_MAJF,
	PF_MINF,
	PF_COUNT
};

static int64_t snum(const char **p)
{
	const char *s = *p;
	bool neg;

	while (*s == ' ')
		s++;
	neg = *s == '-';
	*p = s + neg;
	return neg ? -(int64_t)mon_num(p) : (int64_t)mon_num(p);
}

int mon_parse_pidstat(const char *text, uint64_t uid, struct mon_table *t)
{
	static long tick, page_kb;
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	int64_t f[40];
	char name[MON_NAME];
	uint64_t *row;
	int n;

	if (!open || !close || close < open || close[1] != ' ')
		return err_set(ERR_PARSE, "malformed /proc/PID/stat");
	if (!tick) {
		tick = sysconf(_SC_CLK_TCK);
		page_kb = sysconf(_SC_PAGESIZE) / 1024;
	}
	/* Field 3 (the state) onwards; f[k] is field k + 3 of proc(5). */
	p = close + 2;
	f[0] = (unsigned char)*p;
	p += *p != '\0'; /* a text that ends after ") " has no state */
	for (int k = 1; k < 37; k++)
		f[k] = *p == ' ' ? snum(&p) : 0;
	n = snprintf(name, sizeof(name), "%.*s %.*s", (int)(open - text - 1), text,
		     (int)(close - open - 1), open + 1);
	row = mon_table_add(t, name, n < 0 ? 0 : (size_t)n, PC_NCOLS);
	row[PC_PPID] = (uint64_t)f[1];
	row[PC_UID] = uid;
	row[PC_STATE] = (uint64_t)f[0];
	row[PC_PRIO] = (uint64_t)f[15];
	row[PC_NICE] = (uint64_t)f[16];
	row[PC_THREADS] = (uint64_t)f[17];
	row[PC_CPU] = (uint64_t)f[36];
	row[PC_VSZ] = (uint64_t)f[20] / 1024;
	row[PC_RSS] = (uint64_t)f[21] * (uint64_t)page_kb;
	row[PC_MINFLT] = (uint64_t)f[7];
	row[PC_MAJFLT] = (uint64_t)f[9];
	/* Milliseconds, so a recording does not depend on the kernel's tick. */
	row[PC_UTIME] = (uint64_t)f[11] * 1000 / (uint64_t)tick;
	row[PC_STIME] = (uint64_t)f[12] * 1000 / (uint64_t)tick;
	return 0;
}

/* ---- reading ---- */

/* One process into @t; a process gone since the listing is skipped. */
static void read_one(struct mon_procs_reader *r, const char *pid, const struct mon_procsel *sel,
		     struct mon_table *t)
{
	char path[32];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%.15s/stat", pid);
	fd = openat(dirfd(r->dir), path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* The directory's owner is the process's effective user; fstat on
	 * the open file saves reading /proc/PID/status. */
	n = fstat(fd, &st) ? -1 : read(fd, r->buf, sizeof(r->buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	r->buf[n] = '\0';
	if (mon_parse_pidstat(r->buf, st.st_uid, t) < 0)
		return;
	if (sel && !mon_procsel_match(sel, t, t->nrows - 1))
		t->nrows--;
}

int mon_procs_read(struct mon_procs_reader *r, const char *root, const struct mon_procsel *sel,
		   struct mon_table *t)
{
	struct dirent *d;

	if (!r->dir) {
		r->dir = opendir(root);
		if (!r->dir)
			return err_set(ERR_IO, "cannot read %s: %s", root, strerror(errno));
	} else {
		rewinddir(r->dir);
	}
	while ((d = readdir(r->dir)))
		if (str_all_digits(d->d_name) && strlen(d->d_name) < 16)
			read_one(r, d->d_name, sel, t);
	return 0;
}

void mon_procs_close(struct mon_procs_reader *r)
{
	if (r->dir)
		closedir(r->dir);
	r->dir = NULL;
}

/* ---- filtering and sorting ---- */

/* A user's uid, or -1 when there is no such user. */
static int64_t user_uid(const char *name)
{
	const struct passwd *pw = getpwnam(name);

	return pw ? (int64_t)pw->pw_uid : -1;
}

int mon_procsel_filter(struct mon_procsel *sel, const char *spec)
{
	for (const char *p = spec; *p;) {
		size_t n = strcspn(p, ",");
		char kind = *p;
		char *end;

		if (sel->nfilt == MON_PROCFILT_MAX)
			return err_set(ERR_INVALID, "--procfilt: at most %d filters",
				       MON_PROCFILT_MAX);
		if (n < 2 || n - 1 >= sizeof(sel->filt[0].arg) || !strchr("cCpPuU", kind))
			return err_set(ERR_INVALID,
				       "--procfilt: bad filter '%.*s' (cNAME, CPREFIX, pPID, "
				       "PPPID, uUSER, UUID)",
				       (int)n, p);
		memcpy(sel->filt[sel->nfilt].arg, p + 1, n - 1);
		sel->filt[sel->nfilt].arg[n - 1] = '\0';
		sel->filt[sel->nfilt].kind = kind;
		if (strchr("pPU", kind)) {
			sel->filt[sel->nfilt].num = strtoull(sel->filt[sel->nfilt].arg, &end, 10);
			if (*end)
				return err_set(ERR_INVALID, "--procfilt: '%.*s' needs a number",
					       (int)n, p);
		} else if (kind == 'u') {
			int64_t uid = user_uid(sel->filt[sel->nfilt].arg);

			if (uid < 0)
				return err_set(ERR_INVALID, "--procfilt: no user '%s'",
					       sel->filt[sel->nfilt].arg);
			sel->filt[sel->nfilt].num = (uint64_t)uid;
		}
		sel->nfilt++;
		p += n + (p[n] == ',');
	}
	return 0;
}

static const struct {
	const char *name;
	int field; /* a PF_ field; -2: majf + minf */
} sort_keys[] = {
	{"time", PF_PCT},    {"syst", PF_SYST}, {"usrt", PF_USRT},
	{"accum", PF_ACCUM}, {"vsz", PF_VSZ},	{"rss", PF_RSS},
	{"majf", PF_MAJF},   {"minf", PF_MINF}, {"flt", -2},
};

int mon_procsel_top(struct mon_procsel *sel, const char *spec)
{
	size_t n = strcspn(spec, ",");

	sel->sort = PF_PCT;
	sel->top = 20;
	if (n) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(sort_keys); i++)
			if (strlen(sort_keys[i].name) == n && !strncmp(spec, sort_keys[i].name, n))
				break;
		if (i == ARRAY_SIZE(sort_keys))
			return err_set(ERR_INVALID,
				       "--top: unknown field '%.*s' (time, syst, usrt, accum, "
				       "vsz, rss, majf, minf, flt)",
				       (int)n, spec);
		sel->sort = sort_keys[i].field;
	}
	if (spec[n] == ',') {
		char *end;
		unsigned long long top = strtoull(spec + n + 1, &end, 10);

		if (end == spec + n + 1 || *end || !top)
			return err_set(ERR_INVALID, "--top: bad count '%s'", spec + n + 1);
		sel->top = (size_t)top;
	}
	return 0;
}

/* The command of a row "PID comm". */
static const char *row_comm(const struct mon_table *t, size_t row)
{
	const char *sp = strchr(t->names[row], ' ');

	return sp ? sp + 1 : "";
}

static bool filt_match(char kind, const char *arg, uint64_t num, const struct mon_table *t,
		       size_t row)
{
	const uint64_t *v = t->vals + row * PC_NCOLS;

	switch (kind) {
	case 'c':
		return strstr(row_comm(t, row), arg) != NULL;
	case 'C':
		return !strncmp(row_comm(t, row), arg, strlen(arg));
	case 'p':
		return strtoull(t->names[row], NULL, 10) == num;
	case 'P':
		return v[PC_PPID] == num;
	default: /* u, U */
		return v[PC_UID] == num;
	}
}

bool mon_procsel_match(const struct mon_procsel *sel, const struct mon_table *t, size_t row)
{
	if (!sel->nfilt)
		return true;
	for (size_t i = 0; i < sel->nfilt; i++)
		if (filt_match(sel->filt[i].kind, sel->filt[i].arg, sel->filt[i].num, t, row))
			return true;
	return false;
}

/* ---- showing ---- */

void mon_proc_row(const struct mon_interval *iv, size_t row, double *out)
{
	const struct mon_table *t = &iv->cur->tab[MT_PROC];
	const uint64_t *v = t->vals + row * PC_NCOLS;
	/* Rates are per second unless --on; a cpu share needs per second. */
	double per_sec = iv->per_interval && iv->secs > 0 ? 1 / iv->secs : 1;
	double us = mon_rate(iv, MT_PROC, row, PC_UTIME), sy = mon_rate(iv, MT_PROC, row, PC_STIME);

	out[PF_PID] = (double)strtoull(t->names[row], NULL, 10);
	out[PF_PRIO] = (double)(int64_t)v[PC_PRIO];
	out[PF_PPID] = (double)v[PC_PPID];
	out[PF_THRD] = (double)v[PC_THREADS];
	out[PF_VSZ] = (double)v[PC_VSZ];
	out[PF_RSS] = (double)v[PC_RSS];
	out[PF_CPU] = (double)v[PC_CPU];
	out[PF_SYST] = sy / 1000;
	out[PF_USRT] = us / 1000;
	out[PF_PCT] = (us + sy) * per_sec / 10;
	out[PF_ACCUM] = (double)(v[PC_UTIME] + v[PC_STIME]) / 1000;
	out[PF_MAJF] = mon_rate(iv, MT_PROC, row, PC_MAJFLT);
	out[PF_MINF] = mon_rate(iv, MT_PROC, row, PC_MINFLT);
}

/* A user's name for @uid, remembered; the number when it has none. */
static const char *user_name(uint64_t uid)
{
	static struct {
		uint64_t uid;
		char name[16];
	} cache[32];
	static size_t n;
	const struct passwd *pw;
	size_t i;

	for (i = 0; i < n; i++)
		if (cache[i].uid == uid)
			return cache[i].name;
	i = n < ARRAY_SIZE(cache) ? n++ : uid % ARRAY_SIZE(cache);
	pw = getpwuid((uid_t)uid);
	cache[i].uid = uid;
	if (pw)
		snprintf(cache[i].name, sizeof(cache[i].name), "%s", pw->pw_name);
	else
		snprintf(cache[i].name, sizeof(cache[i].name), "%llu", (unsigned long long)uid);
	return cache[i].name;
}

struct shown {
	size_t row;
	double v[PF_COUNT];
	double key;
};

static int by_key(const void *a, const void *b)
{
	const struct shown *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->v[PF_PID] < y->v[PF_PID] ? -1 : x->v[PF_PID] > y->v[PF_PID];
}

/* The rows to show, in order, with their numbers; their count. */
static size_t pick(const struct mon_procsel *sel, const struct mon_interval *iv, struct shown **out)
{
	const struct mon_table *t = &iv->cur->tab[MT_PROC];
	struct shown *s = xcalloc(t->nrows ? t->nrows : 1, sizeof(*s));
	size_t n = 0;

	for (size_t r = 0; r < t->nrows; r++) {
		if (sel && !mon_procsel_match(sel, t, r))
			continue;
		s[n].row = r;
		mon_proc_row(iv, r, s[n].v);
		if (sel && sel->sort == -2)
			s[n].key = s[n].v[PF_MAJF] + s[n].v[PF_MINF];
		else if (sel && sel->sort >= 0)
			s[n].key = s[n].v[sel->sort];
		n++;
	}
	if (sel && sel->top) {
		qsort(s, n, sizeof(*s), by_key);
		if (n > sel->top)
			n = sel->top;
	}
	*out = s;
	return n;
}

static char state_char(const struct mon_table *t, size_t row)
{
	char c = (char)t->vals[row * PC_NCOLS + PC_STATE];

	return c > ' ' && c < 127 ? c : '?';
}

void mon_procs_verbose(const struct mon_procsel *sel, const struct mon_interval *iv,
		       const char *heading, struct buf *b)
{
	const struct mon_table *t = &iv->cur->tab[MT_PROC];
	struct shown *s;
	size_t n = pick(sel, iv, &s);

	if (heading) {
		buf_addf(b, "\n# %s (%s)\n", heading, iv->per_interval ? "/int" : "/sec");
		buf_adds(b,
			 "#    PID User      PR   PPID THRD S    VSZ    RSS CP   SysT   UsrT  Pct "
			 " AccuTime   MajF   MinF Command\n");
	}
	for (size_t i = 0; i < n; i++) {
		const double *v = s[i].v;
		char vsz[32], rss[32];
		unsigned long long acc = (unsigned long long)(v[PF_ACCUM] * 100 + 0.5);

		mon_cvt(vsz, v[PF_VSZ], 6, true);
		mon_cvt(rss, v[PF_RSS], 6, true);
		buf_addf(b,
			 " %7.0f %-8.8s %3.0f %6.0f %4.0f %c %6s %6s %2.0f %6.2f %6.2f %4.0f "
			 "%3llu:%02llu.%02llu %6.0f %6.0f %s\n",
			 v[PF_PID], user_name(t->vals[s[i].row * PC_NCOLS + PC_UID]), v[PF_PRIO],
			 v[PF_PPID], v[PF_THRD], state_char(t, s[i].row), vsz, rss, v[PF_CPU],
			 v[PF_SYST], v[PF_USRT], v[PF_PCT], acc / 6000, acc / 100 % 60, acc % 100,
			 v[PF_MAJF], v[PF_MINF], row_comm(t, s[i].row));
	}
	free(s);
}

void mon_procs_plot_header(char sep, struct buf *b)
{
	static const char *const heads[] = {"PID",	"User", "PR",	"PPID",	  "THRD", "S",
					    "VSZ",	"RSS",	"CP",	"SysT",	  "UsrT", "Pct",
					    "AccuTime", "MajF", "MinF", "Command"};

	buf_adds(b, "#Date");
	buf_addc(b, sep);
	buf_adds(b, "Time");
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		buf_addc(b, sep);
		buf_adds(b, heads[i]);
	}
	buf_addc(b, '\n');
}

void mon_procs_plot(const struct mon_procsel *sel, const struct mon_interval *iv, char sep,
		    const char *stamp, struct buf *b)
{
	const struct mon_table *t = &iv->cur->tab[MT_PROC];
	struct shown *s;
	size_t n = pick(sel, iv, &s);

	for (size_t i = 0; i < n; i++) {
		const double *v = s[i].v;

		buf_addf(b,
			 "%s%c%.0f%c%s%c%.0f%c%.0f%c%.0f%c%c%c%.0f%c%.0f%c%.0f%c%.2f%c%.2f%c%.0f"
			 "%c%.2f%c%.0f%c%.0f%c%s\n",
			 stamp, sep, v[PF_PID], sep,
			 user_name(t->vals[s[i].row * PC_NCOLS + PC_UID]), sep, v[PF_PRIO], sep,
			 v[PF_PPID], sep, v[PF_THRD], sep, state_char(t, s[i].row), sep, v[PF_VSZ],
			 sep, v[PF_RSS], sep, v[PF_CPU], sep, v[PF_SYST], sep, v[PF_USRT], sep,
			 v[PF_PCT], sep, v[PF_ACCUM], sep, v[PF_MAJF], sep, v[PF_MINF], sep,
			 row_comm(t, s[i].row));
	}
	free(s);
}
