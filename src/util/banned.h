/*
 * Functions that overflow buffers or hide truncation; using one is a compile
 * error. Included last by util/common.h, after the system headers that
 * declare them.
 */
#ifndef UTIL_BANNED_H
#define UTIL_BANNED_H

#include <stdio.h>
#include <string.h>

#define BANNED(func) sorry_##func##_is_banned_use_buf_or_snprintf

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)

#endif
