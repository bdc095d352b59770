/* The column model and the building API collectors use. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

static void test_type_dedup(void **state)
{
	struct profile *p = profile_new();
	struct attr a[] = {
		{.name = "uid", .kind = COL_STR, .s = "main"},
		{.name = "type", .kind = COL_STR, .s = "time"},
		{.name = "subtype", .kind = COL_STR, .s = "real"},
	};
	struct attr b[] = {
		{.name = "subtype", .kind = COL_STR, .s = "real"},
		{.name = "uid", .kind = COL_STR, .s = "main"},
		{.name = "type", .kind = COL_STR, .s = "time"},
	};
	struct attr c[] = {
		{.name = "uid", .kind = COL_STR, .s = "main"},
		{.name = "type", .kind = COL_STR, .s = "time"},
		{.name = "subtype", .kind = COL_STR, .s = "user"},
	};
	struct attr d[] = {{.name = "uid", .kind = COL_STR, .s = "main"}};
	uint32_t ta, tb, tc, td;

	UNUSED(state);
	ta = profile_type_add(p, a, 3);
	tb = profile_type_add(p, b, 3); /* same attributes, other order */
	tc = profile_type_add(p, c, 3);
	td = profile_type_add(p, d, 1); /* a subset is another type */
	assert_int_equal(ta, 0);
	assert_int_equal(tb, ta);
	assert_int_equal(tc, 1);
	assert_int_equal(td, 2);
	assert_int_equal(p->types.nrows, 3);
	assert_string_equal(profile_type_key(p, ta), "main#0");
	assert_string_equal(profile_type_key(p, tc), "main#1");
	assert_string_equal(profile_type_key(p, td), "main#2");
	assert_string_equal(col_text(p, table_col(&p->types, "subtype"), tc), "user");
	assert_false(col_has(table_col(&p->types, "subtype"), td));
	profile_free(p);
}

static void test_object_uid(void **state)
{
	struct profile *p = profile_new();
	struct attr a[] = {
		{.name = "uid",
		 .kind = COL_JSON,
		 .s = "{\"source\":\"../"
		      "memory_collect_test.c\",\"function\":\"main\",\"line\":22}"},
		{.name = "amount", .kind = COL_I64, .i = 4},
	};
	struct buf s = BUF_INIT;
	uint32_t t;
	size_t r;

	UNUSED(state);
	t = profile_type_add(p, a, 1);
	r = profile_res_add(p, t);
	table_set(p, &p->res, r, &a[1]);
	assert_string_equal(profile_type_key(p, t), "../memory_collect_test.c:main:22#0");
	assert_string_equal(profile_uid(p, r, &s), "../memory_collect_test.c:main:22");
	assert_true(profile_amount(p, r) == 4);
	buf_release(&s);
	profile_free(p);
}

/* A column found in either table, and where a row's value sits in it. */
static void test_col_any(void **state)
{
	struct profile *p = profile_new();
	struct attr ta = {.name = "uid", .kind = COL_STR, .s = "a"};
	struct attr tb = {.name = "uid", .kind = COL_STR, .s = "b"};
	struct attr amount = {.name = "amount", .kind = COL_I64, .i = 7};
	uint32_t a, b;
	size_t r0, r1, r2;
	const struct column *uid, *am;

	UNUSED(state);
	a = profile_type_add(p, &ta, 1);
	b = profile_type_add(p, &tb, 1);
	r0 = profile_res_add(p, b);
	r1 = profile_res_add(p, a);
	r2 = profile_res_add(p, b);
	table_set(p, &p->res, r1, &amount);
	uid = profile_col_any(p, "uid");
	am = profile_col_any(p, "amount");
	assert_non_null(uid);
	assert_non_null(am);
	assert_null(profile_col_any(p, "nosuch"));
	/* uid lives in the types' table: a row's value is its type's */
	assert_int_equal(profile_col_at(p, uid, r0), b);
	assert_int_equal(profile_col_at(p, uid, r1), a);
	assert_int_equal(profile_col_at(p, uid, r2), b);
	/* amount in the resources' table: the row itself */
	assert_int_equal(profile_col_at(p, am, r2), r2);
	assert_true(col_num(am, profile_col_at(p, am, r1)) == 7);
	profile_free(p);
}

static void test_types_after_load(void **state)
{
	static const char json[] =
		"{\"header\": {\"type\": \"t\"}, \"resources\": {\"f#0\": {\"amount\": [1]}},"
		" \"resource_type_map\": {\"f#0\": {\"uid\": \"f\", \"n\": 5}}}";
	struct attr same[] = {{.name = "n", .kind = COL_F64, .f = 5.0},
			      {.name = "uid", .kind = COL_STR, .s = "f"}};
	struct attr other[] = {{.name = "uid", .kind = COL_STR, .s = "f"}};
	struct profile *p;

	UNUSED(state);
	assert_int_equal(profile_load_mem(json, strlen(json), "x", &p), 0);
	/* 5.0 and 5 are one value: the loaded type is found, not duplicated */
	assert_int_equal(profile_type_add(p, same, 2), 0);
	/* a new type with the same uid does not reuse the loaded key */
	assert_int_equal(profile_type_add(p, other, 1), 1);
	assert_string_equal(profile_type_key(p, 1), "f#1");
	profile_free(p);
}

static void test_columns(void **state)
{
	struct profile *p = profile_new();
	struct attr u = {.name = "uid", .kind = COL_STR, .s = "f"};
	uint32_t t = profile_type_add(p, &u, 1);
	struct column *c;
	size_t i, first;

	UNUSED(state);
	first = profile_res_add_n(p, t, 10);
	assert_int_equal(first, 0);
	assert_int_equal(profile_nres(p), 10);
	c = table_col_get(p, &p->res, "amount", COL_I64);
	col_set_i64(&p->res, c, 2, 7);
	/* rows before a set cell and after the last one are absent */
	assert_false(col_has(c, 0));
	assert_false(col_has(c, 1));
	assert_true(col_has(c, 2));
	assert_false(col_has(c, 3));
	assert_true(isnan(col_num(c, 9)));
	col_set_i64(&p->res, c, 0, 1);
	assert_true(col_has(c, 0));
	assert_false(col_has(c, 1));
	/* a fraction widens the column, keeping the integers */
	col_set_f64(&p->res, c, 5, 0.5);
	assert_int_equal(c->kind, COL_F64);
	assert_true(col_num(c, 2) == 7 && col_num(c, 5) == 0.5 && col_num(c, 0) == 1);
	assert_false(col_has(c, 4));
	/* text in a numeric column turns it into JSON cells */
	{
		struct attr s = {.name = "amount", .kind = COL_STR, .s = "n/a"};

		table_set(p, &p->res, 6, &s);
	}
	c = table_col(&p->res, "amount");
	assert_int_equal(c->kind, COL_JSON);
	/* a whole number stays one, as it was set */
	assert_string_equal(col_text(p, c, 2), "7");
	assert_string_equal(col_text(p, c, 6), "\"n/a\"");
	assert_null(col_text(p, c, 1));
	for (i = 0; i < 10; i++)
		assert_int_equal(p->res_type[i], t);
	assert_null(table_col(&p->res, "nope"));
	assert_null(profile_attr(p, 0, "nope", NULL, NULL));
	profile_free(p);
}

static void test_build_and_write(void **state)
{
	struct profile *p = profile_new(), *q;
	struct buf b = BUF_INIT, b2 = BUF_INIT;
	const char *names[] = {"f", "g", "f"};
	size_t i;

	UNUSED(state);
	p->type = xstrdup("mixed");
	p->cmd = xstrdup("./prog");
	for (i = 0; i < 30; i++) {
		struct attr a[] = {{.name = "uid", .kind = COL_STR, .s = names[i % 3]},
				   {.name = "type", .kind = COL_STR, .s = "mixed"}};
		uint32_t t = profile_type_add(p, a, 2);
		size_t r = profile_res_add(p, t);

		col_set_i64(&p->res, table_col_get(p, &p->res, "amount", COL_I64), r, (int64_t)i);
		if (i % 2)
			col_set_i64(&p->res,
				    table_col_get(p, &p->res, "structure-unit-size", COL_I64), r,
				    (int64_t)i * 10);
	}
	assert_int_equal(p->types.nrows, 2);
	profile_write_json(p, &b, false);
	/* interleaved rows are grouped per type, in row order */
	assert_non_null(strstr(b.data, "\"f#0\":{\"amount\":[0,2,3,5,6,8,9,11,12,14,15,17,18,20,"));
	assert_non_null(
		strstr(b.data, "\"structure-unit-size\":[null,null,30,50,null,null,90,110,"));
	assert_int_equal(profile_load_mem(b.data, b.len, "b", &q), 0);
	assert_int_equal(profile_nres(q), 30);
	profile_write_json(q, &b2, false);
	assert_string_equal(b.data, b2.data);
	profile_free(q);
	buf_release(&b);
	buf_release(&b2);
	profile_free(p);
}

/* Keeping every third row of two interleaved types, with holes in a column. */
static void test_res_keep(void **state)
{
	struct profile *p = profile_new();
	struct attr f = {.name = "uid", .kind = COL_STR, .s = "f"};
	struct attr g = {.name = "uid", .kind = COL_STR, .s = "g"};
	uint32_t tf = profile_type_add(p, &f, 1), tg = profile_type_add(p, &g, 1);
	bool keep[20];
	struct column *a, *s;
	struct buf b = BUF_INIT;
	size_t i;

	UNUSED(state);
	for (i = 0; i < 20; i++) {
		size_t r = profile_res_add(p, i % 2 ? tg : tf);

		a = table_col_get(p, &p->res, "amount", COL_I64);
		col_set_i64(&p->res, a, r, (int64_t)i * 1000000000); /* wide cells */
		if (i % 4 == 0) {
			s = table_col_get(p, &p->res, "structure-unit-size", COL_I64);
			col_set_i64(&p->res, s, r, (int64_t)i);
		}
		keep[i] = i % 3 == 0;
	}
	assert_int_equal(profile_res_keep(p, keep), 7); /* rows 0 3 6 9 12 15 18 */
	assert_int_equal(profile_nres(p), 7);
	a = table_col(&p->res, "amount");
	s = table_col(&p->res, "structure-unit-size");
	for (i = 0; i < 7; i++) {
		assert_true(col_num(a, i) == (double)(3 * i) * 1e9);
		assert_int_equal(p->res_type[i], (3 * i) % 2 ? tg : tf);
		/* rows 0, 12 had a size: now 0 and 4 */
		assert_int_equal(col_has(s, i), i == 0 || i == 4);
	}
	assert_true(col_num(s, 4) == 12);
	/* rows added after compacting start absent in the old columns */
	i = profile_res_add(p, tf);
	assert_false(col_has(s, i));
	assert_false(col_has(a, i));
	/* nothing kept: "g" and "f" stay as types, no resources are written */
	memset(keep, 0, sizeof(keep));
	assert_int_equal(profile_res_keep(p, keep), 0);
	p->type = xstrdup("mixed");
	profile_write_json(p, &b, false);
	assert_non_null(strstr(b.data, "\"resources\":{}"));
	buf_release(&b);
	profile_free(p);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_dedup),
		cmocka_unit_test(test_object_uid),
		cmocka_unit_test(test_col_any),
		cmocka_unit_test(test_types_after_load),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_build_and_write),
		cmocka_unit_test(test_res_keep),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
