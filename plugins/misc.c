/*
 * misc: the seed's misc.ph in C. Uptime, users logged in, the mean cpu
 * frequency and the number of mounted NFS file systems, all levels (no
 * rates). Takes no options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utmpx.h>

#include "monitor/vmon-module.h"

static const struct vmon_helpers *H;
static double uptime, mhz;
static long users, nfs;

static int misc_init(struct vmon_ctx *c, const struct vmon_helpers *h, const char *options,
		     const char **discriminator)
{
	H = h;
	if (options[0]) {
		h->error(c, "takes no options (got '%s')", options);
		return -1;
	}
	*discriminator = "misc";
	return 0;
}

static double read_uptime(void)
{
	FILE *f = fopen("/proc/uptime", "re");
	double up = 0;

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	return up;
}

static long count_users(void)
{
	struct utmpx *u;
	long n = 0;

	setutxent();
	while ((u = getutxent()))
		if (u->ut_type == USER_PROCESS)
			n++;
	endutxent();
	return n;
}

/* The mean of the "cpu MHz" lines of /proc/cpuinfo (0 when it has none). */
static double mean_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double sum = 0, v;
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) && sscanf(strchr(line, ':') + 1, "%lf", &v) == 1) {
			sum += v;
			n++;
		}
	fclose(f);
	return n ? sum / n : 0;
}

static long count_nfs_mounts(void)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[512], dir[512], type[64];
	long n = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%511s %511s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "nfs") || !strcmp(type, "nfs4"))
			n++;
	fclose(f);
	return n;
}

static void misc_get_data(struct vmon_ctx *c)
{
	char line[128];

	snprintf(line, sizeof(line), "misc uptime %.2f", read_uptime());
	H->record(c, line);
	snprintf(line, sizeof(line), "misc users %ld", count_users());
	H->record(c, line);
	snprintf(line, sizeof(line), "misc mhz %.3f", mean_mhz());
	H->record(c, line);
	snprintf(line, sizeof(line), "misc nfs %ld", count_nfs_mounts());
	H->record(c, line);
}

static void misc_analyze(struct vmon_ctx *c, const char *line)
{
	char key[16];
	double v;

	(void)c;
	if (sscanf(line, "misc %15s %lf", key, &v) != 2)
		return;
	if (!strcmp(key, "uptime"))
		uptime = v;
	else if (!strcmp(key, "users"))
		users = (long)v;
	else if (!strcmp(key, "mhz"))
		mhz = v;
	else if (!strcmp(key, "nfs"))
		nfs = (long)v;
}

static void misc_brief(struct vmon_ctx *c, enum vmon_brief type, struct vmon_text *line)
{
	(void)c;
	if (type == VMON_BRIEF_TITLE)
		H->append(line, "<--------Misc-------->");
	else if (type == VMON_BRIEF_HEADER)
		H->append(line, " UpHrs  LogIn   MHz  NFS");
	else
		H->append(line, " %5.0f %6ld %5.0f %4ld", uptime / 3600, users, mhz, nfs);
}

static void misc_verbose(struct vmon_ctx *c, int print_header, struct vmon_text *out)
{
	(void)c;
	if (print_header)
		H->append(out, "\n# MISC SUMMARY\n#  Uptime(s) LogIn     MHz  NFS\n");
	H->append(out, " %10.0f %6ld %7.1f %4ld\n", uptime, users, mhz, nfs);
}

static void misc_plot(struct vmon_ctx *c, enum vmon_plot type, struct vmon_text *line)
{
	char s = H->separator(c);

	if (type == VMON_PLOT_HEADER)
		H->append(line, "%c[MISC]Uptime%c[MISC]LogIns%c[MISC]cpuMHz%c[MISC]Mounts", s, s, s,
			  s);
	else
		H->append(line, "%c%.0f%c%ld%c%.1f%c%ld", s, uptime, s, users, s, mhz, s, nfs);
}

static void misc_export(struct vmon_ctx *c, struct vmon_export *e)
{
	(void)c;
	H->export_value(e, "misc.uptime", "sec", uptime);
	H->export_value(e, "misc.logins", "num", (double)users);
	H->export_value(e, "misc.cpumhz", "MHz", mhz);
	H->export_value(e, "misc.nfsmounts", "num", (double)nfs);
}

static const struct vmon_module misc = {
	.api_version = VMON_API_VERSION,
	.name = "misc",
	.init = misc_init,
	.get_data = misc_get_data,
	.analyze = misc_analyze,
	.print_brief = misc_brief,
	.print_verbose = misc_verbose,
	.print_plot = misc_plot,
	.print_export = misc_export,
};

const struct vmon_module *veles_monitor_module(void)
{
	return &misc;
}
