/*
 * What the fuzz targets share. Each target file defines
 * LLVMFuzzerTestOneInput() for one parser of outside data; it is linked
 * either with libFuzzer (`make fuzz`, clang) or with replay.c, which feeds
 * it every file of the corpus and of the past crashes (`make check`).
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The parsers read files by path: @data written to @name inside this
 * process's scratch directory (in /dev/shm when there is one, so the
 * writes cost no disk); the path stays valid until the next call with
 * the same name. The directory is removed at exit. */
const char *fuzz_file(const char *name, const void *data, size_t size);
/* The scratch directory itself. */
const char *fuzz_dir(void);
/* @data as a NUL-terminated string (a NUL inside ends it early, as it
 * would for a reader of C strings); valid until the next call. */
const char *fuzz_text(const void *data, size_t size);

#endif
