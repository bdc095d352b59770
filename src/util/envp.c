/* Environments for commands we start (envp.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/envp.h"
#include "util/xalloc.h"

extern char **environ;

/* Whether "NAME=..." @a sets the variable "NAME=..." @b names. */
static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, b, n) == 0 && (b[n] == '=' || b[n] == '\0');
}

static bool set_in(char *const *v, const char *entry)
{
	for (size_t i = 0; v && v[i]; i++)
		if (same_name(v[i], entry))
			return true;
	return false;
}

char **envp_merge(char *const *base, char *const *over)
{
	size_t nb = 0, no = 0, k = 0;
	char **out;

	if (!base)
		base = environ;
	while (base && base[nb])
		nb++;
	while (over && over[no])
		no++;
	out = xcalloc(nb + no + 1, sizeof(*out));
	for (size_t i = 0; i < nb; i++)
		if (!set_in(over, base[i]))
			out[k++] = xstrdup(base[i]);
	for (size_t j = 0; j < no; j++)
		if (strchr(over[j], '=') && !set_in(over + j + 1, over[j]))
			out[k++] = xstrdup(over[j]);
	return out;
}

void envp_free(char **envp)
{
	for (size_t i = 0; envp && envp[i]; i++)
		free(envp[i]);
	free(envp);
}

const char *envp_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	if (!envp)
		envp = environ;
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}
