/* The dynamic mode's probes (see trace-attach.h). */
#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/trace/trace-attach.h"
#include "collect/trace/trace-dwarf.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/spawn.h"

/* The registers of the first six integer arguments (x86-64 System V). */
static const int arg_regs[] = {PERF_REG_X86_DI, PERF_REG_X86_SI, PERF_REG_X86_DX,
			       PERF_REG_X86_CX, PERF_REG_X86_R8, PERF_REG_X86_R9};

struct planner {
	const struct trace_opts *o;
	const char *binary;
	const char *cwd; /* where a -l PATH is relative to (NULL: here) */
	struct sym_cache *syms;
	struct trace_data *d;
	struct probe_plan *plan;
};

/*
 * A place already probed the same way (a function or probe named twice,
 * by two rules or by a rule and the strategy) is probed once: two probes
 * would count each hit twice. It keeps the first name, and a size if
 * either asks for one.
 */
static void add_spec(struct planner *pl, const struct probe_spec *s)
{
	struct probe_plan *p = pl->plan;

	for (size_t i = 0; i < p->n; i++) {
		struct probe_spec *o = &p->specs[i];

		if (o->off == s->off && o->kind == s->kind && strcmp(o->path, s->path) == 0) {
			if (o->size.kind == USDT_ARG_NONE)
				o->size = s->size;
			return;
		}
	}

	p->specs = xrealloc(p->specs, (p->n + 1) * sizeof(*p->specs));
	p->specs[p->n] = *s;
	p->specs[p->n++].path = xstrdup(s->path);
}

/* The file offset of symbol value @v: its PT_LOAD segment maps it there. */
static int file_offset(const char *path, uint64_t v, uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = ERR_NOTFOUND;
	size_t n = 0;
	Elf *elf;

	if (fd < 0)
		return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz) {
				*off = v - ph.p_vaddr + ph.p_offset;
				ret = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret < 0 ? err_set(ret, "collect trace: no loadable code at %#lx in %s",
				 (unsigned long)v, path)
		       : 0;
}

/* ---- libraries ---- */

static char *existing_file(char *path)
{
	if (access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/* @name in @dir, as NAME, libNAME.so or NAME.so. */
static char *lib_in(const char *dir, size_t len, const char *name)
{
	static const char *const forms[][2] = {{"", ""}, {"lib", ".so"}, {"", ".so"}};
	char *p;

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++)
		if ((p = existing_file(xasprintf("%.*s/%s%s%s", (int)len, dir, forms[i][0], name,
						 forms[i][1]))))
			return p;
	return NULL;
}

/* @path with $ORIGIN and ${ORIGIN} made the directory @origin. */
static void add_expanded(struct buf *b, const char *path, const char *origin)
{
	while (*path) {
		if (strncmp(path, "$ORIGIN", 7) == 0 || strncmp(path, "${ORIGIN}", 9) == 0) {
			buf_adds(b, origin);
			path += path[1] == '{' ? 9 : 7;
		} else
			buf_addc(b, *path++);
	}
}

/*
 * Calls @fn with each string of the dynamic section entries tagged @tag
 * (DT_NEEDED, DT_RPATH, DT_RUNPATH) of @binary, in order; -1 when it cannot
 * be opened.
 */
static int dyn_strings(const char *binary, int64_t tag, void (*fn)(const char *v, void *arg),
		       void *arg)
{
	int fd = open(binary, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	Elf *elf;
	GElf_Shdr sh;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC) {
			Elf_Data *data = elf_getdata(scn, NULL);
			GElf_Dyn dyn;

			for (int i = 0; data && gelf_getdyn(data, i, &dyn); i++) {
				const char *v = dyn.d_tag == tag ? elf_strptr(elf, sh.sh_link,
									      dyn.d_un.d_val)
								 : NULL;
				if (v)
					fn(v, arg);
			}
		}
	if (elf)
		elf_end(elf);
	close(fd);
	return 0;
}

struct search_path {
	struct buf *b;
	const char *origin;
};

static void add_search_dir(const char *v, void *arg)
{
	struct search_path *sp = arg;

	add_expanded(sp->b, v, sp->origin);
	buf_addc(sp->b, ':');
}

/* The binary's DT_RPATH (@tag) or DT_RUNPATH, $ORIGIN expanded, into @b. */
static void dyn_search_path(const char *binary, const char *origin, int64_t tag, struct buf *b)
{
	struct search_path sp = {b, origin};

	dyn_strings(binary, tag, add_search_dir, &sp);
}

/* A library as -l or -f LIB#FUNC names it: a path, or a name looked for
 * beside the binary, on its RPATH, LD_LIBRARY_PATH, its RUNPATH and in the
 * system's directories, the dynamic loader's order. */
static char *find_library(const char *name, const char *binary, const char *cwd)
{
	const char *slash = strrchr(binary, '/'), *env = getenv("LD_LIBRARY_PATH");
	char *origin, *dirs, *p = NULL;
	struct buf b = BUF_INIT;

	if (strchr(name, '/'))
		return existing_file(spawn_path_at(cwd, name));
	origin = xasprintf("%.*s", slash ? (int)(slash - binary) : 1, slash ? binary : ".");
	buf_addf(&b, "%s:", origin);
	dyn_search_path(binary, origin, DT_RPATH, &b);
	buf_addf(&b, "%s:", env ? env : "");
	dyn_search_path(binary, origin, DT_RUNPATH, &b);
	dirs = xasprintf("%s/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
			 "/usr/local/lib:/lib64:/usr/lib64:/lib:/usr/lib",
			 buf_str(&b));
	buf_release(&b);
	free(origin);
	for (char *d = dirs, *end; !p && d; d = end ? end + 1 : NULL) {
		end = strchr(d, ':');
		if (end != d && *d)
			p = lib_in(d, end ? (size_t)(end - d) : strlen(d), name);
	}
	free(dirs);
	return p;
}

static int lib_path(const struct planner *pl, const char *lib, char **path)
{
	*path = lib ? find_library(lib, pl->binary, pl->cwd) : xstrdup(pl->binary);
	if (!*path)
		return err_set(ERR_INVALID, "collect trace: library '%s' not found", lib);
	return 0;
}

/* ---- functions ---- */

/*
 * The program's own functions, not the C runtime's start-up: names that
 * start with '_' are reserved to it, but for C++ functions (_Z), less
 * their thunks and special ones (_ZT..., _ZGV...).
 */
static bool user_function(const struct sym *s, const struct sym *prev)
{
	static const char *const crt[] = {"frame_dummy", "register_tm_clones",
					  "deregister_tm_clones"};
	const char *n = s->name;

	if (s->size == 0 || (prev && prev->value == s->value))
		return false;
	if (n[0] == '_' && (n[1] != 'Z' || n[2] == 'T' || strncmp(n, "_ZGV", 4) == 0))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(crt); i++)
		if (strcmp(s->name, crt[i]) == 0)
			return false;
	return true;
}

static const struct trace_size *size_of(const struct trace_opts *o, const char *name)
{
	for (size_t i = 0; i < o->nsizes; i++)
		if (strcmp(o->sizes[i].func, name) == 0)
			return &o->sizes[i];
	return NULL;
}

/* --size for function @name: an argument register, or a member it points to. */
static int function_size(const struct planner *pl, const char *path, const char *name,
			 struct usdt_arg *a)
{
	const struct trace_size *z = size_of(pl->o, name);

	*a = (struct usdt_arg){.kind = USDT_ARG_NONE};
	if (!z)
		return 0;
	if (z->arg)
		return trace_dwarf_member(path, name, z->arg, z->member, a);
	if (z->argn > 6)
		return err_set(ERR_INVALID,
			       "collect trace: --size %s:%d: a function's ARGN is 1 to 6", name,
			       z->argn);
	*a = (struct usdt_arg){
		.kind = USDT_ARG_REG, .bytes = 8, .is_signed = true, .reg = arg_regs[z->argn - 1]};
	return 0;
}

static int plan_function(struct planner *pl, const char *path, const struct sym *s, long sample)
{
	struct probe_spec sp = {.path = (char *)path, .kind = PROBE_ENTRY};
	int ret = file_offset(path, s->value, &sp.off);

	if (ret == 0)
		ret = function_size(pl, path, s->name, &sp.size);
	if (ret < 0)
		return ret;
	sp.name = trace_data_name(pl->d, SYM_DISPLAY(s));
	if (sample)
		pl->d->name_sample[sp.name & ~TRACE_NAMED] = sample;
	add_spec(pl, &sp);
	sp.kind = PROBE_RETURN;
	sp.size = (struct usdt_arg){.kind = USDT_ARG_NONE};
	add_spec(pl, &sp);
	return 0;
}

static const struct sym *find_func(const struct sym_file *f, const char *name)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (trace_name_matches(name, f->syms[i].name, f->syms[i].demangled))
			return &f->syms[i];
	return NULL;
}

static const struct sym_file *symbols(const struct planner *pl, const char *path)
{
	const struct sym_file *f = trace_sym_file(pl->syms, path);

	if (!f->nsyms)
		err_set(ERR_INVALID, "collect trace: %s has no symbol table (stripped?)", path);
	return f->nsyms ? f : NULL;
}

/* Every function of @path that no -f rule names (those come after). */
static int plan_all_functions(struct planner *pl, const char *path)
{
	const struct sym_file *f = symbols(pl, path);
	int ret = 0;

	if (!f)
		return ERR_INVALID;
	for (size_t i = 0; i < f->nsyms && ret == 0; i++) {
		bool ruled = false;

		for (size_t k = 0; k < pl->o->nrules; k++)
			ruled |= trace_name_matches(pl->o->rules[k].func, f->syms[i].name,
						    f->syms[i].demangled);
		if (!ruled && user_function(&f->syms[i], i ? &f->syms[i - 1] : NULL))
			ret = plan_function(pl, path, &f->syms[i], 0);
	}
	return ret;
}

/* ---- USDT probes ---- */

static const char *const start_suffixes[] = {"_begin", "_start", "_BEGIN", "_START"};
static const char *const end_suffixes[] = {"_end", "_END"};

static bool has_probe(const struct usdt_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->probes[i].name, name) == 0)
			return true;
	return false;
}

/* @name without a start suffix (X_begin, X_start: X). */
static char *base_name(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(start_suffixes); i++) {
		size_t k = strlen(start_suffixes[i]);

		if (n > k && strcmp(name + n - k, start_suffixes[i]) == 0)
			return xstrndup(name, n - k);
	}
	return xstrdup(name);
}

/* The end probe of @start by the naming conventions, or NULL. */
static char *pair_end(const struct usdt_list *l, const char *start)
{
	char *base = base_name(start);
	const char *stems[] = {start, base};

	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; i < ARRAY_SIZE(end_suffixes); i++) {
			char *end = xasprintf("%s%s", stems[s], end_suffixes[i]);

			if (strcmp(end, start) != 0 && has_probe(l, end)) {
				free(base);
				return end;
			}
			free(end);
		}
	free(base);
	return NULL;
}

/* @name is the end of another probe of @l: it is planned with that one. */
static bool is_pair_end(const struct usdt_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++) {
		char *end = pair_end(l, l->probes[i].name);
		bool same = end && strcmp(end, name) == 0;

		free(end);
		if (same)
			return true;
	}
	return false;
}

/* --size PROBE:ARGN, else the start probe's first argument. */
static struct usdt_arg probe_size(const struct planner *pl, const struct usdt_probe *p,
				  const char *uid)
{
	const struct trace_size *z = size_of(pl->o, p->name);
	int k = 0;

	if (!z)
		z = size_of(pl->o, uid);
	if (z)
		k = z->argn - 1;
	if (p->nargs <= k || (z && z->arg))
		return (struct usdt_arg){.kind = USDT_ARG_NONE};
	return p->args[k];
}

/* Every site of probe @name in @l as @kind, measuring @uid. */
static int plan_sites(struct planner *pl, const char *path, const struct usdt_list *l,
		      const char *name, enum probe_kind kind, uint64_t uid)
{
	int found = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct usdt_probe *p = &l->probes[i];
		struct probe_spec sp = {.path = (char *)path, .kind = kind, .name = uid};
		int ret;

		if (strcmp(p->name, name) != 0)
			continue;
		ret = file_offset(path, p->pc, &sp.off);
		if (ret < 0)
			return ret;
		sp.ref_ctr_off = p->sema_off;
		sp.size.kind = USDT_ARG_NONE;
		if (kind != PROBE_USDT_END)
			sp.size = probe_size(pl, p, pl->d->names[uid & ~TRACE_NAMED]);
		add_spec(pl, &sp);
		found++;
	}
	return found;
}

/* Probe @start (with @end as its pair, or the one its name implies). */
static int plan_usdt(struct planner *pl, const char *path, const struct usdt_list *l,
		     const char *start, const char *end, long sample)
{
	char *auto_end = end ? NULL : pair_end(l, start);
	char *base = base_name(start);
	uint64_t uid = trace_data_name(pl->d, end ? start : base);
	int ret;

	if (!end)
		end = auto_end;
	if (sample)
		pl->d->name_sample[uid & ~TRACE_NAMED] = sample;
	ret = plan_sites(pl, path, l, start, end ? PROBE_USDT_START : PROBE_USDT_HIT, uid);
	if (ret == 0)
		ret = err_set(ERR_INVALID, "collect trace: no USDT probe '%s' in %s", start, path);
	if (ret > 0 && end && (ret = plan_sites(pl, path, l, end, PROBE_USDT_END, uid)) == 0)
		ret = err_set(ERR_INVALID, "collect trace: no USDT probe '%s' in %s", end, path);
	free(auto_end);
	free(base);
	return ret < 0 ? ret : 0;
}

/* Every probe of @path: pairs by their names, the others from hit to hit. */
static int plan_all_usdt(struct planner *pl, const char *path)
{
	struct usdt_list l;
	int ret = usdt_read(path, &l);

	for (size_t i = 0; ret == 0 && i < l.n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= strcmp(l.probes[k].name, l.probes[i].name) == 0;
		if (!seen && !is_pair_end(&l, l.probes[i].name))
			ret = plan_usdt(pl, path, &l, l.probes[i].name, NULL, 0);
	}
	usdt_list_free(&l);
	return ret;
}

static int plan_usdt_rule(struct planner *pl, const struct trace_rule *r)
{
	struct usdt_list l = {0};
	char *path;
	int ret = lib_path(pl, r->lib, &path);

	if (ret == 0)
		ret = usdt_read(path, &l);
	if (ret == 0)
		ret = plan_usdt(pl, path, &l, r->func, r->end, r->sample);
	usdt_list_free(&l);
	free(path);
	return ret;
}

/* Every function of @f that rule @r names: a C++ name without its
 * parameters names all its overloads. */
static int plan_matches(struct planner *pl, const char *path, const struct sym_file *f,
			const struct trace_rule *r)
{
	int ret = 0;

	for (size_t i = 0; i < f->nsyms && ret == 0; i++) {
		const struct sym *s = &f->syms[i];

		/* Aliases share a place: add_spec() probes it once. */
		if (trace_name_matches(r->func, s->name, s->demangled))
			ret = plan_function(pl, path, s, r->sample);
	}
	return ret;
}

/* -f FUNC not in the binary: the first -l library that has it. 1 when
 * found, 0 when none has, or an error. */
static int plan_in_libs(struct planner *pl, const struct trace_rule *r)
{
	for (size_t i = 0; !r->lib && i < pl->o->nlibs; i++) {
		const struct sym_file *f;
		const struct sym *s;
		char *path;
		int ret = lib_path(pl, pl->o->libs[i], &path);

		if (ret < 0)
			return ret;
		f = trace_sym_file(pl->syms, path);
		s = find_func(f, r->func);
		ret = s ? plan_matches(pl, path, f, r) : 0;
		free(path);
		if (s || ret < 0)
			return ret < 0 ? ret : 1;
	}
	return 0;
}

/* A -f rule: a function (of the binary, LIB or a -l library); one that
 * --size added may be a USDT probe. */
static int plan_rule(struct planner *pl, const struct trace_rule *r)
{
	const struct sym_file *f;
	char *path;
	int ret = lib_path(pl, r->lib, &path);

	if (ret < 0)
		return ret;
	f = trace_sym_file(pl->syms, path);
	if (find_func(f, r->func))
		ret = plan_matches(pl, path, f, r);
	else if ((ret = plan_in_libs(pl, r)) != 0)
		ret = ret < 0 ? ret : 0;
	else if (r->implicit && (ret = plan_usdt_rule(pl, r)) == 0)
		;
	else if (!f->nsyms)
		ret = err_set(ERR_INVALID, "collect trace: %s has no symbol table (stripped?)",
			      path);
	else
		ret = err_set(ERR_INVALID, "collect trace: no function '%s' in %s%s", r->func, path,
			      f->stripped ? " (stripped: only its exported functions have names)"
					  : "");
	free(path);
	return ret;
}

/* ---- the strategies ---- */

/* The C and C++ runtimes' libraries: thousands of functions the program
 * only uses (now that C++ functions are probed, libstdc++'s would be). */
static bool c_runtime(const char *soname)
{
	static const char *const crt[] = {"libc.so",	 "libm.so",	"libpthread.so",
					  "libdl.so",	 "librt.so",	"ld-linux",
					  "libgcc_s.so", "linux-vdso",	"libstdc++.so",
					  "libc++.so",	 "libc++abi.so"};

	for (size_t i = 0; i < ARRAY_SIZE(crt); i++)
		if (strncmp(soname, crt[i], strlen(crt[i])) == 0)
			return true;
	return false;
}

struct name_list {
	char **v;
	size_t n;
};

static void add_needed(const char *name, void *arg)
{
	struct name_list *l = arg;

	if (c_runtime(name))
		return;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = xstrdup(name);
}

/* -s all: the binary's DT_NEEDED libraries other than the C runtime's. */
static int needed_libs(const char *binary, char ***out, size_t *n)
{
	struct name_list l = {*out, 0};
	int ret = dyn_strings(binary, DT_NEEDED, add_needed, &l);

	*out = l.v;
	*n = l.n;
	if (ret < 0)
		return err_set(ERR_IO, "cannot open %s: %s", binary, strerror(errno));
	return 0;
}

static int plan_library(struct planner *pl, const char *lib)
{
	char *path;
	int ret = lib_path(pl, lib, &path);

	if (ret == 0)
		ret = plan_all_functions(pl, path);
	if (ret == 0 && pl->o->with_usdt)
		ret = plan_all_usdt(pl, path);
	free(path);
	return ret;
}

static int plan_strategy(struct planner *pl)
{
	const struct trace_opts *o = pl->o;
	char **libs = NULL;
	size_t n = 0;
	int ret = plan_all_functions(pl, pl->binary);

	if (ret == 0 && o->with_usdt)
		ret = plan_all_usdt(pl, pl->binary);
	if (ret == 0 && o->strategy == STRATEGY_ALL)
		ret = needed_libs(pl->binary, &libs, &n);
	for (size_t i = 0; i < n; i++) {
		if (ret == 0)
			ret = plan_library(pl, libs[i]);
		free(libs[i]);
	}
	free(libs);
	for (size_t i = 0; ret == 0 && i < o->nlibs; i++)
		ret = plan_library(pl, o->libs[i]);
	return ret;
}

int trace_plan(const struct trace_opts *o, const char *binary, const char *cwd,
	       struct sym_cache *syms, struct trace_data *d, struct probe_plan *plan)
{
	struct planner pl = {o, binary, cwd, syms, d, plan};
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	if (o->strategy != STRATEGY_CUSTOM)
		ret = plan_strategy(&pl);
	for (size_t i = 0; ret == 0 && i < o->nrules; i++)
		ret = plan_rule(&pl, &o->rules[i]);
	for (size_t i = 0; ret == 0 && i < o->nusdts; i++)
		ret = plan_usdt_rule(&pl, &o->usdts[i]);
	return ret;
}

void trace_plan_free(struct probe_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++)
		free(plan->specs[i].path);
	free(plan->specs);
	memset(plan, 0, sizeof(*plan));
}
