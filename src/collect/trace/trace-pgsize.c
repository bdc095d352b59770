/*
 * --size in the instrumented mode, for programs of the mcount build
 * (`veles cflags trace --pg`), whose entry hook sees the argument
 * registers: each sized function's place in the executable and which
 * argument (or member of what it points to) to read, for the runtime
 * (VELES_TRACE_SIZE, docs/trace-format.md).
 */
#include <asm/perf_regs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/trace/trace-dwarf.h"
#include "collect/trace/trace-sym.h"
#include "collect/trace/trace.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/spawn.h"

static const int arg_regs[] = {PERF_REG_X86_DI, PERF_REG_X86_SI, PERF_REG_X86_DX,
			       PERF_REG_X86_CX, PERF_REG_X86_R8, PERF_REG_X86_R9};

static const struct sym *find_func(const struct sym_file *f, const char *name)
{
	for (size_t i = 0; i < f->nsyms; i++)
		if (trace_name_matches(name, f->syms[i].name, f->syms[i].demangled))
			return &f->syms[i];
	return NULL;
}

/* "VALUE SIZE ARGN OFFSET BYTES SIGNED": OFFSET -1 reads the argument itself. */
static int size_rule(const struct trace_size *z, const char *path, const struct sym_file *f,
		     struct buf *out)
{
	const struct sym *s = find_func(f, z->func);
	struct usdt_arg a = {.kind = USDT_ARG_REG, .bytes = 8, .is_signed = true};
	int argn = z->argn;

	if (!s)
		return err_set(ERR_INVALID, "collect trace: --size: no function '%s' in %s",
			       z->func, path);
	if (z->arg) {
		int ret = trace_dwarf_member(path, s->name, z->arg, z->member, &a);

		if (ret < 0)
			return ret;
		for (argn = 0; argn < 6 && arg_regs[argn] != a.reg; argn++)
			;
		argn++;
	}
	if (argn < 1 || argn > 6)
		return err_set(ERR_INVALID,
			       "collect trace: --size %s:%d: a function's ARGN is 1 to 6", z->func,
			       argn);
	buf_addf(out, "%s%lx %lx %d %ld %d %d", out->len ? ";" : "", (unsigned long)s->value,
		 (unsigned long)s->size, argn, a.kind == USDT_ARG_MEM ? (long)a.value : -1L,
		 a.bytes, a.is_signed ? 1 : 0);
	return 0;
}

int trace_size_env(const struct trace_opts *o, char *const *argv, const char *cwd,
		   struct sym_cache *syms, char **env)
{
	struct buf out = {0};
	char *path;
	int ret = spawn_which(cwd, argv[0], &path);

	*env = NULL;
	if (ret < 0)
		return ret;
	const struct sym_file *f = trace_sym_file(syms, path);

	/* -finstrument-functions' hooks get the function's address and its
	 * caller's, with the arguments' registers already reused: say so
	 * now rather than after the run. */
	if (f->hooks == TRACE_HOOK_CYG)
		ret = err_set(
			ERR_INVALID,
			"collect trace: --size: %s is built with -finstrument-functions, whose "
			"hooks do not see arguments: build it with `veles cflags trace --pg`",
			path);
	for (size_t i = 0; ret == 0 && i < o->nsizes; i++)
		ret = size_rule(&o->sizes[i], path, f, &out);
	free(path);
	if (ret < 0) {
		buf_release(&out);
		return ret;
	}
	*env = buf_detach(&out, NULL);
	return 0;
}
