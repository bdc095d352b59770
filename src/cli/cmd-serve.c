/* veles serve: the web front end (src/serve/), and veles runner: its run
 * queue's executor alone; options, then wait. */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "serve/serve.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "util/xalloc.h"

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

static void log_line(void *arg, const char *line)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	(void)arg;
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	fprintf(stderr, "[%s] %s\n", when, line);
}

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

static int parse(struct serve_cli *c, int argc, char **argv)
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

/* .veles/ of the project around us, else the user's data folder. */
static void choose_data(struct cli_ctx *ctx, struct serve_cli *c)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (c->o.data_dir)
		return;
	if (cli_find_root(ctx) == 0) {
		c->data = xasprintf("%s/serve", ctx->veles_dir);
		if (!c->o.db_url)
			c->o.db_url = c->db = xasprintf("%s/serve.db", ctx->veles_dir);
	} else if (xdg && *xdg) {
		c->data = xasprintf("%s/veles/serve", xdg);
	} else {
		c->data = xasprintf("%s/.local/share/veles/serve", home ? home : ".");
	}
	err_clear();
	c->o.data_dir = c->data;
}

static void open_browser(const char *url)
{
	char *argv[] = {"xdg-open", (char *)url, NULL};
	extern char **environ;
	pid_t pid;

	if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ) != 0)
		cli_warn("serve: cannot run xdg-open; open %s yourself", url);
}

/* After a run done here: the profiles it added go to the shared remote.
 * Another runner may push between our pull and push: then again. */
static void push_results(void *arg, const char *id, const char *state)
{
	struct serve_cli *c = arg;
	struct buf sum = BUF_INIT;
	int ret = 0;

	if (strcmp(state, "done") != 0)
		return;
	for (int i = 0; i < 5; i++) {
		buf_reset(&sum);
		ret = store_pull(c->ctx->store, c->push, &sum);
		buf_reset(&sum);
		if (ret == 0 && (ret = store_push(c->ctx->store, c->push, &sum)) != ERR_CONFLICT)
			break;
	}
	if (c->quiet) {
		buf_release(&sum);
		return;
	}
	{
		char *line = ret < 0 ? xasprintf("run %s: push %s: %s", id, c->push, err_msg())
				     : xasprintf("run %s: pushed to %s: %s", id, c->push,
						 sum.len ? buf_str(&sum) : "nothing new");

		log_line(NULL, line);
		free(line);
	}
	buf_release(&sum);
}

static void announce(const struct serve_cli *c, struct serve *s)
{
	const char *token = serve_token(s);

	if (c->o.no_http) {
		fprintf(stderr, "veles runner: %s, data in %s\n", serve_runner(s), c->o.data_dir);
		fflush(stderr);
		return;
	}
	fprintf(stderr, "veles serve: data in %s\n", c->o.data_dir);
	if (serve_runner(s))
		fprintf(stderr, "veles serve: runs executed here as %s\n", serve_runner(s));
	fprintf(stderr, "veles serve: open %s%s%s\n", serve_url(s), token ? "?token=" : "",
		token ? token : "");
	fflush(stderr);
	if (c->open) {
		char *url = xasprintf("%s%s%s", serve_url(s), token ? "?token=" : "",
				      token ? token : "");

		open_browser(url);
		free(url);
	}
}

/* --export DIR: the project's pages as files, then exit. */
static int export_site(struct cli_ctx *ctx, struct serve_cli *c)
{
	struct serve *s;
	size_t files = 0;
	int ret;

	/* choose_data() found it already, when there is one. */
	if (!ctx->root && cli_find_root(ctx) < 0)
		return cli_error("serve --export: %s", err_msg());
	c->o.project_dir = ctx->root;
	c->o.no_http = true;
	c->o.export_only = true;
	if (serve_start(&c->o, &s) < 0)
		return cli_fail();
	ret = serve_export(s, c->export_dir, &files);
	serve_stop(s);
	if (ret < 0)
		return cli_fail();
	if (!c->quiet)
		fprintf(stderr, "veles serve: %zu answers and the pages written to %s\n", files,
			c->export_dir);
	return 0;
}

static int serve_main(struct cli_ctx *ctx, struct serve_cli *cp, int argc, char **argv)
{
	struct serve_cli c = *cp;
	struct serve *s;
	sigset_t set;
	int sig, ret = parse(&c, argc, argv);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	c.ctx = ctx;
	if (c.push && cli_open_project(ctx) < 0)
		return cli_error("--push: %s", err_msg());
	if (c.push) {
		c.o.run_ended = push_results;
		c.o.run_ended_arg = &c;
	}
	choose_data(ctx, &c);
	if (c.export_dir) {
		ret = export_site(ctx, &c);
		free(c.token);
		free(c.data);
		free(c.db);
		return ret;
	}
	/* In a project, the pages show its versions and profiles too, and a
	 * runner there executes jobs on them. */
	if (cli_find_root(ctx) == 0)
		c.o.project_dir = ctx->root;
	err_clear();
	if (!c.quiet)
		c.o.log = log_line;
	/* Blocked here, so every thread inherits the mask and sigwait below
	 * takes them; commands the server starts get a clear mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (serve_start(&c.o, &s) < 0) {
		ret = cli_fail();
	} else {
		announce(&c, s);
		sigwait(&set, &sig);
		fprintf(stderr, "veles %s: stopping\n", c.cmd);
		serve_stop(s);
	}
	free(c.token);
	free(c.data);
	free(c.db);
	return ret;
}

int cmd_serve(struct cli_ctx *ctx, int argc, char **argv)
{
	struct serve_cli c = {.cmd = "serve"};

	return serve_main(ctx, &c, argc, argv);
}

int cmd_runner(struct cli_ctx *ctx, int argc, char **argv)
{
	struct serve_cli c = {.cmd = "runner", .o = {.no_http = true, .runner = true}};

	return serve_main(ctx, &c, argc, argv);
}
