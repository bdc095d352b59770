/* libveles: a collector run on a command, as `veles collect` runs it
 * (collect/collector.h). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "collect/collector.h"
#include "collect/external.h"
#include "project/origin.h"
#include "project/settings.h"
#include "util/common.h"
#include "util/error.h"
#include "util/spawn.h"
#include "util/xalloc.h"

void api_collect_message(void *arg, enum collect_msg kind, const char *text)
{
	UNUSED(arg);
	if (kind == COLLECT_MSG_ERR || kind == COLLECT_MSG_WARN)
		api_log(VELES_LOG_WARNING, "%s", text);
	/* An empty progress line clears a terminal's: nothing to say here. */
	else if (*text)
		api_log(VELES_LOG_PROGRESS, "%s", text);
}

/* What veles_collect()'s options say, pointing into them. */
struct collect_opts {
	const char *workload, *name, *template;
};

static int parse_options(const char *const *options, struct collect_opts *o)
{
	for (; options && *options; options++) {
		const char *eq = strchr(*options, '='), *v = eq ? eq + 1 : "";
		size_t len = eq ? (size_t)(eq - *options) : strlen(*options);

		if (len == 8 && strncmp(*options, "workload", len) == 0)
			o->workload = v;
		else if (len == 4 && strncmp(*options, "name", len) == 0)
			o->name = v;
		else if (len == 8 && strncmp(*options, "template", len) == 0)
			o->template = v;
		else
			return err_set(
				ERR_INVALID,
				"collect: unknown option '%.*s': use workload, name or template",
				(int)len, *options);
		if (!eq)
			return err_set(ERR_INVALID, "collect: option '%s' wants a value (%s=...)",
				       *options, *options);
	}
	if (o->name && collect_name_check("name", o->name) < 0)
		return ERR_INVALID;
	if (o->template && collect_template_check(o->template) < 0)
		return ERR_INVALID;
	return 0;
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* COLLECTOR OPTIONS [--workload W] -- CMD ARGS, NULL-terminated: what
 * collect_main() parses (it reorders the array, never the strings). */
static char **full_argv(const char *const *collector, const char *const *cmd, const char *workload,
			int *argc)
{
	size_t nc = count(collector), nx = count(cmd), at = 0;
	char **argv = xcalloc(nc + nx + 4, sizeof(*argv));

	for (size_t i = 0; i < nc; i++)
		argv[at++] = (char *)collector[i];
	if (workload) {
		argv[at++] = "--workload";
		argv[at++] = (char *)workload;
	}
	argv[at++] = "--";
	for (size_t i = 0; i < nx; i++)
		argv[at++] = (char *)cmd[i];
	*argc = (int)at;
	return argv;
}

/* The collector's options alone, checked before anything runs: an unknown
 * collector, a bad option or -h is one line, and no command runs. */
static int check_collector(const char *const *collector)
{
	int n = (int)count(collector);
	char **copy;
	int ret;

	if (n == 0)
		return err_set(ERR_INVALID, "collect: name a collector");
	copy = xcalloc((size_t)n + 1, sizeof(*copy));
	memcpy(copy, collector, (size_t)n * sizeof(*copy));
	ret = collect_check_options(n, copy);
	free(copy);
	return ret;
}

static int collect_run(veles_project *h, const char *const *collector, const char *const *cmd,
		       const struct collect_opts *o, char **path)
{
	struct collect_env env = {
		.jobs_dir = h->pr.jobs_dir,
		.logs_dir = h->pr.logs_dir,
		.quiet = true,
		.progress = true,
		.profile_name = o->name,
		.name_template = o->template,
		.message = api_collect_message,
		.out_path = path,
	};
	char head[41], *tmpl = NULL, **argv;
	int argc, ret = project_origin(&h->pr, false, head);

	if (ret < 0)
		return ret;
	env.origin = ret ? head : NULL;
	if (!env.name_template && !env.profile_name) {
		env.name_template = tmpl =
			project_setting(&h->pr, "format.output_profile_template");
		if (tmpl && collect_template_check(tmpl) < 0) {
			free(tmpl);
			return ERR_INVALID;
		}
	}
	argv = full_argv(collector, cmd, o->workload, &argc);
	ret = collect_main(&env, argc, argv);
	free(argv);
	free(tmpl);
	return ret;
}

/* veles-collect-NAME: the arguments after the name, then -- and the
 * command; it names its profile itself. */
static int collect_program(veles_project *h, const char *program, const char *const *collector,
			   const char *const *cmd, const struct collect_opts *o, char **path)
{
	struct collect_external x = {collector[0], program, NULL, h->pr.root, h->pr.jobs_dir, NULL};
	size_t nc = count(collector), nx = count(cmd), at = 0;
	char head[41], **argv;
	int ret;

	if (o->workload || o->name || o->template)
		return err_set(ERR_INVALID,
			       "collect: veles-collect-%s names its profile itself: "
			       "no workload, name or template",
			       collector[0]);
	if ((ret = project_origin(&h->pr, false, head)) < 0)
		return ret;
	x.origin = ret ? head : NULL;
	argv = xcalloc(nc + nx + 1, sizeof(*argv));
	for (size_t i = 1; i < nc; i++)
		argv[at++] = (char *)collector[i];
	if (nx)
		argv[at++] = "--";
	for (size_t i = 0; i < nx; i++)
		argv[at++] = (char *)cmd[i];
	x.argv = argv;
	spawn_signals_install();
	ret = collect_external_run(&x, path);
	spawn_signals_restore();
	free(argv);
	return ret;
}

int veles_collect(veles_project *h, const char *const *collector, const char *const *cmd,
		  const char *const *options, char **path)
{
	struct collect_opts o = {0};
	char *written = NULL, *program = NULL;
	int ret;

	if (path)
		*path = NULL;
	if (!h)
		return err_set(ERR_INVALID, "collect: no project");
	if ((ret = parse_options(options, &o)) < 0)
		return ret;
	if (collector && collector[0] && !collector_find(collector[0]) &&
	    collect_external_find(collector[0], &program) == 0) {
		/* Not built in, but on PATH; else an unknown collector, which
		 * check_collector() says. */
		ret = collect_program(h, program, collector, cmd, &o, &written);
		free(program);
		goto out;
	}
	if ((ret = check_collector(collector)) < 0)
		return ret;
	/* No command is the collector's to refuse (bounds needs none). */
	ret = collect_run(h, collector, cmd, &o, &written);
out:
	if (ret == 0 && path)
		*path = written;
	else
		free(written);
	return ret;
}
