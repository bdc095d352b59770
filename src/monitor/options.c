/* veles monitor's options checked together, and --profile's (options.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/options.h"
#include "monitor/view.h"
#include "util/common.h"

int mon_parse_interval(const char *v, double *out)
{
	char *end;

	*out = strtod(v, &end);
	if (end == v || *end || !(*out >= 0) || *out > 86400)
		return err_set(ERR_INVALID, "monitor: bad interval '%s' (seconds, e.g. 0.5)", v);
	return 0;
}

int mon_parse_uint(const char *opt, const char *v, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-')
		return err_set(ERR_INVALID, "monitor: %s wants a non-negative integer, not '%s'",
			       opt, v);
	return 0;
}

int mon_opts_check(const struct mon_run_opts *o)
{
	if (o->profile && (!o->cmd || o->record || o->playback || o->export_spec))
		return err_set(ERR_INVALID, "--profile needs a command (-- CMD) and no "
					    "-f, -p or --export");
	if (o->cmd && o->playback)
		return err_set(ERR_INVALID, "-p plays back: it runs no command");
	if (o->record && o->playback)
		return err_set(ERR_INVALID, "-f and -p do not go together");
	if (o->letters && !o->letters[0])
		return err_set(ERR_INVALID, "-s needs at least one subsystem");
	for (const char *p = o->letters ? o->letters : ""; *p; p++)
		if (!mon_view_find(*p))
			return err_set(ERR_INVALID, "unknown subsystem '%c' (one of %s)", *p,
				       mon_view_letters());
	if ((o->procfilt || o->top) && o->letters && !strchr(o->letters, 'Z'))
		return err_set(ERR_INVALID, "--procfilt and --top go with -s Z");
	return 0;
}

/* --profile's own checks: it prints no table, and samples at an interval. */
static int profile_check(const struct mon_run_opts *o, char *letters, size_t cap)
{
	size_t n = 0;

	if (o->format != MON_BRIEF || o->sep != ' ' || o->debug || o->self || o->proc_root)
		return err_set(ERR_INVALID, "--profile prints no table: -P, --verbose, "
					    "--sep, -d, --self and --proc do not go with it");
	if (!(o->interval > 0))
		return err_set(ERR_INVALID, "--profile needs an interval above 0");
	for (const char *p = o->letters ? o->letters : "cdmn"; *p && n < cap - 1; p++) {
		const struct mon_view *v = mon_view_find(*p);

		if (v && !v->detail)
			letters[n++] = *p;
	}
	letters[n] = '\0';
	if (!n)
		return err_set(ERR_INVALID, "--profile needs a summary subsystem "
					    "(lowercase)");
	return 0;
}

int mon_profile_args(const struct mon_run_opts *o, struct mon_profile_args *a)
{
	size_t nargs = 0;
	int k = 0, ret;

	memset(a, 0, sizeof(*a));
	ret = profile_check(o, a->letters, sizeof(a->letters));
	if (ret < 0)
		return ret;
	snprintf(a->interval, sizeof(a->interval), "%.17g", o->interval);
	snprintf(a->count, sizeof(a->count), "%ld", o->count);
	while (o->cmd[nargs])
		nargs++;
	a->argv = xcalloc(nargs + 13, sizeof(*a->argv));
	a->argv[k++] = "monitor";
	a->argv[k++] = "-s";
	a->argv[k++] = a->letters;
	a->argv[k++] = "-i";
	a->argv[k++] = a->interval;
	if (o->count >= 0) {
		a->argv[k++] = "-c";
		a->argv[k++] = a->count;
	}
	if (o->per_interval)
		a->argv[k++] = "--on";
	if (o->imports) {
		a->argv[k++] = "--import";
		a->argv[k++] = (char *)o->imports;
	}
	a->argv[k++] = "--";
	memcpy(a->argv + k, o->cmd, nargs * sizeof(*a->argv));
	a->argc = k + (int)nargs;
	return 0;
}

void mon_profile_args_release(struct mon_profile_args *a)
{
	free(a->argv);
	a->argv = NULL;
	a->argc = 0;
}
