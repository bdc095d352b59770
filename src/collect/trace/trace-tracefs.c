/* Uprobe events through tracefs (see trace-tracefs.h). */
#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/trace/trace-tracefs.h"
#include "util/common.h"
#include "util/tracefs.h"

static const char *tracefs(void)
{
	return tracefs_dir_writable("uprobe_events");
}

/* The kernel's name of a perf register in a fetch argument. */
static const char *reg_name(int reg)
{
	switch (reg) {
	case PERF_REG_X86_AX:
		return "ax";
	case PERF_REG_X86_BX:
		return "bx";
	case PERF_REG_X86_CX:
		return "cx";
	case PERF_REG_X86_DX:
		return "dx";
	case PERF_REG_X86_SI:
		return "si";
	case PERF_REG_X86_DI:
		return "di";
	case PERF_REG_X86_BP:
		return "bp";
	case PERF_REG_X86_SP:
		return "sp";
	case PERF_REG_X86_R8:
		return "r8";
	case PERF_REG_X86_R9:
		return "r9";
	case PERF_REG_X86_R10:
		return "r10";
	case PERF_REG_X86_R11:
		return "r11";
	case PERF_REG_X86_R12:
		return "r12";
	case PERF_REG_X86_R13:
		return "r13";
	case PERF_REG_X86_R14:
		return "r14";
	case PERF_REG_X86_R15:
		return "r15";
	default:
		return NULL;
	}
}

static int write_events(const char *dir, const char *line)
{
	char *p = xasprintf("%s/uprobe_events", dir);
	int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC), ret = 0;
	size_t n = strlen(line);

	free(p);
	if (fd < 0 || write(fd, line, n) != (ssize_t)n)
		ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The number on the line of @file that starts with @key, or -1. */
static int read_field(const char *file, const char *key, const char *after)
{
	FILE *f = fopen(file, "r");
	char line[512];
	int v = -1;

	while (f && v < 0 && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, key);

		if (at && (!after || (at = strstr(at, after))))
			v = atoi(at + strlen(after ? after : key));
	}
	if (f)
		fclose(f);
	return v;
}

int tracefs_uprobe_add(const struct probe_spec *sp, struct tracefs_event *ev)
{
	static unsigned serial;
	const char *dir = tracefs(), *reg = reg_name(sp->size.reg);
	char path[PATH_MAX], *def, *file;
	int ret = 0;

	memset(ev, 0, sizeof(*ev));
	if (!dir)
		return err_set(ERR_NOTFOUND,
			       "collect trace: --size through a pointer needs tracefs to read "
			       "the member: %s",
			       tracefs_why());
	if (!reg || !realpath(sp->path, path))
		return err_set(ERR_INVALID, "collect trace: cannot probe %s for its size member",
			       sp->path);
	ev->group_event = xasprintf("veles_%d/size%u", (int)getpid(), serial++);
	def = xasprintf("p:%s %s:%#lx size=%+ld(%%%s):%c%d\n", ev->group_event, path,
			(unsigned long)sp->off, (long)sp->size.value, reg,
			sp->size.is_signed ? 's' : 'u', sp->size.bytes * 8);
	if (write_events(dir, def) < 0) {
		ret = err_set(ERR_IO, "collect trace: cannot define a uprobe event in %s: %s", dir,
			      strerror(errno));
		free(ev->group_event);
		ev->group_event = NULL;
	}
	free(def);
	if (ret < 0)
		return ret;
	file = xasprintf("%s/events/%s/id", dir, ev->group_event);
	ev->id = read_field(file, "", NULL);
	free(file);
	file = xasprintf("%s/events/%s/format", dir, ev->group_event);
	ev->field_off = read_field(file, " size;", "offset:");
	free(file);
	if (ev->id < 0 || ev->field_off < 0)
		return err_set(ERR_IO, "collect trace: cannot read the uprobe event %s's format",
			       ev->group_event);
	return 0;
}

void tracefs_uprobe_remove(struct tracefs_event *ev)
{
	const char *dir = tracefs();

	if (ev->group_event && dir) {
		char *line = xasprintf("-:%s\n", ev->group_event);

		write_events(dir, line);
		free(line);
	}
	free(ev->group_event);
	ev->group_event = NULL;
}
