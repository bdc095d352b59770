/*
 * The fuzz targets without libFuzzer: feeds the target every file in the
 * directories (or files) named on the command line, each once, as
 * libFuzzer does when it is given files to run. `make check` runs this
 * over each target's seed corpus and past crashes, in the normal and the
 * sanitizer build, so a fixed crash that comes back fails the tests. The
 * first path is the seed corpus, which must hold inputs: a corpus that
 * went missing must not pass. The others are the past crashes, a folder
 * that git does not keep until a target has had one.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_file(const char *path)
{
	struct buf b = BUF_INIT;

	if (file_read_all(path, &b) < 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		exit(1);
	}
	/* An input of its own size: ASan sees a read past its end. */
	uint8_t *copy = xmalloc(b.len ? b.len : 1);

	memcpy(copy, b.data, b.len);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(copy, b.len);
	free(copy);
	buf_release(&b);
}

/* Runs every regular file in @dir, in name order; returns how many. */
static size_t run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (!d) {
		fprintf(stderr, "replay: cannot read %s: %s\n", dir, strerror(errno));
		exit(1);
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", dir, e->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		run_file(names[i]);
		free(names[i]);
	}
	free(names);
	return n;
}

int main(int argc, char **argv)
{
	size_t seeds = argc >= 2 && path_is_dir(argv[1]) ? run_dir(argv[1]) : 0, more = 0;

	if (seeds == 0) {
		fprintf(stderr, "replay: no seed corpus in %s\n",
			argc < 2 ? "(none given)" : argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		if (!path_exists(argv[i]))
			continue;
		if (path_is_dir(argv[i])) {
			more += run_dir(argv[i]);
		} else {
			run_file(argv[i]);
			more++;
		}
	}
	printf("%zu seeds and %zu past crashes replayed\n", seeds, more);
	return 0;
}
