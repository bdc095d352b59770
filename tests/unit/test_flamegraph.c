/* The flame graph: values with units, the colours of change, the frames'
 * layout and data for the script, and escaping, on profiles built from
 * JSON in memory; values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/human.h"
#include "view/flame_priv.h"
#include "view/flamegraph.h"

static void check_value(double v, const char *unit, const char *want)
{
	struct buf b = BUF_INIT;

	human_value(&b, v, unit);
	if (strcmp(buf_str(&b), want) != 0)
		fail_msg("%.17g %s: \"%s\", not \"%s\"", v, unit ? unit : "(none)", buf_str(&b),
			 want);
	buf_release(&b);
}

static void test_values(void **state)
{
	UNUSED(state);
	check_value(80350, "us", "80.35 ms");
	check_value(1.44821e+07, "us", "14.48 s");
	check_value(12, "ns", "12 ns");
	check_value(0.5, "s", "500 ms");
	check_value(1500, "ms", "1.5 s");
	check_value(2500, "ns", "2.5 \xc2\xb5s");
	check_value(0, "ms", "0 s");
	check_value(1258291, "B", "1.2 MiB");
	check_value(400, "B", "400 B");
	check_value(1536, "bytes", "1.5 KiB");
	check_value(-1591709, "B", "-1.518 MiB");
	check_value(1024, "KiB", "1 MiB");
	check_value(3.0 * 1024 * 1024 * 1024 * 1024, "B", "3 TiB");
	check_value(14482100, "samples", "14,482,100 samples");
	check_value(14482100, NULL, "14,482,100");
	check_value(-1234, "", "-1,234");
	check_value(2.5, "iterations", "2.5 iterations");
	check_value(123.456, NULL, "123.5");
	check_value(0.0001, NULL, "0.0001");
	check_value(2e16, NULL, "2e+16");
	check_value(NAN, "B", "-");
	check_value(INFINITY, NULL, "inf");
}

static void check_percent(double p, int sign, const char *want)
{
	struct buf b = BUF_INIT;

	human_percent(&b, p, sign);
	if (strcmp(buf_str(&b), want) != 0)
		fail_msg("%.17g: \"%s\", not \"%s\"", p, buf_str(&b), want);
	buf_release(&b);
}

static void test_percents(void **state)
{
	UNUSED(state);
	check_percent(12.345, 0, "12.3%");
	check_percent(100, 0, "100.0%");
	check_percent(0.25, 0, "0.25%");
	check_percent(0.001, 0, "<0.01%");
	check_percent(0, 1, "0%");
	check_percent(100, 1, "+100.0%");
	check_percent(-53.06, 1, "-53.1%");
	check_percent(-0.001, 1, "-<0.01%");
	check_percent(NAN, 0, "-");
}

static void test_colours(void **state)
{
	char a[8], b[8];

	UNUSED(state);
	/* One profile: a warm colour, the same for the same name. */
	flame_colour("main", false, 0, 5, 0, a);
	flame_colour("main", false, 0, 9, 0, b);
	assert_string_equal(a, b);
	assert_int_equal(a[0], '#');
	assert_true(strtol((char[3]){a[1], a[2], 0}, NULL, 16) >= 205);
	/* Two: unchanged grey, red for growth, blue for shrinking, deeper with
	 * the change up to the scale, a doubling as deep as a halving. */
	flame_colour("f", true, 10, 10, 1, a);
	assert_string_equal(a, "#e6e6e6");
	flame_colour("f", true, 10, 20, 1, a);
	assert_string_equal(a, "#ff2d2d");
	flame_colour("f", true, 20, 10, 1, a);
	assert_string_equal(a, "#2d2dff");
	flame_colour("f", true, 10, 40, 1, a); /* beyond the scale: the deepest */
	assert_string_equal(a, "#ff2d2d");
	flame_colour("f", true, 10, 20, 2, a); /* half the scale: half as deep */
	assert_string_equal(a, "#ff8c8c");
	flame_colour("f", true, 0, 3, 1, a); /* new */
	assert_string_equal(a, "#ff2d2d");
	flame_colour("f", true, 3, 0, 1, a); /* gone */
	assert_string_equal(a, "#2d2dff");
}

static struct flame_node *node(const char *name, double b, double t)
{
	struct flame_node *n = calloc(1, sizeof(*n));

	n->name = strdup(name);
	n->v[0] = b;
	n->v[1] = t;
	return n;
}

static void test_change_scale(void **state)
{
	struct flame_node *root = node("all", 100, 101);

	UNUSED(state);
	/* Nothing moved by 10%: the scale stays at 10%, so colours stay pale. */
	assert_true(fabs(flame_change_scale(root) - log2(1.1)) < 1e-12);
	flame_child(root, "a")->v[0] = 10;
	root->kids[0]->v[1] = 40;
	flame_child(root, "new")->v[1] = 50; /* only in one profile: not a ratio */
	assert_true(fabs(flame_change_scale(root) - 2) < 1e-12);
	assert_ptr_equal(flame_child(root, "a"), root->kids[0]);
	flame_node_free(root);
}

#define STACK(f) "{\"function\": \"" f "\", \"source\": \"m.c\", \"line\": 1}"

/* A memory profile: parse 300 B and render 100 B under main, render's
 * cache_put 600 B, and a frame whose name is markup, 1000 B. */
static const char memory_json[] =
	"{\"header\": {\"type\": \"memory\", \"units\": {\"memory\": \"B\"}},"
	" \"resources\": ["
	"{\"uid\": \"p\", \"type\": \"memory\", \"subtype\": \"malloc\", \"amount\": 300,"
	" \"trace\": [" STACK("malloc") "," STACK("parse") "," STACK(
		"main") "]},"
			"{\"uid\": \"r\", \"type\": \"memory\", \"subtype\": \"malloc\", "
			"\"amount\": 100,"
			" \"trace\": [" STACK("render") "," STACK(
				"main") "]},"
					"{\"uid\": \"c\", \"type\": \"memory\", \"subtype\": "
					"\"malloc\", \"amount\": 600,"
					" \"trace\": [" STACK("cache_put") "," STACK("render") "," STACK(
						"main") "]},"
							"{\"uid\": \"x\", \"type\": \"memory\", "
							"\"subtype\": \"malloc\", \"amount\": 1000,"
							" \"trace\": [" STACK(
								"<script>alert(1)</"
								"script>") "," STACK("main") "]}]}";

static struct profile *load(const char *json)
{
	struct profile *p = NULL;

	if (profile_load_mem(json, strlen(json), "t.perf", &p) < 0)
		fail_msg("%s", err_msg());
	return p;
}

/* The <g class="f" ...> line of the frame named @name (its first). */
static const char *frame_of(const char *svg, const char *name)
{
	char *key = xasprintf("<title>%s\n", name);
	const char *t = strstr(svg, key), *g;

	free(key);
	assert_non_null(t);
	for (g = t; g > svg && strncmp(g, "<g class=\"f\"", 12) != 0; g--)
		;
	return g;
}

static double attr(const char *frame, const char *name)
{
	char *key = xasprintf(" %s=\"", name);
	const char *at = strstr(frame, key);

	free(key);
	assert_non_null(at);
	return strtod(strchr(at, '"') + 1, NULL);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void test_layout(void **state)
{
	struct profile *p = load(memory_json);
	struct flame_opts o = {0};
	struct buf b = BUF_INIT;
	const char *svg, *f;
	const double inner = FLAME_WIDTH - 2 * FLAME_PAD;

	UNUSED(state);
	assert_int_equal(flamegraph_svg(NULL, p, &o, &b), 0);
	svg = buf_str(&b);
	/* all, main, parse, malloc, render, cache_put, the markup frame. */
	assert_int_equal(count(svg, "<g class=\"f\""), 7);
	assert_non_null(strstr(svg, " data-unit=\"B\""));
	assert_non_null(strstr(svg, " data-diff=\"0\""));
	/* Each frame after its parent, its left edge and value for the script. */
	f = frame_of(svg, "all");
	assert_true(attr(f, "data-p") == -1 && attr(f, "data-v") == 2000);
	f = frame_of(svg, "main");
	assert_true(attr(f, "data-p") == 0 && attr(f, "data-x") == 0 && attr(f, "data-v") == 2000);
	f = frame_of(svg, "parse");
	assert_true(attr(f, "data-p") == 1 && attr(f, "data-x") == 0 && attr(f, "data-v") == 300);
	assert_true(fabs(attr(f, "width") - inner * 300 / 2000) < 0.01);
	assert_true(fabs(attr(f, "x") - FLAME_PAD) < 0.01);
	f = frame_of(svg, "render");
	assert_true(attr(f, "data-p") == 1 && attr(f, "data-x") == 300 && attr(f, "data-v") == 700);
	assert_true(fabs(attr(f, "x") - (FLAME_PAD + inner * 300 / 2000)) < 0.01);
	f = frame_of(svg, "cache_put");
	assert_true(attr(f, "data-p") == 4 && attr(f, "data-x") == 300 && attr(f, "data-v") == 600);
	/* Titles: the value in its unit, its share of all and of its parent. */
	assert_non_null(strstr(svg, "<title>all\n1.953 KiB</title>"));
	assert_non_null(
		strstr(svg, "<title>cache_put\n600 B, 30.0% of all, 85.7% of parent</title>"));
	assert_non_null(strstr(svg, "<title>render\n700 B, 35.0% of all, 35.0% of parent</title>"));
	assert_non_null(strstr(svg, "widths: inclusive amount"));
	/* The markup is text everywhere; the only script is ours, in CDATA. */
	assert_non_null(strstr(svg, "<title>&lt;script&gt;alert(1)&lt;/script&gt;\n"));
	assert_null(strstr(svg, "<script>alert"));
	assert_int_equal(count(svg, "<script"), 1);
	assert_int_equal(count(svg, "<![CDATA["), 1);
	assert_int_equal(count(svg, "]]>"), 1);
	assert_true(strstr(svg, "]]></script>\n</svg>\n") == svg + b.len - 20);
	buf_release(&b);

	/* Counting: no unit, each resource once. */
	o.count = true;
	assert_int_equal(flamegraph_svg(NULL, p, &o, &b), 0);
	assert_non_null(strstr(buf_str(&b), " data-unit=\"\""));
	assert_non_null(strstr(buf_str(&b), "<title>main\n4, 100.0% of all, 100.0% of parent"));
	assert_non_null(strstr(buf_str(&b), "widths: inclusive count of amount"));
	buf_release(&b);
	profile_free(p);
}

static void test_differential(void **state)
{
	static const char base_json[] =
		"{\"header\": {\"type\": \"memory\", \"units\": {\"memory\": \"B\"}},"
		" \"resources\": ["
		"{\"uid\": \"p\", \"type\": \"memory\", \"subtype\": \"malloc\", \"amount\": 100,"
		" \"trace\": [" STACK("malloc") "," STACK("parse") "," STACK(
			"main") "]},"
				"{\"uid\": \"r\", \"type\": \"memory\", \"subtype\": \"malloc\", "
				"\"amount\": 1400,"
				" \"trace\": [" STACK("render") "," STACK("main") "]}]}";
	struct profile *base = load(base_json), *target = load(memory_json);
	struct flame_opts o = {.title = "a -> b"};
	struct buf b = BUF_INIT;
	const char *svg, *f;

	UNUSED(state);
	assert_int_equal(flamegraph_svg(base, target, &o, &b), 0);
	svg = buf_str(&b);
	assert_non_null(strstr(svg, " data-diff=\"1\""));
	/* parse tripled (the largest change: the deepest red); render halved. */
	f = frame_of(svg, "parse");
	assert_true(attr(f, "data-b") == 100 && attr(f, "data-t") == 300 &&
		    attr(f, "data-v") == 300);
	assert_non_null(strstr(f, "fill=\"#ff2d2d\""));
	assert_non_null(strstr(svg, "<title>parse\nbaseline 100 B, target 300 B, +200.0%\n"
				    "15.0% of all, 15.0% of parent</title>"));
	f = frame_of(svg, "render");
	assert_true(attr(f, "data-b") == 1400 && attr(f, "data-t") == 700);
	/* A halving is log2(3)'s 63% of the deepest: 235 - 190 * 0.631 = 115. */
	assert_non_null(strstr(f, "fill=\"#7373ff\""));
	assert_non_null(strstr(svg, "<title>cache_put\nbaseline 0 B, target 600 B, new\n"));
	assert_non_null(strstr(svg, "(deepest: +200.0% or -66.7% or more)"));
	buf_release(&b);

	/* --negate: widths from the baseline, where cache_put has none. */
	o.negate = true;
	assert_int_equal(flamegraph_svg(base, target, &o, &b), 0);
	f = frame_of(buf_str(&b), "render");
	assert_true(attr(f, "data-v") == 1400);
	assert_null(strstr(buf_str(&b), "<title>cache_put\n"));
	assert_non_null(strstr(buf_str(&b), "widths: baseline"));
	buf_release(&b);
	profile_free(base);
	profile_free(target);
}

/* A callee under 0.1 pixel is not drawn; its caller says its own value, so
 * that the script does not count the callee as the caller's. */
static void test_narrow_frames(void **state)
{
	static const char json[] =
		"{\"header\": {\"type\": \"memory\", \"units\": {\"memory\": \"B\"}},"
		" \"resources\": ["
		"{\"uid\": \"b\", \"type\": \"memory\", \"amount\": 1000000,"
		" \"trace\": [" STACK("big") "," STACK(
			"main") "]},"
				"{\"uid\": \"m\", \"type\": \"memory\", \"amount\": 7,"
				" \"trace\": [" STACK(
					"main") "]},"
						"{\"uid\": \"t\", \"type\": \"memory\", "
						"\"amount\": 1,"
						" \"trace\": [" STACK("tiny") "," STACK(
							"main") "]}]}";
	struct profile *p = load(json);
	struct flame_opts o = {0};
	struct buf b = BUF_INIT;
	const char *f;

	UNUSED(state);
	assert_int_equal(flamegraph_svg(NULL, p, &o, &b), 0);
	assert_null(strstr(buf_str(&b), "<title>tiny\n"));
	f = frame_of(buf_str(&b), "main");
	assert_true(attr(f, "data-v") == 1000008 && attr(f, "data-s") == 7);
	f = frame_of(buf_str(&b), "big");
	assert_null(strstr(f, "data-s") && strstr(f, "data-s") < strchr(f, '>') ? "data-s" : NULL);
	buf_release(&b);
	profile_free(p);
}

static void test_page_and_errors(void **state)
{
	static const char no_stacks[] =
		"{\"header\": {\"type\": \"time\", \"units\": {\"time\": \"s\"}},"
		" \"resources\": [{\"uid\": \"t\", \"type\": \"time\", \"amount\": 1}]}";
	struct profile *p = load(memory_json), *q = load(no_stacks);
	struct flame_opts o = {.title = "<b>title</b>"};
	struct buf b = BUF_INIT;

	UNUSED(state);
	assert_int_equal(flamegraph_page(NULL, p, &o, &b), 0);
	assert_true(strncmp(buf_str(&b), "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(buf_str(&b), "<title>&lt;b&gt;title&lt;/b&gt;</title>"));
	assert_non_null(strstr(buf_str(&b), "<body class=\"veles-flame-page\">"));
	assert_non_null(strstr(buf_str(&b), "<svg xmlns="));
	assert_null(strstr(buf_str(&b), "<b>title"));
	/* No stacks: an error, and the page is not left half-written. */
	buf_reset(&b);
	buf_adds(&b, "before");
	assert_int_equal(flamegraph_page(NULL, q, &o, &b), ERR_INVALID);
	assert_string_equal(buf_str(&b), "before");
	assert_string_equal(err_msg(), "no resource has a call stack (\"trace\") to draw");
	err_clear();
	buf_release(&b);
	profile_free(p);
	profile_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),	      cmocka_unit_test(test_percents),
		cmocka_unit_test(test_colours),	      cmocka_unit_test(test_change_scale),
		cmocka_unit_test(test_layout),	      cmocka_unit_test(test_differential),
		cmocka_unit_test(test_narrow_frames), cmocka_unit_test(test_page_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
