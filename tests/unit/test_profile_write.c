/* The profile writer: round trips, yajl and python as independent readers,
 * number formatting. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include <cmocka.h>

#include "profile/numfmt.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static const char *const seeds[] = {"trace.perf", "memory.perf", "time.perf", "bounds.perf"};

static struct profile *load_seed(const char *name)
{
	const char *src = getenv("VELES_SRCDIR");
	char *path = xasprintf("%s/tests/data/profiles/%s", src ? src : ".", name);
	struct profile *p = NULL;

	if (profile_load(path, &p) < 0)
		fail_msg("%s", err_msg());
	free(path);
	return p;
}

static struct profile *reload(const struct buf *b)
{
	struct profile *p = NULL;

	if (profile_load_mem(b->data, b->len, "written", &p) < 0)
		fail_msg("%s\n%s", err_msg(), b->data);
	return p;
}

static void test_roundtrip(void **state)
{
	size_t i;

	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		struct profile *p = load_seed(seeds[i]), *q, *r;
		struct buf s1 = BUF_INIT, s2 = BUF_INIT, ind = BUF_INIT, s3 = BUF_INIT;

		profile_write_json(p, &s1, false);
		q = reload(&s1);
		profile_write_json(q, &s2, false);
		/* load(write(load(x))) == load(x), compared through the
		 * deterministic writer and directly */
		assert_string_equal(s1.data, s2.data);
		assert_int_equal(profile_nres(p), profile_nres(q));
		assert_int_equal(p->types.nrows, q->types.nrows);
		assert_int_equal(p->layout, q->layout);
		assert_memory_equal(p->res_type, q->res_type, profile_nres(p) * sizeof(uint32_t));
		profile_write_json(p, &ind, true);
		assert_non_null(strstr(ind.data, "\n  \"header\": {\n    \"type\": "));
		r = reload(&ind);
		profile_write_json(r, &s3, false);
		assert_string_equal(s1.data, s3.data);
		profile_free(p);
		profile_free(q);
		profile_free(r);
		buf_release(&s1);
		buf_release(&s2);
		buf_release(&s3);
		buf_release(&ind);
	}
}

static yajl_val yget(yajl_val root, const char *a, const char *b, const char *c)
{
	const char *path[] = {a, b, c, NULL};

	return yajl_tree_get(root, path, yajl_t_any);
}

static void test_yajl_reads_it(void **state)
{
	size_t i, indent;
	char errbuf[256];

	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		struct profile *p = load_seed(seeds[i]);

		for (indent = 0; indent < 2; indent++) {
			struct buf b = BUF_INIT;
			yajl_val root, v;

			profile_write_json(p, &b, indent);
			root = yajl_tree_parse(b.data, errbuf, sizeof(errbuf));
			if (!root)
				fail_msg("yajl: %s\n%s", errbuf, b.data);
			v = yget(root, "header", "type", NULL);
			assert_true(YAJL_IS_STRING(v));
			assert_string_equal(YAJL_GET_STRING(v), profile_perun_type(p->type));
			/* A type Perun does not know is kept beside the one it does. */
			v = yget(root, "header", "veles_type", NULL);
			if (strcmp(p->type, profile_perun_type(p->type)) != 0)
				assert_string_equal(YAJL_GET_STRING(v), p->type);
			else
				assert_null(v);
			if (i == 0) {
				v = yget(root, "resources", "SLList_insert(SLList*, int)#0",
					 "amount");
				assert_true(YAJL_IS_ARRAY(v));
				assert_int_equal(YAJL_GET_ARRAY(v)->len, 4);
				v = yget(root, "resource_type_map", "SLList_init(SLList*)#0",
					 "uid");
				assert_string_equal(YAJL_GET_STRING(v), "SLList_init(SLList*)");
				assert_null(yget(root, "resource_type_map",
						 "SLList_init(SLList*)#0", "#key"));
				assert_true(YAJL_IS_STRING(yget(root, "header", "params", NULL)));
			}
			if (i == 2) {
				v = yget(root, "global", "resources", NULL);
				assert_int_equal(YAJL_GET_ARRAY(v)->len, 6);
				v = YAJL_GET_ARRAY(v)->values[2];
				assert_true(YAJL_IS_DOUBLE(yget(v, "amount", NULL, NULL)));
				assert_true(YAJL_IS_INTEGER(yget(v, "order", NULL, NULL)));
				assert_string_equal(YAJL_GET_STRING(yget(v, "subtype", NULL, NULL)),
						    "sys");
			}
			yajl_tree_free(root);
			buf_release(&b);
		}
		profile_free(p);
	}
}

static void test_python_reads_it(void **state)
{
	const char *tmpdir = getenv("VELES_TEST_TMP");
	char *path, *cmd;
	struct profile *p = load_seed("memory.perf");
	int ret;

	UNUSED(state);
	if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
		profile_free(p);
		skip();
	}
	mkdir_p(tmpdir ? tmpdir : "/tmp");
	path = xasprintf("%s/py-%d.perf", tmpdir ? tmpdir : "/tmp", (int)getpid());
	assert_int_equal(profile_save(p, path, COMP_NONE), 0);
	cmd = xasprintf("python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
			" assert d[\"resources\"][\"../memory_collect_test.c:main:22#0\"]"
			"[\"address\"] == [19284560]' %s",
			path);
	ret = system(cmd);
	assert_int_equal(ret, 0);
	unlink(path);
	free(cmd);
	free(path);
	profile_free(p);
}

static void test_save_compressed(void **state)
{
	const char *tmpdir = getenv("VELES_TEST_TMP");
	enum compression comps[] = {COMP_NONE, COMP_ZLIB, COMP_ZSTD};
	struct profile *p = load_seed("trace.perf");
	struct buf want = BUF_INIT;
	size_t i;

	UNUSED(state);
	mkdir_p(tmpdir ? tmpdir : "/tmp");
	profile_write_json(p, &want, false);
	for (i = 0; i < ARRAY_SIZE(comps); i++) {
		char *path = xasprintf("%s/save-%d-%zu.perf", tmpdir ? tmpdir : "/tmp",
				       (int)getpid(), i);
		struct buf raw = BUF_INIT, got = BUF_INIT;
		struct profile *q;

		assert_int_equal(profile_save(p, path, comps[i]), 0);
		assert_int_equal(file_read_all(path, &raw), 0);
		assert_int_equal(compression_detect(raw.data, raw.len), comps[i]);
		assert_int_equal(profile_load(path, &q), 0);
		profile_write_json(q, &got, false);
		assert_string_equal(got.data, want.data);
		profile_free(q);
		unlink(path);
		free(path);
		buf_release(&raw);
		buf_release(&got);
	}
	assert_true(profile_save(p, "/nonexistent-dir/x.perf", COMP_NONE) < 0);
	assert_non_null(strstr(err_msg(), "/nonexistent-dir/x.perf"));
	buf_release(&want);
	profile_free(p);
}

static void fmt_check(double v)
{
	char s[NUMFMT_MAX + 1];
	size_t n = numfmt_f64(s, v);
	int64_t i;
	double d = 0;

	s[n] = '\0';
	assert_int_equal(numfmt_parse(s, n, &i, &d), NUM_DBL);
	if (memcmp(&d, &v, sizeof(d)) != 0)
		fail_msg("%.17g printed as %s read back as %.17g", v, s, d);
	assert_true(strtod(s, NULL) == v);
}

/* numfmt_i32_list writes what printf would, in any mix of values inside
 * and outside its four-at-once range, for every tail length. */
static void test_i32_list(void **state)
{
	static const char *const seps[] = {",", ", "};
	uint64_t seed = 0x853c49e6748fea9bULL;
	int32_t v[64];
	char got[64 * (NUMFMT_MAX + 2)], want[64 * 16];
	size_t round, i, n, s;

	UNUSED(state);
	for (round = 0; round < 4000; round++) {
		n = round % 64;
		s = round / 64 % 2;
		for (i = 0; i < n; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			switch (seed % 8) {
			case 0:
				v[i] = -(int32_t)(seed >> 40 & 0xfffff);
				break;
			case 1:
				v[i] = (int32_t)(100000000 + (seed >> 36));
				break;
			case 2:
				v[i] = (int32_t)(seed % 10);
				break;
			case 3:
				v[i] = round % 2 ? 99999999 : INT32_MIN;
				break;
			default:
				v[i] = (int32_t)((seed >> 20) % 100000000);
				break;
			}
		}
		char *end = numfmt_i32_list(got, v, n, seps[s], strlen(seps[s]));
		size_t len = 0;

		*end = '\0';
		want[0] = '\0';
		for (i = 0; i < n; i++)
			len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%d", seps[s],
						v[i]);
		assert_string_equal(got, want);
	}
}

static void test_numbers(void **state)
{
	static const int64_t ints[] = {0,	  1,	     -1,	9,
				       10,	  99999999,  100000000, 123456789012345678,
				       INT64_MAX, INT64_MIN, -42};
	char s[NUMFMT_MAX + 1], want[32];
	uint64_t seed = 88172645463325252ULL;
	int64_t i;
	double d;
	size_t k, n;

	UNUSED(state);
	for (k = 0; k < ARRAY_SIZE(ints); k++) {
		n = numfmt_i64(s, ints[k]);
		s[n] = '\0';
		snprintf(want, sizeof(want), "%lld", (long long)ints[k]);
		assert_string_equal(s, want);
		assert_int_equal(numfmt_parse(s, n, &i, &d), NUM_INT);
		assert_true(i == ints[k]);
	}
	/* Each digit count's first and last value, where the length is taken
	 * from the leading zero bytes. */
	for (i = 1; i <= 100000000; i *= 10) {
		int64_t edge[3] = {i - 1, i, i + 1};

		for (k = 0; k < 3; k++) {
			n = numfmt_i64(s, edge[k]);
			s[n] = '\0';
			snprintf(want, sizeof(want), "%lld", (long long)edge[k]);
			assert_string_equal(s, want);
		}
	}
	for (i = 0; i < 1000000; i += 7) {
		n = numfmt_i64(s, i);
		s[n] = '\0';
		snprintf(want, sizeof(want), "%lld", (long long)i);
		assert_string_equal(s, want);
	}
	n = numfmt_f64(s, 0.1);
	assert_memory_equal(s, "0.1", n);
	n = numfmt_f64(s, 5.0);
	assert_memory_equal(s, "5.0", n);
	n = numfmt_f64(s, -0.0);
	assert_memory_equal(s, "-0.0", n);
	n = numfmt_f64(s, 0.565476655960083);
	assert_memory_equal(s, "0.565476655960083", n);
	n = numfmt_f64(s, NAN);
	assert_memory_equal(s, "null", n);
	n = numfmt_f64(s, 1e300);
	s[n] = '\0';
	assert_true(strtod(s, NULL) == 1e300);
	fmt_check(1e300);
	fmt_check(-0.0);
	fmt_check(0.1);
	fmt_check(DBL_MIN);
	fmt_check(DBL_MAX);
	fmt_check(5e-324);
	fmt_check(9007199254740993.0);
	fmt_check(1e22);
	fmt_check(1e23);
	fmt_check(123456.789e-20);
	for (k = 0; k < 200000; k++) {
		uint64_t bits;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		bits = seed;
		memcpy(&d, &bits, sizeof(d));
		if (!isfinite(d))
			continue;
		fmt_check(d);
		fmt_check((double)(int64_t)(seed >> 20) / 1000.0);
	}
	/* the parser agrees with strtod on awkward inputs */
	assert_int_equal(numfmt_parse("1e400", 5, &i, &d), NUM_DBL);
	assert_true(isinf(d));
	assert_int_equal(numfmt_parse("9223372036854775808", 19, &i, &d), NUM_DBL);
	assert_true(d == 9223372036854775808.0);
	assert_int_equal(numfmt_parse("0.30000000000000004441", 22, &i, &d), NUM_DBL);
	assert_true(d == strtod("0.30000000000000004441", NULL));
	assert_int_equal(numfmt_parse("1.", 2, &i, &d), NUM_BAD);
	assert_int_equal(numfmt_parse("-", 1, &i, &d), NUM_BAD);
	assert_int_equal(numfmt_parse("1e", 2, &i, &d), NUM_BAD);
}

/* numfmt_f64_hint writes what numfmt_f64 writes, whatever the hint. */
static void test_number_hint(void **state)
{
	static const double fixed[] = {0.1,
				       0.25,
				       5.0,
				       -0.0,
				       0,
				       1e-8,
				       1e300,
				       NAN,
				       INFINITY,
				       0.565476655960083,
				       1125899906842623.5,
				       123.0,
				       4503599627370497.0,
				       1e15,
				       0.3};
	char a[NUMFMT_MAX], b[NUMFMT_MAX];
	uint64_t seed = 2463534242ULL;
	int hint = 0;
	size_t k, na, nb;

	UNUSED(state);
	for (k = 0; k < 300000; k++) {
		double v;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		/* runs of similar numbers, then a jump in scale or digits */
		if (k % 5 == 4)
			v = fixed[(seed >> 8) % ARRAY_SIZE(fixed)];
		else
			v = (double)(int64_t)(seed >> 40) / (double)(1 + (seed >> 5) % 7 * 1000);
		if (k % 7 == 3)
			hint = (int)((seed >> 3) % 19);
		na = numfmt_f64(a, v);
		nb = numfmt_f64_hint(b, v, &hint);
		if (na != nb || memcmp(a, b, na) != 0)
			fail_msg("%.17g: %.*s, with a hint %.*s", v, (int)na, a, (int)nb, b);
	}
}

static void test_special_values(void **state)
{
	struct profile *p = profile_new();
	struct attr a[] = {{.name = "uid", .kind = COL_STR, .s = "f"}};
	struct buf b = BUF_INIT;
	uint32_t t;
	size_t r;

	UNUSED(state);
	p->type = xstrdup("t");
	p->layout = LAYOUT_GLOBAL;
	t = profile_type_add(p, a, 1);
	r = profile_res_add(p, t);
	col_set_f64(&p->res, table_col_get(p, &p->res, "amount", COL_F64), r, NAN);
	r = profile_res_add(p, t);
	col_set_f64(&p->res, table_col_get(p, &p->res, "amount", COL_F64), r, 3.0);
	profile_write_json(p, &b, false);
	assert_non_null(
		strstr(b.data, "{\"uid\":\"f\",\"amount\":null},{\"uid\":\"f\",\"amount\":3}"));
	buf_release(&b);
	profile_free(p);
}

/* A profile of 100000 rows or more is written to a file by a second
 * thread (util/bgio.c) while the first formats: the file is what the
 * in-memory writer makes, byte for byte. Run under TSan by make check. */
static void test_background_write(void **state)
{
	char path[] = "/tmp/veles-bgwrite-XXXXXX";
	int fd = mkstemp(path);
	struct buf j = BUF_INIT, mem = BUF_INIT, file = BUF_INIT;
	struct profile *p = NULL;

	UNUSED(state);
	assert_true(fd >= 0);
	buf_adds(&j, "{\"header\": {\"type\": \"time\"}, \"resources\": [");
	for (size_t i = 0; i < 110000; i++)
		buf_addf(&j, "%s{\"uid\": \"f%zu\", \"type\": \"time\", \"amount\": %zu}",
			 i ? "," : "", i % 7, i);
	buf_adds(&j, "]}");
	assert_int_equal(profile_load_mem(j.data, j.len, "big.perf", &p), 0);
	profile_write_json(p, &mem, false);
	assert_int_equal(profile_write_fd(p, fd, false), 0);
	close(fd);
	assert_int_equal(file_read_all(path, &file), 0);
	assert_int_equal(file.len, mem.len);
	assert_memory_equal(file.data, mem.data, mem.len);
	unlink(path);
	profile_free(p);
	buf_release(&j);
	buf_release(&mem);
	buf_release(&file);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_yajl_reads_it),
		cmocka_unit_test(test_python_reads_it),
		cmocka_unit_test(test_save_compressed),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_i32_list),
		cmocka_unit_test(test_number_hint),
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_background_write),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
