/*
 * The profile reader's fast paths: flat resource lists, integer arrays read
 * a block at a time, the two-thread split; each against the careful path,
 * and random damage that must never crash or leak.
 */
#include <stdio.h>

#include "profile_testlib.h"
#include "util/fsutil.h"

/* One resource of test_flat_resources in one of its ten shapes. */
static void flat_resource(struct buf *j, size_t i)
{
	static const char *const sub[] = {"real", "user", "sys"};
	const char *s = sub[i % 3];

	switch (i % 10) {
	case 6: /* over several lines */
		buf_addf(j,
			 "{\n  \"subtype\": \"%s\",\n  \"uid\": \"./p\", \"order\": %zu,\n"
			 "  \"type\": \"time\", \"amount\": %zu\n}",
			 s, i, i);
		break;
	case 7: /* an escape: read event by event */
		buf_addf(j,
			 "{\"subtype\": \"%s\", \"uid\": \"./p\\u0041\", \"order\": %zu, "
			 "\"type\": \"time\", \"amount\": %zu.5}",
			 s, i, i);
		break;
	case 8: /* literals, null, an exponent */
		buf_addf(j,
			 "{\"subtype\": \"%s\", \"uid\": \"./p\", \"order\": %zu, \"type\": "
			 "\"time\", "
			 "\"amount\": -1e2, \"flag\": true, \"x\": null}",
			 s, i);
		break;
	case 9: /* another key order, compact, a long fraction */
		buf_addf(j,
			 "{\"amount\":0.1234567890123,\"order\":%zu,\"uid\":\"./p\",\"type\":"
			 "\"time\",\"subtype\":\"%s\"}",
			 i, s);
		break;
	default:
		buf_addf(j,
			 "{\"subtype\": \"%s\", \"uid\": \"./p\", \"order\": %zu, "
			 "\"type\": \"time\", \"amount\": %zu.25}",
			 s, i, i);
	}
}

static double flat_amount(size_t i)
{
	switch (i % 10) {
	case 6:
		return (double)i;
	case 7:
		return (double)i + 0.5;
	case 8:
		return -100;
	case 9:
		return 0.1234567890123;
	default:
		return (double)i + 0.25;
	}
}

static void check_flat(const struct profile *p, size_t n)
{
	static const char *const sub[] = {"real", "user", "sys"};
	struct buf s = BUF_INIT;
	size_t i;

	assert_int_equal(profile_nres(p), n);
	/* three subtypes times three attribute sets; key order does not matter */
	assert_int_equal(p->types.nrows, 9);
	for (i = 0; i < n; i++) {
		assert_true(res_num(p, i, "order") == (double)i);
		assert_true(profile_amount(p, i) == flat_amount(i));
		assert_string_equal(attr_text(p, i, "subtype"), sub[i % 3]);
		assert_string_equal(profile_uid(p, i, &s), i % 10 == 7 ? "./pA" : "./p");
		assert_true(i % 10 == 8 ? attr_text(p, i, "flag") != NULL
					: profile_attr(p, i, "flag", NULL, NULL) == NULL);
	}
	buf_release(&s);
}

/* Resource lists take a fast path for flat dicts shaped like the one
 * before; every other shape falls back without changing the result. */
static void test_flat_resources(void **state)
{
	const char *tmpdir = getenv("VELES_TEST_TMP");
	struct buf j = BUF_INIT;
	struct profile *p, *q;
	const size_t n = 20000;
	char *path, want[512];
	size_t i, lines, col;

	UNUSED(state);
	mkdir_p(tmpdir ? tmpdir : "/tmp");
	path = xasprintf("%s/flat-%d.perf", tmpdir ? tmpdir : "/tmp", (int)getpid());
	buf_adds(&j, "{\"header\": {\"type\": \"time\"}, \"global\": {\"resources\": [");
	for (i = 0; i < n; i++) {
		buf_adds(&j, i ? (i % 100 ? ", " : ",\n") : "");
		flat_resource(&j, i);
	}
	buf_adds(&j, "]}}");
	assert_int_equal(file_write_atomic(path, j.data, j.len), 0);
	assert_int_equal(profile_load(path, &p), 0); /* mapped */
	assert_int_equal(profile_load_mem(j.data, j.len, "m", &q), 0);
	check_flat(p, n);
	check_flat(q, n);
	profile_free(p);
	profile_free(q);
	assert_int_equal(load_piped(&j, &p), 0); /* read in chunks */
	check_flat(p, n);
	profile_free(p);
	/* errors after many fast resources keep their line and column */
	j.len -= 3;
	buf_adds(&j, ", {\"a\": 1,}]}}");
	for (i = 0, lines = 1; i < j.len; i++)
		lines += j.data[i] == '\n';
	col = j.len - 4 - (size_t)(strrchr(j.data, '\n') - j.data);
	snprintf(want, sizeof(want), "m:%zu:%zu: trailing comma before '}'", lines, col);
	assert_true(profile_load_mem(j.data, j.len, "m", &q) < 0);
	assert_null(q);
	assert_string_equal(err_msg(), want);
	snprintf(want, sizeof(want), "%s:%zu:%zu: trailing comma before '}'", path, lines, col);
	assert_int_equal(file_write_atomic(path, j.data, j.len), 0);
	assert_true(profile_load(path, &q) < 0);
	assert_string_equal(err_msg(), want);
	unlink(path);
	free(path);
	buf_release(&j);
}

/* A list in one of several shapes for test_split; @broken puts a syntax
 * error in resource @broken, or after the list when n (none when more). */
static void split_list(struct buf *j, size_t n, int shape, size_t broken)
{
	size_t i;

	buf_reset(j);
	buf_adds(j, "{\"header\": {\"type\": \"time\"}, \"global\": {\"resources\": [");
	for (i = 0; i < n; i++) {
		buf_adds(j, i ? (i % 7 ? ", " : ",\n  ") : "\n  ");
		if (i == broken)
			buf_adds(j, "{\"uid\": \"x\",}");
		else if (shape == 0)
			flat_resource(j, i);
		else if (shape == 1) /* a new type and a new column halfway */
			buf_addf(j, "{\"uid\": \"u%zu\", \"amount\": %zu%s}", i * 4 / n,
				 (size_t)(i * 3000000000ULL), i > n / 2 ? ", \"address\": 7" : "");
		else if (shape == 2) /* a "}, {" inside strings, nested values */
			buf_addf(j,
				 "{\"uid\": \"a}, {b\", \"trace\": [{\"f\": %zu}, {}], "
				 "\"amount\": %zu.5}",
				 i % 3, i);
		else if (shape == 3) /* integers, then a fraction in the second half */
			buf_addf(j, "{\"uid\": \"f\", \"type\": %zu, \"amount\": %zu%s}", i % 2, i,
				 i == n - 3 ? ".75" : "");
		else /* text in a collectable column */
			buf_addf(j, "{\"uid\": \"f\", \"amount\": \"%zu\"}", i);
	}
	/* @broken == n: after the list, where the line count must be right */
	buf_adds(j, broken == n ? "]},\n \"models\": [,]}" : "]}, \"models\": []}");
}

/* Typed resources in one of several shapes (@broken as for split_list). */
static void split_typed(struct buf *j, size_t n, int shape, size_t broken)
{
	size_t i, k;

	buf_reset(j);
	buf_adds(j, "{\"header\": {\"type\": \"mixed\"}, \"resources\": {");
	for (i = 0; i < n; i++) {
		/* keys repeat across the halves in shape 1 */
		buf_addf(j, "%s\"f%zu#0\": ", i ? (i % 5 ? ", " : ",\n") : "",
			 shape == 1 ? i % 7 : i);
		if (i == broken) {
			buf_adds(j, "{\"amount\": [1,]}");
		} else if (shape == 2) { /* scalars, an empty entry, a fraction late */
			if (i % 9 == 4)
				buf_adds(j, "{}");
			else
				buf_addf(j, "{\"amount\": %zu%s}", i, i == n - 2 ? ".5" : "");
		} else if (shape == 3) { /* text among the values */
			buf_addf(j, "{\"amount\": [1, \"x%zu\"]}", i);
		} else {
			buf_adds(j, "{\"amount\": [");
			for (k = 0; k < 1 + i % 40; k++)
				buf_addf(j, "%s%zu", k ? ", " : "", k * i * 99991);
			buf_addf(j, "]%s}", i % 3 ? ", \"structure-unit-size\": [4, 5]" : "");
		}
	}
	buf_adds(j, broken == n ? "},\n \"models\": [,]" : "}, \"resource_type_map\": {");
	for (i = 0; broken != n && i < n; i += 3)
		buf_addf(j, "%s\"f%zu#0\": {\"uid\": \"f%zu\"}", i ? ", " : "", i, i);
	buf_adds(j, broken == n ? "}" : "}}");
}

/* Everything a profile holds, as text: its JSON and its types' keys. */
static void profile_text(const struct profile *p, struct buf *out)
{
	size_t t, r;

	buf_reset(out);
	profile_write_json(p, out, false);
	for (t = 0; t < p->types.nrows; t++)
		buf_addf(out, "\n%s", profile_type_key(p, (uint32_t)t));
	for (r = 0; r < p->res.nrows; r++)
		buf_addf(out, " %u", p->res_type[r]);
}

/* Loads @j on one thread and with the list split, from memory and from a
 * mapped file; both must give the same profile or the same error. */
static void split_same(const struct buf *j, const char *path)
{
	struct buf one = BUF_INIT, two = BUF_INIT;
	char err1[1024];
	struct profile *p;
	int pass, ret1, ret2;

	for (pass = 0; pass < 2; pass++) {
		if (pass)
			assert_int_equal(file_write_atomic(path, j->data, j->len), 0);
		profile_split_bytes = SIZE_MAX;
		ret1 = pass ? profile_load(path, &p) : profile_load_mem(j->data, j->len, path, &p);
		snprintf(err1, sizeof(err1), "%s", ret1 < 0 ? err_msg() : "");
		if (ret1 == 0) {
			profile_text(p, &one);
			profile_free(p);
		}
		profile_split_bytes = 0;
		ret2 = pass ? profile_load(path, &p) : profile_load_mem(j->data, j->len, path, &p);
		assert_int_equal(ret1, ret2);
		if (ret2 < 0) {
			assert_string_equal(err_msg(), err1);
			continue;
		}
		profile_text(p, &two);
		profile_free(p);
		assert_string_equal(one.data, two.data);
	}
	profile_split_bytes = SIZE_MAX;
	buf_release(&one);
	buf_release(&two);
}

/* A list, or typed resources, read on two threads gives exactly the
 * profile, or the error, of one thread, in every shape; simple shapes do
 * take the split. */
static void test_split(void **state)
{
	const char *tmpdir = getenv("VELES_TEST_TMP");
	static const size_t sizes[] = {2, 3, 10, 101, 4000};
	struct buf j = BUF_INIT;
	unsigned long merges;
	size_t i, k, lines;
	char *path, want[64];
	int shape;

	UNUSED(state);
	mkdir_p(tmpdir ? tmpdir : "/tmp");
	path = xasprintf("%s/split-%d.perf", tmpdir ? tmpdir : "/tmp", (int)getpid());
	for (shape = 0; shape < 5; shape++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			merges = profile_split_merges;
			split_list(&j, sizes[i], shape, SIZE_MAX);
			split_same(&j, path);
			if ((shape == 1 || shape == 3) && sizes[i] >= 10)
				assert_true(profile_split_merges > merges);
			/* an error in either half, or at the boundary */
			split_list(&j, sizes[i], shape, sizes[i] / 4);
			split_same(&j, path);
			split_list(&j, sizes[i], shape, sizes[i] * 3 / 4);
			split_same(&j, path);
			split_list(&j, sizes[i], shape, sizes[i] / 2);
			split_same(&j, path);
			split_list(&j, sizes[i], shape, sizes[i]);
			split_same(&j, path);
			for (k = 0, lines = 1; k < j.len; k++)
				lines += j.data[k] == '\n';
			snprintf(want, sizeof(want), ":%zu:13: ", lines);
			assert_non_null(strstr(err_msg(), want));
		}
	}
	for (shape = 0; shape < 4; shape++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			merges = profile_split_merges;
			split_typed(&j, sizes[i], shape, SIZE_MAX);
			split_same(&j, path);
			if (shape != 3 && sizes[i] >= 10)
				assert_true(profile_split_merges > merges);
			split_typed(&j, sizes[i], shape, sizes[i] / 4);
			split_same(&j, path);
			split_typed(&j, sizes[i], shape, sizes[i] * 3 / 4);
			split_same(&j, path);
			split_typed(&j, sizes[i], shape, sizes[i]);
			split_same(&j, path);
			for (k = 0, lines = 1; k < j.len; k++)
				lines += j.data[k] == '\n';
			snprintf(want, sizeof(want), ":%zu:13: ", lines);
			assert_non_null(strstr(err_msg(), want));
		}
	}
	/* a truncated list */
	split_list(&j, 1000, 1, SIZE_MAX);
	j.len -= 20;
	split_same(&j, path);
	unlink(path);
	free(path);
	buf_release(&j);
}

/* The same for a list of resources read by the fast path: every change
 * either loads or fails with a position, never reads past the input. */
static void test_flat_mutations(void **state)
{
	static const char alphabet[] = "{}[],:\"\\0123456789.eE-+ntfu \n\x80\xff#";
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	struct buf j = BUF_INIT;
	size_t i, k;

	UNUSED(state);
	buf_adds(&j, "{\"header\": {\"type\": \"time\"}, \"global\": {\"resources\": [");
	for (i = 0; i < 60; i++) {
		buf_adds(&j, i ? ", " : "");
		flat_resource(&j, i);
	}
	buf_adds(&j, "]}}");
	for (k = 0; k < 4000; k++) {
		char *m = xmalloc(j.len); /* exactly the input: ASan sees any overread */
		struct profile *p = NULL;
		int edits = 1 + (int)(seed % 3), e;

		memcpy(m, j.data, j.len);
		for (e = 0; e < edits; e++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			m[(seed >> 8) % j.len] = alphabet[(seed >> 40) % (sizeof(alphabet) - 1)];
		}
		if (profile_load_mem(m, j.len, "m", &p) == 0)
			profile_free(p);
		else
			assert_true(strncmp(err_msg(), "m", 1) == 0);
		free(m);
	}
	buf_release(&j);
}

/* Random byte changes never crash the reader or leak (run under ASan). */
static void test_mutations(void **state)
{
	static const char *const names[] = {"trace.perf", "memory.perf", "time.perf",
					    "bounds.perf"};
	static const char alphabet[] = "{}[],:\"\\0123456789.eE-+ntfu \n\x80\xff#";
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t i, k;

	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *path = data_path(names[i]);
		struct buf raw = BUF_INIT;

		assert_int_equal(file_read_all(path, &raw), 0);
		for (k = 0; k < 3000; k++) {
			char *m = xstrndup(raw.data, raw.len);
			struct profile *p = NULL;
			int edits = 1 + (int)(seed % 4), e;

			for (e = 0; e < edits; e++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				m[(seed >> 8) % raw.len] =
					alphabet[(seed >> 40) % (sizeof(alphabet) - 1)];
			}
			if (profile_load_mem(m, raw.len, "m", &p) == 0)
				profile_free(p);
			else
				assert_true(strncmp(err_msg(), "m", 1) == 0);
			free(m);
		}
		buf_release(&raw);
		free(path);
	}
}

/*
 * Integer arrays in every spelling a writer may use: the block reader
 * takes plain runs and hands everything else (signs, long numbers,
 * fractions, line breaks, odd blanks) back to the careful path; the values
 * must come out the same either way, at any offset from a block's start.
 */
static void test_int_runs(void **state)
{
	static const char *const seps[] = {",", ", ", ", ", ",", " ,", ",\n  ", ",  "};
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	double want[600];
	size_t round, i;

	UNUSED(state);
	for (round = 0; round < 40; round++) {
		struct buf j = BUF_INIT;
		struct profile *p;

		buf_adds(&j, "{\"origin\": \"x\", \"header\": {\"type\": \"mixed\"}, "
			     "\"resources\": {\"f#0\": {\"amount\": [");
		buf_adds(&j, round % 2 ? "" : " ");
		for (i = 0; i < ARRAY_SIZE(want); i++) {
			int64_t v;

			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			switch (seed % 11) {
			case 0:
				v = -(int64_t)(seed >> 20 & 0xffff);
				break;
			case 1:
				v = (int64_t)(seed >> 12 & 0x3fffffffffffULL);
				break; /* 9..14 digits */
			case 2:
				v = 0;
				break;
			case 3:
				v = (int64_t)(seed >> 40 & 0xf);
				break;
			default:
				v = (int64_t)(seed >> 24) % 100000000;
				break;
			}
			if (i)
				buf_adds(
					&j,
					seps[round % 3 == 0 ? 0 : (seed >> 33) % ARRAY_SIZE(seps)]);
			if (seed % 29 == 0 && v >= 0) {
				buf_addf(&j, "%lld.5", (long long)v);
				want[i] = (double)v + 0.5;
			} else {
				buf_addf(&j, "%lld", (long long)v);
				want[i] = (double)v;
			}
		}
		buf_adds(&j, "]}}, \"resource_type_map\": {\"f#0\": {\"uid\": \"f\"}}}");
		p = load_str(j.data);
		assert_int_equal(profile_nres(p), ARRAY_SIZE(want));
		for (i = 0; i < ARRAY_SIZE(want); i++)
			if (res_num(p, i, "amount") != want[i])
				fail_msg("round %zu, value %zu: %.1f, want %.1f", round, i,
					 res_num(p, i, "amount"), want[i]);
		profile_free(p);
		buf_release(&j);
	}
	/* A leading zero is not JSON, whichever path meets it. */
	expect_error("{\"header\": {\"type\": \"m\"}, \"resources\": {\"f#0\": {\"amount\": "
		     "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
		     "28,29,30,31,32,33,34,35,36,37,38,39,40,007,1,2,3,4,5,6,7,8,9,10,11,12,13,"
		     "14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30]}}}",
		     "t.perf:1:171: malformed number");
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_flat_resources),
		cmocka_unit_test(test_int_runs),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_flat_mutations),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
