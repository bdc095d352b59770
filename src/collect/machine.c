/* The environment a profile was measured in (machine.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "collect/machine.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/spawn.h"

/* What does not change while we run, read once per process. */
struct machine_static {
	bool done;
	char host[17]; /* "" when no machine id could be read */
	char cpu[128]; /* "" when unknown */
	bool vm;
	char hyper[16]; /* cpuid's hypervisor vendor, "" when none */
	long cores;
	struct utsname uts;
	bool have_uts;
};

static struct machine_static ms;

double machine_loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

/* The first line of a small file, without its newline; false if none. */
static bool read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(out, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = '\0';
	return ok && *out;
}

/*
 * FNV-1a over the machine id: stable for the machine's life, the same in
 * every profile made there, and not the id itself, which systemd says not
 * to expose (machine-id(5)).
 */
static void host_hash(char out[17])
{
	char id[128];
	uint64_t h = 0xcbf29ce484222325ULL;

	out[0] = '\0';
	if (!read_line("/etc/machine-id", id, sizeof(id)) &&
	    !read_line("/var/lib/dbus/machine-id", id, sizeof(id)))
		return;
	for (const char *s = "veles-host:"; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	for (const char *s = id; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* "key\t: value" of /proc/cpuinfo's first processor. */
static void cpuinfo(void)
{
	static const char *const model_keys[] = {"model name", "Model", "cpu model", "Hardware"};
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0 && line[0] != '\n') {
		char *colon = strchr(line, ':');
		size_t klen;

		if (!colon)
			continue;
		klen = strcspn(line, "\t:");
		line[strcspn(line, "\n")] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(model_keys) && !ms.cpu[0]; i++)
			if (klen == strlen(model_keys[i]) && !strncmp(line, model_keys[i], klen))
				snprintf(ms.cpu, sizeof(ms.cpu), "%s",
					 colon + 1 + (colon[1] == ' '));
		if (!strncmp(line, "flags", 5) && strstr(colon, " hypervisor"))
			ms.vm = true;
	}
	free(line);
	if (f)
		fclose(f);
}

/* cpuid leaf 0x40000000 names the hypervisor ("KVMKVMKVM", "Microsoft Hv"). */
static void hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	uint32_t v[3];

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;
	ms.vm = true;
	__cpuid(0x40000000, a, v[0], v[1], v[2]);
	memcpy(ms.hyper, v, sizeof(v));
	ms.hyper[12] = '\0';
	/* "KVMKVMKVM\0\0\0": trailing NULs and spaces are padding. */
	for (size_t n = strlen(ms.hyper); n && ms.hyper[n - 1] == ' '; n--)
		ms.hyper[n - 1] = '\0';
#endif
}

/* DMI names what a VM without the cpuid bit (or a non-x86 one) runs on. */
static void dmi_vm(void)
{
	static const char *const names[] = {"QEMU",	  "KVM",	"VMware",
					    "VirtualBox", "Xen",	"Virtual Machine",
					    "Bochs",	  "Amazon EC2", "Google Compute Engine"};
	char v[128];

	for (size_t f = 0; f < 2 && !ms.vm; f++) {
		if (!read_line(f ? "/sys/class/dmi/id/product_name"
				 : "/sys/class/dmi/id/sys_vendor",
			       v, sizeof(v)))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			ms.vm = ms.vm || strstr(v, names[i]);
	}
}

static void machine_static_read(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (ms.done)
		return;
	ms.done = true;
	host_hash(ms.host);
	cpuinfo();
	hypervisor();
	dmi_vm();
	ms.cores = n > 0 ? n : 1;
	ms.have_uts = uname(&ms.uts) == 0;
}

/* The .comment section's NUL-separated strings, each once. */
static void comment_strings(Elf_Data *d, struct buf *out)
{
	const char *s = d->d_buf, *end = s + d->d_size;

	while (s < end) {
		size_t n = strnlen(s, (size_t)(end - s));

		if (n && !memmem(out->data ? out->data : "", out->len, s, n)) {
			if (out->len)
				buf_adds(out, "; ");
			buf_add(out, s, n);
		}
		s += n + 1;
	}
}

char *machine_elf_compiler(const char *path)
{
	struct buf b = BUF_INIT;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
				continue;
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".comment") && (d = elf_getdata(scn, NULL)) &&
			    d->d_buf)
				comment_strings(d, &b);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return b.len ? buf_detach(&b, NULL) : (buf_release(&b), NULL);
}

static void json_key_str(struct buf *out, const char *key, const char *v)
{
	buf_addf(out, "%s\"%s\":", out->data[out->len - 1] == '{' ? "" : ",", key);
	if (v && *v)
		buf_add_json_str(out, v, strlen(v));
	else
		buf_adds(out, "null");
}

static void governor(char *out, size_t len)
{
	if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", out, len))
		snprintf(out, len, "none");
}

void machine_env_json(struct buf *out, const char *cwd, const char *cmd, double load_before,
		      double load_after)
{
	char gov[64], *path = NULL, *compiler = NULL;

	machine_static_read();
	governor(gov, sizeof(gov));
	if (cmd && spawn_which(cwd, cmd, &path) == 0)
		compiler = machine_elf_compiler(path);
	else if (cmd)
		err_clear(); /* not found: the collector says so itself */
	buf_addc(out, '{');
	json_key_str(out, "host", ms.host);
	json_key_str(out, "cpu", ms.cpu);
	buf_addf(out, ",\"cores\":%ld", ms.cores);
	json_key_str(out, "kernel", ms.have_uts ? ms.uts.release : NULL);
	json_key_str(out, "arch", ms.have_uts ? ms.uts.machine : NULL);
	json_key_str(out, "governor", gov);
	buf_addf(out, ",\"vm\":%s", ms.vm ? "true" : "false");
	if (ms.hyper[0])
		json_key_str(out, "hypervisor", ms.hyper);
	if (load_before >= 0)
		buf_addf(out, ",\"load_before\":%.2f", load_before);
	if (load_after >= 0)
		buf_addf(out, ",\"load_after\":%.2f", load_after);
	json_key_str(out, "compiler", compiler);
	buf_addc(out, '}');
	free(compiler);
	free(path);
}
