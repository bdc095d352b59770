/*
 * The profile reader (src/profile/): plain, zlib and zstd input, the Perun
 * store header, every resource layout, the two-thread reader of long
 * lists, and the compact form of the store and .veles/jobs/. Three
 * oracles beside the sanitizers: a profile read with its lists split over
 * two threads is the profile read on one, what Veles writes of a profile
 * it read reads back, and so does its compact form, as the same profile.
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

/* What Veles writes of @p, in its compact form, must read back as the
 * same profile. */
static void compact_round_trip(const struct profile *p, const char *json)
{
	struct buf c = BUF_INIT, again = BUF_INIT;
	struct profile *q;

	if (profile_encode(p, &c) < 0 ||
	    profile_decode((const uint8_t *)c.data, c.len, "encoded", &q) < 0) {
		fprintf(stderr, "fuzz: the compact form of a profile does not read back: %s\n%s\n",
			err_msg(), json);
		abort();
	}
	profile_write_json(q, &again, false);
	if (strcmp(buf_str(&again), json) != 0) {
		fprintf(stderr, "fuzz: read from its compact form:\n%s\nwas:\n%s\n",
			buf_str(&again), json);
		abort();
	}
	profile_free(q);
	buf_release(&c);
	buf_release(&again);
}

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
	json = buf_detach(&b, NULL);
	if (split == SIZE_MAX)
		compact_round_trip(p, json);
	profile_free(p);
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
	/* The compact form's other readers: `veles status` reads its header
	 * alone, `veles add` checks every column. */
	if (profile_is_compact(data, size)) {
		struct profile *p;

		if (profile_decode_header(data, size, "fuzz", &p) == 0)
			profile_free(p);
		if (profile_decode_check(data, size, "fuzz", &p) == 0)
			profile_free(p);
	}
	/* A histogram field's text is read on its own when a view needs it. */
	hist_parse(fuzz_text(data, size), &h);
	hist_release(&h);
	return 0;
}
