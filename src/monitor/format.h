/* Formatting numbers and times for the monitor's output. */
#ifndef MONITOR_FORMAT_H
#define MONITOR_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* @v with @decimals (0-6) into @dst (32 bytes); the length. */
size_t mon_fmt_fixed(char *dst, double v, int decimals);
/* The seed's cvt(): @v as an integer of at most @width characters,
 * dividing by 1000 (counts) or 1024 (@size, which is in KB) and appending
 * K, M, G... as needed. @dst holds 32 bytes. */
size_t mon_cvt(char *dst, double v, int width, bool size);
/* @s (@n bytes) right-aligned in @width into @dst. */
size_t mon_fmt_pad(char *dst, const char *s, size_t n, int width);
/* Local time "YYYYmmdd HH:MM:SS" (or just the time), with ".mmm". */
size_t mon_fmt_time(char *dst, double t, bool date, bool millis);

#endif
