/* veles fuzz: the random numbers, the mutation rules, the dictionary and
 * the coverage bookkeeping (src/fuzz/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fuzz/cover.h"
#include "fuzz/mutate.h"
#include "fuzz/rng.h"
#include "fuzzcov-format.h"
#include "util/common.h"

static const char text[] = "the quick brown fox\njumps over the lazy dog\n"
			   "counter country countless\n\na b c d\nlast line without newline";
static const uint8_t binary[] = {0, 1, 2, 0, 0xff, 0x7f, 0x80, 0, 9, 10, 13, 0, 0, 42};

static struct fz_dict small_dict(void)
{
	struct fz_dict d = {0};

	assert_int_equal(fz_dict_parse("\"<a>\"\nkw=\"</a>\"\nplain token\n", 28, "t", &d), 0);
	return d;
}

static void test_rng(void **state)
{
	struct fz_rng a, b;

	UNUSED(state);
	fz_rng_seed(&a, 42);
	fz_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		assert_true(fz_rng_next(&a) == fz_rng_next(&b));
	fz_rng_seed(&b, 43);
	assert_false(fz_rng_next(&a) == fz_rng_next(&b));
	for (int i = 0; i < 10000; i++) {
		size_t n = (size_t)i % 17 + 1;
		double u = fz_rng_unit(&a);

		assert_true(fz_rng_below(&a, n) < n);
		assert_true(fz_rng_range(&a, 5, 9) >= 5 && fz_rng_range(&a, 5, 9) <= 9);
		assert_true(u >= 0 && u < 1);
	}
	assert_int_equal(fz_rng_below(&a, 0), 0);
	assert_int_equal(fz_rng_range(&a, 7, 7), 7);
}

/* Applies rule @k @rounds times from @start with limit @max, checking the
 * bounds after each, and that a rule which says it did nothing did not. */
static void apply_many(size_t k, const uint8_t *start, size_t len, size_t max, uint64_t seed,
		       uint8_t *out, size_t *out_len)
{
	const struct fz_rule *rules;
	size_t n;
	struct fz_rng rng;
	struct fz_dict dict = small_dict();
	struct fz_input in, before;
	struct fz_mut m = {.rng = &rng,
			   .max = max,
			   .dict = &dict,
			   .donor = binary,
			   .donor_len = sizeof(binary)};

	rules = fz_rules(&n);
	fz_rng_seed(&rng, seed);
	fz_input_init(&in, start, len, max);
	fz_input_init(&before, NULL, 0, max);
	for (int r = 0; r < 200; r++) {
		bool changed;

		fz_input_set(&before, in.data, in.len);
		changed = rules[k].fn(&m, &in);
		assert_true(in.len <= max);
		assert_true(in.len <= in.cap);
		if (!changed) {
			assert_int_equal(in.len, before.len);
			assert_memory_equal(in.data, before.data, in.len);
		}
		/* Now and then back to the start, so the input does not just
		 * shrink to nothing or sit at the limit. */
		if (r % 25 == 24)
			fz_input_set(&in, start, len);
	}
	memcpy(out, in.data, in.len);
	*out_len = in.len;
	fz_input_release(&in);
	fz_input_release(&before);
	fz_dict_release(&dict);
}

static void test_rules_bounds_and_determinism(void **state)
{
	const struct fz_rule *rules;
	size_t n, tl = strlen(text);
	uint8_t *a = malloc(4096), *b = malloc(4096);

	UNUSED(state);
	rules = fz_rules(&n);
	for (size_t k = 0; k < n; k++) {
		const size_t maxes[] = {tl, tl + 7, 4 * tl};
		size_t la, lb;

		for (size_t i = 0; i < ARRAY_SIZE(maxes); i++) {
			apply_many(k, (const uint8_t *)text, tl, maxes[i], k * 31 + i, a, &la);
			apply_many(k, (const uint8_t *)text, tl, maxes[i], k * 31 + i, b, &lb);
			/* The same seed makes the same input. */
			assert_int_equal(la, lb);
			assert_memory_equal(a, b, la);
			apply_many(k, binary, sizeof(binary), maxes[i], k, a, &la);
			apply_many(k, (const uint8_t *)"", 0, maxes[i], k, a, &la);
			apply_many(k, (const uint8_t *)"x", 1, 1, k, a, &la);
		}
		assert_int_equal(fz_rule_find(rules[k].name), (int)k);
		assert_non_null(rules[k].summary);
	}
	assert_int_equal(fz_rule_find("no-such-rule"), -1);
	free(a);
	free(b);
}

static void test_insert_at_limit_drops_tail(void **state)
{
	struct fz_input in;

	UNUSED(state);
	fz_input_init(&in, (const uint8_t *)"abcdef", 6, 8);
	assert_int_equal(fz_insert(&in, 8, 1, (const uint8_t *)"XY", 2), 2);
	assert_int_equal(in.len, 8);
	assert_memory_equal(in.data, "aXYbcdef", 8);
	/* Full: the tail makes room. */
	assert_int_equal(fz_insert(&in, 8, 0, (const uint8_t *)"Z", 1), 1);
	assert_memory_equal(in.data, "ZaXYbcde", 8);
	/* Never past the limit, even from inside the input itself. */
	assert_int_equal(fz_insert(&in, 8, 6, in.data, 5), 2);
	assert_memory_equal(in.data, "ZaXYbcZa", 8);
	assert_int_equal(fz_insert(&in, 8, 8, (const uint8_t *)"Q", 1), 0);
	fz_erase(&in, 6, 100);
	assert_int_equal(in.len, 6);
	fz_erase(&in, 10, 1);
	assert_int_equal(in.len, 6);
	fz_input_release(&in);
}

/* vary-word's copies share all bytes but one with the word they copy. */
static void test_vary_word(void **state)
{
	struct fz_rng rng;
	struct fz_mut m = {.rng = &rng, .max = 4096};
	struct fz_input in;
	int k = fz_rule_find("vary-word");
	const struct fz_rule *rules;
	size_t n, words = 0;
	char *copy, *save = NULL;

	UNUSED(state);
	rules = fz_rules(&n);
	fz_rng_seed(&rng, 7);
	fz_input_init(&in, (const uint8_t *)"abcdefgh", 8, 4096);
	assert_true(rules[k].fn(&m, &in));
	copy = strndup((const char *)in.data, in.len);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t diff = 0;

		assert_int_equal(strlen(w), 8);
		for (int i = 0; i < 8; i++)
			diff += w[i] != "abcdefgh"[i];
		assert_true(words == 0 ? diff == 0 : diff == 1);
		words++;
	}
	assert_true(words >= 2 && words <= 33);
	free(copy);
	fz_input_release(&in);
}

static void test_text_rules(void **state)
{
	struct fz_rng rng;
	struct fz_mut m = {.rng = &rng, .max = 4096};
	struct fz_input in;
	const struct fz_rule *rules;
	size_t n;

	UNUSED(state);
	rules = fz_rules(&n);
	fz_rng_seed(&rng, 1);
	fz_input_init(&in, (const uint8_t *)"b a c\n", 6, 4096);
	assert_true(rules[fz_rule_find("sort-line")].fn(&m, &in));
	assert_memory_equal(in.data, "a b c\n", 6);
	assert_true(rules[fz_rule_find("reverse-line")].fn(&m, &in));
	assert_memory_equal(in.data, "c b a\n", 6);
	assert_true(rules[fz_rule_find("bloat-words")].fn(&m, &in));
	assert_int_equal(in.len, 4);
	assert_memory_equal(in.data, "cba\n", 4);
	assert_false(rules[fz_rule_find("bloat-words")].fn(&m, &in));
	assert_true(rules[fz_rule_find("repeat-line")].fn(&m, &in));
	assert_true(in.len % 4 == 0 && in.len >= 8);
	for (size_t i = 0; i < in.len; i += 4)
		assert_memory_equal(in.data + i, "cba\n", 4);
	/* A last line without a newline gets one before it is repeated. */
	fz_input_set(&in, (const uint8_t *)"xy", 2);
	assert_true(rules[fz_rule_find("repeat-line")].fn(&m, &in));
	assert_memory_equal(in.data, "xy\nxy\n", 6);
	fz_input_set(&in, (const uint8_t *)"", 0);
	assert_false(rules[fz_rule_find("delete-line")].fn(&m, &in));
	assert_false(rules[fz_rule_find("repeat-word")].fn(&m, &in));
	fz_input_set(&in, (const uint8_t *)"   ", 3);
	assert_false(rules[fz_rule_find("vary-word")].fn(&m, &in));
	fz_input_release(&in);
	assert_true(fz_is_text((const uint8_t *)text, strlen(text)));
	assert_false(fz_is_text(binary, sizeof(binary)));
}

static void test_dict(void **state)
{
	struct fz_dict d = {0};
	static const char afl[] = "# comment\n"
				  "kw1=\"<tag>\"\n"
				  "  \"a\\\"b\\\\c\\x41\\x00\"  \n"
				  "\n"
				  "plain words\n";

	UNUSED(state);
	assert_int_equal(fz_dict_parse(afl, strlen(afl), "d", &d), 0);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.len[0], 5);
	assert_memory_equal(d.tok[0], "<tag>", 5);
	assert_int_equal(d.len[1], 7);
	assert_memory_equal(d.tok[1], "a\"b\\cA\0", 7);
	assert_memory_equal(d.tok[2], "plain words", 11);
	fz_dict_release(&d);
	assert_int_equal(fz_dict_parse("\"bad\\q\"\n", 8, "d", &d), ERR_PARSE);
	assert_string_equal(err_msg(),
			    "d:1: bad escape in a dictionary token (\\\\, \\\" or \\xNN)");
	fz_dict_release(&d);
	assert_int_equal(fz_dict_parse("\"open\n", 6, "d", &d), 0);
	fz_dict_release(&d);
	assert_int_equal(fz_dict_parse("# only\n\n", 8, "d", &d), ERR_PARSE);
	fz_dict_release(&d);
	assert_int_equal(fz_dict_load("/nonexistent/dict", &d), ERR_NOTFOUND);
}

static void set_counts(struct fz_cover *c, uint32_t n, const uint32_t *v)
{
	fz_cover_reset(c);
	c->map->magic = FUZZCOV_MAGIC;
	c->map->nedges = n;
	for (uint32_t e = 1; e <= n; e++)
		c->map->counts[e] = v[e - 1];
}

static void test_cover(void **state)
{
	struct fz_cover c;
	struct fz_cover_news news;
	uint32_t ntop[4] = {0}, map[3];
	const uint32_t seed[] = {1, 5, 0}, more[] = {1, 6, 0}, other[] = {1, 3, 2};

	UNUSED(state);
	assert_int_equal(fz_count_class(0), 0);
	assert_int_equal(fz_count_class(1), 1);
	assert_int_equal(fz_count_class(3), 2);
	assert_int_equal(fz_count_class(4), 3);
	assert_int_equal(fz_count_class(UINT32_MAX), 32);
	assert_int_equal(fz_cover_open(&c), 0);
	set_counts(&c, 3, seed);
	fz_cover_check(&c, &news);
	assert_true(c.attached);
	assert_int_equal(news.new_edges, 2);
	assert_int_equal(news.hits, 6);
	fz_cover_commit(&c, 0, ntop);
	assert_int_equal(ntop[0], 2);
	fz_cover_mark_base(&c);
	/* The same counts again: nothing new. */
	set_counts(&c, 3, seed);
	fz_cover_check(&c, &news);
	assert_int_equal(news.new_edges + news.new_classes + news.new_max, 0);
	/* One more pass of edge 2: a new maximum, same class (4-7). */
	set_counts(&c, 3, more);
	fz_cover_check(&c, &news);
	assert_int_equal(news.new_max, 1);
	assert_int_equal(news.new_classes, 0);
	fz_cover_commit(&c, 1, ntop);
	assert_int_equal(ntop[0], 1);
	assert_int_equal(ntop[1], 1);
	assert_true(fz_cover_growth(&c, 2) > 1.19 && fz_cover_growth(&c, 2) < 1.21);
	/* Fewer passes of edge 2 (a lower class) and a new edge 3. */
	set_counts(&c, 3, other);
	fz_cover_check(&c, &news);
	assert_int_equal(news.new_edges, 1);
	assert_int_equal(news.new_classes, 1);
	assert_int_equal(news.new_max, 1);
	fz_cover_commit(&c, 2, ntop);
	assert_int_equal(c.edges_hit, 3);
	/* Entry 0 goes: its edges have no holder; the others move down. */
	map[0] = UINT32_MAX, map[1] = 0, map[2] = 1;
	fz_cover_remap(&c, map, 3);
	assert_true(c.top[1] == UINT32_MAX);
	assert_int_equal(c.top[2], 0);
	assert_int_equal(c.top[3], 1);
	/* A run with no runtime attached. */
	fz_cover_reset(&c);
	fz_cover_check(&c, &news);
	assert_false(c.attached);
	assert_int_equal(news.hits, 0);
	fz_cover_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_rules_bounds_and_determinism),
		cmocka_unit_test(test_insert_at_limit_drops_tail),
		cmocka_unit_test(test_vary_word),
		cmocka_unit_test(test_text_rules),
		cmocka_unit_test(test_dict),
		cmocka_unit_test(test_cover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
