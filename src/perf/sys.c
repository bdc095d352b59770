/* perf_event_open(2) itself, and what to tell the user when it refuses. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf/perf.h"
#include "util/error.h"

int perf_open_raw(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long fl)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, fl | PERF_FLAG_FD_CLOEXEC);
}

int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

void perf_attr_fit(struct perf_event_attr *attr)
{
	if (geteuid() != 0 && perf_paranoid() >= 2 && !attr->exclude_user) {
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
	}
}

int perf_probe(const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.disabled = 1;
	perf_attr_fit(&a);
	fd = perf_open_raw(&a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The lowest perf_event_paranoid that lets a non-root user open @attr so. */
static int paranoid_needed(const struct perf_event_attr *attr, int cpu)
{
	if (cpu >= 0)
		return attr->type == PERF_TYPE_TRACEPOINT ? -1 : 0;
	return attr->exclude_kernel ? 2 : 1;
}

static int open_error(const char *name, const struct perf_event_attr *attr, pid_t pid, int cpu,
		      int e)
{
	if ((e == EACCES || e == EPERM) && perf_paranoid() <= paranoid_needed(attr, cpu))
		return err_set(ERR_INVALID,
			       "no permission to open %s on process %d: it is not yours (run as "
			       "root or as its owner)",
			       name, (int)pid);
	if (e == EACCES || e == EPERM)
		return err_set(ERR_INVALID,
			       "no permission to open %s%s (perf_event_paranoid is %d): run as "
			       "root or set /proc/sys/kernel/perf_event_paranoid to %d or less",
			       name, cpu >= 0 ? " system-wide" : "", perf_paranoid(),
			       paranoid_needed(attr, cpu));
	if (e == ESRCH)
		return err_set(ERR_NOTFOUND, "no process %d", (int)pid);
	if (e == EMFILE || e == ENFILE)
		return err_set(ERR_IO, "cannot open %s: too many open files (raise ulimit -n)",
			       name);
	return err_set(ERR_INVALID, "cannot open %s: %s", name, strerror(e));
}

static bool rejected(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL || e == ENOSYS;
}

int perf_open(const char *name, struct perf_event_attr *attr, pid_t pid, int cpu, bool *unsupported)
{
	int fd;

	*unsupported = false;
	perf_attr_fit(attr);
	fd = perf_open_raw(attr, pid, cpu, -1, 0);
	if (fd >= 0)
		return fd;
	if (rejected(errno)) {
		*unsupported = true;
		return err_set(ERR_INVALID, "%s is not supported here", name);
	}
	return open_error(name, attr, pid, cpu, errno);
}
