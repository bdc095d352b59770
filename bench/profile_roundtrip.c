/*
 * Loads a profile and writes it back: the unit of work bench/profile_load.sh
 * compares with python's json.load. Prints nothing unless -v (timings).
 *
 *   profile_roundtrip [-v] [-s] [-z zlib|zstd] IN OUT
 *
 * By default OUT is written with a plain open()+write(), so the figure is
 * our code and not the disk's fsync latency; -s (or -z) goes through
 * profile_save(): temporary file, fsync, rename.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"
#include "util/common.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_plain(const struct profile *p, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	if (fd < 0)
		return err_set(ERR_IO, "cannot write %s", path);
	ret = profile_write_fd(p, fd, false);
	if (close(fd) < 0 && ret == 0)
		ret = err_set(ERR_IO, "cannot write %s", path);
	return ret;
}

int main(int argc, char **argv)
{
	enum compression comp = COMP_NONE;
	bool verbose = false, save = false;
	struct profile *p;
	double t0, t1, t2;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-v") == 0)
			verbose = true;
		else if (strcmp(argv[i], "-s") == 0)
			save = true;
		else if (strcmp(argv[i], "-z") == 0 && i + 1 < argc)
			save = (comp = compression_from_name(argv[++i])) != COMP_NONE || save;
		else
			break;
	}
	if (argc - i != 2 || (int)comp < 0) {
		fprintf(stderr, "usage: profile_roundtrip [-v] [-s] [-z zlib|zstd] IN OUT\n");
		return 2;
	}
	t0 = now_ms();
	if (profile_load(argv[i], &p) < 0) {
		fprintf(stderr, "profile_roundtrip: %s\n", err_msg());
		return 1;
	}
	t1 = now_ms();
	if ((save ? profile_save(p, argv[i + 1], comp) : write_plain(p, argv[i + 1])) < 0) {
		fprintf(stderr, "profile_roundtrip: %s\n", err_msg());
		profile_free(p);
		return 1;
	}
	t2 = now_ms();
	if (verbose)
		fprintf(stderr, "load %.1f ms, write %.1f ms, %zu resources, %zu types\n", t1 - t0,
			t2 - t1, profile_nres(p), p->types.nrows);
	profile_free(p);
	return 0;
}
