/*
 * The format table and the line formats: Google Benchmark's console
 * table, go test -bench lines and plain "name: value unit" lines
 * (docs/collect-regex.md says what each makes of its lines).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/meas.h"
#include "collect/regex/formats.h"
#include "collect/regex/scan.h"
#include "profile/numfmt.h"
#include "util/common.h"

/* The most fields a line gives: go's metrics, Google Benchmark's counters. */
#define MAX_FIELDS 32

#define NUM "[-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?"

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word of [*p, end); false at the end. */
static bool next_word(const char **p, const char *end, const char **w, size_t *len)
{
	const char *s = *p;

	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return false;
	*w = s;
	while (s < end && !is_space(*s))
		s++;
	*len = (size_t)(s - *w);
	*p = s;
	return true;
}

static bool plain_num(const char *text, size_t len, double *v)
{
	char tmp[64], *end;
	int64_t i;

	if (!len || len >= sizeof(tmp))
		return false;
	switch (numfmt_parse(text, len, &i, v)) {
	case NUM_INT:
		*v = (double)i;
		return true;
	case NUM_DBL:
		return isfinite(*v);
	default:
		break;
	}
	memcpy(tmp, text, len);
	tmp[len] = 0;
	errno = 0;
	*v = strtod(tmp, &end);
	return end == tmp + len && errno != ERANGE && isfinite(*v);
}

bool rx_parse_scaled(const char *text, size_t len, double *v)
{
	static const char prefixes[] = "kMGTPE", binary_prefixes[] = "KMGTPE";
	const char *p;
	char tmp[64];
	size_t n = len;
	int k = 0;
	bool binary = false;

	if (n >= 2 && memcmp(text + n - 2, "/s", 2) == 0)
		n -= 2;
	if (n && text[n - 1] == '%')
		n--;
	if (n >= 2 && text[n - 1] == 'i' &&
	    ((p = memchr(binary_prefixes, text[n - 2], 6)) ||
	     (p = memchr(prefixes, text[n - 2], 1)))) {
		k = *p == 'k' ? 1 : (int)(p - binary_prefixes) + 1;
		binary = true;
		n -= 2;
	} else if (n && (p = memchr(prefixes, text[n - 1], 6))) {
		k = (int)(p - prefixes) + 1;
		n--;
	}
	if (!n || n + 8 > sizeof(tmp) || memchr(text, 'e', n) || memchr(text, 'E', n))
		return k == 0 && plain_num(text, n, v);
	/* "4.2G" read as 4.2e9 rounds once; 4.2 * 1e9 would twice. */
	snprintf(tmp, sizeof(tmp), "%.*se%d", (int)n, text, binary ? 0 : 3 * k);
	if (!plain_num(tmp, strlen(tmp), v))
		return false;
	if (binary)
		*v = ldexp(*v, 10 * k);
	return true;
}

/* ---- Google Benchmark, console ---- */

/* The counters and the label after the iterations: "bytes_per_second=4.15G/s x". */
static size_t gbench_rest(const char *rest, size_t len, struct meas_field *f, size_t n,
			  char (*names)[64])
{
	const char *end = rest + len, *w, *label = NULL, *label_end = NULL;

	while (next_word(&rest, end, &w, &len)) {
		const char *eq = memchr(w, '=', len);
		double v;

		/* A counter "name=value"; anything else is the label. */
		if (eq && n + 1 < MAX_FIELDS &&
		    rx_parse_scaled(eq + 1, len - (size_t)(eq + 1 - w), &v)) {
			snprintf(names[n], sizeof(names[n]), "%.*s", (int)(eq - w), w);
			f[n] = (struct meas_field){.name = names[n], .is_num = true, .num = v};
			n++;
			continue;
		}
		if (!label)
			label = w;
		label_end = w + len;
	}
	if (label)
		f[n++] = (struct meas_field){
			.name = "label", .text = label, .len = (size_t)(label_end - label)};
	return n;
}

/* "BM_memcpy/8   0.002 us   0.002 us   8045857 bytes_per_second=4.15G/s" */
static int gbench_line(const struct rx_match *mt, struct meas *m, void *arg)
{
	static const char *const which[] = {"real", "cpu"};
	static const char *const unit_group[] = {"real_unit", "cpu_unit"};
	struct meas_field f[MAX_FIELDS];
	char names[MAX_FIELDS][64];
	struct meas_rec r = {0};
	const char *text;
	size_t len = 0, n = 1;
	double iters;

	UNUSED(arg);
	r.uid = rx_group(mt, "uid", &r.uid_len);
	text = rx_group(mt, "iterations", &len);
	if (!text || !plain_num(text, len, &iters))
		return err_set(ERR_INVALID, "iterations is not a number");
	f[0] = (struct meas_field){.name = "iterations", .is_num = true, .num = iters};
	text = rx_group(mt, "rest", &len);
	if (text)
		n = gbench_rest(text, len, f, n, names);
	for (int k = 0; k < 2; k++) {
		text = rx_group(mt, which[k], &len);
		if (!text || !plain_num(text, len, &r.amount))
			return err_set(ERR_INVALID, "the %s time is not a number", which[k]);
		r.amount_text = text;
		r.amount_len = len;
		r.unit = rx_group(mt, unit_group[k], &r.unit_len);
		r.subtype = which[k];
		r.subtype_len = strlen(which[k]);
		/* The run's facts go with its real time, as collect time does. */
		r.fields = k == 0 ? f : NULL;
		r.nfields = k == 0 ? n : 0;
		if (meas_add(m, &r) < 0)
			return k ? 1 : ERR_INVALID;
	}
	return 2;
}

static int gbench_setup(struct rx_scan *s)
{
	static const char *const ignore[] = {
		"^-+$",
		"^Benchmark\\s+Time\\s+CPU\\s+Iterations",
		/* --benchmark_repetitions' aggregates and complexity fits:
		 * the repetitions themselves are measured. */
		"^\\S+_(?:mean|median|stddev|cv|BigO|RMS)\\s",
		/* The context it writes on stderr. */
		"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+",
		"^Running ",
		"^Run on \\(",
		"^CPU Caches:",
		"^\\s+L[0-9] ",
		"^Load Average:",
		"^\\*\\*\\*WARNING\\*\\*\\*",
	};
	int ret =
		rx_scan_add_measure(s,
				    "^(?<uid>\\S+)\\s+(?<real>" NUM ")\\s*(?<real_unit>ns|us|ms|s)"
				    "\\s+(?<cpu>" NUM ")\\s*(?<cpu_unit>ns|us|ms|s)"
				    "\\s+(?<iterations>[0-9]+)(?:\\s+(?<rest>.*))?$",
				    gbench_line, NULL);

	for (size_t i = 0; ret == 0 && i < ARRAY_SIZE(ignore); i++)
		ret = rx_scan_add_ignore(s, ignore[i]);
	return ret;
}

/* ---- go test -bench ---- */

/* "BenchmarkRepeat/n=10-2   2000   39.89 ns/op   250.69 MB/s   16 B/op   1 allocs/op" */
static int go_line(const struct rx_match *mt, struct meas *m, void *arg)
{
	struct meas_field f[MAX_FIELDS];
	char names[MAX_FIELDS][64];
	struct meas_rec r = {0};
	const char *rest, *end, *v, *u, *text;
	size_t vlen, ulen, len = 0, n = 0;
	bool have_time = false;
	double x;

	UNUSED(arg);
	r.uid = rx_group(mt, "uid", &r.uid_len);
	text = rx_group(mt, "iterations", &len);
	if (!text || !plain_num(text, len, &x))
		return err_set(ERR_INVALID, "iterations is not a number");
	f[n++] = (struct meas_field){.name = "iterations", .is_num = true, .num = x};
	/* The -N suffix is GOMAXPROCS: a field, so that runs on machines of
	 * other sizes still compare by name. */
	text = rx_group(mt, "procs", &len);
	if (text && plain_num(text, len, &x))
		f[n++] = (struct meas_field){.name = "procs", .is_num = true, .num = x};
	rest = rx_group(mt, "rest", &len);
	if (!rest)
		return err_set(ERR_INVALID, "no measurements on the line");
	end = rest + len;
	while (next_word(&rest, end, &v, &vlen) && next_word(&rest, end, &u, &ulen)) {
		if (!plain_num(v, vlen, &x))
			return err_set(ERR_INVALID, "'%.*s' is not a number", (int)vlen, v);
		if (ulen == 5 && memcmp(u, "ns/op", 5) == 0) {
			r.amount = x;
			r.amount_text = v;
			r.amount_len = vlen;
			have_time = true;
		} else if (n < MAX_FIELDS) {
			snprintf(names[n], sizeof(names[n]), "%.*s", (int)ulen, u);
			f[n] = (struct meas_field){.name = names[n], .is_num = true, .num = x};
			n++;
		}
	}
	if (!have_time)
		return err_set(ERR_INVALID, "no ns/op on the line");
	r.unit = "ns";
	r.unit_len = 2;
	r.fields = f;
	r.nfields = n;
	return meas_add(m, &r) < 0 ? ERR_INVALID : 1;
}

static int go_setup(struct rx_scan *s)
{
	static const char *const ignore[] = {
		/* Configuration lines of the benchmark format ("goos: linux"). */
		"^[a-z][A-Za-z0-9_-]*:\\s",
		"^(?:PASS|FAIL)$",
		"^(?:ok|FAIL|\\?)\\s",
		"^(?:---|===) ",
		/* b.Log's output, indented under its benchmark. */
		"^\\s+\\S+\\.go:[0-9]+:",
		"^exit status [0-9]+$",
	};
	int ret = rx_scan_add_measure(s,
				      "^(?<uid>Benchmark\\S*?)(?:-(?<procs>[0-9]+))?\\s+"
				      "(?<iterations>[0-9]+)(?<rest>(?:\\s+" NUM "\\s+\\S+)+)\\s*$",
				      go_line, NULL);

	for (size_t i = 0; ret == 0 && i < ARRAY_SIZE(ignore); i++)
		ret = rx_scan_add_ignore(s, ignore[i]);
	return ret;
}

/* ---- plain lines ---- */

static int plain_setup(struct rx_scan *s)
{
	return rx_scan_add_measure(s,
				   "^\\s*(?<uid>\\S.*?)\\s*:\\s*(?<amount>" NUM ")"
				   "\\s*(?<unit>[^\\s0-9][^\\s]*)?\\s*$",
				   NULL, NULL);
}

/* ---- the table ---- */

static const char *const criterion_files[] = {
	"target/criterion/*/new/estimates.json",
	"target/criterion/*/*/new/estimates.json",
	"target/criterion/*/*/*/new/estimates.json",
	NULL,
};

static const struct rx_format formats[] = {
	{.name = "gbench",
	 .summary = "Google Benchmark's console table (its default output)",
	 .unit = "ns",
	 .setup = gbench_setup},
	{.name = "gbench-json",
	 .summary = "Google Benchmark's --benchmark_format=json (or --benchmark_out=FILE)",
	 .unit = "ns",
	 .parse = rx_parse_gbench_json,
	 .file_option = "--benchmark_out"},
	{.name = "hyperfine",
	 .summary = "the file hyperfine --export-json FILE writes",
	 .unit = "s",
	 .parse = rx_parse_hyperfine,
	 .file_option = "--export-json",
	 .file_only = true},
	{.name = "criterion",
	 .summary = "criterion's target/criterion/*/new/estimates.json (cargo bench)",
	 .unit = "ns",
	 .parse = rx_parse_criterion,
	 .files = criterion_files},
	{.name = "go", .summary = "go test -bench lines", .unit = "ns", .setup = go_setup},
	{.name = "pytest-benchmark",
	 .summary = "the file pytest --benchmark-json=FILE writes",
	 .unit = "s",
	 .parse = rx_parse_pytest,
	 .file_option = "--benchmark-json",
	 .file_only = true},
	{.name = "plain", .summary = "\"name: value unit\" lines", .setup = plain_setup},
};

static const struct rx_format *const list[] = {
	&formats[0], &formats[1], &formats[2], &formats[3],
	&formats[4], &formats[5], &formats[6], NULL,
};

const struct rx_format *const *rx_format_list(void)
{
	return list;
}

const struct rx_format *rx_format_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}
