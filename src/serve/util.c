/* Ids and clocks for the server (util.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "serve/util.h"
#include "util/error.h"

static int fill_random(unsigned char *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_set(ERR_IO, "cannot get random bytes: %s", strerror(errno));
		got += (size_t)r;
	}
	return 0;
}

int srv_random_hex(char *out, size_t n)
{
	unsigned char b[64];
	int ret;

	if (n > sizeof(b))
		n = sizeof(b);
	if ((ret = fill_random(b, n)) < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

void srv_uuid(char out[37])
{
	unsigned char b[16] = {0};

	if (fill_random(b, sizeof(b)) < 0) {
		/* No entropy source at all: unique enough from the clocks. */
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		memcpy(b, &t, sizeof(t) < 16 ? sizeof(t) : 16);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

bool srv_is_uuid(const char *s)
{
	for (int i = 0; i < 36; i++) {
		char c = s[i];

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return false;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			return false;
		}
	}
	return s[36] == '\0';
}

int64_t srv_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

double srv_mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
