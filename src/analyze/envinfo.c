/* The environment of a profile, read and compared (envinfo.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "analyze/envinfo.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/strmap.h"

static char *str_of(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(obj, path, yajl_t_string);

	return v ? xstrdup(YAJL_GET_STRING(v)) : NULL;
}

static double num_of(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(obj, path, yajl_t_number);

	return v && YAJL_IS_DOUBLE(v)	 ? YAJL_GET_DOUBLE(v)
	       : v && YAJL_IS_INTEGER(v) ? (double)YAJL_GET_INTEGER(v)
					 : NAN;
}

void env_info_parse(const char *json, struct env_info *e)
{
	char err[128];
	yajl_val root = json ? yajl_tree_parse(json, err, sizeof(err)) : NULL;
	const char *vm_path[] = {"vm", NULL};
	yajl_val vm;
	double cores;

	memset(e, 0, sizeof(*e));
	e->vm = -1;
	e->load_before = e->load_after = NAN;
	if (!YAJL_IS_OBJECT(root)) {
		yajl_tree_free(root);
		return;
	}
	e->present = true;
	e->host = str_of(root, "host");
	e->cpu = str_of(root, "cpu");
	e->kernel = str_of(root, "kernel");
	e->arch = str_of(root, "arch");
	e->governor = str_of(root, "governor");
	e->hypervisor = str_of(root, "hypervisor");
	e->compiler = str_of(root, "compiler");
	cores = num_of(root, "cores");
	e->cores = cores > 0 ? (long)cores : 0;
	vm = yajl_tree_get(root, vm_path, yajl_t_any);
	e->vm = YAJL_IS_TRUE(vm) ? 1 : YAJL_IS_FALSE(vm) ? 0 : -1;
	e->load_before = num_of(root, "load_before");
	e->load_after = num_of(root, "load_after");
	yajl_tree_free(root);
}

void env_info_get(const struct profile *p, struct env_info *e)
{
	const char *json = NULL;

	for (size_t i = 0; i < p->nheader_extra; i++)
		if (strcmp(p->header_extra[i].key, "environment") == 0)
			json = p->header_extra[i].value;
	env_info_parse(json, e);
}

void env_info_release(struct env_info *e)
{
	free(e->host);
	free(e->cpu);
	free(e->kernel);
	free(e->arch);
	free(e->governor);
	free(e->hypervisor);
	free(e->compiler);
	memset(e, 0, sizeof(*e));
}

/* One differing field: "kernel A vs B"; unknown on either side says
 * nothing (an old profile's missing compiler is not a difference). */
static int differ(struct buf *out, const char *what, const char *a, const char *b)
{
	if (!a || !b || strcmp(a, b) == 0)
		return 0;
	buf_addf(out, "%s%s %s vs %s", out->len ? ", " : "", what, a, b);
	return 1;
}

int env_info_diff(const struct env_info *a, const struct env_info *b, struct buf *out)
{
	char ca[24], cb[24];
	int n = 0;

	if (!a->present || !b->present)
		return 0;
	n += differ(out, "host", a->host, b->host);
	n += differ(out, "CPU", a->cpu, b->cpu);
	snprintf(ca, sizeof(ca), "%ld", a->cores);
	snprintf(cb, sizeof(cb), "%ld", b->cores);
	n += differ(out, "cores", a->cores ? ca : NULL, b->cores ? cb : NULL);
	n += differ(out, "kernel", a->kernel, b->kernel);
	n += differ(out, "governor", a->governor, b->governor);
	n += differ(out, "VM",
		    a->vm < 0 ? NULL
		    : a->vm   ? "yes"
			      : "no",
		    b->vm < 0 ? NULL
		    : b->vm   ? "yes"
			      : "no");
	n += differ(out, "compiler", a->compiler, b->compiler);
	return n;
}

void env_info_describe(const struct env_info *e, struct buf *out)
{
	if (!e->present) {
		buf_adds(out, "Environment:    (not recorded)\n");
		return;
	}
	buf_addf(out, "Host:           %s\n", e->host ? e->host : "(unknown)");
	buf_addf(out, "CPU:            %s", e->cpu ? e->cpu : "(unknown)");
	if (e->cores)
		buf_addf(out, ", %ld core%s", e->cores, e->cores == 1 ? "" : "s");
	buf_addf(out, "\nKernel:         %s%s%s\n", e->kernel ? e->kernel : "(unknown)",
		 e->arch ? " " : "", e->arch ? e->arch : "");
	buf_addf(out, "Governor:       %s\n", e->governor ? e->governor : "(unknown)");
	buf_addf(out, "VM:             %s", e->vm < 0 ? "(unknown)" : e->vm ? "yes" : "no");
	if (e->hypervisor)
		buf_addf(out, " (%s)", e->hypervisor);
	buf_adds(out, "\nLoad average:   ");
	if (isnan(e->load_before) && isnan(e->load_after))
		buf_adds(out, "(unknown)");
	else
		buf_addf(out, "%.2f before, %.2f after", e->load_before, e->load_after);
	buf_addf(out, "\nCompiler:       %s\n", e->compiler ? e->compiler : "(unknown)");
}

/* Whether the difference @what is new to g->said (then it is noted). */
static bool first_said(const struct env_guard *g, const char *what)
{
	bool added = true;

	if (g->said)
		strmap_intern(g->said, what, &added);
	return added;
}

int env_guard_check(const struct env_guard *g, const struct env_info *a, const char *an,
		    const struct env_info *b, const char *bn)
{
	struct buf what = BUF_INIT;
	int n, ret = 0;

	if (g->strict && (!a->present || !b->present))
		return err_set(ERR_INVALID, "%s records no environment: %s cannot compare it",
			       a->present ? bn : an, g->option);
	n = env_info_diff(a, b, &what);
	if (n && g->strict)
		ret = err_set(ERR_INVALID,
			      "%s and %s were measured in different environments (%s): %s "
			      "refuses to compare them",
			      an, bn, buf_str(&what), g->option);
	else if (n && g->warn && first_said(g, buf_str(&what))) {
		char *msg = xasprintf("%s and %s were measured in different environments: %s", an,
				      bn, buf_str(&what));

		g->warn(g->arg, msg);
		free(msg);
	}
	buf_release(&what);
	return ret;
}

int env_guard_profiles(const struct env_guard *g, const struct profile *a, const char *an,
		       const struct profile *b, const char *bn)
{
	struct env_info ea, eb;
	int ret;

	env_info_get(a, &ea);
	env_info_get(b, &eb);
	ret = env_guard_check(g, &ea, an, &eb, bn);
	env_info_release(&ea);
	env_info_release(&eb);
	return ret;
}
