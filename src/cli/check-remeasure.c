/* check head --remeasure: the version and its parent measured now,
 * interleaved, into a check report (run/remeasure_check.h). */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli/check.h"
#include "cli/cli.h"
#include "project/check_versions.h"
#include "run/remeasure_check.h"
#include "util/common.h"
#include "util/spawn.h"

static void say(void *arg, const char *line)
{
	UNUSED(arg);
	fprintf(stderr, "check: %s\n", line);
}

int check_remeasure(struct cli_ctx *ctx, const struct check_cli *o, const struct check_run *run,
		    const char *id, struct check_report *r)
{
	struct remeasure_check c = {
		.o =
			{
				.budget = {o->max_rounds, o->max_seconds},
				/* Random unless --seed asks for a repeatable order. */
				.seed = o->seeded
						? o->cp.seed
						: (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
				.metric = o->on,
				.cp = o->cp,
				.progress = o->quiet_progress ? NULL : say,
				.message = cli_collect_message,
			},
		.env_check = run->env_check,
		.say = say,
		.arg = run->arg,
	};
	int ret;

	spawn_signals_install();
	ret = remeasure_check(&ctx->project, id, &c, r);
	spawn_signals_restore();
	return ret < 0 ? cli_fail(), -1 : 0;
}
