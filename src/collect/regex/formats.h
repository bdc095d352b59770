/*
 * The harnesses collect regex knows (--format NAME): Google Benchmark,
 * hyperfine, criterion, go test -bench, pytest-benchmark and plain
 * "name: value unit" lines. A line format adds patterns to the scanner;
 * a JSON format parses whole documents (a stream's output, or the files
 * the harness writes) with yajl.
 */
#ifndef COLLECT_REGEX_FORMATS_H
#define COLLECT_REGEX_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

struct meas;
struct rx_counts;
struct rx_scan;

struct rx_format {
	const char *name;
	const char *summary; /* one line for the usage */
	const char *unit;    /* the profile's unit unless --unit says */
	/* Line formats: adds the format's patterns. */
	int (*setup)(struct rx_scan *s);
	/*
	 * JSON formats: the measurements of one document @text (@len bytes,
	 * NUL-terminated), read from @path (a file, or "stdout"), counting
	 * each entry in @c. ERR_PARSE when it is not the format's JSON.
	 */
	int (*parse)(const char *text, size_t len, const char *path, struct meas *m,
		     struct rx_counts *c);
	/* The option of the harness that names the file it writes
	 * ("--export-json"): read that file when no --file is given. */
	const char *file_option;
	bool file_only; /* it writes its JSON to that file alone, never a stream */
	/* The files read when neither --file nor file_option says (globs). */
	const char *const *files;
};

const struct rx_format *rx_format_find(const char *name);
/* All of them, NULL-terminated. */
const struct rx_format *const *rx_format_list(void);

/* The JSON parsers (fmt_json.c). */
int rx_parse_gbench_json(const char *text, size_t len, const char *path, struct meas *m,
			 struct rx_counts *c);
int rx_parse_hyperfine(const char *text, size_t len, const char *path, struct meas *m,
		       struct rx_counts *c);
int rx_parse_criterion(const char *text, size_t len, const char *path, struct meas *m,
		       struct rx_counts *c);
int rx_parse_pytest(const char *text, size_t len, const char *path, struct meas *m,
		    struct rx_counts *c);

/*
 * A counter as Google Benchmark prints it: "4.15G/s", "26.25%", "1.5Ki";
 * k, M, G, T, P, E are powers of 1000, Ki, Mi, ... of 1024. False when
 * @text is not one.
 */
bool rx_parse_scaled(const char *text, size_t len, double *v);

#endif
