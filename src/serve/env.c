/* Parsing a workload's environment (env.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "serve/env.h"
#include "util/buf.h"
#include "util/envp.h"
#include "util/error.h"
#include "util/xalloc.h"

enum { ENV_MAX_VARS = 256 };

static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (!first && c >= '0' && c <= '9');
}

/* One NAME=VALUE at *@p into @out ("NAME=VALUE", unquoted); *@p moves on. */
static int one(const char **p, struct buf *out)
{
	const char *s = *p;
	char q = 0;

	if (!name_char(*s, true))
		return err_set(ERR_PARSE, "environment: '%.40s' is not NAME=VALUE", s);
	while (name_char(*s, false))
		buf_addc(out, *s++);
	if (*s != '=')
		return err_set(ERR_PARSE, "environment: '%.40s' is not NAME=VALUE", *p);
	buf_addc(out, *s++);
	while (*s && (q || (*s != ' ' && *s != '\t' && *s != '\n'))) {
		if (!q && (*s == '\'' || *s == '"')) {
			q = *s++;
		} else if (q && *s == q) {
			q = 0;
			s++;
		} else if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\')) {
			buf_addc(out, s[1]);
			s += 2;
		} else {
			buf_addc(out, *s++);
		}
	}
	if (q)
		return err_set(ERR_PARSE, "environment: unterminated quote in '%.40s'", *p);
	*p = s;
	return 0;
}

/* Every assignment of @spec, in order, into @v (*@n of them). */
static int parse(const char *spec, char **v, size_t *n)
{
	const char *p = spec ? spec : "";
	int ret = 0;

	*n = 0;
	for (;;) {
		struct buf b = BUF_INIT;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (*n == ENV_MAX_VARS) {
			ret = err_set(ERR_PARSE, "environment: more than %d variables",
				      ENV_MAX_VARS);
			break;
		}
		if ((ret = one(&p, &b)) < 0) {
			buf_release(&b);
			break;
		}
		v[(*n)++] = buf_detach(&b, NULL);
	}
	if (ret < 0) {
		for (size_t i = 0; i < *n; i++)
			free(v[i]);
		*n = 0;
	}
	return ret;
}

int env_check(const char *spec)
{
	char *v[ENV_MAX_VARS];
	size_t n;
	int ret = parse(spec, v, &n);

	for (size_t i = 0; i < n; i++)
		free(v[i]);
	return ret;
}

int env_build(const char *spec, char ***envp)
{
	char *v[ENV_MAX_VARS + 1];
	size_t n;
	int ret = parse(spec, v, &n);

	if (ret < 0)
		return ret;
	v[n] = NULL;
	*envp = envp_merge(NULL, v);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	return 0;
}

void env_free(char **envp)
{
	envp_free(envp);
}
