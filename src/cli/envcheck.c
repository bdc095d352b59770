/* Warning about, or refusing, comparisons across environments (envcheck.h). */
#include "cli/envcheck.h"
#include "analyze/envinfo.h"
#include "cli/cli.h"
#include "util/common.h"
#include "util/strmap.h"

/* The differences already said, so a `check all` says each once. */
static struct strmap said;

static void warn(void *arg, const char *msg)
{
	UNUSED(arg);
	cli_warn("%s", msg);
}

static struct env_guard guard(bool strict)
{
	return (struct env_guard){strict, "--strict-env", &said, warn, NULL};
}

int cli_env_check_info(const struct env_info *a, const char *an, const struct env_info *b,
		       const char *bn, bool strict)
{
	struct env_guard g = guard(strict);

	return env_guard_check(&g, a, an, b, bn);
}

int cli_env_check(const struct profile *a, const char *an, const struct profile *b, const char *bn,
		  bool strict)
{
	struct env_guard g = guard(strict);

	return env_guard_profiles(&g, a, an, b, bn);
}
