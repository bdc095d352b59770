/* String lists, shell-like word splitting, and YAML params as options. */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "run/run.h"
#include "util/buf.h"
#include "util/common.h"

void run_strv_add(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

void run_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void argv_add(char ***argv, int *argc, char *owned)
{
	*argv = xrealloc(*argv, ((size_t)*argc + 2) * sizeof(**argv));
	(*argv)[(*argc)++] = owned;
	(*argv)[*argc] = NULL;
}

/* One word from *@p: quotes group, a backslash takes the next character. */
static int next_word(const char **p, struct buf *w)
{
	const char *s = *p;
	char quote = 0;

	for (; *s; s++) {
		if (quote) {
			if (*s == quote)
				quote = 0;
			else if (*s == '\\' && quote == '"' && s[1] && strchr("\"\\$`", s[1]))
				buf_addc(w, *++s);
			else
				buf_addc(w, *s);
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else if (*s == '\\' && s[1]) {
			buf_addc(w, *++s);
		} else if (*s == ' ' || *s == '\t' || *s == '\n') {
			break;
		} else {
			buf_addc(w, *s);
		}
	}
	*p = s;
	return quote ? err_set(ERR_INVALID, "unclosed %c quote", quote) : 0;
}

int run_split_words(const char *s, char ***words, int *n)
{
	int ret = 0;

	*words = xcalloc(1, sizeof(**words));
	*n = 0;
	while (ret == 0) {
		struct buf w = BUF_INIT;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		ret = next_word(&s, &w);
		argv_add(words, n, buf_detach(&w, NULL));
	}
	if (ret < 0) {
		run_strv_free(*words);
		*words = NULL;
		*n = 0;
		return err_prefix(ret, "cannot split '%s'", s);
	}
	return 0;
}

struct params_walk {
	const struct config *c;
	const char *prefix;
	size_t plen;
	char ***argv;
	int *argc;
	int ret;
};

/* "--name=value" with underscores in the name as hyphens. */
static char *option(const char *name, size_t len, const char *value)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "--");
	for (size_t i = 0; i < len; i++)
		buf_addc(&b, name[i] == '_' ? '-' : name[i]);
	if (value) {
		buf_addc(&b, '=');
		buf_adds(&b, value);
	}
	return buf_detach(&b, NULL);
}

static void params_item(const char *key, const char *value, void *arg)
{
	struct params_walk *w = arg;
	const char *name, *dot;
	size_t len;

	if (w->ret < 0 || strncmp(key, w->prefix, w->plen) != 0 || key[w->plen] != '.')
		return;
	name = key + w->plen + 1;
	dot = strchr(name, '.');
	len = dot ? (size_t)(dot - name) : strlen(name);
	/* A list repeats the option; anything deeper has no option form. */
	if (name[0] >= '0' && name[0] <= '9' && strspn(name, "0123456789") == len) {
		w->ret = config_error_at(w->c, key, "'%s' must be a map of options, not a list",
					 w->prefix);
		return;
	}
	if (dot && (dot[1] < '0' || dot[1] > '9' || strchr(dot + 1, '.'))) {
		w->ret = config_error_at(w->c, key, "'%.*s' must be a value or a list of values",
					 (int)len, name);
		return;
	}
	if (strcmp(value, "false") == 0)
		return;
	argv_add(w->argv, w->argc, option(name, len, strcmp(value, "true") == 0 ? NULL : value));
}

struct check_walk {
	const struct config *c;
	const char *prefix, *name;
	size_t plen;
	int (*check)(int argc, char **argv);
	int ret;
};

static void check_item(const char *key, const char *value, void *arg)
{
	struct check_walk *w = arg;
	char *argv[3] = {(char *)w->name, NULL, NULL};
	const char *opt;

	if (w->ret < 0 || strncmp(key, w->prefix, w->plen) != 0 || key[w->plen] != '.' ||
	    strcmp(value, "false") == 0)
		return;
	opt = key + w->plen + 1;
	argv[1] = option(opt, strcspn(opt, "."), strcmp(value, "true") == 0 ? NULL : value);
	if (w->check(2, argv) < 0)
		w->ret = config_error_at(w->c, key, "'%s': %s", key, err_msg());
	free(argv[1]);
}

int run_params_check(const struct config *c, const char *prefix, const char *name,
		     int (*check)(int argc, char **argv))
{
	struct check_walk w = {c, prefix, name, strlen(prefix), check, 0};

	config_each(c, check_item, &w);
	return w.ret;
}

int run_params_argv(const struct config *c, const char *prefix, char ***argv, int *argc)
{
	struct params_walk w = {c, prefix, strlen(prefix), argv, argc, 0};

	if (config_get(c, prefix) && *config_get(c, prefix))
		return config_error_at(c, prefix, "'%s' must be a map of options", prefix);
	config_each(c, params_item, &w);
	return w.ret;
}
