/*
 * Window weights of the moving average's --window-type, defined as
 * scipy.signal.windows defines them in their symmetric form (what pandas'
 * rolling(win_type=...) uses).
 */
#ifndef ANALYZE_WINDOWS_H
#define ANALYZE_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>

/* The known window names, NULL-terminated; boxcar first. */
extern const char *const window_types[];

bool window_known(const char *name);
/* Fills @w[0..m-1] with window @name's weights (name must be known). */
void window_weights(const char *name, size_t m, double *w);

#endif
