/*
 * A program of a libveles user, built against the installed veles.pc
 * (t-installed.sh): opens the project at argv[1], lists its versions and
 * profiles, loads one, queries it, checks HEAD against its parent, and
 * collects a profile with the memory collector, whose preload runtime it
 * finds beside the installed libveles.so.
 * It prints what it found; the script checks the lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <veles.h>

static int warnings;

static void on_log(int level, const char *msg, void *data)
{
	(void)data;
	if (level == VELES_LOG_WARNING)
		warnings++;
	fprintf(stderr, "log %d: %s\n", level, msg);
}

static int fail(const char *what)
{
	fprintf(stderr, "installed: %s: %s\n", what, veles_last_error());
	return 1;
}

static void print_results(const char *title, const veles_table *t)
{
	long loc = veles_table_find(t, "location"), res = veles_table_find(t, "result");
	long rel = veles_table_find(t, "rel_change"), lo = veles_table_find(t, "ci_low");

	for (size_t r = 0; r < veles_table_nrows(t); r++)
		printf("%s %s %s %+.3f %+.3f\n", title, veles_table_text(t, (size_t)loc, r),
		       veles_table_text(t, (size_t)res, r), veles_table_num(t, (size_t)rel, r),
		       veles_table_num(t, (size_t)lo, r));
}

/* The resources' columns, "name:kind", and the sum of amount read
 * straight from the column (through its index when it has one). */
static void print_columns(const veles_table *t)
{
	double sum = 0;

	for (size_t i = 0; i < veles_table_ncols(t); i++) {
		veles_column c;

		if (veles_table_column(t, i, &c) < 0)
			return;
		printf("column %s:%d%s\n", c.name, c.kind, c.index ? " indexed" : "");
		if (strcmp(c.name, "amount") != 0 || c.kind != VELES_F64)
			continue;
		for (size_t r = 0; r < veles_table_nrows(t); r++) {
			size_t at = c.index ? c.index[r] : r;

			if (at < c.len && !(c.absent && c.absent[at]))
				sum += ((const double *)c.data)[at];
		}
	}
	printf("amount sum %.4f\n", sum);
}

static int query(veles_profile *p)
{
	veles_query *q;
	veles_table *t;

	if (veles_query_new(&q) < 0 || veles_query_where(q, "amount>0") < 0 ||
	    veles_query_group_by(q, "subtype", "median", NULL) < 0 || veles_query_run(q, p, &t) < 0)
		return fail("query");
	for (size_t r = 0; r < veles_table_nrows(t); r++)
		printf("group %s %g %.4f\n", veles_table_text(t, 0, r), veles_table_num(t, 1, r),
		       veles_table_num(t, 2, r));
	veles_table_free(t);
	/* A condition that does not parse is an error with one line. */
	if (veles_query_where(q, "amount") == 0)
		return fail("a bad condition was taken");
	printf("bad condition: %s\n", veles_last_error());
	veles_query_free(q);
	return 0;
}

static int collect(veles_project *pr)
{
	const char *const memory[] = {"memory", NULL}, *const cmd[] = {"/bin/true", NULL};
	const char *const nosuch[] = {"nosuch", NULL};
	const char *const opts[] = {"name=installed", NULL};
	veles_profile *p;
	char *path;

	if (veles_collect(pr, memory, cmd, opts, &path) < 0)
		return fail("collect");
	if (veles_profile_load(path, &p) < 0)
		return fail("load the collected profile");
	printf("collected %s by %s\n", strrchr(path, '/') + 1, veles_profile_get(p, "collector"));
	veles_profile_free(p);
	veles_free(path);
	if (veles_collect(pr, nosuch, cmd, NULL, NULL) == 0)
		return fail("an unknown collector ran");
	printf("bad collector: %s\n", veles_last_error());
	return 0;
}

int main(int argc, char **argv)
{
	veles_project *pr;
	veles_profile *p, *base;
	veles_table *t;
	veles_check *c;

	if (argc != 2)
		return 2;
	if (veles_abi_version() != VELES_ABI_VERSION)
		return fail("ABI");
	printf("veles %s abi %d\n", veles_version(), veles_abi_version());
	veles_set_log(on_log, NULL);
	if (veles_project_open(argv[1], &pr) < 0)
		return fail("open");
	if (veles_project_versions(pr, NULL, 0, &t) < 0)
		return fail("versions");
	printf("versions %zu, HEAD has %g profiles\n", veles_table_nrows(t),
	       veles_table_num(t, (size_t)veles_table_find(t, "profiles"), 0));
	veles_table_free(t);
	if (veles_project_load(pr, "0@i", NULL, &p) < 0 ||
	    veles_project_load(pr, "0@i", "HEAD~1", &base) < 0)
		return fail("load");
	printf("loaded %s (%s), %zu resources\n", veles_profile_name(p),
	       veles_profile_get(p, "cmd"), veles_profile_nresources(p));
	print_columns(veles_profile_resources(p));
	if (query(p))
		return 1;
	if (veles_check_new(pr, &c) < 0 || veles_check_set(c, "seed", "7") < 0)
		return fail("check");
	if (veles_check_profiles(c, base, p, &t) < 0)
		return fail("check profiles");
	print_results("profiles", t);
	veles_table_free(t);
	if (veles_check_versions(c, "HEAD~1", "HEAD", &t) < 0)
		return fail("check versions");
	print_results("versions", t);
	veles_table_free(t);
	if (veles_check_set(c, "method", "nonsense") == 0)
		return fail("an unknown method was taken");
	printf("bad method: %s\n", veles_last_error());
	veles_check_free(c);
	veles_profile_free(base);
	veles_profile_free(p);
	if (veles_project_load(pr, "7@i", NULL, &p) == 0)
		return fail("7@i loaded");
	printf("no such profile: %s\n", veles_last_error());
	if (collect(pr))
		return 1;
	veles_project_free(pr);
	/* Every free takes NULL. */
	veles_project_free(NULL);
	veles_profile_free(NULL);
	veles_table_free(NULL);
	veles_check_free(NULL);
	veles_query_free(NULL);
	veles_free(NULL);
	printf("warnings %d\n", warnings);
	return 0;
}
