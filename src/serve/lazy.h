/*
 * libmicrohttpd and HDF5, loaded when the server needs them. Linked, they
 * and the libraries they pull in (GnuTLS for the one, curl, Kerberos and
 * more for the other: thirty-six libraries) would be mapped and relocated
 * before main() of every veles command, which the project keeps fast (the
 * same reason libgit2 is loaded lazily, src/vcs/git_lazy.h). So the server
 * calls them through tables that lazy_load_* fill with dlopen/dlsym; the
 * call macros below keep call sites as they read in the libraries' docs.
 * A function used must be in its list here, or the executable does not
 * link.
 */
#ifndef SERVE_LAZY_H
#define SERVE_LAZY_H

#include <hdf5.h>
#include <microhttpd.h>
#include <stdbool.h>

/* clang-format off */
#define MHD_LAZY_FUNCS(X) \
	X(MHD_start_daemon) \
	X(MHD_stop_daemon) \
	X(MHD_get_daemon_info) \
	X(MHD_get_connection_values) \
	X(MHD_get_connection_info) \
	X(MHD_create_response_from_buffer) \
	X(MHD_create_response_from_fd64) \
	X(MHD_create_response_from_callback) \
	X(MHD_add_response_header) \
	X(MHD_queue_response) \
	X(MHD_destroy_response)

#define H5_LAZY_FUNCS(X) \
	X(H5open) \
	X(H5Eset_auto2) \
	X(H5Fcreate) \
	X(H5Fclose) \
	X(H5Gcreate2) \
	X(H5Gclose) \
	X(H5Screate) \
	X(H5Screate_simple) \
	X(H5Sclose) \
	X(H5Tcopy) \
	X(H5Tset_size) \
	X(H5Tset_strpad) \
	X(H5Tset_cset) \
	X(H5Tclose) \
	X(H5Acreate_by_name) \
	X(H5Awrite) \
	X(H5Aclose) \
	X(H5Dcreate2) \
	X(H5Dwrite) \
	X(H5Dclose)

/* HDF5's predefined types are variables the library sets up in H5open. */
#define H5_LAZY_VARS(X) \
	X(H5T_NATIVE_DOUBLE_g) \
	X(H5T_NATIVE_INT64_g) \
	X(H5T_C_S1_g)
/* clang-format on */

struct mhd_lazy {
#define LAZY_FIELD(name) __typeof__(name) *name;
	MHD_LAZY_FUNCS(LAZY_FIELD)
};

struct h5_lazy {
	H5_LAZY_FUNCS(LAZY_FIELD)
#undef LAZY_FIELD
#define LAZY_VAR(name) hid_t *name;
	H5_LAZY_VARS(LAZY_VAR)
#undef LAZY_VAR
};

extern struct mhd_lazy mhd_lazy_table;
extern struct h5_lazy h5_lazy_table;

/* Load the library and fill its table; ERR_GENERIC with one line when it
 * or a symbol is missing. Later calls return at once; not for two
 * threads at the same time (the callers serialise them). */
int lazy_load_mhd(void);
int lazy_load_h5(void);

#ifndef LAZY_NO_CALL_MACROS
/* clang-format off */
#define MHD_start_daemon (mhd_lazy_table.MHD_start_daemon)
#define MHD_stop_daemon (mhd_lazy_table.MHD_stop_daemon)
#define MHD_get_daemon_info (mhd_lazy_table.MHD_get_daemon_info)
#define MHD_get_connection_values (mhd_lazy_table.MHD_get_connection_values)
#define MHD_get_connection_info (mhd_lazy_table.MHD_get_connection_info)
#define MHD_create_response_from_buffer (mhd_lazy_table.MHD_create_response_from_buffer)
#define MHD_create_response_from_fd64 (mhd_lazy_table.MHD_create_response_from_fd64)
#define MHD_create_response_from_callback (mhd_lazy_table.MHD_create_response_from_callback)
#define MHD_add_response_header (mhd_lazy_table.MHD_add_response_header)
#define MHD_queue_response (mhd_lazy_table.MHD_queue_response)
#define MHD_destroy_response (mhd_lazy_table.MHD_destroy_response)
#define H5open (h5_lazy_table.H5open)
#define H5Eset_auto2 (h5_lazy_table.H5Eset_auto2)
#define H5Fcreate (h5_lazy_table.H5Fcreate)
#define H5Fclose (h5_lazy_table.H5Fclose)
#define H5Gcreate2 (h5_lazy_table.H5Gcreate2)
#define H5Gclose (h5_lazy_table.H5Gclose)
#define H5Screate (h5_lazy_table.H5Screate)
#define H5Screate_simple (h5_lazy_table.H5Screate_simple)
#define H5Sclose (h5_lazy_table.H5Sclose)
#define H5Tcopy (h5_lazy_table.H5Tcopy)
#define H5Tset_size (h5_lazy_table.H5Tset_size)
#define H5Tset_strpad (h5_lazy_table.H5Tset_strpad)
#define H5Tset_cset (h5_lazy_table.H5Tset_cset)
#define H5Tclose (h5_lazy_table.H5Tclose)
#define H5Acreate_by_name (h5_lazy_table.H5Acreate_by_name)
#define H5Awrite (h5_lazy_table.H5Awrite)
#define H5Aclose (h5_lazy_table.H5Aclose)
#define H5Dcreate2 (h5_lazy_table.H5Dcreate2)
#define H5Dwrite (h5_lazy_table.H5Dwrite)
#define H5Dclose (h5_lazy_table.H5Dclose)
/* The library checks its version in this macro: lazy_load_h5 ran H5open. */
#undef H5F_ACC_TRUNC
#define H5F_ACC_TRUNC 0x0002u
#undef H5T_NATIVE_DOUBLE
#undef H5T_NATIVE_INT64
#undef H5T_C_S1
#define H5T_NATIVE_DOUBLE (*h5_lazy_table.H5T_NATIVE_DOUBLE_g)
#define H5T_NATIVE_INT64 (*h5_lazy_table.H5T_NATIVE_INT64_g)
#define H5T_C_S1 (*h5_lazy_table.H5T_C_S1_g)
/* clang-format on */
#endif

#endif
