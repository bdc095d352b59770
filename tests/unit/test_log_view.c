/*
 * view/history_text and view/log_view: a made-up history with a step
 * rendered as `log --perf` prints it (the sparkline, the shift marked at
 * the version it happened), and versions as `log` lists them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/history.h"
#include "profile/profile.h"
#include "project/version_index.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "vcs/vcs.h"
#include "view/history_text.h"
#include "view/log_view.h"

/* A time profile of ./prog with @n values of @base in [real]. */
static struct profile *timed(double base, size_t n)
{
	struct buf j = BUF_INIT;
	struct profile *p;

	buf_adds(&j, "{\"header\":{\"type\":\"time\",\"cmd\":\"./prog\",\"args\":\"\","
		     "\"workload\":\"\",\"units\":{\"time\":\"s\"}},"
		     "\"collector_info\":{\"name\":\"time\",\"params\":{}},"
		     "\"global\":{\"resources\":[");
	for (size_t i = 0; i < n; i++)
		buf_addf(&j,
			 "%s{\"uid\":\"./prog\",\"type\":\"time\",\"subtype\":\"real\","
			 "\"amount\":%.9f}",
			 i ? "," : "", base);
	buf_adds(&j, "]}}");
	assert_int_equal(profile_load_mem(j.data, j.len, "t.perf", &p), 0);
	buf_release(&j);
	return p;
}

static void test_history_text(void **state)
{
	struct history h = {0};
	struct buf out = BUF_INIT;
	const char *s, *row;

	UNUSED(state);
	for (size_t i = 0; i < 8; i++) {
		char id[41];
		struct profile *p = timed(i < 4 ? 0.010 : 0.020, 9);

		snprintf(id, sizeof(id), "%07zx%033d", i + 0xabc0000, 0);
		assert_int_equal(history_add_version(&h, id, NULL, (int64_t)i, "msg"), i);
		assert_int_equal(history_add_profile(&h, i, p, "[real]", NULL, NULL), 0);
		profile_free(p);
	}
	history_finish(&h);
	history_text(&out, &h);
	s = buf_str(&out);
	assert_non_null(strstr(s, ": ./prog [real]  (8 versions, oldest first)\n"));
	assert_non_null(strstr(s, "\n  ▁▁▁▁████\n"));
	/* The shift is marked at the fifth version, and only there. */
	row = strstr(s, "abc0004");
	assert_non_null(row);
	assert_true(strncmp(strchr(row, '\n') - 17, "◀ shift +100.0%", 17) == 0);
	assert_null(strstr(strchr(row, '\n'), "◀"));
	assert_int_equal(strstr(s, "◀") - s, strstr(row, "◀") - s);
	buf_release(&out);
	history_free(&h);
}

static void test_log_view(void **state)
{
	struct vcs_version v = {.counter = 3,
				.author = "Ann",
				.email = "ann@x",
				.time = 0,
				.summary = "Faster",
				.message = "Faster\n\nbody",
				.nparents = 1};
	struct store_entry e[2] = {{(char *)"memory", (char *)"m.perf", "1234567890abcdef"},
				   {(char *)"time", (char *)"t.perf", "fedcba0987654321"}};
	struct version_slot slot = {.e = e, .n = 2};
	struct log_view lv = {.oneline = true};
	struct buf out = BUF_INIT;

	UNUSED(state);
	memset(v.id, 'a', 40);
	memset(v.parents[0], 'b', 40);
	log_view_version(&out, &lv, &v, &slot);
	log_view_version(&out, &lv, &v, NULL);
	assert_string_equal(buf_str(&out), "aaaaaaa [2 profiles: 1 memory, 1 time] Faster\n"
					   "aaaaaaa [no profiles] Faster\n");
	buf_reset(&out);
	lv = (struct log_view){.oneline = false};
	log_view_version(&out, &lv, &v, &slot);
	assert_non_null(strstr(buf_str(&out), "\n  12345678  0@i  memory  m.perf\n"));
	assert_non_null(strstr(buf_str(&out), "\n    body\n"));
	buf_reset(&out);
	lv = (struct log_view){.json = true, .plain = true};
	log_view_version(&out, &lv, &v, &slot);
	log_view_end(&out, &lv);
	assert_non_null(strstr(buf_str(&out), "\"number\":3,\"author\":\"Ann\""));
	assert_non_null(strstr(buf_str(&out), "{\"index\":\"1@i\",\"type\":\"time\""));
	assert_true(strcmp(buf_str(&out) + out.len - 3, "\n]\n") == 0);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_text),
		cmocka_unit_test(test_log_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
