/* The compact profile form: round trips, and damaged input. */
#include "profile_testlib.h"

#include <zlib.h>

#include "util/strpool.h"

/* Every profile of the test data that loads (time-seed-original.perf is
 * the seed's own, with its trailing comma). */
static const char *const data_files[] = {"bounds.perf", "memory.perf", "time.perf", "trace.perf",
					 "trace-models.perf"};

static struct profile *roundtrip(const struct profile *p, struct buf *enc)
{
	struct profile *q = NULL;

	buf_reset(enc);
	if (profile_encode(p, enc) < 0)
		fail_msg("encode: %s", err_msg());
	if (profile_decode((const uint8_t *)enc->data, enc->len, "t.perf", &q) < 0)
		fail_msg("decode: %s", err_msg());
	return q;
}

static void assert_same_json(const struct profile *a, const struct profile *b)
{
	struct buf x = BUF_INIT, y = BUF_INIT;

	profile_write_json(a, &x, false);
	profile_write_json(b, &y, false);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.data, y.data, x.len);
	buf_reset(&x);
	buf_reset(&y);
	profile_write_json(a, &x, true);
	profile_write_json(b, &y, true);
	assert_string_equal(x.data, y.data);
	buf_release(&x);
	buf_release(&y);
}

/* Every cell, bit for bit (NaN and -0.0 included, which JSON cannot tell). */
static void assert_same_table(const struct profile *pa, const struct table *a,
			      const struct profile *pb, const struct table *b)
{
	assert_int_equal(a->nrows, b->nrows);
	assert_int_equal(a->ncols, b->ncols);
	for (size_t i = 0; i < a->ncols; i++) {
		const struct column *x = &a->cols[i], *y = &b->cols[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->kind, y->kind);
		for (size_t r = 0; r < a->nrows; r++) {
			assert_int_equal(col_has(x, r), col_has(y, r));
			if (!col_has(x, r))
				continue;
			if (x->kind == COL_I64)
				assert_true(col_i64(x, r) == col_i64(y, r));
			else if (x->kind == COL_F64)
				assert_memory_equal(&x->v.f64[r], &y->v.f64[r], 8);
			else
				assert_string_equal(col_text(pa, x, r), col_text(pb, y, r));
		}
	}
}

static void assert_same(const struct profile *a, const struct profile *b)
{
	assert_same_json(a, b);
	assert_same_table(a, &a->types, b, &b->types);
	assert_same_table(a, &a->res, b, &b->res);
	assert_memory_equal(a->res_type, b->res_type, a->res.nrows * sizeof(uint32_t));
}

static void test_data_files(void **state)
{
	struct buf enc = BUF_INIT, again = BUF_INIT;

	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(data_files); i++) {
		struct profile *p = load_data(data_files[i]), *q = roundtrip(p, &enc);

		assert_same(p, q);
		/* The same profile always gives the same bytes (one blob). */
		buf_reset(&again);
		assert_int_equal(profile_encode(q, &again), 0);
		assert_int_equal(enc.len, again.len);
		assert_memory_equal(enc.data, again.data, enc.len);
		profile_free(p);
		profile_free(q);
	}
	buf_release(&enc);
	buf_release(&again);
}

static void set(struct profile *p, size_t row, const char *name, enum col_kind kind, int64_t i,
		double f, const char *s)
{
	struct attr a = {name, kind, i, f, s};

	table_set(p, &p->res, row, &a);
}

/* Every kind of cell and of gap the model has. */
static void test_edges(void **state)
{
	struct profile *p = profile_new(), *q;
	struct attr uid = {"uid", COL_STR, 0, 0, "f"};
	struct attr trace = {"trace", COL_JSON, 0, 0, "[{\"a\": 1}, null]"};
	struct buf enc = BUF_INIT;
	uint32_t t0, t1;
	double odd[] = {NAN, -0.0, 0.1, 1e300, 4.9e-324, -2.5, 1.0 / 3, 123456.789};

	UNUSED(state);
	p->type = xstrdup("mixed");
	p->origin = xstrdup("0123456789abcdef0123456789abcdef01234567");
	p->cmd = xstrdup("./x");
	p->args = xstrdup("-v");
	p->args_is_params = true;
	p->collector = xstrdup("trace");
	p->collector_params = xstrdup("{\"k\": [1, 2]}");
	p->models = xstrdup("[{\"uid\": \"f\"}]");
	p->has_timestamp = true;
	p->timestamp = 0.5;
	p->units = xcalloc(1, sizeof(*p->units));
	p->units[0] = (struct kv){xstrdup("mixed(time delta)"), xstrdup("us")};
	p->nunits = 1;
	p->extra = xcalloc(1, sizeof(*p->extra));
	p->extra[0] = (struct kv){xstrdup("later"), xstrdup("{\"x\":true}")};
	p->nextra = 1;
	t0 = profile_type_add(p, &uid, 1);
	uid.s = "";
	t1 = profile_type_add(p, (struct attr[]){uid, trace}, 2);
	for (size_t r = 0; r < 40; r++) {
		profile_res_add(p, r % 3 ? t0 : t1);
		if (r % 5)
			set(p, r, "amount", COL_I64, (int64_t)r * 1000003 - 7, 0, NULL);
		if (r % 7 == 0)
			set(p, r, "wide", COL_I64, r % 2 ? INT64_MIN : INT64_MAX, 0, NULL);
		set(p, r, "f", COL_F64, 0, odd[r % ARRAY_SIZE(odd)], NULL);
		set(p, r, "dec", COL_F64, 0, (double)r / 1000, NULL);
		if (r < 30)
			set(p, r, "name", COL_STR, 0, 0, r % 4 ? "a\"b" : "");
		set(p, r, "mixed", r % 2 ? COL_JSON : COL_I64, (int64_t)r, 0, "[1]");
	}
	q = roundtrip(p, &enc);
	assert_same(p, q);
	assert_int_equal(q->layout, LAYOUT_TYPED);
	assert_true(q->args_is_params && q->has_timestamp && q->timestamp == 0.5);
	/* A type added after the round trip finds the old ones by key. */
	uid.s = "f";
	assert_int_equal(profile_type_add(q, &uid, 1), t0);
	profile_free(p);
	profile_free(q);
	buf_release(&enc);
}

/* A profile large enough for the stage to flush and every integer
 * encoding to win somewhere: orders, repeated addresses, random sizes. */
static void test_large(void **state)
{
	struct profile *p = profile_new(), *q;
	struct buf enc = BUF_INIT;
	uint64_t rng = 88172645463325252u;
	uint32_t types[6];

	UNUSED(state);
	p->type = xstrdup("memory");
	for (int i = 0; i < 6; i++) {
		char name[16];
		struct attr a = {"uid", COL_STR, 0, 0, name};

		snprintf(name, sizeof(name), "site%d", i);
		types[i] = profile_type_add(p, &a, 1);
	}
	for (size_t r = 0; r < 300000; r++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		profile_res_add(p, types[rng % 6]);
		set(p, r, "order", COL_I64, (int64_t)r + 1, 0, NULL);
		set(p, r, "address", COL_I64, 0x55550000 + (int64_t)(rng % 4096) * 32, 0, NULL);
		set(p, r, "amount", COL_I64, (int64_t)(rng >> 40) % 5000, 0, NULL);
		set(p, r, "raw", COL_F64, 0, (double)(rng >> 11) * 0x1p-53, NULL);
		set(p, r, "pid", COL_I64, 4242, 0, NULL);
	}
	q = roundtrip(p, &enc);
	assert_same(p, q);
	profile_free(p);
	profile_free(q);
	buf_release(&enc);
}

/* Cut anywhere or changed anywhere: one error naming the file, never a
 * crash and never a profile. */
static void test_damaged(void **state)
{
	struct profile *p = load_data("memory.perf"), *q = NULL;
	struct buf enc = BUF_INIT;
	char *copy;

	UNUSED(state);
	assert_int_equal(profile_encode(p, &enc), 0);
	copy = xmalloc(enc.len);
	for (size_t n = 0; n < enc.len; n++) {
		assert_true(profile_decode((const uint8_t *)enc.data, n, "cut.perf", &q) < 0);
		assert_null(q);
		assert_non_null(strstr(err_msg(), "cut.perf: "));
	}
	assert_non_null(strstr(err_msg(), "truncated compact profile"));
	for (size_t i = 0; i < enc.len; i++) {
		memcpy(copy, enc.data, enc.len);
		copy[i] ^= (char)(1 << (i % 8));
		assert_true(profile_decode((const uint8_t *)copy, enc.len, "bad.perf", &q) < 0);
		assert_null(q);
		assert_non_null(strstr(err_msg(), "bad.perf: "));
	}
	/* Through the loader, which tells the form by its magic. */
	assert_true(profile_load_mem(enc.data, enc.len - 1, "x.perf", &q) < 0);
	assert_non_null(strstr(err_msg(), "x.perf: truncated compact profile"));
	free(copy);
	profile_free(p);
	buf_release(&enc);
}

/* What add does with a compact file: check it a column at a time, then
 * write its header anew with another origin, the columns as they are:
 * the very bytes a fresh encoding of that profile gives. */
static void test_with_origin(void **state)
{
	struct buf enc = BUF_INIT, moved = BUF_INIT, fresh = BUF_INIT;
	struct profile *q = NULL;

	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(data_files); i++) {
		struct profile *p = load_data(data_files[i]);

		buf_reset(&enc);
		buf_reset(&moved);
		buf_reset(&fresh);
		assert_int_equal(profile_encode(p, &enc), 0);
		assert_int_equal(profile_decode_check((const uint8_t *)enc.data, enc.len, "c", &q),
				 0);
		assert_string_equal(q->type, p->type);
		assert_int_equal(profile_nres(q), 0);
		profile_free(q);
		assert_int_equal(profile_compact_with_origin((const uint8_t *)enc.data, enc.len,
							     "feedbeef", &moved),
				 0);
		free(p->origin);
		p->origin = xstrdup("feedbeef");
		assert_int_equal(profile_encode(p, &fresh), 0);
		assert_int_equal(moved.len, fresh.len);
		assert_memory_equal(moved.data, fresh.data, fresh.len);
		profile_free(p);
	}
	/* A file that fails the full read fails the check too. */
	enc.data[enc.len / 2] ^= 1;
	assert_true(profile_decode_check((const uint8_t *)enc.data, enc.len, "c", &q) < 0);
	buf_release(&enc);
	buf_release(&moved);
	buf_release(&fresh);
}

/* A newer major version is refused by name. */
static void test_version(void **state)
{
	struct profile *p = load_data("time.perf"), *q = NULL;
	struct buf enc = BUF_INIT;

	UNUSED(state);
	assert_int_equal(profile_encode(p, &enc), 0);
	enc.data[8] = 2;
	assert_true(profile_decode((const uint8_t *)enc.data, enc.len, "v.perf", &q) < 0);
	/* The checksum covers the version: changed alone, it is damage. */
	assert_non_null(strstr(err_msg(), "v.perf: corrupt compact profile: checksum"));
	{
		uLong crc = crc32_z(0, (const Bytef *)enc.data, enc.len - 25);

		for (int k = 0; k < 4; k++)
			enc.data[enc.len - 4 + k] = (char)(crc >> (8 * k));
	}
	assert_true(profile_decode((const uint8_t *)enc.data, enc.len, "v.perf", &q) < 0);
	assert_string_equal(err_msg(),
			    "v.perf: compact profile format 2.0; this veles reads 1.x only");
	profile_free(p);
	buf_release(&enc);
}

/* The loaders read the compact form from a file, mapped or not. */
static void test_load_file(void **state)
{
	struct profile *p = load_data("trace.perf"), *q = NULL;
	char path[] = "/tmp/veles-compact-XXXXXX";
	int fd = mkstemp(path);

	UNUSED(state);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(profile_save_compact(p, path), 0);
	assert_int_equal(profile_load(path, &q), 0);
	assert_same(p, q);
	profile_free(q);
	/* The header alone, for status: no rows. */
	assert_int_equal(profile_load_header(path, &q), 0);
	assert_string_equal(q->type, p->type);
	assert_string_equal(q->cmd, p->cmd);
	assert_int_equal(profile_nres(q), 0);
	assert_int_equal(q->types.nrows, 0);
	profile_free(q);
	unlink(path);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_files),  cmocka_unit_test(test_edges),
		cmocka_unit_test(test_large),	    cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_version),	    cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_with_origin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
