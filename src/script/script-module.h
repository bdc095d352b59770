/*
 * The interface between veles and its Python module (veles-script-python.so),
 * which veles dlopens only when `veles script -s` runs, so veles itself never
 * needs libpython. The module embeds Python, decodes the samples' raw
 * tracepoint fields with libtraceevent and calls the script's handlers.
 */
#ifndef SCRIPT_SCRIPT_MODULE_H
#define SCRIPT_SCRIPT_MODULE_H

#include "perf/tpstream.h"

#define VELES_SCRIPT_ABI 2
#define VELES_SCRIPT_ENTRY "veles_script_python_run"
#define VELES_SCRIPT_MODULE_NAME "veles-script-python.so"

struct veles_script_run {
	int abi;	    /* VELES_SCRIPT_ABI */
	const char *script; /* the user's .py */
	char **argv;	    /* sys.argv: the script, then its arguments */
	int argc;
	const char *libdir;		/* Core.py and Util.py, put first on sys.path */
	const char *exec_path;		/* $PERF_EXEC_PATH in the script's os.environ */
	const struct tp_stream *stream; /* the recording, samples in time order */
	unsigned long long handled;	/* out: handler calls made */
	char error[512];		/* out: one line, when the run fails */
};

/* Returns 0, or -1 with run->error set (the script's traceback, if it
 * raised, is already on stderr). */
typedef int (*veles_script_entry)(struct veles_script_run *run);

#endif
