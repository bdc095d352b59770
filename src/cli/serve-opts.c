/* veles serve's and veles runner's options, from one table each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/serve-cli.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"

static int read_token(struct serve_cli *c, const char *path)
{
	struct buf b = BUF_INIT;

	if (file_read_all(path, &b) < 0)
		return cli_error("--token-file: %s", err_msg());
	b.len = strcspn(buf_str(&b), "\r\n");
	while (b.len && (b.data[b.len - 1] == ' ' || b.data[b.len - 1] == '\t'))
		b.len--;
	b.data[b.len] = '\0';
	if (!b.len) {
		buf_release(&b);
		return cli_error("--token-file %s: the first line is empty", path);
	}
	c->token = buf_detach(&b, NULL);
	return 0;
}

#define SERVE_ABOUT                                                                                \
	"Serves the web front end: in a project, its versions, profiles and the\n"                 \
	"history of every metric across versions (under /p/); and counting and\n"                  \
	"sampling: sessions of runs of `veles stat` and `veles record` on commands\n"              \
	"(or attached to a PID/TID), queued and run one at a time in the\n"                        \
	"background, with live plots, the hot functions and a flame graph,\n"                      \
	"histograms, the program's output, and downloads as CSV, record files and\n"               \
	"HDF5 (see docs/serve.md)."
#define SERVE_END                                                                                  \
	"Runs' commands start in the current directory, through /bin/sh. Stops on\n"               \
	"Ctrl-C or SIGTERM (a running run is stopped, its data kept)."
#define RUNNER_ABOUT                                                                               \
	"Executes runs from the queue of a team's database, one at a time, as\n"                   \
	"`veles serve --runner` does, without serving pages: a benchmark machine.\n"               \
	"Each run is claimed by one runner only; a runner renews its lease while\n"                \
	"the run goes on, and when one dies (kill -9, a lost machine) its run\n"                   \
	"goes back to the queue once the lease expires (see docs/team.md)."

static int parse_table(struct serve_cli *c, int argc, char **argv, int *nop)
{
	const struct opt server_only[] = {
		OPT_STRING(0, "listen", &c->o.listen, "ADDR:PORT",
			   "where to listen (default " SERVE_DEFAULT_LISTEN "; port 0: any\n"
			   "free one). Any address but a loopback one needs a token"),
		OPT_STRING(0, "token-file", &c->token_file, "FILE",
			   "the token to ask for, from FILE's first line (default: a\n"
			   "new random one, printed in the address to open)"),
		OPT_BOOL(0, "no-token", &c->o.no_token,
			 "ask for no token (loopback addresses only)"),
		OPT_BOOL(0, "read-only", &c->o.read_only,
			 "pages and API only read: whatever would change something\n"
			 "(a run, a session) is refused, for sharing"),
		OPT_BOOL(0, "open", &c->open, "open the address in a browser (xdg-open)"),
		OPT_STRING(0, "export", &c->export_dir, "DIR",
			   "write the project's pages into DIR as a static site (for\n"
			   "GitHub Pages or any file server) and exit, serving nothing"),
		OPT_BOOL(0, "runner", &c->o.runner,
			 "on PostgreSQL, also execute runs from the shared queue\n"
			 "(on SQLite a server always does)"),
		OPT_END(),
	};
	const struct opt opts[] = {
		OPT_INCLUDE(c->o.no_http ? server_only + ARRAY_SIZE(server_only) - 1 : server_only),
		OPT_STRING(0, "data", &c->o.data_dir, "DIR",
			   "where sessions and runs are kept (default: .veles/ of the\n"
			   "project here, else ~/.local/share/veles/serve)"),
		OPT_STRING(0, "db", &c->o.db_url, "URL",
			   "the metadata database: sqlite:PATH or PATH (default\n"
			   "serve.db beside the data), or a team's PostgreSQL\n"
			   "database, postgresql://[USER@]HOST[:PORT]/DBNAME, shared\n"
			   "by several servers and runners (see docs/team.md)"),
		OPT_STRING(0, "name", &c->o.runner_name, "NAME",
			   "this runner's name in the queue (default: the host's name;\n"
			   "one per machine)"),
		OPT_LONG(0, "lease", &c->lease, "SECONDS", 3,
			 "how long a claimed run stays this runner's unrenewed\n"
			 "(default 30): a runner killed mid-run gives it back then"),
		OPT_STRING(0, "push", &c->push, "REMOTE",
			   "after each run done here, share the project's profiles\n"
			   "with REMOTE as veles pull + veles push do (in a project)"),
		OPT_BOOL(0, "quiet", &c->quiet,
			 "print the address only, no log of requests and runs"),
		OPT_GROUP(SERVE_END),
		OPT_END(),
	};
	const struct optparse p = {
		.name = c->cmd,
		.usage = c->o.no_http
				 ? "veles runner --db postgresql://... [--data DIR] [--name NAME]\n"
				   "             [--lease SECONDS] [--push REMOTE] [--quiet]"
				 : "veles serve [--listen ADDR:PORT] [--data DIR] [--db URL]\n"
				   "            [--token-file FILE | --no-token] [--read-only]\n"
				   "            [--open] [--quiet] [--export DIR]\n"
				   "            [--runner [--name NAME] [--lease SECONDS] [--push "
				   "REMOTE]]",
		.about = c->o.no_http ? RUNNER_ABOUT : SERVE_ABOUT,
		.opts = opts,
	};

	return cli_parse_options(&p, argc, argv, nop);
}

int serve_cli_parse(struct serve_cli *c, int argc, char **argv)
{
	bool runner = c->o.no_http;
	int nop, ret = parse_table(c, argc, argv, &nop);

	if (ret != 0)
		return ret;
	if (c->lease > 86400)
		return cli_usage_error(c->cmd, "--lease: 3 to 86400 seconds, not '%ld'", c->lease);
	c->o.lease_s = (int)c->lease;
	if (c->token_file && read_token(c, c->token_file) != 0)
		return 1;
	if (nop)
		return cli_usage_error(c->cmd, "unexpected argument '%s'", argv[1]);
	if (runner && !c->o.db_url)
		return cli_usage_error("runner", "--db URL: the queue's database");
	if ((c->o.runner_name || c->o.lease_s || c->push) && !runner && !c->o.runner)
		return cli_usage_error("serve", "--name, --lease and --push go with --runner");
	if (c->export_dir && (c->o.runner || c->push))
		return cli_usage_error("serve", "--export writes files: no --runner or --push");
	if (c->token && c->o.no_token)
		return cli_usage_error("serve", "--token-file and --no-token exclude each other");
	c->o.token = c->token;
	return 0;
}
