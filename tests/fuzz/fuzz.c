/* The fuzz targets' scratch files (fuzz.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/common.h"
#include "util/fsutil.h"

static char *scratch;
static char *text;

static void scratch_remove(void)
{
	if (scratch)
		rm_rf(scratch);
}

const char *fuzz_dir(void)
{
	if (!scratch) {
		const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

		scratch = xasprintf("%s/veles-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(scratch)) {
			perror("fuzz: cannot make a scratch directory");
			abort();
		}
		atexit(scratch_remove);
	}
	return scratch;
}

const char *fuzz_file(const char *name, const void *data, size_t size)
{
	static char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) != 0) {
		perror(path);
		abort();
	}
	return path;
}

const char *fuzz_text(const void *data, size_t size)
{
	/* Exactly as large as the text: a read past its end is one past the
	 * allocation, which ASan sees. */
	free(text);
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}
