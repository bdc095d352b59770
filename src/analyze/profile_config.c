/* A profile's configuration: the key that pairs profiles, its title. */
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_config.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* The postprocessors a profile ran, as raw JSON, or NULL for none: an
 * absent member, null and an empty list all say that nothing ran. */
static const char *ran_postprocessors(const struct profile *p)
{
	const char *s = p->postprocessors;

	if (!s)
		return NULL;
	s += strspn(s, " \t\r\n");
	if (strncmp(s, "null", 4) == 0 && !s[4 + strspn(s + 4, " \t\r\n")])
		return NULL;
	if (*s == '[') {
		const char *e = s + 1 + strspn(s + 1, " \t\r\n");

		if (*e == ']' && !e[1 + strspn(e + 1, " \t\r\n")])
			return NULL;
	}
	return p->postprocessors;
}

/* "cmd args (workload) collector [postprocessors]": what pairs profiles. */
char *profile_config_key(const struct profile *p)
{
	const char *pp = ran_postprocessors(p) ? p->postprocessors : "";

	return xasprintf("%s %s%s%s (%s) %s%s%s", p->type ? p->type : "?", p->cmd ? p->cmd : "",
			 p->args && *p->args ? " " : "", p->args ? p->args : "",
			 p->workload ? p->workload : "", p->collector ? p->collector : "",
			 *pp ? " " : "", pp);
}

/* How a pair is titled: "./prog 100 · time", the workload when the
 * arguments do not already say it, and any postprocessors. */
char *profile_config_title(const struct profile *p)
{
	struct buf b = BUF_INIT;
	const char *pp = ran_postprocessors(p);

	buf_adds(&b, p->cmd ? p->cmd : "?");
	if (p->args && *p->args)
		buf_addf(&b, " %s", p->args);
	if (p->workload && *p->workload && (!p->args || strcmp(p->args, p->workload) != 0))
		buf_addf(&b, " (workload %s)", p->workload);
	buf_addf(&b, " · %s", p->collector ? p->collector : p->type ? p->type : "?");
	if (pp)
		buf_addf(&b, " + %s", pp);
	return buf_detach(&b, NULL);
}
