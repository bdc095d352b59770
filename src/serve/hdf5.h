/*
 * Runs as HDF5 files that pandas.read_hdf and h5py read: each table is a
 * group in pandas' "fixed" frame layout (attributes pandas_type "frame",
 * an index axis1, the column names axis0, one float64 block), so
 * read_hdf(path, "run_ID/stat") gives a DataFrame, and plain datasets for
 * h5py. Layout in docs/serve.md.
 */
#ifndef SERVE_HDF5_H
#define SERVE_HDF5_H

#include <stddef.h>
#include <stdint.h>

struct h5_file;

/* Creates @path (replacing it); ERR_GENERIC when HDF5 cannot be loaded. */
int h5_create(const char *path, struct h5_file **out);
int h5_close(struct h5_file *f);
/* A group (and its parents' names must exist): "/run_ID". */
int h5_group(struct h5_file *f, const char *path);
/* A string attribute on the group or dataset @path. */
int h5_attr(struct h5_file *f, const char *path, const char *name, const char *value);
int h5_attr_int(struct h5_file *f, const char *path, const char *name, int64_t value);
/*
 * A frame at group @path: @nrows rows, @ncols float64 columns named
 * @cols (@values row after row), indexed by float64 values (@index_f),
 * strings (@index_s), or, both NULL, 0, 1, ...
 */
int h5_frame(struct h5_file *f, const char *path, const char *const *cols, size_t ncols,
	     const double *values, size_t nrows, const double *index_f, const char *const *index_s);
/* The same with one int64 block. */
int h5_frame_i64(struct h5_file *f, const char *path, const char *const *cols, size_t ncols,
		 const int64_t *values, size_t nrows, const double *index_f,
		 const char *const *index_s);

#endif
