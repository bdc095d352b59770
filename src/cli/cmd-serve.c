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
#include "cli/serve-cli.h"
#include "serve/serve.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "util/xalloc.h"

static void log_line(void *arg, const char *line)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	(void)arg;
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	fprintf(stderr, "[%s] %s\n", when, line);
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
	int sig, ret = serve_cli_parse(&c, argc, argv);

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
