/* Naming a profile's configuration: the key that pairs, the titles that read. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/pprecord.h"
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

char *profile_config_key(const struct profile *p)
{
	const char *pp = ran_postprocessors(p) ? p->postprocessors : "";

	return xasprintf("%s %s%s%s (%s) %s%s%s", p->type ? p->type : "?", p->cmd ? p->cmd : "",
			 p->args && *p->args ? " " : "", p->args ? p->args : "",
			 p->workload ? p->workload : "", p->collector ? p->collector : "",
			 *pp ? " " : "", pp);
}

static char *title(const struct profile *p, bool full)
{
	struct buf b = BUF_INIT;
	struct pp_records r;
	bool listed = pp_records_read(ran_postprocessors(p), &r) == 0;

	buf_adds(&b, p->cmd ? p->cmd : "?");
	if (p->args && *p->args)
		buf_addf(&b, " %s", p->args);
	if (p->workload && *p->workload && (!p->args || strcmp(p->args, p->workload) != 0))
		buf_addf(&b, " (workload %s)", p->workload);
	buf_addf(&b, " · %s", p->collector ? p->collector : p->type ? p->type : "?");
	for (size_t i = 0; listed && i < r.n; i++) {
		buf_adds(&b, i ? ", " : " + ");
		buf_adds(&b, r.v[i].name);
		if (full)
			pp_record_params_text(&r.v[i], &b);
	}
	/* Not a list of records: shown as it is rather than hidden. */
	if (!listed)
		buf_addf(&b, " + %s", p->postprocessors);
	pp_records_free(&r);
	return buf_detach(&b, NULL);
}

char *profile_config_title(const struct profile *p)
{
	return title(p, false);
}

char *profile_config_title_full(const struct profile *p)
{
	return title(p, true);
}

char **profile_config_postprocessors(const struct profile *p, size_t *n)
{
	struct pp_records r;
	char **names;

	if (pp_records_read(ran_postprocessors(p), &r) < 0)
		memset(&r, 0, sizeof(r));
	names = xcalloc(r.n + 1, sizeof(*names));
	for (size_t i = 0; i < r.n; i++)
		names[i] = xstrdup(r.v[i].name);
	*n = r.n;
	pp_records_free(&r);
	return names;
}
