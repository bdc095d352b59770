/*
 * The JSON formats: Google Benchmark's --benchmark_format=json, hyperfine's
 * --export-json, criterion's estimates.json and pytest-benchmark's
 * --benchmark-json, read whole with yajl's tree (a harness writes kilobytes
 * to a few megabytes). Each benchmark entry counts as one "line".
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "collect/meas.h"
#include "collect/regex/formats.h"
#include "collect/regex/scan.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

#define MAX_FIELDS 32

static yajl_val member(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};

	return YAJL_IS_OBJECT(obj) ? yajl_tree_get(obj, path, yajl_t_any) : NULL;
}

static bool number(yajl_val v, double *out)
{
	if (!YAJL_IS_NUMBER(v) || !(v->u.number.flags & YAJL_NUMBER_DOUBLE_VALID))
		return false;
	*out = v->u.number.d;
	return true;
}

static const char *string(yajl_val v)
{
	return YAJL_GET_STRING(v);
}

/* Parses @text; ERR_PARSE "PATH: not FORMAT JSON: what yajl says". */
static int parse_doc(const char *text, const char *path, const char *format, yajl_val *doc)
{
	char msg[256];

	msg[0] = 0;
	*doc = yajl_tree_parse(text, msg, sizeof(msg));
	if (*doc)
		return 0;
	msg[strcspn(msg, "\n")] = 0;
	return err_set(ERR_PARSE, "%s: not %s JSON: %s", path, format, msg[0] ? msg : "empty");
}

static yajl_val list_of(yajl_val doc, const char *key, const char *path, const char *format)
{
	yajl_val v = member(doc, key);

	if (!YAJL_IS_ARRAY(v))
		err_set(ERR_PARSE, "%s: not %s JSON: no \"%s\" list", path, format, key);
	return YAJL_IS_ARRAY(v) ? v : NULL;
}

/* An entry's measurements went in: counted matched, or rejected with why. */
static void note_added(struct rx_counts *c, const char *name, int added)
{
	rx_counts_note(c, added > 0 ? RX_LINE_MATCHED : RX_LINE_REJECTED, name, strlen(name),
		       added > 0 ? NULL : err_msg());
}

static struct meas_rec rec_of(const char *uid, const char *subtype, double amount, const char *unit)
{
	return (struct meas_rec){
		.uid = uid,
		.uid_len = strlen(uid),
		.subtype = subtype,
		.subtype_len = subtype ? strlen(subtype) : 0,
		.amount = amount,
		.unit = unit,
		.unit_len = unit ? strlen(unit) : 0,
	};
}

/* A scalar member as a field: numbers as numbers, strings as text. */
static bool scalar_field(const char *name, yajl_val v, struct meas_field *f)
{
	*f = (struct meas_field){.name = name};
	if (number(v, &f->num)) {
		f->is_num = true;
		return true;
	}
	if (!string(v))
		return false;
	f->text = string(v);
	f->len = strlen(f->text);
	return true;
}

/* ---- Google Benchmark ---- */

static bool gbench_known(const char *key)
{
	static const char *const known[] = {
		"name",
		"family_index",
		"per_family_instance_index",
		"run_name",
		"run_type",
		"repetitions",
		"repetition_index",
		"threads",
		"iterations",
		"real_time",
		"cpu_time",
		"time_unit",
		"aggregate_name",
		"aggregate_unit",
		"label",
		"error_occurred",
		"error_message",
		"big_o",
		"rms",
		"complexity_n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (strcmp(known[i], key) == 0)
			return true;
	return false;
}

/* Iterations, threads, label and the user's counters of an entry. */
static size_t gbench_fields(yajl_val b, struct meas_field *f)
{
	size_t n = 0;

	if (scalar_field("iterations", member(b, "iterations"), &f[n]))
		n++;
	if (scalar_field("threads", member(b, "threads"), &f[n]))
		n++;
	if (scalar_field("label", member(b, "label"), &f[n]))
		n++;
	for (size_t i = 0; i < b->u.object.len && n < MAX_FIELDS; i++) {
		const char *key = b->u.object.keys[i];
		double v;

		if (!gbench_known(key) && number(b->u.object.values[i], &v))
			f[n++] = (struct meas_field){.name = key, .is_num = true, .num = v};
	}
	return n;
}

static int gbench_entry(yajl_val b, struct meas *m, struct rx_counts *c)
{
	const char *name = string(member(b, "name")), *unit = string(member(b, "time_unit"));
	struct meas_field f[MAX_FIELDS];
	double real, cpu;
	struct meas_rec r;
	int added = 0;

	if (!name) {
		rx_counts_note(c, RX_LINE_UNMATCHED, "(a benchmark without a name)", 28, NULL);
		return 0;
	}
	/* Aggregates of --benchmark_repetitions: the repetitions are kept. */
	if (strcmp(string(member(b, "run_type")) ? string(member(b, "run_type")) : "",
		   "aggregate") == 0) {
		rx_counts_note(c, RX_LINE_IGNORED, name, strlen(name), NULL);
		return 0;
	}
	if (YAJL_IS_TRUE(member(b, "error_occurred"))) {
		const char *why = string(member(b, "error_message"));

		rx_counts_note(c, RX_LINE_REJECTED, name, strlen(name), why ? why : "an error");
		return 0;
	}
	if (!number(member(b, "real_time"), &real) || !number(member(b, "cpu_time"), &cpu)) {
		rx_counts_note(c, RX_LINE_UNMATCHED, name, strlen(name), NULL);
		return 0;
	}
	r = rec_of(name, "real", real, unit ? unit : "ns");
	/* As written, for an exact shift from us or ms to ns. */
	r.amount_text = member(b, "real_time")->u.number.r;
	r.amount_len = strlen(r.amount_text);
	r.fields = f;
	r.nfields = gbench_fields(b, f);
	if (meas_add(m, &r) == 0)
		added++;
	r = rec_of(name, "cpu", cpu, unit ? unit : "ns");
	r.amount_text = member(b, "cpu_time")->u.number.r;
	r.amount_len = strlen(r.amount_text);
	if (added && meas_add(m, &r) == 0)
		added++;
	note_added(c, name, added);
	return 0;
}

int rx_parse_gbench_json(const char *text, size_t len, const char *path, struct meas *m,
			 struct rx_counts *c)
{
	yajl_val doc, list;
	int ret = parse_doc(text, path, "Google Benchmark", &doc);

	UNUSED(len);
	if (ret < 0)
		return ret;
	list = list_of(doc, "benchmarks", path, "Google Benchmark");
	for (size_t i = 0; list && i < list->u.array.len; i++)
		gbench_entry(list->u.array.values[i], m, c);
	yajl_tree_free(doc);
	return list ? 0 : ERR_PARSE;
}

/* ---- hyperfine ---- */

/* A parameter scan's values ({"n": "100"}) as fields of every run. */
static size_t hyperfine_params(yajl_val params, struct meas_field *f, size_t n)
{
	for (size_t i = 0; YAJL_IS_OBJECT(params) && i < params->u.object.len; i++) {
		const char *v = string(params->u.object.values[i]);
		char *end;

		if (!v || n + 2 >= MAX_FIELDS)
			continue;
		f[n] = (struct meas_field){
			.name = params->u.object.keys[i], .text = v, .len = strlen(v)};
		f[n].num = strtod(v, &end);
		f[n].is_num = *v && !*end;
		n++;
	}
	return n;
}

/* Each run's time ("real"), and hyperfine's mean user and system times. */
static int hyperfine_entry(yajl_val res, struct meas *m, struct rx_counts *c)
{
	const char *cmd = string(member(res, "command"));
	yajl_val times = member(res, "times"), codes = member(res, "exit_codes");
	struct meas_field f[MAX_FIELDS];
	size_t nparams;
	struct meas_rec r;
	double v;
	int added = 0;

	if (!cmd || !YAJL_IS_ARRAY(times)) {
		rx_counts_note(c, RX_LINE_UNMATCHED, cmd ? cmd : "(a result without a command)",
			       strlen(cmd ? cmd : "(a result without a command)"), NULL);
		return 0;
	}
	nparams = hyperfine_params(member(res, "parameters"), f, 0);
	for (size_t i = 0; i < times->u.array.len; i++) {
		yajl_val code = YAJL_IS_ARRAY(codes) && i < codes->u.array.len
					? codes->u.array.values[i]
					: NULL;

		if (!number(times->u.array.values[i], &v))
			continue;
		r = rec_of(cmd, "real", v, "s");
		r.fields = f;
		r.nfields = nparams;
		/* null: a signal ended the run. */
		if (scalar_field("exit-status", code, &f[nparams]))
			r.nfields++;
		added += meas_add(m, &r) == 0;
	}
	if (number(member(res, "user"), &v)) {
		r = rec_of(cmd, "user", v, "s");
		r.fields = f;
		r.nfields = nparams;
		added += meas_add(m, &r) == 0;
	}
	if (number(member(res, "system"), &v)) {
		r = rec_of(cmd, "sys", v, "s");
		r.fields = f;
		r.nfields = nparams;
		added += meas_add(m, &r) == 0;
	}
	note_added(c, cmd, added);
	return 0;
}

int rx_parse_hyperfine(const char *text, size_t len, const char *path, struct meas *m,
		       struct rx_counts *c)
{
	yajl_val doc, list;
	int ret = parse_doc(text, path, "hyperfine", &doc);

	UNUSED(len);
	if (ret < 0)
		return ret;
	list = list_of(doc, "results", path, "hyperfine");
	for (size_t i = 0; list && i < list->u.array.len; i++)
		hyperfine_entry(list->u.array.values[i], m, c);
	yajl_tree_free(doc);
	return list ? 0 : ERR_PARSE;
}

/* ---- criterion ---- */

/* An estimate by its name now ("median_abs_dev") or in criterion 0.2's
 * enum spelling ("MedianAbsDev"). */
static yajl_val estimate(yajl_val doc, const char *key, const char *old_key)
{
	yajl_val v = member(doc, key);

	return v ? v : member(doc, old_key);
}

/*
 * The benchmark's id: benchmark.json's full_id beside the estimates, else
 * the directories between criterion/ and /new.
 */
static char *criterion_id(const char *path)
{
	char *dir = xstrdup(path), *json, *id = NULL;
	struct buf b = BUF_INIT;
	yajl_val doc;
	const char *at;

	json = xasprintf("%s/benchmark.json", dirname(dir));
	if (file_read_all(json, &b) == 0 && (doc = yajl_tree_parse(buf_str(&b), NULL, 0))) {
		const char *full = string(member(doc, "full_id"));

		id = full ? xstrdup(full) : NULL;
		yajl_tree_free(doc);
	}
	free(json);
	free(dir);
	buf_release(&b);
	if (id)
		return id;
	at = strstr(path, "criterion/");
	at = at ? at + strlen("criterion/") : path;
	id = xstrdup(at);
	if (strstr(id, "/new/estimates.json"))
		*strstr(id, "/new/estimates.json") = 0;
	return id;
}

static bool point(yajl_val est, double *v)
{
	return number(member(est, "point_estimate"), v);
}

int rx_parse_criterion(const char *text, size_t len, const char *path, struct meas *m,
		       struct rx_counts *c)
{
	static const char *const keys[][3] = {
		{"mean", "Mean", "mean"},
		{"median", "Median", "median"},
		{"std_dev", "StdDev", "std-dev"},
		{"median_abs_dev", "MedianAbsDev", "median-abs-dev"},
	};
	struct meas_field f[8];
	yajl_val doc, typical;
	size_t n = 0;
	double v, x;
	char *id;
	struct meas_rec r;
	int ret = parse_doc(text, path, "criterion estimates", &doc);

	UNUSED(len);
	if (ret < 0)
		return ret;
	/* criterion's "typical" time: the slope when it sampled linearly,
	 * else the mean, as its report's headline shows. */
	typical = estimate(doc, "slope", "Slope");
	if (!point(typical, &v))
		typical = estimate(doc, "mean", "Mean");
	if (!point(typical, &v)) {
		yajl_tree_free(doc);
		return err_set(ERR_PARSE, "%s: not criterion estimates JSON: no mean", path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (point(estimate(doc, keys[i][0], keys[i][1]), &x))
			f[n++] = (struct meas_field){
				.name = keys[i][2], .is_num = true, .num = x, .scaled = true};
	id = criterion_id(path);
	r = rec_of(id, NULL, v, "ns");
	r.fields = f;
	r.nfields = n;
	note_added(c, id, meas_add(m, &r) == 0);
	free(id);
	yajl_tree_free(doc);
	return 0;
}

/* ---- pytest-benchmark ---- */

/* Its group and parameters, which tell apart the cases of one test. */
static size_t pytest_fields(yajl_val b, struct meas_field *f)
{
	yajl_val params = member(b, "params");
	size_t n = 0;

	if (scalar_field("group", member(b, "group"), &f[n]))
		n++;
	for (size_t i = 0; YAJL_IS_OBJECT(params) && i < params->u.object.len; i++)
		if (n < MAX_FIELDS - 8 &&
		    scalar_field(params->u.object.keys[i], params->u.object.values[i], &f[n]))
			n++;
	return n;
}

/* Each round's time when the file has them (stats.data), else the mean. */
static int pytest_entry(yajl_val b, struct meas *m, struct rx_counts *c)
{
	static const char *const stats_fields[] = {"min", "max", "median", "stddev"};
	const char *name = string(member(b, "fullname"));
	yajl_val stats = member(b, "stats"), data = member(stats, "data");
	struct meas_field f[MAX_FIELDS];
	struct meas_rec r;
	size_t n;
	double v = 0, x;
	int added = 0;

	if (!name)
		name = string(member(b, "name"));
	if (!name || (!YAJL_IS_ARRAY(data) && !number(member(stats, "mean"), &v))) {
		rx_counts_note(c, RX_LINE_UNMATCHED, name ? name : "(a benchmark without a name)",
			       strlen(name ? name : "(a benchmark without a name)"), NULL);
		return 0;
	}
	n = pytest_fields(b, f);
	for (size_t i = 0; YAJL_IS_ARRAY(data) && i < data->u.array.len; i++) {
		if (!number(data->u.array.values[i], &v))
			continue;
		r = rec_of(name, NULL, v, "s");
		r.fields = f;
		r.nfields = n;
		added += meas_add(m, &r) == 0;
	}
	if (!YAJL_IS_ARRAY(data)) {
		for (size_t i = 0; i < ARRAY_SIZE(stats_fields); i++)
			if (number(member(stats, stats_fields[i]), &x))
				f[n++] = (struct meas_field){.name = stats_fields[i],
							     .is_num = true,
							     .num = x,
							     .scaled = true};
		if (scalar_field("rounds", member(stats, "rounds"), &f[n]))
			n++;
		if (scalar_field("iterations", member(stats, "iterations"), &f[n]))
			n++;
		number(member(stats, "mean"), &v);
		r = rec_of(name, NULL, v, "s");
		r.fields = f;
		r.nfields = n;
		added += meas_add(m, &r) == 0;
	}
	note_added(c, name, added);
	return 0;
}

int rx_parse_pytest(const char *text, size_t len, const char *path, struct meas *m,
		    struct rx_counts *c)
{
	yajl_val doc, list;
	int ret = parse_doc(text, path, "pytest-benchmark", &doc);

	UNUSED(len);
	if (ret < 0)
		return ret;
	list = list_of(doc, "benchmarks", path, "pytest-benchmark");
	for (size_t i = 0; list && i < list->u.array.len; i++)
		pytest_entry(list->u.array.values[i], m, c);
	yajl_tree_free(doc);
	return list ? 0 : ERR_PARSE;
}
