#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/bgio.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static void test_writes_everything_in_order(void **state)
{
	char path[] = "/tmp/veles-bgio-XXXXXX";
	int fd = mkstemp(path);
	struct bgio *w = bgio_writer(fd);
	struct buf b = BUF_INIT, back = BUF_INIT;
	size_t i, expect = 0;

	UNUSED(state);
	assert_true(fd >= 0);
	assert_non_null(w);
	for (i = 0; i < 300000; i++) {
		buf_addf(&b, "%zu,", i);
		if (b.len > 100000) {
			expect += b.len;
			bgio_submit(w, &b);
			assert_int_equal(b.len, 0);
		}
	}
	expect += b.len;
	bgio_submit(w, &b);
	assert_int_equal(bgio_finish(w), 0);
	close(fd);
	assert_int_equal(file_read_all(path, &back), 0);
	assert_int_equal(back.len, expect);
	assert_memory_equal(back.data, "0,1,2,3,", 8);
	assert_memory_equal(back.data + back.len - 7, "299999,", 7);
	unlink(path);
	buf_release(&b);
	buf_release(&back);
}

static void test_reports_write_errors(void **state)
{
	int fd = open("/dev/null", O_RDONLY);
	struct bgio *w = bgio_writer(fd);
	struct buf b = BUF_INIT;

	UNUSED(state);
	assert_non_null(w);
	buf_adds(&b, "cannot go anywhere");
	bgio_submit(w, &b);
	assert_int_equal(bgio_finish(w), EBADF);
	close(fd);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_everything_in_order),
		cmocka_unit_test(test_reports_write_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
