/* Function symbols from ELF files (libelf), their separate debug files and
 * /proc/kallsyms. */
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/debugfile.h"
#include "perf/elfsym.h"
#include "perf/symbols.h"
#include "util/xalloc.h"

/* A PT_LOAD segment: file offsets [off, off+size) are at vaddr onwards. */
struct perf_load {
	uint64_t off, size, vaddr;
};

static int by_start(const void *a, const void *b)
{
	const struct perf_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_sym(struct perf_dso *d, size_t *cap, uint64_t start, uint64_t size,
		    const char *name)
{
	d->syms = xgrow(d->syms, sizeof(*d->syms), d->nsyms + 1, cap);
	d->syms[d->nsyms++] = (struct perf_sym){start, start + size, xstrdup(name)};
}

/* Sorts, and gives symbols without a size the room up to the next one. */
static void finish_syms(struct perf_dso *d)
{
	if (!d->nsyms)
		return; /* qsort may not be given the NULL of an empty list */
	qsort(d->syms, d->nsyms, sizeof(*d->syms), by_start);
	for (size_t i = 0; i < d->nsyms; i++)
		if (d->syms[i].end == d->syms[i].start)
			d->syms[i].end =
				i + 1 < d->nsyms ? d->syms[i + 1].start : d->syms[i].start + 4096;
}

struct adding {
	struct perf_dso *d;
	size_t cap;
};

static void add_func(const GElf_Sym *sym, const char *name, void *arg)
{
	struct adding *a = arg;

	if (elfsym_is_func(sym, true))
		add_sym(a->d, &a->cap, sym->st_value, sym->st_size, name);
}

/* @e's .symtab (or when @dynsym and it has none, .dynsym); true when it
 * had the table. */
static bool read_symtab_of(struct perf_dso *d, Elf *e, bool dynsym)
{
	struct adding a = {d, d->nsyms};

	return elfsym_each(e, dynsym, add_func, &a) != ELFSYM_NONE;
}

/* The .symtab of @path's separate debug file, when there is one. */
static bool read_debug_file(struct perf_dso *d, Elf *e, const char *path)
{
	char *dbg = perf_debug_file(e, path);
	bool ok = false;
	Elf *de = NULL;
	int fd = dbg ? open(dbg, O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0)
		de = elf_begin(fd, ELF_C_READ, NULL);
	if (de && elf_kind(de) == ELF_K_ELF)
		ok = read_symtab_of(d, de, false);
	if (de)
		elf_end(de);
	if (fd >= 0)
		close(fd);
	free(dbg);
	return ok;
}

static void read_elf(struct perf_dso *d, Elf *e, const char *path)
{
	size_t nph = 0;

	if (elf_getphdrnum(e, &nph) == 0) {
		d->loads = xcalloc(nph ? nph : 1, sizeof(*d->loads));
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
				d->loads[d->nloads++] =
					(struct perf_load){ph.p_offset, ph.p_filesz, ph.p_vaddr};
		}
	}
	/* A stripped object keeps only its exported functions in .dynsym; its
	 * static ones (__libc_start_call_main) are in the debug file, which
	 * shares its addresses. The load segments stay the object's own: the
	 * debug file's sections hold no code, so its offsets mean nothing. */
	if (!read_symtab_of(d, e, false) && !read_debug_file(d, e, path))
		read_symtab_of(d, e, true);
	finish_syms(d);
}

static struct perf_dso *dso_new(const char *path)
{
	struct perf_dso *d = xcalloc(1, sizeof(*d));
	const char *slash = strrchr(path, '/');

	d->path = xstrdup(path);
	d->short_name = xstrdup(slash && slash[1] ? slash + 1 : path);
	return d;
}

struct perf_dso *perf_dso_load(const char *path)
{
	struct perf_dso *d = dso_new(path);
	struct stat st;
	int fd;
	Elf *e;

	if (path[0] != '/' || elf_version(EV_CURRENT) == EV_NONE)
		return d;
	/* The path comes from the recording: a crafted one may name a fifo
	 * or a device, which must not block or stream forever. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return d;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return d;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		read_elf(d, e, path);
	if (e)
		elf_end(e);
	close(fd);
	return d;
}

const char *perf_kallsyms_path = "/proc/kallsyms";

struct perf_dso *perf_kernel_load(void)
{
	struct perf_dso *d = dso_new("[kernel.kallsyms]");
	FILE *f = fopen(perf_kallsyms_path, "re");
	size_t cap = 0;
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && addr &&
		    (type == 't' || type == 'T'))
			add_sym(d, &cap, addr, 0, name);
	}
	if (f)
		fclose(f);
	finish_syms(d);
	return d;
}

void perf_dso_free(struct perf_dso *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nsyms; i++)
		free(d->syms[i].name);
	free(d->syms);
	free(d->loads);
	free(d->path);
	free(d->short_name);
	free(d);
}

const struct perf_sym *perf_dso_find_addr(const struct perf_dso *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= d->syms[lo - 1].end)
		return NULL;
	return &d->syms[lo - 1];
}

const struct perf_sym *perf_dso_find(const struct perf_dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nloads; i++)
		if (off >= d->loads[i].off && off < d->loads[i].off + d->loads[i].size)
			return perf_dso_find_addr(d, off - d->loads[i].off + d->loads[i].vaddr);
	return NULL;
}

bool perf_dso_offset(const struct perf_dso *d, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < d->nloads; i++)
		if (addr >= d->loads[i].vaddr && addr < d->loads[i].vaddr + d->loads[i].size) {
			*off = addr - d->loads[i].vaddr + d->loads[i].off;
			return true;
		}
	return false;
}
