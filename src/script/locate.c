/*
 * Where `veles script` finds its Python module and the bundled scripts,
 * what a bundled script's header says, and running a script over a
 * recording through the module (dlopened: veles loads libpython only
 * then). docs/cli/script.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf/tpstream.h"
#include "script/script-locate.h"
#include "script/script-module.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

/* ---- where the bundled scripts and the Python module are ---- */

/* The first of @cand (freed) that exists; NULL when none does. */
static char *first_existing(char **cand, size_t n)
{
	char *found = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!found && cand[i] && access(cand[i], R_OK) == 0)
			found = cand[i];
		else
			free(cand[i]);
	}
	return found;
}

/* The bundled scripts: $VELES_SCRIPT_DIR, beside an installed veles, the
 * configured data directory, then the source tree of a build. */
char *script_bundled_dir(void)
{
	const char *env = getenv("VELES_SCRIPT_DIR");
	char *cand[] = {
		env && *env ? xstrdup(env) : NULL,
		self_exe_relative("../share/veles/scripts/python"),
		xstrdup(VELES_SCRIPT_INSTALLED),
		xstrdup(VELES_SCRIPT_SOURCE),
	};
	char *dir = first_existing(cand, ARRAY_SIZE(cand));

	if (!dir)
		err_set(ERR_NOTFOUND, "cannot find the bundled scripts (looked in "
				      "VELES_SCRIPT_DIR, " VELES_SCRIPT_INSTALLED ")");
	return dir;
}

static char *module_path(void)
{
	const char *env = getenv("VELES_SCRIPT_MODULE");

	if (env && *env)
		return xstrdup(env);
	char *cand[] = {
		self_exe_relative("../script/" VELES_SCRIPT_MODULE_NAME),
		xstrdup(VELES_SCRIPT_LIBDIR "/" VELES_SCRIPT_MODULE_NAME),
	};
	char *p = first_existing(cand, ARRAY_SIZE(cand));

	return p ? p : xstrdup(VELES_SCRIPT_LIBDIR "/" VELES_SCRIPT_MODULE_NAME);
}

/* ---- -s: running a script through the Python module ---- */

static veles_script_entry load_module(void)
{
	char *path = module_path();
	void *dl = NULL;
	veles_script_entry fn = NULL;

	/* Missing, the module itself is the problem, not the Python it needs. */
	if (access(path, R_OK) != 0) {
		err_set(ERR_NOTFOUND,
			"script: the Python module %s is not there: veles was built without "
			"it (build with python3-dev and libtraceevent-dev installed) or "
			"installed without it; VELES_SCRIPT_MODULE names another",
			path);
		free(path);
		return NULL;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL); /* Python's own C modules need its symbols */
	if (!dl)
		err_set(ERR_NOTFOUND,
			"script: Python is not available: %s (install "
			"libpython" VELES_PYTHON_VERSION
			" and libtraceevent1, e.g. apt-get install libpython" VELES_PYTHON_VERSION
			" libtraceevent1)",
			dlerror());
	else if (!(fn = (veles_script_entry)dlsym(dl, VELES_SCRIPT_ENTRY)))
		err_set(ERR_INVALID, "script: %s is not veles's Python module", path);
	free(path);
	return fn;
}

static int call_module(veles_script_entry fn, const struct tp_stream *s, const char *script,
		       const char *dir, char **args, int nargs)
{
	struct veles_script_run run = {.abi = VELES_SCRIPT_ABI, .script = script, .stream = s};
	char *libdir = xasprintf("%s/lib", dir);
	int ret;

	run.argv = xcalloc((size_t)nargs + 2, sizeof(*run.argv));
	run.argv[0] = (char *)script;
	memcpy(run.argv + 1, args, (size_t)nargs * sizeof(*args));
	run.argc = nargs + 1;
	run.libdir = libdir;
	/* Scripts written for perf append $PERF_EXEC_PATH/... to sys.path. */
	run.exec_path = dir;
	ret = fn(&run);
	free(run.argv);
	free(libdir);
	if (ret < 0)
		return err_set(ERR_GENERIC, "script: %s", run.error);
	return 0;
}

/* ---- the bundled scripts: header lines "# description:", "# args:",
 * "# record:" say what each is and how to record for it ---- */

/* The value of header line "# KEY: " in the script at @path (caller frees). */
char *script_header(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	char line[512], *val = NULL;
	size_t klen = strlen(key);

	while (f && !val && fgets(line, sizeof(line), f) && line[0] == '#')
		if (strncmp(line + 1, " ", 1) == 0 && strncmp(line + 2, key, klen) == 0 &&
		    line[2 + klen] == ':')
			val = xstrndup(
				line + 3 + klen + strspn(line + 3 + klen, " "),
				strcspn(line + 3 + klen + strspn(line + 3 + klen, " "), "\n"));
	if (f)
		fclose(f);
	return val;
}

/* DIR/NAME.py of bundled script @name, or NULL with the error set. */
char *script_bundled(const char *name)
{
	char *dir, *path;

	if (strchr(name, '/') || name[0] == '.' || !name[0]) {
		err_set(ERR_NOTFOUND, "script: '%s' is not a bundled script (see veles script -l)",
			name);
		return NULL;
	}
	if (!(dir = script_bundled_dir()))
		return NULL;
	path = xasprintf("%s/%s.py", dir, name);
	free(dir);
	if (access(path, R_OK) != 0) {
		err_set(ERR_NOTFOUND, "script: no bundled script '%s' (see veles script -l)", name);
		free(path);
		return NULL;
	}
	return path;
}

int script_run(const char *input, const char *script, char **args, int nargs,
	       unsigned long long *lost)
{
	struct tp_stream s;
	veles_script_entry fn;
	char *dir;
	int ret;

	*lost = 0;
	if (access(script, R_OK) != 0)
		return err_set(ERR_NOTFOUND, "script: cannot read %s: %s", script, strerror(errno));
	if ((ret = tp_stream_open(input, &s)) < 0)
		return ret;
	dir = script_bundled_dir();
	fn = dir ? load_module() : NULL;
	ret = fn ? call_module(fn, &s, script, dir, args, nargs) : -1;
	*lost = s.lost;
	free(dir);
	tp_stream_free(&s);
	return ret;
}
