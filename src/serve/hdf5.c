/* HDF5 files in pandas' fixed layout (hdf5.h). */
#include <stdlib.h>
#include <string.h>

#include "serve/hdf5.h"
#include "serve/lazy.h"
#include "util/error.h"
#include "util/xalloc.h"

struct h5_file {
	hid_t id;
	char *path;
};

static int fail(struct h5_file *f, const char *what)
{
	return err_set(ERR_IO, "cannot write %s: %s", f->path, what);
}

int h5_create(const char *path, struct h5_file **out)
{
	struct h5_file *f;
	int ret = lazy_load_h5();

	if (ret < 0)
		return ret;
	/* The library's own error printing goes to stderr: ours is the message. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->id = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (f->id < 0) {
		ret = err_set(ERR_IO, "cannot create %s", path);
		free(f->path);
		free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int h5_close(struct h5_file *f)
{
	int ret = 0;

	if (!f)
		return 0;
	if (H5Fclose(f->id) < 0)
		ret = fail(f, "cannot close it");
	free(f->path);
	free(f);
	return ret;
}

int h5_group(struct h5_file *f, const char *path)
{
	hid_t g = H5Gcreate2(f->id, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

	if (g < 0)
		return fail(f, path);
	H5Gclose(g);
	return 0;
}

static int attr(struct h5_file *f, const char *path, const char *name, hid_t type,
		const void *value)
{
	hid_t sp = H5Screate(H5S_SCALAR), a;
	int ret = 0;

	a = H5Acreate_by_name(f->id, path, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, type, value) < 0)
		ret = fail(f, name);
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	return ret;
}

int h5_attr(struct h5_file *f, const char *path, const char *name, const char *value)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	size_t n = strlen(value);
	int ret;

	/* Fixed-length UTF-8, the size of the text: pytables reads these as
	 * str, as pandas wants its attributes. */
	H5Tset_size(t, n ? n : 1);
	H5Tset_strpad(t, H5T_STR_NULLPAD);
	H5Tset_cset(t, H5T_CSET_UTF8);
	ret = attr(f, path, name, t, n ? value : "");
	H5Tclose(t);
	return ret;
}

int h5_attr_int(struct h5_file *f, const char *path, const char *name, int64_t value)
{
	return attr(f, path, name, H5T_NATIVE_INT64, &value);
}

static int dataset(struct h5_file *f, const char *path, hid_t type, int rank, const hsize_t *dims,
		   const void *data)
{
	hid_t sp = H5Screate_simple(rank, dims, NULL), d;
	static const double none;
	int ret = 0;

	/* An empty table has no data, but HDF5 wants a buffer all the same. */
	d = H5Dcreate2(f->id, path, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d < 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data ? data : &none) < 0)
		ret = fail(f, path);
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(sp);
	return ret;
}

/* A 1-D array of fixed-length strings (numpy's 'S', pandas' string index). */
static int strings(struct h5_file *f, const char *path, const char *const *s, size_t n)
{
	size_t w = 1;
	char *data;
	hid_t t;
	hsize_t dims[1] = {n};
	int ret;

	for (size_t i = 0; i < n; i++)
		if (strlen(s[i]) > w)
			w = strlen(s[i]);
	data = xcalloc(n ? n : 1, w);
	for (size_t i = 0; i < n; i++)
		memcpy(data + i * w, s[i], strlen(s[i]));
	t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, w);
	H5Tset_strpad(t, H5T_STR_NULLPAD);
	ret = dataset(f, path, t, 1, dims, data);
	H5Tclose(t);
	free(data);
	if (ret == 0)
		ret = h5_attr(f, path, "kind", "string");
	return ret;
}

static int frame_attrs(struct h5_file *f, const char *path)
{
	static const char *const text[][2] = {
		{"pandas_type", "frame"},
		{"pandas_version", "0.15.2"},
		{"encoding", "UTF-8"},
		{"errors", "strict"},
		{"axis0_variety", "regular"},
		{"axis1_variety", "regular"},
		{"block0_items_variety", "regular"},
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]) && ret == 0; i++)
		ret = h5_attr(f, path, text[i][0], text[i][1]);
	if (ret == 0)
		ret = h5_attr_int(f, path, "ndim", 2);
	if (ret == 0)
		ret = h5_attr_int(f, path, "nblocks", 1);
	return ret;
}

static int frame(struct h5_file *f, const char *path, const char *const *cols, size_t ncols,
		 hid_t type, const void *values, size_t nrows, const double *index_f,
		 const char *const *index_s)
{
	char *p = NULL;
	hsize_t dims[2] = {nrows, ncols};
	int ret = h5_group(f, path);

	if (ret == 0)
		ret = frame_attrs(f, path);
	if (ret == 0) {
		p = xasprintf("%s/axis0", path);
		ret = strings(f, p, cols, ncols);
		free(p);
	}
	if (ret == 0) {
		p = xasprintf("%s/axis1", path);
		if (index_s) {
			ret = strings(f, p, index_s, nrows);
		} else if (!index_f) { /* 0, 1, ...: pandas' default index */
			int64_t *ix = xcalloc(nrows ? nrows : 1, sizeof(*ix));

			for (size_t i = 0; i < nrows; i++)
				ix[i] = (int64_t)i;
			ret = dataset(f, p, H5T_NATIVE_INT64, 1, dims, ix);
			if (ret == 0)
				ret = h5_attr(f, p, "kind", "integer");
			free(ix);
		} else {
			ret = dataset(f, p, H5T_NATIVE_DOUBLE, 1, dims, index_f);
			if (ret == 0)
				ret = h5_attr(f, p, "kind", "float");
		}
		free(p);
	}
	if (ret == 0) {
		p = xasprintf("%s/block0_items", path);
		ret = strings(f, p, cols, ncols);
		free(p);
	}
	if (ret == 0) {
		/* Rows on disk, as pandas writes a block: transposed. */
		p = xasprintf("%s/block0_values", path);
		ret = dataset(f, p, type, 2, dims, values);
		if (ret == 0)
			ret = h5_attr_int(f, p, "transposed", 1);
		free(p);
	}
	return ret;
}

int h5_frame(struct h5_file *f, const char *path, const char *const *cols, size_t ncols,
	     const double *values, size_t nrows, const double *index_f, const char *const *index_s)
{
	return frame(f, path, cols, ncols, H5T_NATIVE_DOUBLE, values, nrows, index_f, index_s);
}

int h5_frame_i64(struct h5_file *f, const char *path, const char *const *cols, size_t ncols,
		 const int64_t *values, size_t nrows, const double *index_f,
		 const char *const *index_s)
{
	return frame(f, path, cols, ncols, H5T_NATIVE_INT64, values, nrows, index_f, index_s);
}
