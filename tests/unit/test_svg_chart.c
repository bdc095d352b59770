/* The head every SVG chart starts with (view/svg_axis.h,
 * svg_chart_begin): the figures of `veles show` and the history chart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "util/common.h"
#include "view/svg_axis.h"

static void test_begin(void **state)
{
	struct buf b = BUF_INIT;
	const char *s;

	UNUSED(state);
	svg_chart_begin(&b, 640.4, 300, "");
	s = buf_str(&b);
	assert_true(strncmp(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
	assert_non_null(strstr(s, "width=\"640\" height=\"300\" viewBox=\"0 0 640 300\""));
	assert_non_null(strstr(s, ".fig-title{font-size:16px;font-weight:bold}</style>"));
	/* A white page, and the element left open for the chart. */
	assert_non_null(strstr(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"));
	assert_null(strstr(s, "</svg>"));
	buf_reset(&b);
	svg_chart_begin(&b, 10, 20, ".shift{font-weight:bold}");
	assert_non_null(strstr(buf_str(&b), "bold}.shift{font-weight:bold}</style>"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_begin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
