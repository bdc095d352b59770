/* `veles script`'s module and bundled scripts (locate.c). */
#ifndef SCRIPT_SCRIPT_LOCATE_H
#define SCRIPT_SCRIPT_LOCATE_H

/* The bundled scripts' directory: $VELES_SCRIPT_DIR, beside an installed
 * veles, the configured data directory, then the source tree of a build;
 * NULL with the error set when there is none. The caller frees it. */
char *script_bundled_dir(void);
/* The value of header line "# KEY: " in the script at @path, or NULL. */
char *script_header(const char *path, const char *key);
/* DIR/NAME.py of bundled script @name, or NULL with the error set. */
char *script_bundled(const char *name);
/*
 * Runs Python script @script (ARGS its sys.argv[1:]) over the tracepoint
 * recording @input through veles-script-python.so; *@lost: the samples
 * the kernel dropped while recording. ERR_NOTFOUND when Python or the
 * module is not there.
 */
int script_run(const char *input, const char *script, char **args, int nargs,
	       unsigned long long *lost);

#endif
