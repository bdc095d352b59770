/* Symbol lookup with libelf (see trace-sym.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/memory/symbols.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "perf/elfsym.h"
#include "util/common.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* Whether @name, or @name@VERSION as .symtab gives imports, is @want. */
static bool is_import(const char *name, const char *want)
{
	size_t n = strlen(want);

	return strncmp(name, want, n) == 0 && (name[n] == '\0' || name[n] == '@');
}

/* Which trace entry hook an undefined symbol @name is, if any. */
static int hook_of(const char *name)
{
	if (is_import(name, "__cyg_profile_func_enter"))
		return TRACE_HOOK_CYG;
	if (is_import(name, "mcount") || is_import(name, "_mcount") ||
	    is_import(name, "__fentry__"))
		return TRACE_HOOK_MCOUNT;
	return 0;
}

/* A function of the file, or a trace hook it imports. */
static void add_func(const GElf_Sym *s, const char *name, void *arg)
{
	struct sym_file *f = arg;

	if (s->st_shndx == SHN_UNDEF)
		f->hooks |= hook_of(name);
	if (!elfsym_is_func(s, false))
		return;
	f->syms = xrealloc(f->syms, (f->nsyms + 1) * sizeof(*f->syms));
	f->syms[f->nsyms++] =
		(struct sym){s->st_value, s->st_size, xstrdup(name), sym_demangle(name)};
}

/* .symtab when the file has one (it names static functions), else .dynsym. */
static void read_file_syms(Elf *elf, struct sym_file *f)
{
	f->stripped = elfsym_each(elf, true, add_func, f) != ELFSYM_SYMTAB;
}

static void load_file(struct sym_file *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0) {
		f->err = ERR_NOTFOUND;
		return;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		read_file_syms(elf, f);
	else
		f->err = ERR_PARSE;
	if (elf)
		elf_end(elf);
	close(fd);
	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	else if (!f->err)
		f->err = ERR_NOTFOUND;
}

const struct sym_file *trace_sym_file(struct sym_cache *c, const char *path)
{
	struct sym_file *f;

	for (size_t i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i].path, path) == 0)
			return &c->files[i];
	c->files = xrealloc(c->files, (c->nfiles + 1) * sizeof(*c->files));
	f = &c->files[c->nfiles++];
	*f = (struct sym_file){.path = xstrdup(path)};
	load_file(f);
	return f;
}

/* The function starting at @v, or the one whose extent covers it. */
static const char *find_sym(const struct sym_file *f, uint64_t v)
{
	size_t lo = 0, hi = f->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].value <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct sym *s = &f->syms[lo - 1];
	return s->value == v || v - s->value < s->size ? SYM_DISPLAY(s) : NULL;
}

bool trace_name_matches(const char *want, const char *name, const char *demangled)
{
	size_t n = strlen(want);

	if (strcmp(want, name) == 0)
		return true;
	return demangled && strncmp(demangled, want, n) == 0 &&
	       (!demangled[n] || (demangled[n] == '(' && !strchr(want, '(')));
}

const char *trace_sym_lookup(struct sym_cache *c, const struct trace_proc *proc, uint64_t addr)
{
	for (size_t i = 0; proc && i < proc->nobjs; i++) {
		const struct trace_object *o = &proc->objs[i];

		if (addr >= o->lo && addr < o->hi)
			return find_sym(trace_sym_file(c, o->path), addr - o->bias);
	}
	return NULL;
}

void trace_sym_free(struct sym_cache *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		for (size_t k = 0; k < c->files[i].nsyms; k++) {
			free(c->files[i].syms[k].name);
			free(c->files[i].syms[k].demangled);
		}
		free(c->files[i].syms);
		free(c->files[i].path);
	}
	free(c->files);
	memset(c, 0, sizeof(*c));
}
