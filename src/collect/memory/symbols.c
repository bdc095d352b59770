/* Symbolising return addresses with libdw, loaded on first use. */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/memory/symbols.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"
#include "util/xalloc.h"

/* The libdw functions we call, resolved from libdw.so.1. */
static struct {
	bool tried, ok;
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*end)(Dwfl *);
	void (*report_begin)(Dwfl *);
	int (*report_end)(Dwfl *, void *, void *);
	int (*maps_report)(Dwfl *, FILE *);
	Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
	const char *(*addrname)(Dwfl_Module *, GElf_Addr);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
	const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *,
				Dwarf_Word *);
	const char *(*module_info)(Dwfl_Module *, void ***, Dwarf_Addr *, Dwarf_Addr *,
				   Dwarf_Addr *, Dwarf_Addr *, const char **, const char **);
	/* For inlined frames: the scopes at an address and their attributes. */
	Dwarf_Die *(*addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
	int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*getscopes_die)(Dwarf_Die *, Dwarf_Die **);
	int (*tag)(Dwarf_Die *);
	Dwarf_Attribute *(*attr)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	const char *(*formstring)(Dwarf_Attribute *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
	int (*getsrcfiles)(Dwarf_Die *, Dwarf_Files **, size_t *);
	const char *(*filesrc)(Dwarf_Files *, size_t, Dwarf_Word *, Dwarf_Word *);
	Dwfl_Callbacks callbacks;
} dw;

#define DW_SYM(field, name)                                                                        \
	do {                                                                                       \
		*(void **)&dw.field = dlsym(h, name);                                              \
		ok = ok && dw.field;                                                               \
	} while (0)

static bool dw_load(void)
{
	void *h;
	bool ok = true;

	if (dw.tried)
		return dw.ok;
	dw.tried = true;
	h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	DW_SYM(begin, "dwfl_begin");
	DW_SYM(end, "dwfl_end");
	DW_SYM(report_begin, "dwfl_report_begin");
	DW_SYM(report_end, "dwfl_report_end");
	DW_SYM(maps_report, "dwfl_linux_proc_maps_report");
	DW_SYM(addrmodule, "dwfl_addrmodule");
	DW_SYM(addrname, "dwfl_module_addrname");
	DW_SYM(getsrc, "dwfl_module_getsrc");
	DW_SYM(lineinfo, "dwfl_lineinfo");
	DW_SYM(module_info, "dwfl_module_info");
	DW_SYM(addrdie, "dwfl_module_addrdie");
	DW_SYM(getscopes, "dwarf_getscopes");
	DW_SYM(getscopes_die, "dwarf_getscopes_die");
	DW_SYM(tag, "dwarf_tag");
	DW_SYM(attr, "dwarf_attr");
	DW_SYM(attr_integrate, "dwarf_attr_integrate");
	DW_SYM(formstring, "dwarf_formstring");
	DW_SYM(formudata, "dwarf_formudata");
	DW_SYM(getsrcfiles, "dwarf_getsrcfiles");
	DW_SYM(filesrc, "dwarf_filesrc");
	DW_SYM(callbacks.find_elf, "dwfl_linux_proc_find_elf");
	DW_SYM(callbacks.find_debuginfo, "dwfl_standard_find_debuginfo");
	dw.ok = ok;
	return ok;
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
	s->dwfl = dw.begin(&dw.callbacks);
	if (s->dwfl && maps) {
		in = fmemopen((void *)maps, strlen(maps), "r");
		dw.report_begin(s->dwfl);
		if (in) {
			dw.maps_report(s->dwfl, in);
			fclose(in);
		}
		dw.report_end(s->dwfl, NULL, NULL);
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

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (dw.attr_integrate(die, keys[i], &a)) /* the string is libdw's */
			return dw.formstring(&a); /* cppcheck-suppress returnDanglingLifetime */
	return NULL;
}

/* Where an inlined subroutine was called from: its call_file and call_line. */
static bool call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **src, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word file, no;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dw.attr(die, DW_AT_call_line, &a) || dw.formudata(&a, &no) != 0)
		return false;
	*line = (int)no;
	*src = NULL;
	if (dw.attr(die, DW_AT_call_file, &a) && dw.formudata(&a, &file) == 0 &&
	    dw.getsrcfiles(cu, &files, &nfiles) == 0 && file < nfiles)
		*src = dw.filesrc(files, file, NULL, NULL);
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
	Dwarf_Die *cu = dw.addrdie(mod, at, &bias), *scopes = NULL, *nest = NULL;
	int n = cu ? dw.getscopes(cu, at - bias, &scopes) : -1;
	struct sym_frame *last = f, outer = *f;

	/* getscopes goes on from an inlined instance through its abstract
	 * definition; the instances' own nesting is getscopes_die's. */
	if (n > 0) {
		n = dw.getscopes_die(&scopes[0], &nest);
		free(scopes);
		scopes = nest;
	}
	const char *src = f->source, *name;
	int line = f->line, inlined = 0;

	for (int i = 0; i < n && dw.tag(&scopes[i]) != DW_TAG_subprogram; i++) {
		const char *csrc;
		int cline;

		if (dw.tag(&scopes[i]) != DW_TAG_inlined_subroutine)
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
	Dwfl_Module *mod = s->dwfl ? dw.addrmodule(s->dwfl, at) : NULL;
	const char *modname = NULL, *name = NULL;
	Dwarf_Addr base = 0;
	Dwfl_Line *line;
	int lineno = 0;

	f->source = intern(s, "unreachable");
	f->line = 0;
	f->runtime = false;
	f->next = NULL;
	if (mod) {
		modname = dw.module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
		name = dw.addrname(mod, at);
		line = dw.getsrc(mod, at);
		const char *src = line ? dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
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
		dw.end(s->dwfl);
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
