/* libveles: a postprocessor run on a loaded profile, as `veles postprocess`
 * runs it (analyze/postproc.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/postproc.h"
#include "api/api.h"
#include "util/common.h"
#include "util/error.h"
#include "util/xalloc.h"

/* A postprocessor's notes reach the front end as warnings. */
static void note(void *arg, const char *text)
{
	UNUSED(arg);
	api_log(VELES_LOG_WARNING, "%s", text);
}

int veles_postprocess(veles_profile *h, const char *const *argv)
{
	const struct postproc_env env = {.message = note};
	char **copy, *help = NULL;
	int argc = 0, ret;

	if (!h || !argv || !argv[0])
		return err_set(ERR_INVALID, "postprocess: name a postprocessor");
	while (argv[argc])
		argc++;
	/* The parser reorders its argv (never the strings): a copy of ours. */
	copy = xcalloc((size_t)argc + 1, sizeof(*copy));
	for (int i = 0; i < argc; i++)
		copy[i] = (char *)argv[i];
	ret = postproc_run_argv_env(h->p, argc, copy, &env, &help);
	free(copy);
	free(help);
	if (ret == 1)
		return err_set(ERR_INVALID, "postprocess %s: --help is not an option here",
			       argv[0]);
	/* Even a failed run may have changed the profile's models. */
	api_profile_forget(h);
	return ret;
}
