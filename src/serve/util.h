/* Small helpers of the server: ids, clocks. */
#ifndef SERVE_UTIL_H
#define SERVE_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/* A random (version 4) UUID, lower case, into @out (37 bytes). */
void srv_uuid(char out[37]);
/* Whether @s is a UUID as srv_uuid writes them (and nothing else). */
bool srv_is_uuid(const char *s);
/* Wall-clock milliseconds since the epoch. */
int64_t srv_now_ms(void);
/* CLOCK_MONOTONIC in seconds. */
double srv_mono(void);
/* @n random bytes as 2n hex digits into @out (2n + 1 bytes). */
int srv_random_hex(char *out, size_t n);

#endif
