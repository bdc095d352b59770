/* Perun's multi-letter short options rewritten to our long ones. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/perun-opts.h"
#include "util/common.h"

void cli_perun_short_opts(int argc, char **argv, const char *const *pairs)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		for (const char *const *p = pairs; p[0] && p[1]; p += 2) {
			size_t n = strlen(p[0]);

			if (strncmp(argv[i], p[0], n) != 0 ||
			    (argv[i][n] != '\0' && argv[i][n] != '='))
				continue;
			/* getopt reorders argv, never writes its strings. */
			argv[i] = argv[i][n] ? xasprintf("%s%s", p[1], argv[i] + n) : (char *)p[1];
			break;
		}
	}
}

/* Perun's multi-letter short options of its postprocessors. */
static const char *const pp_shorts[][2] = {
	{"-dp", "--depending-on"},  {"-per", "--per"},		{"-of", "--of"},
	{"-bn", "--bucket-number"}, {"-bm", "--bucket-method"}, {"-sf", "--statistic-function"},
	{"-ww", "--window-width"},  {"-wt", "--window-type"},	{"-mp", "--min-periods"},
	{"-gr", "--gamma-range"},   {"-gs", "--gamma-step"},
};

static bool is_number(const char *s)
{
	char *end;

	strtod(s, &end);
	return end != s && !*end;
}

/* "--name_with_underscores[=value]" with hyphens in the name. */
static char *long_option(const char *arg)
{
	char *s = xstrdup(arg);

	for (char *c = s + 2; *c && *c != '='; c++)
		if (*c == '_')
			*c = '-';
	if (strncmp(s, "--of-key", 8) == 0 || strncmp(s, "--per-key", 9) == 0) {
		char *eq = strchr(s, '='),
		     *t = xasprintf("%s%s", s[2] == 'o' ? "--of" : "--per", eq ? eq : "");

		free(s);
		return t;
	}
	return s;
}

char **cli_perun_pp_argv(int *argc, char **argv)
{
	char **v = xcalloc((size_t)*argc * 2 + 2, sizeof(*v));
	bool ma, ra;
	int n = 0;

	v[n++] = xstrdup(argv[0]);
	for (char *c = v[0]; *c; c++)
		if (*c == '_')
			*c = '-';
	ma = strcmp(v[0], "moving-average") == 0;
	ra = strcmp(v[0], "regression-analysis") == 0;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], *mapped = NULL;

		for (size_t k = 0; k < ARRAY_SIZE(pp_shorts); k++)
			if (strcmp(a, pp_shorts[k][0]) == 0)
				mapped = pp_shorts[k][1];
		if (ra && strcmp(a, "-o") == 0)
			mapped = "--of";
		if (ma && strcmp(a, "-d") == 0)
			mapped = "--decay";
		if (mapped) {
			v[n++] = xstrdup(mapped);
		} else if (ma && (!strcmp(a, "sma") || !strcmp(a, "smm") || !strcmp(a, "ema")) &&
			   (i == 1 || argv[i - 1][0] != '-')) {
			/* The word, not the value of a --method before it. */
			v[n++] = xasprintf("--method=%s", a);
		} else if (strncmp(a, "--", 2) == 0 && a[2]) {
			v[n++] = long_option(a);
		} else {
			v[n++] = xstrdup(a);
			continue;
		}
		/* Perun's --decay takes the kind and its value. */
		if (ma && strcmp(v[n - 1], "--decay") == 0 && i + 2 < *argc &&
		    is_number(argv[i + 2])) {
			v[n++] = xstrdup(argv[++i]);
			v[n++] = xasprintf("--decay-value=%s", argv[++i]);
		}
	}
	*argc = n;
	return v;
}

void cli_perun_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
