/* The collect_main fixture of collect_world.h. */
#include "collect_world.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util/common.h"
#include "util/fsutil.h"

void collect_hear(void *arg, enum collect_msg kind, const char *text)
{
	struct collect_heard *h = arg;

	buf_adds(&h->said[kind], text);
	buf_addc(&h->said[kind], '|');
	h->n[kind]++;
}

void collect_heard_reset(struct collect_heard *h)
{
	for (int k = 0; k < 3; k++)
		buf_release(&h->said[k]);
	memset(h, 0, sizeof(*h));
}

int collect_world_setup(void **state)
{
	const char *base = getenv("VELES_TEST_TMP");
	struct collect_world *w = xcalloc(1, sizeof(*w));
	char *tmpl;

	mkdir_p(base ? base : "/tmp");
	tmpl = xasprintf("%s/collect.XXXXXX", base ? base : "/tmp");
	w->root = mkdtemp(tmpl);
	if (!w->root) {
		free(tmpl);
		free(w);
		return -1;
	}
	w->jobs = xasprintf("%s/.veles/jobs", w->root);
	w->logs = xasprintf("%s/.veles/logs", w->root);
	w->env = (struct collect_env){.jobs_dir = w->jobs,
				      .logs_dir = w->logs,
				      .quiet = true,
				      .message = collect_hear,
				      .message_arg = &w->h};
	*state = w;
	return 0;
}

int collect_world_teardown(void **state)
{
	struct collect_world *w = *state;

	collect_heard_reset(&w->h);
	rm_rf(w->root);
	free(w->root);
	free(w->jobs);
	free(w->logs);
	free(w);
	return 0;
}

int collect_run(struct collect_world *w, ...)
{
	char *argv[32];
	int argc;
	va_list ap;

	va_start(ap, w);
	argc = test_argv(argv, 32, ap);
	va_end(ap);
	return collect_main(&w->env, argc, argv);
}
