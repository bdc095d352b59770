/* The profile reader: the seed examples, every layout, errors (its fast
 * paths: test_profile_fast.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

#include "profile_testlib.h"

static void test_trace(void **state)
{
	struct profile *p = load_data("trace.perf");
	struct buf s = BUF_INIT;

	UNUSED(state);
	assert_int_equal(p->layout, LAYOUT_TYPED);
	assert_int_equal(profile_nres(p), 7);
	assert_int_equal(p->types.nrows, 4);
	assert_string_equal(profile_type_key(p, 0), "SLList_insert(SLList*, int)#0");
	assert_string_equal(profile_uid(p, 0, &s), "SLList_insert(SLList*, int)");
	assert_string_equal(profile_uid(p, 4, &s), "SLList_destroy(SLList*)");
	assert_true(profile_amount(p, 0) == 1 && profile_amount(p, 1) == 0);
	assert_true(res_num(p, 3, "structure-unit-size") == 3);
	assert_true(profile_amount(p, 5) == 6);
	assert_int_equal(table_col(&p->res, "amount")->kind, COL_I64);
	assert_string_equal(p->type, "mixed");
	assert_string_equal(p->cmd, "../stap-collector/tst");
	assert_true(p->args_is_params);
	assert_string_equal(p->args, "");
	assert_string_equal(profile_units(p, "mixed(time delta)"), "us");
	assert_string_equal(p->collector, "complexity");
	assert_non_null(strstr(p->collector_params, "\"method\":\"custom\""));
	assert_non_null(strstr(p->collector_params, "\"global_sampling\":null"));
	assert_string_equal(p->origin, "f7f3dcea69b97f2b03c421a223a770917149cfae");
	assert_string_equal(p->models, "[]");
	assert_string_equal(col_text(p, table_col(&p->types, "time"), 2), "6.8e-05s");
	buf_release(&s);
	profile_free(p);
}

static void test_memory(void **state)
{
	struct profile *p = load_data("memory.perf");
	struct buf s = BUF_INIT;
	const struct column *c;
	size_t at;

	UNUSED(state);
	assert_int_equal(profile_nres(p), 2);
	assert_int_equal(p->types.nrows, 2);
	assert_string_equal(profile_uid(p, 0, &s), "../memory_collect_test.c:main:22");
	assert_string_equal(profile_uid(p, 1, &s), "../memory_collect_test.c:main:27");
	assert_true(profile_amount(p, 0) == 4);
	assert_true(res_num(p, 1, "address") == 19284560);
	assert_true(res_num(p, 0, "snapshot") == 0);
	c = profile_attr(p, 1, "subtype", NULL, &at);
	assert_string_equal(col_text(p, c, at), "free");
	c = profile_attr(p, 0, "trace", NULL, &at);
	assert_int_equal(c->kind, COL_JSON);
	assert_non_null(strstr(col_text(p, c, at), "{\"function\":\"malloc\",\"line\":0,"));
	assert_string_equal(col_text(p, table_col(&p->types, "time"), 0), "0.025000");
	assert_false(p->args_is_params == false);
	buf_release(&s);
	profile_free(p);
}

static void test_time(void **state)
{
	struct profile *p = load_data("time.perf");
	struct buf s = BUF_INIT;

	UNUSED(state);
	assert_int_equal(p->layout, LAYOUT_GLOBAL);
	assert_int_equal(profile_nres(p), 6);
	/* real, user and sys of one command: three types sharing a uid */
	assert_int_equal(p->types.nrows, 3);
	assert_string_equal(profile_type_key(p, 0), "./list_search#0");
	assert_string_equal(profile_type_key(p, 2), "./list_search#2");
	assert_int_equal(p->res_type[3], 0);
	assert_int_equal(p->res_type[5], 2);
	assert_true(p->has_timestamp && p->timestamp == 0.565476655960083);
	assert_true(profile_amount(p, 0) == 0.26 && profile_amount(p, 4) == 0.28);
	assert_int_equal(table_col(&p->res, "amount")->kind, COL_F64);
	assert_int_equal(table_col(&p->res, "order")->kind, COL_I64);
	assert_true(res_num(p, 3, "order") == 2);
	assert_string_equal(profile_uid(p, 5, &s), "./list_search");
	assert_string_equal(p->workload, "100000");
	buf_release(&s);
	profile_free(p);
}

static void test_bounds(void **state)
{
	struct profile *p = load_data("bounds.perf");
	struct buf s = BUF_INIT;

	UNUSED(state);
	/* Each {} entry is one resource without collectable values. */
	assert_int_equal(profile_nres(p), 5);
	assert_int_equal(p->types.nrows, 5);
	assert_int_equal(p->res.ncols, 0);
	assert_string_equal(profile_uid(p, 0, &s), "int_partitioning.c:partitioning:34:42");
	assert_string_equal(profile_uid(p, 3, &s), "int_partitioning.c:partitioning:18:4");
	assert_true(isnan(profile_amount(p, 0)));
	assert_string_equal(attr_text(p, 3, "bound"), "6 + 4 \xc3\x97 max(0, (k + -1))");
	assert_false(p->args_is_params);
	buf_release(&s);
	profile_free(p);
}

static void test_trailing_comma(void **state)
{
	char *path = data_path("time-seed-original.perf");
	struct buf raw = BUF_INIT;
	struct profile *p = NULL;

	UNUSED(state);
	assert_int_equal(file_read_all(path, &raw), 0);
	assert_int_equal(profile_load_mem(raw.data, raw.len, "time-seed-original.perf", &p),
			 ERR_PARSE);
	assert_string_equal(err_msg(), "time-seed-original.perf:67:1: trailing comma before '}'");
	assert_true(profile_load(path, &p) < 0);
	assert_non_null(strstr(err_msg(), "time-seed-original.perf:67:1: "));
	buf_release(&raw);
	free(path);
}

static void test_syntax_errors(void **state)
{
	UNUSED(state);
	expect_error("{\"header\": {\"type\": \"x\"\n  \"cmd\": 1}}",
		     "t.perf:2:3: expected ',' or '}'");
	expect_error("{\"x\": [1, 2,]}", "t.perf:1:13: trailing comma before ']'");
	expect_error("{\"a\": [1 2]}", "t.perf:1:10: expected ',' or ']'");
	expect_error("{\"a\": tru}", "t.perf:1:7: invalid literal");
	expect_error("{\"a\": 01}", "t.perf:1:7: malformed number");
	expect_error("{\"a\": \"x\ty\"}", "t.perf:1:9: control character in string");
	expect_error("{\"a\": \"\\q\"}", "t.perf:1:8: invalid escape in string");
	expect_error("{\"a\" 1}", "t.perf:1:6: expected ':'");
	expect_error("[1]", "t.perf:1:1: expected a JSON object");
	expect_error("{} {}", "t.perf:1:4: unexpected data after the end");
	expect_error("", "t.perf:1:1: unexpected end of input");
	expect_error("{\"resources\": 5, \"header\": {\"type\": \"t\"}}",
		     "t.perf:1:15: resources must be an object or a list");
}

/* Python's json writes NaN, Infinity and -Infinity (Perun's moving average
 * leaves NaN where a window had no points): they load as doubles, and the
 * models' text gives them back as null, valid JSON. */
static void test_nonfinite_tokens(void **state)
{
	struct profile *p = load_str(
		"{\"header\": {\"type\": \"mixed\", \"units\": {}},\n"
		" \"resources\": {\"f#0\": {\"amount\": [1, NaN, Infinity, -Infinity, -2.5],\n"
		"   \"structure-unit-size\": [NaN,2,3,4,5]}},\n"
		" \"resource_type_map\": {\"f#0\": {\"uid\": \"f\", \"type\": \"mixed\"}},\n"
		" \"models\": [{\"uid\": \"f\", \"model\": \"moving_average\", "
		"\"r_square\": NaN, \"bucket_stats\": [NaN, 1, -Infinity]}]}");

	UNUSED(state);
	assert_int_equal(profile_nres(p), 5);
	assert_true(profile_amount(p, 0) == 1 && isnan(profile_amount(p, 1)));
	assert_true(profile_amount(p, 2) == INFINITY && profile_amount(p, 3) == -INFINITY);
	assert_true(profile_amount(p, 4) == -2.5);
	assert_true(isnan(res_num(p, 0, "structure-unit-size")));
	assert_string_equal(p->models, "[{\"uid\":\"f\",\"model\":\"moving_average\","
				       "\"r_square\":null,\"bucket_stats\":[null,1,null]}]");
	profile_free(p);
	expect_error("{\"a\": Nan}", "t.perf:1:7: invalid literal");
	expect_error("{\"a\": -Inf}", "t.perf:1:7: malformed number");
	expect_error("{\"a\": Infinite}", "t.perf:1:7: invalid literal");
}

static void test_missing_keys(void **state)
{
	UNUSED(state);
	expect_error("{\"resources\": {}}", "t.perf: missing key header");
	expect_error("{\"header\": {\"cmd\": \"x\"}, \"resources\": {}}",
		     "t.perf: missing key header.type");
	expect_error("{\"header\": {\"type\": \"x\"}}",
		     "t.perf: missing key resources (or global, snapshots)");
}

static void test_truncated(void **state)
{
	char *path = data_path("trace.perf");
	struct buf raw = BUF_INIT;
	size_t n;

	UNUSED(state);
	assert_int_equal(file_read_all(path, &raw), 0);
	/* Every proper prefix fails cleanly with a position. */
	for (n = 0; n < raw.len - 1; n++) {
		struct profile *p = NULL;
		char *cut = xstrndup(raw.data, n);

		assert_true(profile_load_mem(cut, n, "cut", &p) < 0);
		assert_null(p);
		assert_true(strncmp(err_msg(), "cut:", 4) == 0);
		free(cut);
	}
	buf_release(&raw);
	free(path);
}

static void test_snapshots(void **state)
{
	struct profile *p = load_str(
		"{\"header\": {\"type\": \"memory\"}, \"snapshots\": ["
		"{\"time\": \"0.025\", \"resources\": ["
		" {\"uid\": \"main\", \"type\": \"memory\", \"subtype\": \"malloc\", \"amount\": 4,"
		"  \"address\": 100},"
		" {\"uid\": \"main\", \"type\": \"memory\", \"subtype\": \"malloc\", \"amount\": "
		"8}]},"
		"{\"time\": \"0.050\", \"resources\": ["
		" {\"uid\": \"main\", \"type\": \"memory\", \"subtype\": \"malloc\", \"amount\": "
		"16}]}"
		"]}");

	UNUSED(state);
	assert_int_equal(p->layout, LAYOUT_TYPED);
	assert_int_equal(profile_nres(p), 3);
	assert_int_equal(p->types.nrows, 2); /* one per snapshot */
	assert_string_equal(profile_type_key(p, 1), "main#1");
	assert_true(res_num(p, 2, "snapshot") == 1);
	assert_string_equal(attr_text(p, 2, "time"), "0.050");
	assert_true(res_num(p, 0, "address") == 100);
	assert_false(col_has(table_col(&p->res, "address"), 1));
	assert_true(profile_amount(p, 2) == 16);
	profile_free(p);
}

static void test_list_and_scalars(void **state)
{
	struct profile *p = load_str("{\"header\": {\"type\": \"time\"}, \"resources\": ["
				     " {\"uid\": \"a\", \"type\": \"time\", \"amount\": 1},"
				     " {\"uid\": \"b\", \"type\": \"time\", \"amount\": 2.5, "
				     "\"extra\": [1, {\"x\": null}]},"
				     " {\"uid\": \"a\", \"type\": \"time\", \"amount\": 3}]}");
	struct profile *q = load_str(
		"{\"header\": {\"type\": \"t\"}, \"resources\": {\"f#0\": {\"amount\": 7, "
		"\"address\": "
		"9}},"
		" \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}, \"g#0\": {\"uid\": \"g\"}}}");

	UNUSED(state);
	assert_int_equal(profile_nres(p), 3);
	assert_int_equal(p->types.nrows, 2);
	assert_int_equal(p->res_type[2], 0);
	assert_true(profile_amount(p, 0) == 1 && profile_amount(p, 1) == 2.5);
	assert_string_equal(attr_text(p, 1, "extra"), "[1,{\"x\":null}]");
	assert_int_equal(profile_nres(q), 1);
	assert_int_equal(q->types.nrows, 2); /* g#0 has no measurements */
	assert_true(res_num(q, 0, "address") == 9);
	profile_free(p);
	profile_free(q);
}

/* The list layouts cache resource types by their raw attributes: many
 * interleaved types (more than the cache holds) and attribute sets that
 * differ only in a value's kind must still each get their own type. */
/* Per-run fields of the time collector vary between runs: they are
 * measurements, not part of the type, so one command stays one type. */
static void test_time_run_fields(void **state)
{
	struct profile *p = load_str(
		"{\"header\": {\"type\": \"time\"}, \"global\": {\"resources\": ["
		"{\"uid\": \"./a\", \"subtype\": \"real\", \"amount\": 1, \"max-rss\": 100,"
		" \"exit-status\": 0},"
		"{\"uid\": \"./a\", \"subtype\": \"real\", \"amount\": 2, \"max-rss\": 200,"
		" \"exit-status\": 1, \"signal\": 9}]}}");

	UNUSED(state);
	assert_int_equal(p->types.nrows, 1);
	assert_int_equal(profile_nres(p), 2);
	assert_int_equal(col_i64(table_col(&p->res, "max-rss"), 1), 200);
	assert_true(col_has(table_col(&p->res, "signal"), 1));
	assert_false(col_has(table_col(&p->res, "signal"), 0));
	profile_free(p);
}

static void test_many_interleaved_types(void **state)
{
	struct buf j = BUF_INIT, scratch = BUF_INIT;
	struct profile *p;
	size_t i;

	UNUSED(state);
	buf_adds(&j, "{\"header\": {\"type\": \"time\"}, \"global\": {\"resources\": [");
	for (i = 0; i < 300; i++) {
		/* kind: the number 7 and the string "7" are different values */
		if (i % 30 == 29)
			buf_addf(&j, "%s{\"uid\": \"f%zu\", \"kind\": \"7\", \"amount\": %zu}",
				 i ? "," : "", i % 20, i);
		else
			buf_addf(&j, "%s{\"uid\": \"f%zu\", \"kind\": 7, \"amount\": %zu}",
				 i ? "," : "", i % 20, i);
	}
	buf_adds(&j, "]}}");
	p = load_str(j.data);
	assert_int_equal(profile_nres(p), 300);
	/* 20 uids with the number; "f9" and "f19" (i = 29, 59, ...) also with the string */
	assert_int_equal(p->types.nrows, 22);
	for (i = 0; i < 300; i++) {
		char want[16];
		const struct column *kind = table_col(&p->types, "kind");

		snprintf(want, sizeof(want), "f%zu", i % 20);
		assert_string_equal(profile_uid(p, i, &scratch), want);
		assert_int_equal((size_t)res_num(p, i, "amount"), i);
		assert_int_equal(kind->kind, COL_JSON);
		assert_string_equal(col_text(p, kind, p->res_type[i]),
				    i % 30 == 29 ? "\"7\"" : "7");
	}
	profile_free(p);
	buf_release(&j);
	buf_release(&scratch);
}

static void test_escapes(void **state)
{
	struct profile *p = load_str("{\"header\": {\"type\": \"t\\u00e9\\u20ac\\ud83d\\ude00"
				     "\\n\\\"\\/\\\\\", \"cmd\": \"bad \xff\xfe utf8\","
				     " \"workload\": \"lone \\ud800 x\"}, \"resources\": {},"
				     " \"zz\": {\"k\\u0041\": [true, false, null, -1.5e3]}}");

	UNUSED(state);
	assert_string_equal(p->type, "t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n\"/\\");
	assert_string_equal(p->cmd, "bad \xff\xfe utf8");
	assert_string_equal(p->workload, "lone \xef\xbf\xbd x");
	assert_int_equal(p->nextra, 1);
	assert_string_equal(p->extra[0].key, "zz");
	assert_string_equal(p->extra[0].value, "{\"kA\":[true,false,null,-1.5e3]}");
	profile_free(p);
}

static void test_deep_nesting(void **state)
{
	struct buf j = BUF_INIT, out = BUF_INIT;
	struct profile *p;
	int i, depth = 5000;

	UNUSED(state);
	buf_adds(&j, "{\"header\": {\"type\": \"t\", \"deep\": ");
	for (i = 0; i < depth; i++)
		buf_adds(&j, "[{\"a\":");
	buf_adds(&j, "1");
	for (i = 0; i < depth; i++)
		buf_adds(&j, "}]");
	buf_adds(&j, "}, \"resources\": {}}");
	p = load_str(j.data);
	assert_int_equal(p->nheader_extra, 1);
	assert_int_equal(strlen(p->header_extra[0].value), (size_t)depth * 8 + 1);
	profile_write_json(p, &out, true);
	profile_free(p);
	p = load_str(out.data);
	assert_int_equal(strlen(p->header_extra[0].value), (size_t)depth * 8 + 1);
	profile_free(p);
	buf_release(&j);
	buf_release(&out);
}

static void put_u32be(unsigned char *d, uint32_t v)
{
	d[0] = (unsigned char)(v >> 24);
	d[1] = (unsigned char)(v >> 16);
	d[2] = (unsigned char)(v >> 8);
	d[3] = (unsigned char)v;
}

static void test_compressed(void **state)
{
	char *path = data_path("memory.perf");
	struct buf raw = BUF_INIT, z = BUF_INIT, st = BUF_INIT, g = BUF_INIT;
	struct profile *p;
	enum compression comps[] = {COMP_ZLIB, COMP_ZSTD};
	unsigned char hdr[4];
	z_stream zs;
	size_t i;

	UNUSED(state);
	UNUSED(put_u32be);
	UNUSED(hdr);
	assert_int_equal(file_read_all(path, &raw), 0);
	for (i = 0; i < ARRAY_SIZE(comps); i++) {
		buf_reset(&z);
		assert_int_equal(compression_compress(comps[i], raw.data, raw.len, &z), 0);
		assert_int_equal(profile_load_mem(z.data, z.len, "z", &p), 0);
		assert_int_equal(profile_nres(p), 2);
		profile_free(p);
	}
	/* A Perun store object: "profile TYPE SIZE\0" + JSON, zlib'd. */
	buf_addf(&st, "profile memory %zu", raw.len);
	buf_addc(&st, '\0');
	buf_add(&st, raw.data, raw.len);
	buf_reset(&z);
	assert_int_equal(compression_compress(COMP_ZLIB, st.data, st.len, &z), 0);
	assert_int_equal(profile_load_mem(z.data, z.len, "obj", &p), 0);
	assert_int_equal(p->types.nrows, 2);
	profile_free(p);
	assert_int_equal(profile_load_mem(st.data, st.len, "obj", &p), 0);
	profile_free(p);
	/* gzip */
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	buf_grow(&g, deflateBound(&zs, raw.len));
	zs.next_in = (Bytef *)raw.data;
	zs.avail_in = (uInt)raw.len;
	zs.next_out = (Bytef *)g.data;
	zs.avail_out = (uInt)g.cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	g.len = zs.total_out;
	deflateEnd(&zs);
	assert_int_equal(compression_detect(g.data, g.len), COMP_ZLIB);
	assert_int_equal(profile_load_mem(g.data, g.len, "gz", &p), 0);
	assert_int_equal(profile_nres(p), 2);
	profile_free(p);
	/* truncated compressed data is an error, not a crash */
	assert_true(profile_load_mem(z.data, z.len / 2, "half", &p) < 0);
	assert_non_null(strstr(err_msg(), "half"));
	buf_release(&raw);
	buf_release(&z);
	buf_release(&st);
	buf_release(&g);
	free(path);
}

/* Through a file descriptor, so tokens straddle the 64 KiB reads. */
static void test_fd_chunks(void **state)
{
	const char *tmpdir = getenv("VELES_TEST_TMP");
	struct buf j = BUF_INIT, z = BUF_INIT;
	struct profile *p, *q;
	char *path, *zpath;
	size_t i;

	UNUSED(state);
	mkdir_p(tmpdir ? tmpdir : "/tmp");
	path = xasprintf("%s/chunks-%d.perf", tmpdir ? tmpdir : "/tmp", (int)getpid());
	zpath = xasprintf("%s.zst", path);
	buf_adds(&j, "{\"header\": {\"type\": \"t\", \"cmd\": \"");
	for (i = 0; i < 100000; i++)
		buf_adds(&j, i % 1000 ? "x" : "\\u00e9");
	buf_adds(&j, "\"},\n\"resources\": {\"f#0\": {\"amount\": [");
	for (i = 0; i < 50000; i++)
		buf_addf(&j, "%s%zu%s", i ? ",\n " : "", i * 7919, i % 3 ? "" : ".5");
	buf_adds(&j, "], \"address\": [");
	for (i = 0; i < 50000; i++)
		buf_addf(&j, "%s%zu", i ? ", " : "", i);
	buf_adds(&j, "]}}, \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}}}");
	assert_int_equal(file_write_atomic(path, j.data, j.len), 0);
	assert_int_equal(profile_load(path, &p), 0);
	assert_int_equal(profile_load_mem(j.data, j.len, "m", &q), 0);
	assert_int_equal(profile_nres(p), 50000);
	assert_int_equal(strlen(p->cmd), 99900 + 100 * 2);
	assert_true(profile_amount(p, 3) == 3 * 7919 + 0.5);
	assert_true(profile_amount(p, 4) == 4 * 7919);
	assert_true(res_num(p, 49999, "address") == 49999);
	for (i = 0; i < 50000; i++)
		assert_true(profile_amount(p, i) == profile_amount(q, i));
	profile_free(p);
	assert_int_equal(load_piped(&j, &p), 0);
	assert_int_equal(strlen(p->cmd), 99900 + 100 * 2);
	for (i = 0; i < 50000; i++)
		assert_true(profile_amount(p, i) == profile_amount(q, i));
	profile_free(p);
	assert_int_equal(compression_compress(COMP_ZSTD, j.data, j.len, &z), 0);
	assert_int_equal(file_write_atomic(zpath, z.data, z.len), 0);
	assert_int_equal(profile_load(zpath, &p), 0);
	assert_int_equal(profile_nres(p), 50000);
	profile_free(p);
	profile_free(q);
	/* an error far into the file reports its line */
	j.len -= 3;
	assert_int_equal(file_write_atomic(path, j.data, j.len), 0);
	assert_true(profile_load(path, &p) < 0);
	assert_non_null(strstr(err_msg(), ":50001:"));
	assert_true(load_piped(&j, &p) < 0);
	assert_non_null(strstr(err_msg(), "pipe:50001:"));
	unlink(path);
	unlink(zpath);
	free(path);
	free(zpath);
	buf_release(&j);
	buf_release(&z);
}

/*
 * A mapped file is parsed a window at a time and its parsed pages handed
 * back: a string and a number list longer than a window, a Perun object
 * header, and a compressed file must all read as from memory.
 */
static void test_mapped_windows(void **state)
{
	const char *tmpdir = getenv("VELES_TEST_TMP");
	struct buf j = BUF_INIT, obj = BUF_INIT, z = BUF_INIT;
	struct profile *p, *q;
	char *path;
	size_t i;

	UNUSED(state);
	mkdir_p(tmpdir ? tmpdir : "/tmp");
	path = xasprintf("%s/mapped-%d.perf", tmpdir ? tmpdir : "/tmp", (int)getpid());
	buf_adds(&j, "{\"header\": {\"type\": \"t\", \"workload\": \"");
	for (i = 0; i < 3000000; i++)
		buf_addc(&j, (char)('a' + i % 26));
	buf_adds(&j, "\"}, \"resources\": {\"f#0\": {\"amount\": [");
	for (i = 0; i < 400000; i++)
		buf_addf(&j, "%s%zu", i ? "," : "", i * 31);
	buf_adds(&j, "]}}, \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}}}");
	assert_int_equal(file_write_atomic(path, j.data, j.len), 0);
	assert_int_equal(profile_load(path, &p), 0);
	assert_int_equal(profile_load_mem(j.data, j.len, "m", &q), 0);
	assert_int_equal(strlen(p->workload), 3000000);
	assert_string_equal(p->workload, q->workload);
	assert_int_equal(profile_nres(p), 400000);
	for (i = 0; i < 400000; i += 997)
		assert_true(profile_amount(p, i) == (double)(i * 31));
	profile_free(p);
	/* a Perun store object, plain and compressed */
	buf_addf(&obj, "profile trace %zu", j.len);
	buf_addc(&obj, '\0');
	buf_add(&obj, j.data, j.len);
	assert_int_equal(file_write_atomic(path, obj.data, obj.len), 0);
	assert_int_equal(profile_load(path, &p), 0);
	assert_int_equal(profile_nres(p), 400000);
	assert_string_equal(p->workload, q->workload);
	profile_free(p);
	assert_int_equal(compression_compress(COMP_ZLIB, obj.data, obj.len, &z), 0);
	assert_true(z.len > 512 * 1024); /* large enough to be mapped */
	assert_int_equal(file_write_atomic(path, z.data, z.len), 0);
	assert_int_equal(profile_load(path, &p), 0);
	assert_int_equal(profile_nres(p), 400000);
	profile_free(p);
	profile_free(q);
	/* an error past the windows already handed back */
	j.data[j.len - 2] = ',';
	assert_int_equal(file_write_atomic(path, j.data, j.len), 0);
	assert_true(profile_load(path, &p) < 0);
	assert_non_null(strstr(err_msg(), ":1:"));
	unlink(path);
	free(path);
	buf_release(&j);
	buf_release(&obj);
	buf_release(&z);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_trailing_comma),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_nonfinite_tokens),
		cmocka_unit_test(test_missing_keys),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_snapshots),
		cmocka_unit_test(test_list_and_scalars),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_time_run_fields),
		cmocka_unit_test(test_many_interleaved_types),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_fd_chunks),
		cmocka_unit_test(test_mapped_windows),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
