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
/* Fills @w[0..to-from-1] with weights @from..@to-1 of window @name of
 * @m points (name must be known): a window far wider than the data needs
 * only the weights that land on it. */
void window_weights(const char *name, size_t m, size_t from, size_t to, double *w);

#endif
