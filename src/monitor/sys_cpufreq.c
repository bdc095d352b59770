/* /sys: each cpu's current clock, for the per-cpu view (-s C). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "util/common.h"

struct mon_freq_reader {
	size_t n;
	int *fd;
	char (*names)[MON_NAME];
};

/* "cpu12" and not "cpufreq" or "cpuidle". */
static bool is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) || !name[3])
		return false;
	for (const char *p = name + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static int by_number(const void *a, const void *b)
{
	long x = atol((const char *)a + 3), y = atol((const char *)b + 3);

	return (x > y) - (x < y);
}

/* Opens every cpu's scaling_cur_freq once; cpus without cpufreq (virtual
 * machines, some drivers) are left out, so the table may stay empty. */
static void open_all(struct mon_freq_reader *f, const char *sys)
{
	char path[512];
	DIR *d;
	struct dirent *e;
	size_t cap = 0, k = 0;

	snprintf(path, sizeof(path), "%s/devices/system/cpu", sys);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (is_cpu_dir(e->d_name) && strlen(e->d_name) < MON_NAME) {
			f->names = xgrow(f->names, sizeof(*f->names), f->n + 1, &cap);
			memcpy(f->names[f->n++], e->d_name, strlen(e->d_name) + 1);
		}
	closedir(d);
	qsort(f->names, f->n, sizeof(*f->names), by_number);
	f->fd = xcalloc(f->n ? f->n : 1, sizeof(*f->fd));
	for (size_t i = 0; i < f->n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/%s/cpufreq/scaling_cur_freq",
			 sys, f->names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		memcpy(f->names[k], f->names[i], MON_NAME);
		f->fd[k++] = fd;
	}
	f->n = k;
}

int mon_freq_read(struct mon_freq_reader **fp, const char *proc_root, struct mon_table *t)
{
	struct mon_freq_reader *f = *fp;

	if (!f) {
		/* /sys beside /proc; with --proc DIR (saved files), DIR/sys. */
		char *sys = strcmp(proc_root, "/proc") ? xasprintf("%s/sys", proc_root)
						       : xstrdup("/sys");

		f = *fp = xcalloc(1, sizeof(*f));
		open_all(f, sys);
		free(sys);
	}
	for (size_t i = 0; i < f->n; i++) {
		char buf[32];
		ssize_t n = pread(f->fd[i], buf, sizeof(buf) - 1, 0);
		const char *p = buf;

		if (n < 0 && errno == EINTR)
			n = pread(f->fd[i], buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		mon_table_add(t, f->names[i], strlen(f->names[i]), 1)[0] = mon_num(&p);
	}
	return 0;
}

void mon_freq_close(struct mon_freq_reader **fp)
{
	struct mon_freq_reader *f = *fp;

	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		close(f->fd[i]);
	free(f->fd);
	free(f->names);
	free(f);
	*fp = NULL;
}
