/*
 * libveles-memory.so, the code the program has loaded: the executable
 * ranges of each object, and whether the object keeps frame pointers.
 * The stack walk (memory.c) follows frame pointers while return addresses
 * lie in objects that keep them, hands the event to the unwind tables
 * (memory_walk.c; each object's .eh_frame_hdr is noted here) when one
 * lies in an object that does not, and stops at an address in no object
 * at all: what it read there was not a return address.
 *
 * The table is rebuilt from dl_iterate_phdr when the loaded objects
 * change: after dlclose (which we wrap, also to write the maps while the
 * library is still there), and when a walk meets an address outside every
 * known object (a dlopen since). A table is
 * never freed: a walk in another thread may still read it, and they are
 * few and small.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpjudge.h"
#include "memory_priv.h"

#define OBJS_MAX 4096	     /* executable segments, at most */
#define RESCAN_NS 1000000ull /* 1 ms between the rescans deeper frames ask for */

_Atomic(struct vmem_objs *) vmem_objs;
static atomic_flag rebuilding = ATOMIC_FLAG_INIT;
static _Atomic uint64_t last_scan_ns;

/* Judges the file at @path: 1 keeps frame pointers, 0 not, -1 unknown,
 * -3 not a file (the vDSO). */
static int judge_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -1;
	struct stat st;
	void *img;

	if (fd < 0)
		return -3;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (img != MAP_FAILED) {
			r = fpjudge(img, (size_t)st.st_size);
			munmap(img, (size_t)st.st_size);
		}
	}
	close(fd);
	return r;
}

struct scan {
	struct vmem_objs *objs, *old;
	unsigned long long adds, subs;
};

/* The verdict on a segment already in the last table, so that a rebuild
 * judges only new objects. */
static int known(const struct vmem_objs *old, uintptr_t lo, uintptr_t hi)
{
	const struct vmem_obj *o = old ? vmem_obj_find(old, lo) : NULL;

	return o && o->lo == lo && o->hi == hi ? o->fp : -1;
}

/* Where the object's unwind tables lie: its PT_GNU_EH_FRAME, within the
 * loaded segment that holds it. */
static struct cfi_tables tables_of(const struct dl_phdr_info *info)
{
	struct cfi_tables tab = {NULL, NULL, NULL};
	uintptr_t hdr = 0;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	for (int i = 0; i < info->dlpi_phnum && hdr; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && hdr >= lo &&
		    hdr < lo + ph->p_filesz) {
			tab.hdr = (const unsigned char *)hdr;
			tab.lo = (const unsigned char *)lo;
			tab.hi = (const unsigned char *)(lo + ph->p_filesz);
		}
	}
	return tab;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	struct cfi_tables tab;
	int fp = -2;

	(void)size;
	s->adds = info->dlpi_adds;
	s->subs = info->dlpi_subs;
	if (!s->objs)
		return 0;
	tab = tables_of(info);
	for (int i = 0; i < info->dlpi_phnum && s->objs->n < OBJS_MAX; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct vmem_obj *o;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0)
			continue;
		o = &s->objs->o[s->objs->n++];
		o->lo = lo;
		o->hi = lo + ph->p_memsz;
		o->cfi = tab;
		o->fp = known(s->old, o->lo, o->hi);
		if (o->fp < 0) {
			/* The executable has an empty name. An object we cannot
			 * judge (the vDSO) is walked on: addresses stay checked. */
			if (fp == -2)
				fp = judge_file(*info->dlpi_name ? info->dlpi_name
								 : "/proc/self/exe");
			/* Too few functions to tell by their prologues (a small
			 * library or program): their unwind tables tell. */
			if (fp == -1)
				fp = cfi_judge(&tab);
			o->fp = fp != 0;
		}
	}
	return 0;
}

/* Sorts by start address: few entries, mostly in order already. */
static void sort_objs(struct vmem_objs *t)
{
	for (size_t i = 1; i < t->n; i++) {
		struct vmem_obj v = t->o[i];
		size_t j = i;

		for (; j > 0 && t->o[j - 1].lo > v.lo; j--)
			t->o[j] = t->o[j - 1];
		t->o[j] = v;
	}
}

/* Rebuilds the table; only when the objects changed unless @force. The
 * caller holds the recursion guard. */
void vmem_objs_refresh(bool force)
{
	struct vmem_objs *cur = atomic_load(&vmem_objs);
	struct scan s = {.old = cur};
	void *p;

	if (atomic_flag_test_and_set(&rebuilding))
		return;
	atomic_store(&last_scan_ns, now_ns());
	if (!force && cur) {
		dl_iterate_phdr(add_object, &s);
		if (s.adds == cur->adds && s.subs == cur->subs)
			goto out;
	}
	p = mmap(NULL, sizeof(struct vmem_objs) + OBJS_MAX * sizeof(struct vmem_obj),
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto out;
	s.objs = p;
	dl_iterate_phdr(add_object, &s);
	sort_objs(s.objs);
	s.objs->adds = s.adds;
	s.objs->subs = s.subs;
	for (size_t i = 0; i < s.objs->n; i++)
		if (!s.objs->o[i].fp)
			s.objs->some_without_fp = true;
	atomic_store_explicit(&vmem_objs, s.objs, memory_order_release);
out:
	atomic_flag_clear(&rebuilding);
}

/* A fork child has one thread: a rebuild another thread was making is
 * not going on there. */
void vmem_objs_after_fork(void)
{
	atomic_flag_clear(&rebuilding);
}

const struct vmem_obj vmem_obj_unknown = {0, 0, 1, {NULL, NULL, NULL}};

const struct vmem_obj *vmem_objs_miss(uintptr_t pc, bool first)
{
	uint64_t now = now_ns();
	struct vmem_objs *t;

	if (!first && now - atomic_load_explicit(&last_scan_ns, memory_order_relaxed) < RESCAN_NS)
		return NULL;
	vmem_objs_refresh(false);
	t = atomic_load_explicit(&vmem_objs, memory_order_acquire);
	return t ? vmem_obj_find(t, pc) : NULL;
}

/* The frames of a library stay nameable after it is gone: its mappings
 * go to the output before it is unmapped. */
EXPORT int dlclose(void *handle)
{
	static int (*next)(void *);
	int ret;

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "dlclose");
	vmem_guard++;
	if (!vmem_vfork_child())
		vmem_note_maps();
	vmem_guard--;
	ret = next(handle);
	vmem_guard++;
	if (atomic_load(&vmem_objs))
		vmem_objs_refresh(false);
	vmem_guard--;
	return ret;
}
