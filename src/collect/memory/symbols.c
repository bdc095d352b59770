/* Symbolising return addresses with libdw, loaded on first use. */
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/memory/symbols.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/strpool.h"

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
		char *d = sym_demangle(name);

		f->function = intern(s, d ? d : name);
		free(d);
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
	strpool_free(s->pool);
	free(s->tab);
	free(s);
}
