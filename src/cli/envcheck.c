/* Warning about, or refusing, comparisons across environments (envcheck.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/envinfo.h"
#include "cli/cli.h"
#include "cli/envcheck.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/strmap.h"

/* The differences already said, so a `check all` says each once. */
static struct strmap said;

int cli_env_check_info(const struct env_info *a, const char *an, const struct env_info *b,
		       const char *bn, bool strict)
{
	struct buf what = BUF_INIT;
	bool added = false;
	int n;

	if (strict && (!a->present || !b->present))
		return err_set(ERR_INVALID,
			       "%s records no environment: --strict-env cannot compare it",
			       a->present ? bn : an);
	n = env_info_diff(a, b, &what);
	if (n && strict) {
		int ret = err_set(ERR_INVALID,
				  "%s and %s were measured in different environments (%s): "
				  "--strict-env refuses to compare them",
				  an, bn, buf_str(&what));

		buf_release(&what);
		return ret;
	}
	if (n)
		strmap_intern(&said, buf_str(&what), &added);
	if (added)
		cli_warn("%s and %s were measured in different environments: %s", an, bn,
			 buf_str(&what));
	buf_release(&what);
	return 0;
}

int cli_env_check(const struct profile *a, const char *an, const struct profile *b, const char *bn,
		  bool strict)
{
	struct env_info ea, eb;
	int ret;

	env_info_get(a, &ea);
	env_info_get(b, &eb);
	ret = cli_env_check_info(&ea, an, &eb, bn, strict);
	env_info_release(&ea);
	env_info_release(&eb);
	return ret;
}
