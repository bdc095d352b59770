/*
 * collect regex's harness formats (src/collect/regex/): what a benchmark
 * harness printed or wrote, read as the measurements of a profile. The
 * first byte picks the format; the rest is the document (the JSON
 * formats) or the output scanned line by line (the line formats), fed in
 * pieces as a pipe would hand it over.
 */
#include <string.h>

#include "collect/meas.h"
#include "collect/regex/formats.h"
#include "collect/regex/scan.h"
#include "fuzz.h"
#include "profile/profile.h"

static void scan_lines(const struct rx_format *f, const char *text, size_t len)
{
	struct rx_scan *s = rx_scan_new();
	struct meas *m = meas_new(f->unit);

	if (f->setup(s) == 0) {
		/* Pieces of 1, 2, 3... bytes: a line may arrive in any cut. */
		for (size_t at = 0, piece = 1; at < len; at += piece, piece = piece % 7 + 1)
			rx_scan_feed(s, 1, text + at, at + piece > len ? len - at : piece, m);
		rx_scan_flush(s, m);
	}
	profile_free(meas_take(m));
	meas_free(m);
	rx_scan_free(s);
}

static void parse_document(const struct rx_format *f, const char *text, size_t len)
{
	struct meas *m = meas_new(f->unit);
	struct rx_counts c;

	memset(&c, 0, sizeof(c));
	f->parse(text, len, "fuzz.json", m, &c);
	rx_counts_release(&c);
	profile_free(meas_take(m));
	meas_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rx_format *const *all = rx_format_list();
	const struct rx_format *f;
	const char *text;
	size_t n = 0;
	double v;

	if (size < 1)
		return 0;
	while (all[n])
		n++;
	f = all[data[0] % n];
	text = fuzz_text(data + 1, size - 1);
	if (f->parse)
		parse_document(f, text, strlen(text));
	else
		scan_lines(f, text, strlen(text));
	rx_parse_scaled(text, strlen(text) < 32 ? strlen(text) : 32, &v);
	return 0;
}
