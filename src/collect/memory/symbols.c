/* Symbolising return addresses with libdw, loaded on first use. */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/libdw-lazy.h"
#include "collect/memory/symbols.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"
#include "util/xalloc.h"

static const struct libdw *dw;

/* Whether libdw is there (loaded on first use). */
static bool dw_load(void)
{
	if (!dw)
		dw = libdw_get();
	return dw != NULL;
}

char *sym_demangle(const char *name)
{
	static bool tried;
	static char *(*demangle)(const char *, char *, size_t *, int *);
	int status = -1;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&demangle = dlsym(h, "__cxa_demangle");
	}
	if (!demangle)
		return NULL;
	out = demangle(name, NULL, NULL, &status);
	if (status == 0)
		return out; /* cppcheck-suppress returnDanglingLifetime */
	free(out);
	return NULL;
}

/* ---- the per-process symboliser: pc -> frame, cached ---- */

struct entry {
	uint64_t pc; /* 0: empty */
	struct sym_frame f;
};

struct symbolizer {
	Dwfl *dwfl;
	struct strpool *pool;
	struct entry *tab;
	size_t cap, n;
};

int sym_open(const char *maps, struct symbolizer **out)
{
	struct symbolizer *s;
	FILE *in;

	if (!dw_load())
		return err_set(ERR_GENERIC, "collect memory: cannot load libdw.so.1 (install "
					    "libdw1) to symbolise the stacks");
	s = xcalloc(1, sizeof(*s));
	s->pool = strpool_new();
	s->cap = 1024;
	s->tab = xcalloc(s->cap, sizeof(*s->tab));
	s->dwfl = dw->dwfl_begin(&dw->proc_callbacks);
	if (s->dwfl && maps) {
		in = fmemopen((void *)maps, strlen(maps), "r");
		dw->dwfl_report_begin(s->dwfl);
		if (in) {
			dw->dwfl_linux_proc_maps_report(s->dwfl, in);
			fclose(in);
		}
		dw->dwfl_report_end(s->dwfl, NULL, NULL);
	}
	*out = s;
	return 0;
}

static const char *intern(struct symbolizer *s, const char *text)
{
	return strpool_get(s->pool, strpool_intern_cstr(s->pool, text));
}

/* A DWARF function's name, through its abstract origin when inlined. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	static const unsigned int keys[] = {DW_AT_linkage_name, DW_AT_MIPS_linkage_name,
					    DW_AT_name};

	/* The string is libdw's, not in @a. */
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (dw->dwarf_attr_integrate(die, keys[i], &a))
			// cppcheck-suppress returnDanglingLifetime
			return dw->dwarf_formstring(&a);
	return NULL;
}

/* Where an inlined subroutine was called from: its call_file and call_line. */
static bool call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **src, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word file, no;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dw->dwarf_attr(die, DW_AT_call_line, &a) || dw->dwarf_formudata(&a, &no) != 0)
		return false;
	*line = (int)no;
	*src = NULL;
	if (dw->dwarf_attr(die, DW_AT_call_file, &a) && dw->dwarf_formudata(&a, &file) == 0 &&
	    dw->dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && file < nfiles)
		*src = dw->dwarf_filesrc(files, file, NULL, NULL);
	return true;
}

static void name_frame(struct symbolizer *s, const char *name, struct sym_frame *f)
{
	char *d = sym_demangle(name);

	f->function = intern(s, d ? d : name);
	free(d);
}

/*
 * The frames that inlining folded into @f's address, innermost first: @f
 * becomes the innermost inlined function at its own line, and the chain
 * @f->next leads out through each caller, at the line of its call, to the
 * function the code lies in (whose name the symbol table gave). Without
 * debug information, or with nothing inlined there, @f stays as it is.
 */
static void expand_inlined(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr at,
			   struct sym_frame *f)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dw->dwfl_module_addrdie(mod, at, &bias), *scopes = NULL, *nest = NULL;
	int n = cu ? dw->dwarf_getscopes(cu, at - bias, &scopes) : -1;
	struct sym_frame *last = f, outer = *f;

	/* getscopes goes on from an inlined instance through its abstract
	 * definition; the instances' own nesting is getscopes_die's. */
	if (n > 0) {
		n = dw->dwarf_getscopes_die(&scopes[0], &nest);
		free(scopes);
		scopes = nest;
	}
	const char *src = f->source, *name;
	int line = f->line, inlined = 0;

	for (int i = 0; i < n && dw->dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++) {
		const char *csrc;
		int cline;

		if (dw->dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		name = die_name(&scopes[i]);
		if (!name || !call_site(cu, &scopes[i], &csrc, &cline))
			break;
		if (inlined++) {
			last->next = xcalloc(1, sizeof(*last));
			last = (struct sym_frame *)last->next;
		}
		name_frame(s, name, last);
		last->source = intern(s, src);
		last->line = line;
		last->runtime = outer.runtime;
		src = csrc ? csrc : src;
		line = cline;
	}
	free(scopes);
	if (!inlined)
		return;
	last->next = xcalloc(1, sizeof(*last));
	last = (struct sym_frame *)last->next;
	*last = outer;
	last->source = intern(s, src);
	last->line = line;
	last->next = NULL;
}

static void resolve(struct symbolizer *s, uint64_t pc, struct sym_frame *f)
{
	/* A return address points after the call: look up the call itself. */
	Dwarf_Addr at = pc - 1;
	Dwfl_Module *mod = s->dwfl ? dw->dwfl_addrmodule(s->dwfl, at) : NULL;
	const char *modname = NULL, *name = NULL;
	Dwarf_Addr base = 0;
	Dwfl_Line *line;
	int lineno = 0;

	f->source = intern(s, "unreachable");
	f->line = 0;
	f->runtime = false;
	f->next = NULL;
	if (mod) {
		modname = dw->dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
		name = dw->dwfl_module_addrname(mod, at);
		line = dw->dwfl_module_getsrc(mod, at);
		const char *src =
			line ? dw->dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
		if (src) {
			f->source = intern(s, src);
			f->line = lineno;
		}
		f->runtime = modname && strstr(modname, "libveles-memory.so") != NULL;
	}
	if (name) {
		name_frame(s, name, f);
	} else {
		const char *slash = modname ? strrchr(modname, '/') : NULL;
		char text[512];

		snprintf(text, sizeof(text), "%s+0x%llx",
			 slash	   ? slash + 1
			 : modname ? modname
				   : "??",
			 (unsigned long long)(pc - base));
		f->function = intern(s, text);
	}
	if (mod && line && !f->runtime)
		expand_inlined(s, mod, at, f);
}

static void grow(struct symbolizer *s)
{
	struct entry *old = s->tab;
	size_t oldcap = s->cap;

	s->cap *= 2;
	s->tab = xcalloc(s->cap, sizeof(*s->tab));
	for (size_t i = 0; i < oldcap; i++) {
		size_t j = (old[i].pc * 0x9e3779b97f4a7c15u >> 20) & (s->cap - 1);

		if (!old[i].pc)
			continue;
		while (s->tab[j].pc)
			j = (j + 1) & (s->cap - 1);
		s->tab[j] = old[i];
	}
	free(old);
}

const struct sym_frame *sym_lookup(struct symbolizer *s, uint64_t pc)
{
	size_t j;

	if (s->n * 2 >= s->cap)
		grow(s);
	j = (pc * 0x9e3779b97f4a7c15u >> 20) & (s->cap - 1);
	while (s->tab[j].pc && s->tab[j].pc != pc)
		j = (j + 1) & (s->cap - 1);
	if (!s->tab[j].pc) {
		s->tab[j].pc = pc ? pc : 1;
		resolve(s, pc, &s->tab[j].f);
		s->n++;
	}
	return &s->tab[j].f;
}

void sym_close(struct symbolizer *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dw->dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->cap; i++) {
		const struct sym_frame *f = s->tab[i].pc ? s->tab[i].f.next : NULL;

		while (f) {
			const struct sym_frame *next = f->next;

			free((void *)f);
			f = next;
		}
	}
	strpool_free(s->pool);
	free(s->tab);
	free(s);
}
