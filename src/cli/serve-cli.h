/* veles serve's and veles runner's options (cli/serve-opts.c). */
#ifndef CLI_SERVE_CLI_H
#define CLI_SERVE_CLI_H

#include <stdbool.h>

#include "serve/serve.h"

struct cli_ctx;

struct serve_cli {
	struct serve_opts o;
	char *token, *data, *db;
	const char *token_file;
	long lease;
	bool open, quiet;
	const char *cmd;  /* "serve" or "runner" */
	const char *push; /* --push REMOTE */
	const char *export_dir;
	struct cli_ctx *ctx;
};

/* Parses the options into @c (c->cmd and c->o.no_http say which
 * command). 0, -1 after the help (exit 0), or an exit status. */
int serve_cli_parse(struct serve_cli *c, int argc, char **argv);

#endif
