/* The y axis and the text both SVG charts draw (view/svg_axis.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/svg_axis.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_area_y(void **state)
{
	struct svg_area a = {80, 50, 670, 350, 0, 10};

	UNUSED(state);
	assert_true(svg_area_y(&a, 0) == 350); /* the bottom is the least */
	assert_true(svg_area_y(&a, 10) == 50); /* the top the most */
	assert_true(svg_area_y(&a, 5) == 200);
}

static void test_y_axis(void **state)
{
	struct svg_area a = {80, 50, 670, 350, 0, 10};
	struct buf b = BUF_INIT;
	const char *s;

	UNUSED(state);
	svg_y_axis(&a, "time <ms>", 62, &b);
	s = buf_str(&b);
	/* 0, 2, ..., 10: a grid line across the area at each. */
	assert_int_equal(count(s, "<line class=\"grid\""), 6);
	assert_non_null(strstr(s, "<line class=\"grid\" x1=\"80.0\" y1=\"350.0\" x2=\"670.0\" "
				  "y2=\"350.0\"/>"));
	assert_non_null(strstr(s, "<line class=\"grid\" x1=\"80.0\" y1=\"50.0\" x2=\"670.0\" "
				  "y2=\"50.0\"/>"));
	/* The tick's number right-aligned left of the area, on its line. */
	assert_non_null(strstr(s, "<text x=\"74.0\" y=\"54.0\" text-anchor=\"end\">10</text>"));
	assert_non_null(strstr(s, "<text x=\"74.0\" y=\"294.0\" text-anchor=\"end\">2</text>"));
	/* The label upright, @title_dx left of the area, escaped. */
	assert_non_null(
		strstr(s, "<text transform=\"translate(18.0 200.0) rotate(-90)\" "
			  "text-anchor=\"middle\" class=\"axis-title\">time &lt;ms&gt;</text>"));
	buf_release(&b);
}

static void test_text(void **state)
{
	struct buf b = BUF_INIT;

	UNUSED(state);
	svg_text(&b, 10, 20.25, "start", " class=\"t\"", "a & b", 100);
	svg_text(&b, 0, 0, "end", "", "abcdefgh", 4);
	assert_string_equal(buf_str(&b),
			    "<text x=\"10.0\" y=\"20.2\" text-anchor=\"start\" class=\"t\">a &amp; "
			    "b</text>\n"
			    "<text x=\"0.0\" y=\"0.0\" text-anchor=\"end\">abcd…</text>\n");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_area_y),
		cmocka_unit_test(test_y_axis),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
