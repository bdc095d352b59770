/* Included by every Veles source file after its system headers. */
#ifndef UTIL_COMMON_H
#define UTIL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/banned.h"
#include "util/error.h"
#include "util/xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNUSED(x) ((void)(x))

#endif
