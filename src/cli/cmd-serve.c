/* veles serve: the web front end (src/serve/), and veles runner: its run
 * queue's executor alone; options, then wait. */
#include <getopt.h>
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
#include "util/error.h"
#include "util/fsutil.h"
#include "util/xalloc.h"

static const char serve_usage[] =
	"usage: veles serve [--listen ADDR:PORT] [--data DIR] [--db URL]\n"
	"                   [--token-file FILE | --no-token] [--open] [--quiet]\n"
	"                   [--runner [--name NAME] [--lease SECONDS] [--push REMOTE]]\n"
	"\n"
	"Serves the web front end to counting and sampling: sessions of runs of\n"
	"`veles stat` and `veles record` on commands (or attached to a PID/TID),\n"
	"queued and run one at a time in the background, with live plots, the\n"
	"hot functions and a flame graph, histograms, the program's output, and\n"
	"downloads as CSV, record files and HDF5 (see docs/serve.md).\n"
	"\n"
	"  --listen ADDR:PORT  where to listen (default " SERVE_DEFAULT_LISTEN "; port 0: any\n"
	"                      free one). Any address but a loopback one needs a token\n"
	"  --data DIR          where sessions and runs are kept (default: .veles/ of the\n"
	"                      project here, else ~/.local/share/veles/serve)\n"
	"  --db URL            the metadata database: sqlite:PATH or PATH (default\n"
	"                      serve.db beside the data), or a team's PostgreSQL\n"
	"                      database, postgresql://[USER@]HOST[:PORT]/DBNAME, shared\n"
	"                      by several servers and runners (see docs/team.md)\n"
	"  --runner            on PostgreSQL, also execute runs from the shared queue\n"
	"                      (on SQLite a server always does)\n"
	"  --name NAME         this runner's name in the queue (default: the host's name;\n"
	"                      one per machine)\n"
	"  --lease SECONDS     how long a claimed run stays this runner's unrenewed\n"
	"                      (default 30): a runner killed mid-run gives it back then\n"
	"  --push REMOTE       after each run done here, share the project's profiles\n"
	"                      with REMOTE as veles pull + veles push do (in a project)\n"
	"  --token-file FILE   the token to ask for, from FILE's first line (default: a\n"
	"                      new random one, printed in the address to open)\n"
	"  --no-token          ask for no token (loopback addresses only)\n"
	"  --open              open the address in a browser (xdg-open)\n"
	"  --quiet             print the address only, no log of requests and runs\n"
	"\n"
	"Runs' commands start in the current directory, through /bin/sh. Stops on\n"
	"Ctrl-C or SIGTERM (a running run is stopped, its data kept).\n";

static const char runner_usage[] =
	"usage: veles runner --db postgresql://... [--data DIR] [--name NAME]\n"
	"                    [--lease SECONDS] [--push REMOTE] [--quiet]\n"
	"\n"
	"Executes runs from the queue of a team's database, one at a time, as\n"
	"`veles serve --runner` does, without serving pages: a benchmark machine.\n"
	"Each run is claimed by one runner only; a runner renews its lease while\n"
	"the run goes on, and when one dies (kill -9, a lost machine) its run\n"
	"goes back to the queue once the lease expires (see docs/team.md).\n"
	"\n"
	"  --db URL            the database (postgresql://... or sqlite:PATH)\n"
	"  --data DIR          where the runs' files go (as for veles serve)\n"
	"  --name NAME         this runner's name (default: the host's name; one per\n"
	"                      machine)\n"
	"  --lease SECONDS     the lease's length (default 30)\n"
	"  --push REMOTE       after each run done, share the profiles of the project\n"
	"                      here with REMOTE (a git remote, path or URL) as veles\n"
	"                      pull + veles push do: what runs added to the store\n"
	"  --quiet             no log of the runs\n"
	"\n"
	"Runs' commands start in the current directory, through /bin/sh. Stops on\n"
	"Ctrl-C or SIGTERM (a running run is stopped, its data kept).\n";

enum { OPT_DATA = 0x100, OPT_DB, OPT_TOKEN_FILE, OPT_NO_TOKEN, OPT_OPEN, OPT_QUIET };
enum { OPT_RUNNER = 0x200, OPT_NAME, OPT_LEASE, OPT_PUSH };

struct serve_cli {
	struct serve_opts o;
	char *token, *data, *db;
	bool open, quiet;
	const char *cmd;  /* "serve" or "runner" */
	const char *push; /* --push REMOTE */
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

static int parse(struct serve_cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"data", required_argument, NULL, OPT_DATA},
		{"db", required_argument, NULL, OPT_DB},
		{"token-file", required_argument, NULL, OPT_TOKEN_FILE},
		{"no-token", no_argument, NULL, OPT_NO_TOKEN},
		{"open", no_argument, NULL, OPT_OPEN},
		{"quiet", no_argument, NULL, OPT_QUIET},
		{"runner", no_argument, NULL, OPT_RUNNER},
		{"name", required_argument, NULL, OPT_NAME},
		{"lease", required_argument, NULL, OPT_LEASE},
		{"push", required_argument, NULL, OPT_PUSH},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool runner = c->o.no_http;
	int ch;

	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (runner && (ch == 'l' || ch == OPT_TOKEN_FILE || ch == OPT_NO_TOKEN ||
			       ch == OPT_OPEN || ch == OPT_RUNNER))
			return cli_usage_error("runner",
					       "--listen, --token-file, --no-token, --open "
					       "and --runner are veles serve's");
		if (ch == 'h') {
			fputs(runner ? runner_usage : serve_usage, stdout);
			return -1;
		} else if (ch == OPT_RUNNER) {
			c->o.runner = true;
		} else if (ch == OPT_PUSH) {
			c->push = optarg;
		} else if (ch == OPT_NAME) {
			c->o.runner_name = optarg;
		} else if (ch == OPT_LEASE) {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 3 || v > 86400)
				return cli_usage_error(
					c->cmd, "--lease: 3 to 86400 seconds, not '%s'", optarg);
			c->o.lease_s = (int)v;
		} else if (ch == 'l') {
			c->o.listen = optarg;
		} else if (ch == OPT_DATA) {
			c->o.data_dir = optarg;
		} else if (ch == OPT_DB) {
			c->o.db_url = optarg;
		} else if (ch == OPT_TOKEN_FILE) {
			if (c->token || read_token(c, optarg) != 0)
				return c->token ? cli_usage_error("serve", "one --token-file") : 1;
		} else if (ch == OPT_NO_TOKEN) {
			c->o.no_token = true;
		} else if (ch == OPT_OPEN) {
			c->open = true;
		} else if (ch == OPT_QUIET) {
			c->quiet = true;
		} else {
			return cli_bad_option(c->cmd, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error(c->cmd, "unexpected argument '%s'", argv[optind]);
	if (runner && !c->o.db_url)
		return cli_usage_error("runner", "--db URL: the queue's database");
	if ((c->o.runner_name || c->o.lease_s || c->push) && !runner && !c->o.runner)
		return cli_usage_error("serve", "--name, --lease and --push go with --runner");
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
