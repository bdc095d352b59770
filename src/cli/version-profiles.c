/* The profiles of a version, loaded, and the configuration that pairs them. */
#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "cli/cli.h"
#include "profile/profile.h"
#include "store/store.h"
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

void version_profiles_free(struct version_profiles *v)
{
	for (size_t i = 0; i < v->n; i++) {
		profile_free(v->p[i]);
		free(v->key[i]);
	}
	store_entries_free(v->e, v->n);
	free(v->p);
	free(v->key);
	memset(v, 0, sizeof(*v));
}

int version_profiles_load(struct cli_ctx *ctx, const char *version, struct version_profiles *v)
{
	struct buf raw = BUF_INIT;
	int ret = store_list(ctx->store, version, &v->e, &v->n);

	if (ret < 0)
		return ret;
	v->p = xcalloc(v->n ? v->n : 1, sizeof(*v->p));
	v->key = xcalloc(v->n ? v->n : 1, sizeof(*v->key));
	for (size_t i = 0; i < v->n && ret == 0; i++) {
		buf_reset(&raw);
		ret = store_read(ctx->store, v->e[i].blob, &raw);
		if (ret == 0)
			ret = profile_load_mem(raw.data, raw.len, v->e[i].name, &v->p[i]);
		if (ret == 0)
			v->key[i] = profile_config_key(v->p[i]);
	}
	buf_release(&raw);
	return ret;
}

ssize_t version_profiles_find(const struct version_profiles *v, const char *key)
{
	ssize_t found = -1;

	for (size_t i = 0; i < v->n; i++)
		if (v->key[i] && strcmp(v->key[i], key) == 0)
			found = (ssize_t)i;
	return found;
}
