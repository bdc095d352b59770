/*
 * veles collect memory: runs the command with libveles-memory.so preloaded,
 * then reads every process's records, symbolises the stacks and writes the
 * seed's memory profile (docs/collect-memory.md).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/collector.h"
#include "collect/memory/build.h"
#include "collect/memory/memory.h"
#include "collect/memory/memread.h"
#include "collect/memory/ticker.h"
#include "memformat.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/envp.h"
#include "util/fsutil.h"
#include "util/optparse.h"
#include "util/spawn.h"
#include "util/tmpdir.h"

#define RUNTIME_NAME "libveles-memory.so"

struct memory_state {
	struct mem_opts o;
	char *runtime;
	enum children { CHILDREN_FOLLOW, CHILDREN_SEPARATE, CHILDREN_NONE } children;
	char *dir;	   /* the records' temporary directory (tmp.path) */
	struct tmpdir tmp; /* owned while the collection runs (util/tmpdir.h) */
	struct mem_totals totals;
	size_t nprocs;
	double cpu; /* the command's user + system seconds */
	enum unwind { UNWIND_AUTO, UNWIND_FP, UNWIND_CFI, UNWIND_LIBUNWIND } unwind;
};

static int sampling_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct memory_state *st = ctx;
	char *end;

	UNUSED(o);
	errno = 0;
	st->o.sampling = strtod(arg, &end);
	if (errno || end == arg || *end || !(st->o.sampling > 0) || !isfinite(st->o.sampling))
		return err_set(ERR_INVALID,
			       "collect memory: --sampling needs a positive number of seconds, "
			       "not '%s'",
			       arg);
	return 0;
}

static void list_add(const char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

static int no_source_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct memory_state *st = ctx;

	UNUSED(o);
	list_add(&st->o.no_source, &st->o.nno_source, arg);
	return 0;
}

static int no_func_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct memory_state *st = ctx;

	UNUSED(o);
	list_add(&st->o.no_func, &st->o.nno_func, arg);
	return 0;
}

/* --children MODE, and --no-children (no argument: MODE none). */
static int children_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct memory_state *st = ctx;

	UNUSED(o);
	if (!arg || strcmp(arg, "none") == 0)
		st->children = CHILDREN_NONE;
	else if (strcmp(arg, "follow") == 0)
		st->children = CHILDREN_FOLLOW;
	else if (strcmp(arg, "separate") == 0)
		st->children = CHILDREN_SEPARATE;
	else
		return err_set(
			ERR_INVALID,
			"collect memory: --children takes follow, separate or none, not '%s'", arg);
	return 0;
}

static int unwind_opt(void *ctx, const struct opt *o, const char *arg)
{
	struct memory_state *st = ctx;

	UNUSED(o);
	if (strcmp(arg, "auto") == 0)
		st->unwind = UNWIND_AUTO;
	else if (strcmp(arg, "fp") == 0)
		st->unwind = UNWIND_FP;
	else if (strcmp(arg, "cfi") == 0)
		st->unwind = UNWIND_CFI;
	else if (strcmp(arg, "libunwind") == 0)
		st->unwind = UNWIND_LIBUNWIND;
	else
		return err_set(
			ERR_INVALID,
			"collect memory: --unwind takes auto, cfi, fp or libunwind, not '%s'", arg);
	return 0;
}

static int memory_parse(struct collect_ctx *c, int argc, char **argv)
{
	struct memory_state *st = xcalloc(1, sizeof(*st));
	const struct opt opts[] = {
		OPT_CALLBACK('s', "sampling", "SECONDS", sampling_opt,
			     "group the events in snapshots this long (default " STR(
				     MEMORY_DEFAULT_SAMPLING) ")"),
		OPT_CALLBACK(0, "no-source", "FILE", no_source_opt,
			     "leave out allocations made in source FILE (repeatable)"),
		OPT_CALLBACK(0, "no-func", "NAME", no_func_opt,
			     "leave out allocations made by function NAME (repeatable)"),
		OPT_BOOL('a', "all", &st->o.all,
			 "the whole call stack of releases too (by default a\n"
			 "free or delete records only its caller)"),
		OPT_CALLBACK(0, "children", "MODE", children_opt,
			     "the processes the command forks: follow (default:\n"
			     "recorded into the one profile, told apart by\n"
			     "pid), separate (a profile of each process, the\n"
			     "children's named NAME-pidPID, each with its pid\n"
			     "in its header), or none (not recorded)"),
		OPT_FLAG_CALLBACK(0, "no-children", children_opt, "the same as --children none"),
		OPT_CALLBACK(0, "unwind", "MODE", unwind_opt,
			     "how stacks are walked: auto (default: frame pointers,\n"
			     "and the DWARF unwind tables, by the runtime's own\n"
			     "cached unwinder, where code lacks them; libunwind\n"
			     "for the rare frames it cannot follow), cfi (the\n"
			     "same without libunwind: such a frame ends the\n"
			     "stack), fp (frame pointers only: stacks end at\n"
			     "the first code without them), or libunwind\n"
			     "(libunwind for every event; several times slower)"),
		OPT_END(),
	};
	const struct collect_options o = {
		.usage = "veles collect memory [-s SECONDS] [--no-source FILE] [--no-func NAME]\n"
			 "                     [-a] [OPTIONS] -- COMMAND [ARGS...]",
		.about = "Runs COMMAND with every allocation and release recorded (malloc, "
			 "calloc,\n"
			 "realloc, free, the aligned allocators and C++ new/delete) with its call\n"
			 "stack, in every process the command starts, and writes one resource per\n"
			 "event: subtype, address, amount (bytes), trace and uid "
			 "(source:function:line\n"
			 "of the first frame outside the allocator). Stacks are walked by frame\n"
			 "pointers: build with -fno-omit-frame-pointer (and -g for lines).",
		.opts = opts,
		.ctx = st,
	};

	st->o.sampling = MEMORY_DEFAULT_SAMPLING;
	c->state = st;
	return collect_parse_options(c, "memory", &o, argc, argv);
}

/* ---- before: the runtime, and a program it can reach ---- */

int memory_runtime_path(char **out)
{
	const char *env = getenv("VELES_MEMORY_LIB");
	char *cand[4] = {NULL, NULL, NULL, NULL};
	int ret = 0;

	if (env && *env) {
		if (access(env, R_OK) != 0)
			return err_set(ERR_NOTFOUND, "collect memory: VELES_MEMORY_LIB=%s: %s", env,
				       strerror(errno));
		*out = xstrdup(env);
		return 0;
	}
	/* The build tree's (veles in src/cli/, libveles.so in src/api/), the
	 * install's, beside an installed libveles.so, beside bin/. */
	cand[0] = self_object_relative("../../runtime/" RUNTIME_NAME);
	cand[1] = xstrdup(VELES_LIBDIR "/" RUNTIME_NAME);
	cand[2] = self_object_relative(RUNTIME_NAME);
	cand[3] = self_object_relative("../lib/" RUNTIME_NAME);
	*out = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
		if (!*out && cand[i] && access(cand[i], R_OK) == 0) {
			*out = cand[i];
			continue;
		}
		free(cand[i]);
	}
	if (!*out)
		ret = err_set(ERR_NOTFOUND, "collect memory: cannot find " RUNTIME_NAME
					    " (looked beside veles and in " VELES_LIBDIR
					    "; set VELES_MEMORY_LIB)");
	return ret;
}

int memory_check_dynamic(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC), interp = 0;

	if (fd < 0)
		return 0; /* the spawn says why it cannot run */
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd);
		return 0; /* a script, or not ours to judge */
	}
	for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		interp = ph.p_type == PT_INTERP;
	}
	close(fd);
	/* No interpreter: static, or static-pie (ET_DYN all the same). */
	if (interp || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return 0;
	return err_set(ERR_INVALID,
		       "collect memory: %s is statically linked: its allocations cannot be "
		       "interposed (link it dynamically)",
		       path);
}

static int memory_before(struct collect_ctx *c)
{
	struct memory_state *st = c->state;
	char *prog = NULL;
	int ret = 0;

	/* Not found: the spawn says why it cannot run. */
	if (spawn_which(c->env->cwd, c->argv[0], &prog) < 0)
		err_clear();
	else
		ret = memory_check_dynamic(prog);

	free(prog);
	if (ret == 0)
		ret = memory_runtime_path(&st->runtime);
	return ret;
}

/* ---- collect: run, read, build ---- */

static int make_dir(struct memory_state *st)
{
	int ret = tmpdir_make("memory", &st->tmp);

	if (ret < 0)
		return err_prefix(ret, "collect memory");
	st->dir = st->tmp.path;
	return 0;
}

static const char *unwind_name(enum unwind u)
{
	return u == UNWIND_LIBUNWIND ? "libunwind"
	       : u == UNWIND_FP	     ? "fp"
	       : u == UNWIND_CFI     ? "cfi"
				     : "auto";
}

/* The runtime's variables, for the command alone (our environment stays
 * as it is: another thread of the front end may be reading it). */
static char **preload_env(const struct memory_state *st)
{
	bool none = st->children == CHILDREN_NONE;
	char **env = xcalloc(8, sizeof(*env));
	size_t k = 0;

	env[k++] = collect_preload_var(st->runtime);
	env[k++] = xasprintf("VELES_MEMORY_OUT=%s/mem", st->dir);
	env[k++] = xasprintf("VELES_MEMORY_FREE_STACKS=%s", st->o.all ? "1" : "0");
	env[k++] = none ? xasprintf("VELES_MEMORY_DRIVER=%ld", (long)getpid())
			: xstrdup("VELES_MEMORY_DRIVER=");
	env[k++] = xasprintf("VELES_MEMORY_CLOCK=%s/clock", st->dir);
	env[k++] = xasprintf("VELES_MEMORY_UNWIND=%s", unwind_name(st->unwind));
	return env;
}

static int run_preloaded(struct collect_ctx *c, struct memory_state *st)
{
	char *clock = xasprintf("%s/clock", st->dir);
	char **env = preload_env(st);
	struct ticker *tick = NULL;
	struct spawn_opts so;
	struct spawn_result r;
	int ret = ticker_start(clock, &tick);

	collect_spawn_opts(c, &so);
	so.env = env;
	if (ret == 0)
		ret = spawn_run(c->argv, &so, &r);
	ticker_stop(tick);
	envp_free(env);
	free(clock);
	if (ret == 0) {
		c->last_status = r.status;
		st->cpu = r.user + r.sys;
	}
	return ret;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The threads' buffers beside a record file (docs/memory-format.md). */
static bool is_live(const char *name)
{
	size_t n = strlen(name), k = strlen(VMEM_LIVE_SUFFIX);

	return n >= k && strcmp(name + n - k, VMEM_LIVE_SUFFIX) == 0;
}

/* Every record file of the run, in the order the processes started, with
 * what a process killed outright left in its live file. */
static int read_all(struct memory_state *st, struct mem_file **files, size_t *n)
{
	DIR *d = opendir(st->dir);
	struct dirent *de;
	char **names = NULL;
	size_t count = 0;
	int ret = 0;

	if (!d)
		return err_set(ERR_IO, "collect memory: %s: %s", st->dir, strerror(errno));
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "mem.", 4) == 0 && !is_live(de->d_name)) {
			names = xrealloc(names, (count + 1) * sizeof(*names));
			names[count++] = xasprintf("%s/%s", st->dir, de->d_name);
		}
	closedir(d);
	qsort(names, count, sizeof(*names), name_cmp);
	*files = xcalloc(count ? count : 1, sizeof(**files));
	for (size_t i = 0; i < count; i++) {
		char *live = xasprintf("%s%s", names[i], VMEM_LIVE_SUFFIX);

		if (ret == 0)
			ret = mem_read_file(names[i], &(*files)[i]);
		if (ret == 0)
			ret = mem_read_live(live, &(*files)[i]);
		free(live);
		free(names[i]);
	}
	free(names);
	*n = count;
	return ret;
}

/* ---- --children separate: a profile per process ---- */

struct fslot {
	uint32_t pid;
	size_t first; /* the pid's first file: processes in the order they started */
	size_t idx;
	bool root;
};

static int fslot_by_pid(const void *a, const void *b)
{
	const struct fslot *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int fslot_by_place(const void *a, const void *b)
{
	const struct fslot *x = a, *y = b;

	if (x->root != y->root)
		return x->root ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Puts @files in groups of one pid each (an exec'd image stays with its
 * process, in order): the command's own process first (its parent is
 * us), then the others in the order they started.
 */
static void group_by_pid(struct mem_file *files, size_t n)
{
	struct fslot *s = xcalloc(n ? n : 1, sizeof(*s));
	struct mem_file *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	uint32_t self = (uint32_t)getpid();

	for (size_t i = 0; i < n; i++)
		s[i] = (struct fslot){files[i].pid, 0, i, files[i].ppid == self};
	qsort(s, n, sizeof(*s), fslot_by_pid);
	for (size_t i = 0; i < n; i++) {
		bool same = i > 0 && s[i].pid == s[i - 1].pid;

		s[i].first = same ? s[i - 1].first : s[i].idx;
		/* The command's exec'd images keep their parent: all are root. */
		s[i].root = (same && s[i - 1].root) || s[i].root;
	}
	for (size_t i = n; i-- > 1;)
		if (s[i - 1].pid == s[i].pid)
			s[i - 1].root = s[i].root;
	qsort(s, n, sizeof(*s), fslot_by_place);
	for (size_t i = 0; i < n; i++)
		tmp[i] = files[s[i].idx];
	memcpy(files, tmp, n * sizeof(*files));
	free(tmp);
	free(s);
}

static void header_add(struct profile *p, const char *key, char *json)
{
	p->header_extra =
		xrealloc(p->header_extra, (p->nheader_extra + 1) * sizeof(*p->header_extra));
	p->header_extra[p->nheader_extra++] = (struct kv){xstrdup(key), json};
}

/* The profile of one process: the first goes in c->profile, the rest,
 * named NAME-pidPID, in c->extra. */
static void place_profile(struct collect_ctx *c, struct profile *p, const struct mem_file *f)
{
	header_add(p, "pid", xasprintf("%u", f->pid));
	header_add(p, "ppid", xasprintf("%u", f->ppid));
	if (!c->profile) {
		c->profile = p;
		return;
	}
	c->extra = xrealloc(c->extra, (c->nextra + 1) * sizeof(*c->extra));
	c->extra[c->nextra++] = (struct collect_extra){p, xasprintf("pid%u", f->pid)};
}

/*
 * --children separate: each process's events are the merged profile's of
 * its pid, snapshots counted from the run's start in every profile so that
 * they line up; the totals are the whole run's.
 */
static int build_separate(struct collect_ctx *c, struct memory_state *st, struct mem_file *files,
			  size_t n)
{
	struct mem_opts o = st->o;
	size_t from = 0;
	int ret = 0;

	o.start_ns = mem_first_start(files, n);
	group_by_pid(files, n);
	memset(&st->totals, 0, sizeof(st->totals));
	while (ret == 0 && from < n) {
		size_t to = from + 1;
		struct profile *p = NULL;
		struct mem_totals t;

		while (to < n && files[to].pid == files[from].pid)
			to++;
		ret = mem_build(files + from, to - from, &o, &p, &t);
		if (ret == 0) {
			place_profile(c, p, &files[from]);
			st->totals.allocs += t.allocs;
			st->totals.frees += t.frees;
			st->totals.excluded += t.excluded;
			st->totals.bytes += t.bytes;
		}
		from = to;
	}
	return ret;
}

static int pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Processes, not files: an exec'd image is its process's next file. */
static size_t count_pids(const struct mem_file *files, size_t n)
{
	uint32_t *pid = xmalloc((n ? n : 1) * sizeof(*pid));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		pid[i] = files[i].pid;
	qsort(pid, n, sizeof(*pid), pid_cmp);
	for (size_t i = 0; i < n; i++)
		k += i == 0 || pid[i] != pid[i - 1];
	free(pid);
	return k;
}

static int memory_collect(struct collect_ctx *c)
{
	struct memory_state *st = c->state;
	struct mem_file *files = NULL;
	size_t n = 0;
	int ret = make_dir(st);

	if (ret == 0)
		ret = run_preloaded(c, st);
	if (ret == 0)
		ret = read_all(st, &files, &n);
	if (ret == 0 && n == 0)
		ret = err_set(ERR_CHILD,
			      "collect memory: '%s' recorded nothing: it may not be able to load "
			      "the runtime (%s)",
			      c->argv[0], st->runtime);
	if (ret == 0 && !spawn_interrupted() && st->children == CHILDREN_SEPARATE)
		ret = build_separate(c, st, files, n);
	else if (ret == 0 && !spawn_interrupted())
		ret = mem_build(files, n, &st->o, &c->profile, &st->totals);
	st->nprocs = count_pids(files, n);
	for (size_t i = 0; i < n; i++)
		mem_file_release(&files[i]);
	free(files);
	return ret;
}

static int memory_after(struct collect_ctx *c)
{
	struct memory_state *st = c->state;
	const struct mem_totals *t = &st->totals;
	char what[96];

	if (!c->quiet)
		collect_say(c, COLLECT_MSG_OUT,
			    "%zu allocation%s (%llu bytes), %zu release%s in %zu process%s%s%s; "
			    "the command used %.2f s CPU\n",
			    t->allocs, t->allocs == 1 ? "" : "s", t->bytes, t->frees,
			    t->frees == 1 ? "" : "s", st->nprocs, st->nprocs == 1 ? "" : "es",
			    st->children == CHILDREN_SEPARATE ? ", a profile each" : "",
			    t->excluded ? " (some left out by --no-source/--no-func)" : "",
			    st->cpu);
	if (!WIFEXITED(c->last_status) || WEXITSTATUS(c->last_status) != 0)
		collect_say(c, COLLECT_MSG_ERR,
			    "Warning: command %s; the events up to then are kept",
			    spawn_status_str(c->last_status, what, sizeof(what)));
	return 0;
}

static void memory_release(struct collect_ctx *c)
{
	struct memory_state *st = c->state;

	if (!st)
		return;
	tmpdir_remove(&st->tmp);
	free(st->runtime);
	free(st->o.no_source);
	free(st->o.no_func);
	free(st);
	c->state = NULL;
}

const struct collector memory_collector = {
	.name = "memory",
	.summary = "every allocation and release of a program, with call stacks",
	.parse = memory_parse,
	.before = memory_before,
	.collect = memory_collect,
	.after = memory_after,
	.release = memory_release,
};
