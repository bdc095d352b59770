/*
 * Parses a JSON file with yajl and no callbacks and prints the parse time in
 * milliseconds (reading the file is not counted). bench/profile_load.sh
 * prints it beside our whole load + write: it is why src/profile has its
 * own tokenizer instead of using yajl (DESIGN.md: hand-write only where a
 * measured benchmark shows the library is the bottleneck).
 *
 *   yajl_parse FILE
 */
#include <stdio.h>
#include <time.h>
#include <yajl/yajl_parse.h>

#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	static const yajl_callbacks none;
	struct buf b = BUF_INIT;
	yajl_handle h;
	yajl_status st;
	double best = -1;
	int run;

	if (argc != 2) {
		fprintf(stderr, "usage: yajl_parse FILE\n");
		return 2;
	}
	if (file_read_all(argv[1], &b) < 0) {
		fprintf(stderr, "yajl_parse: %s\n", err_msg());
		return 1;
	}
	/* The best of five, like hyperfine's min: the file is in memory. */
	for (run = 0; run < 5; run++) {
		double t0 = now_ms(), t;

		h = yajl_alloc(&none, NULL, NULL);
		st = yajl_parse(h, (const unsigned char *)b.data, b.len);
		if (st == yajl_status_ok)
			st = yajl_complete_parse(h);
		yajl_free(h);
		t = now_ms() - t0;
		if (st != yajl_status_ok) {
			fprintf(stderr, "yajl_parse: %s is not valid JSON\n", argv[1]);
			return 1;
		}
		if (best < 0 || t < best)
			best = t;
	}
	printf("%.1f\n", best);
	buf_release(&b);
	return 0;
}
