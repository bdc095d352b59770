/*
 * The profile reader (src/profile/): plain, zlib and zstd input, the Perun
 * store header, every resource layout, and the two-thread reader of long
 * lists. Two oracles beside the sanitizers: a profile read with its lists
 * split over two threads is the profile read on one, and what Veles
 * writes of a profile it read reads back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile/hist.h"
#include "profile/profile.h"
#include "profile/profile_priv.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

/* The profile as Veles writes it, or the error line; the caller frees. */
static char *load(const uint8_t *data, size_t size, size_t split)
{
	struct profile *p;
	struct buf b = BUF_INIT;
	char *json;

	profile_split_bytes = split;
	if (profile_load_mem(data, size, "fuzz", &p) < 0)
		return xasprintf("error %s", err_msg());
	profile_write_json(p, &b, false);
	profile_free(p);
	json = buf_detach(&b, NULL);
	if (profile_load_mem(json, strlen(json), "rewritten", &p) < 0) {
		fprintf(stderr, "fuzz: a profile written by veles does not read back: %s\n%s\n",
			err_msg(), json);
		abort();
	}
	profile_free(p);
	return json;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *one = load(data, size, SIZE_MAX), *two = load(data, size, 32);
	struct hist h = {0};

	if (strcmp(one, two) != 0) {
		fprintf(stderr, "fuzz: read on one thread:\n%s\nread on two:\n%s\n", one, two);
		abort();
	}
	free(one);
	free(two);
	/* A histogram field's text is read on its own when a view needs it. */
	hist_parse(fuzz_text(data, size), &h);
	hist_release(&h);
	return 0;
}
