/*
 * libveles-memory.so, the life around the recording (memory.c records):
 * the output file and its blocks, each thread's state, fork, fatal
 * signals, start and end. Nothing here runs per event but the flush of a
 * full buffer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "memformat.h"
#include "memory_priv.h"

atomic_int vmem_state = ST_OFF;
struct slot *vmem_table;
atomic_uint vmem_next_stack = 1;
bool vmem_free_stacks;
int (*vmem_unwinder)(void **, int);
bool vmem_unwind_all;
bool vmem_cfi;
const _Atomic uint64_t *vmem_clock;
TLS struct tstate *vmem_self;
TLS int vmem_guard;
TLS bool vmem_initialising;

static int out_fd = -1;
/* The live file (docs/memory-format.md): the threads' states, in slots. */
static int live_fd = -1;
static char live_path[4096 + sizeof(VMEM_LIVE_SUFFIX)];
static size_t live_slots;
static atomic_flag live_busy = ATOMIC_FLAG_INIT;
static _Atomic uint64_t buffer_seq = 1; /* the next buffer's number */
static _Atomic(struct tstate *) threads;
static pthread_key_t thread_key;
static uint64_t start_ns;
static pid_t owner; /* the process the output belongs to */

static void map_clock(void)
{
	const char *path = getenv("VELES_MEMORY_CLOCK");
	int fd = path && *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	void *p;

	if (fd < 0)
		return;
	p = mmap(NULL, sizeof(uint64_t), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	/* A page the driver no longer ticks would stop time: only a live one. */
	if (p != MAP_FAILED && atomic_load((const _Atomic uint64_t *)p) != 0)
		vmem_clock = p;
}

/*
 * Code without frame pointers. VELES_MEMORY_UNWIND=auto (what `collect
 * memory` sets by default) walks it with the unwind tables
 * (memory_walk.c), and opens libunwind, when a loaded object lacks frame
 * pointers, for the few frames whose rules those tables cannot follow
 * (signal frames, DWARF expressions): its unw_backtrace then unwinds that
 * event whole. =cfi is the tables alone, =libunwind libunwind for every
 * event, =fp (and no variable) frame pointers alone. libunwind is opened
 * with dlopen at start, so that programs with frame pointers throughout
 * never load it and its liblzma. Its frames start in our own code: they
 * are taken from the caller's return address on, which the interposed
 * function's frame gives exactly.
 */
static void load_unwinder(void)
{
	const char *mode = getenv("VELES_MEMORY_UNWIND");
	struct vmem_objs *objs = atomic_load(&vmem_objs);
	bool automatic = mode && strcmp(mode, "auto") == 0;
	void *h;

	vmem_unwind_all = mode && strcmp(mode, "libunwind") == 0;
	vmem_cfi = automatic || (mode && strcmp(mode, "cfi") == 0);
	if (!vmem_unwind_all && !(automatic && objs && objs->some_without_fp))
		return;
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&vmem_unwinder = dlsym(h, "unw_backtrace");
	vmem_objs_refresh(false);
}
/* ---- output ---- */

/* One writev, so that a block never interleaves with another thread's
 * (the file is opened O_APPEND); a short write's rest goes after. */
static void writev_all(struct iovec *iov, int n)
{
	while (n > 0 && out_fd >= 0) {
		ssize_t w = writev(out_fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (unsigned char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

static void write_all(const void *data, size_t len)
{
	struct iovec iov = {(void *)data, len};

	writev_all(&iov, 1);
}

static void write_block(int kind, const void *data, size_t len)
{
	unsigned char head[VMEM_BLOCK_HEAD];
	struct iovec iov[2] = {{head, sizeof(head)}, {(void *)data, len}};

	head[0] = (unsigned char)kind;
	put_u32(head + 1, (uint32_t)len);
	writev_all(iov, 2);
}

/* An events block and, in the same write, the FLUSHED block naming the
 * buffer it came from: a reader then leaves that buffer out of the live
 * file, should the process die before the buffer is emptied. */
static void write_events(const unsigned char *buf, size_t len, uint64_t seq)
{
	unsigned char mark[VMEM_BLOCK_HEAD + 8];
	struct iovec iov[2] = {{(void *)buf, len}, {mark, sizeof(mark)}};

	mark[0] = VMEM_BLOCK_FLUSHED;
	put_u32(mark + 1, 8);
	put_u64(mark + VMEM_BLOCK_HEAD, seq);
	writev_all(iov, 2);
}

/* The events block's head but its length, which the reader of a live
 * buffer takes from t->len. */
static void buf_head(struct tstate *t)
{
	t->buf[0] = VMEM_BLOCK_EVENTS;
	put_u32(t->buf + VMEM_BLOCK_HEAD, t->tid);
	put_u64(t->buf + VMEM_BLOCK_HEAD + 4, t->base_ns);
}

/* Empties @t into the file; the caller holds t->busy. */
static void flush_locked(struct tstate *t)
{
	t->flushing = true;
	atomic_signal_fence(memory_order_seq_cst);
	if (t->len > VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD) {
		buf_head(t);
		put_u32(t->buf + 1, (uint32_t)(t->len - VMEM_BLOCK_HEAD));
		write_events(t->buf, t->len, t->seq);
	}
	t->len = VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD;
	/* Emptied before renumbered: a process killed in between leaves an
	 * empty buffer, never a written one under a number not yet written. */
	atomic_signal_fence(memory_order_seq_cst);
	t->seq = atomic_fetch_add(&buffer_seq, 1);
	t->base_ns = t->last_ns = now_ns();
	buf_head(t);
	t->last_addr = 0;
	t->last_id[0] = t->last_id[1] = 0;
	atomic_signal_fence(memory_order_seq_cst);
	t->flushing = false;
}

/* The owner's flush, with signals held off: a fatal signal's handler
 * cannot tell whether an interrupted write went out (flush_committed). */
__attribute__((noinline, cold)) void vmem_flush_owned(struct tstate *t)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	flush_locked(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * The records of a buffer its owner is appending to: this thread, which a
 * signal interrupted, or another one still running while the process ends.
 * Only the owner writes a buffer's records, and it moves t->len past a
 * record once the record is whole, so the bytes up to len are complete;
 * the buffer is left as it is, since the owner may still be in it.
 */
static void flush_committed(struct tstate *t)
{
	size_t len = *(volatile size_t *)&t->len;

	if (t->flushing || len <= VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD || len > BUF_SIZE)
		return;
	buf_head(t);
	put_u32(t->buf + 1, (uint32_t)(len - VMEM_BLOCK_HEAD));
	write_events(t->buf, len, t->seq);
}

/* Every thread's buffer. One that its owner is writing is never waited
 * for (a crash inside the runtime must not deadlock the handler): when
 * the process @ends, its complete records go; before an exec, which may
 * fail and go on recording, it is left for its owner. */
static void flush_all(bool ends)
{
	for (struct tstate *t = atomic_load(&threads); t; t = t->next) {
		int expect = 0;

		if (!atomic_compare_exchange_strong(&t->busy, &expect, 1)) {
			if (ends)
				flush_committed(t);
			continue;
		}
		flush_locked(t);
		atomic_store(&t->busy, 0);
	}
}

/* The maps let the reader find which file each return address is in; a
 * file has several when libraries were unloaded (the reader joins them). */
static void write_maps(void)
{
	static char text[256 * 1024];
	static atomic_flag busy = ATOMIC_FLAG_INIT;
	size_t len = 0;
	int fd;

	while (atomic_flag_test_and_set(&busy))
		sched_yield();
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		atomic_flag_clear(&busy);
		return;
	}
	while (len < sizeof(text)) {
		ssize_t n = read(fd, text + len, sizeof(text) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	write_block(VMEM_BLOCK_MAPS, text, len);
	atomic_flag_clear(&busy);
}

void vmem_note_maps(void)
{
	if (atomic_load(&vmem_state) == ST_ON)
		write_maps();
}

static void write_end(int how, int sig)
{
	unsigned char end[10];

	put_u64(end, now_ns());
	end[8] = (unsigned char)how;
	end[9] = (unsigned char)sig;
	write_block(VMEM_BLOCK_END, end, sizeof(end));
}

/* Flushes everything and closes the file: the process is ending. */
static void finish(int how, int sig)
{
	int expect = ST_ON;

	if (!atomic_compare_exchange_strong(&vmem_state, &expect, ST_DONE))
		return;
	flush_all(how != VMEM_END_EXEC);
	write_maps();
	write_end(how, sig);
	close(out_fd);
	out_fd = -1;
}

/* ---- the live file: the threads' states, mapped shared ---- */

_Static_assert(offsetof(struct tstate, len) == VMEM_LIVE_LEN && sizeof(size_t) == 8,
	       "the live file's length word");
_Static_assert(offsetof(struct tstate, seq) == VMEM_LIVE_SEQ &&
		       offsetof(struct tstate, buf_off) == VMEM_LIVE_BUF &&
		       offsetof(struct tstate, slot_size) == VMEM_LIVE_SLOT &&
		       offsetof(struct tstate, busy) >= VMEM_LIVE_HEAD,
	       "the live file's slot head");

static size_t slot_bytes(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (sizeof(struct tstate) + page - 1) / page * page;
}

/* PATH.live for the record file PATH: made with it, or renamed with it
 * when a failed exec goes on in a new record file with the same states. */
static void live_open(const char *path)
{
	size_t len = strlen(path);
	char next[sizeof(live_path)];

	if (len + sizeof(VMEM_LIVE_SUFFIX) > sizeof(next))
		return;
	memcpy(next, path, len);
	memcpy(next + len, VMEM_LIVE_SUFFIX, sizeof(VMEM_LIVE_SUFFIX));
	if (live_fd >= 0) {
		if (rename(live_path, next) == 0)
			memcpy(live_path, next, sizeof(next));
		return;
	}
	live_fd = open(next, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (live_fd >= 0)
		memcpy(live_path, next, sizeof(next));
}

/* A new slot at the end of the live file, mapped shared; NULL without
 * a live file or room for it. The slot's blocks are allocated first: a
 * store to a page of a file with none left to hold it would be SIGBUS. */
static void *live_slot(void)
{
	size_t size = slot_bytes();
	void *p = MAP_FAILED;

	while (atomic_flag_test_and_set(&live_busy))
		sched_yield();
	if (live_fd >= 0 && fallocate(live_fd, 0, (off_t)(live_slots * size), (off_t)size) == 0) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, live_fd,
			 (off_t)(live_slots * size));
		if (p != MAP_FAILED)
			live_slots++;
	}
	atomic_flag_clear(&live_busy);
	return p == MAP_FAILED ? NULL : p;
}

/* A thread state: in the live file, else in memory of its own (what a
 * killed process had in it is lost then). */
static struct tstate *state_map(void)
{
	struct tstate *t = live_slot();

	if (!t) {
		t = mmap(NULL, slot_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (t == MAP_FAILED)
			return NULL;
	}
	memcpy(t->magic, VMEM_LIVE_MAGIC, sizeof(t->magic));
	t->buf_off = (uint32_t)offsetof(struct tstate, buf);
	t->slot_size = (uint32_t)slot_bytes();
	return t;
}

/* Copies @t into the pages at @to and puts those pages at @t's address,
 * so that what points to @t stays right: a forked child's state leaves the
 * slot it shares with the parent. */
static bool state_move(struct tstate *t, void *to)
{
	size_t size = slot_bytes();

	memcpy(to, t, sizeof(*t));
	if (mremap(to, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, t) != MAP_FAILED)
		return true;
	munmap(to, size);
	return false;
}

/* PREFIX.PID.N: a new file for each process image (fork, exec). */
static int open_output(void)
{
	const char *prefix = getenv("VELES_MEMORY_OUT");
	const char *fs = getenv("VELES_MEMORY_FREE_STACKS");
	char path[4096];
	unsigned char head[VMEM_HEADER_LEN] = {0};
	ssize_t n;

	const char *driver = getenv("VELES_MEMORY_DRIVER");

	if (!prefix || strlen(prefix) > sizeof(path) - 48)
		return -1;
	/* Only the command's own process (collect memory --no-children): its
	 * parent is the driver; a forked child's is not. */
	if (driver && *driver && strtol(driver, NULL, 10) != (long)getppid())
		return -1;
	vmem_free_stacks = fs && *fs == '1';
	for (int seq = 0; seq < 1000; seq++) {
		size_t len = strlen(prefix);
		char num[48];
		int k = 0;
		unsigned long v[2] = {(unsigned long)getpid(), (unsigned long)seq};

		memcpy(path, prefix, len);
		for (int j = 0; j < 2; j++) {
			char digits[24];
			int d = 0;

			num[k++] = '.';
			do
				digits[d++] = (char)('0' + v[j] % 10);
			while ((v[j] /= 10) > 0);
			while (d > 0)
				num[k++] = digits[--d];
		}
		memcpy(path + len, num, (size_t)k);
		path[len + (size_t)k] = '\0';
		out_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
		if (out_fd >= 0 || errno != EEXIST)
			break;
	}
	if (out_fd < 0)
		return -1;
	live_open(path);
	owner = getpid();
	memcpy(head, VMEM_MAGIC, VMEM_MAGIC_LEN);
	put_u32(head + 8, VMEM_VERSION);
	put_u32(head + 12, (uint32_t)getpid());
	put_u32(head + 16, (uint32_t)getppid());
	start_ns = now_ns();
	put_u64(head + 24, start_ns);
	write_all(head, sizeof(head));
	n = readlink("/proc/self/exe", path, sizeof(path));
	if (n > 0)
		write_block(VMEM_BLOCK_EXE, path, (size_t)n);
	write_maps();
	return 0;
}

static struct slot *table_new(void)
{
	void *p = mmap(NULL, sizeof(struct slot) << TABLE_BITS, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}
static void thread_gone(void *arg)
{
	struct tstate *t = arg;

	lock(t);
	vmem_flush_owned(t);
	unlock(t);
	/* A destructor run after ours that allocates takes a state again, and
	 * gives it back when its key's destructor runs once more. */
	vmem_self = NULL;
	atomic_store_explicit(&t->spare, true, memory_order_release);
}

/* The state of an ended thread: a program that starts thread after
 * thread needs as many states as it has threads at once, not in all. */
static struct tstate *thread_reuse(void)
{
	for (struct tstate *t = atomic_load(&threads); t; t = t->next) {
		bool expect = true;

		if (atomic_load_explicit(&t->spare, memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&t->spare, &expect, false))
			return t;
	}
	return NULL;
}

/* The stack's bounds keep the frame-pointer walk inside mapped memory. */
static void thread_bounds(struct tstate *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		t->stack_lo = (uintptr_t)addr;
		t->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

struct tstate *vmem_thread_new(void)
{
	struct tstate *t = thread_reuse();

	if (t) {
		/* Stack ids are the process's: the callers cache stays right. */
		t->tid = (uint32_t)gettid();
		t->stack_lo = t->stack_hi = 0;
		t->obj_lo = t->obj_hi = 0;
		memset(&t->floor, 0, sizeof(t->floor));
		t->memo_objs = NULL;
		buf_head(t); /* empty: its thread flushed it */
		thread_bounds(t);
		pthread_setspecific(thread_key, t);
		return t;
	}
	t = state_map();
	if (!t)
		return NULL;
	t->tid = (uint32_t)gettid();
	thread_bounds(t);
	flush_locked(t);
	t->next = atomic_load(&threads);
	while (!atomic_compare_exchange_weak(&threads, &t->next, t))
		;
	pthread_setspecific(thread_key, t);
	return t;
}
/* ---- fork, signals, start ---- */

/* The child's state leaves the parent's live file: the other threads'
 * states go (their threads are not in the child), and its own is copied
 * to memory of its own until the child's live file has a slot for it.
 * Returns the state, NULL when it could not be copied. */
static struct tstate *child_states(struct tstate *t)
{
	struct tstate *next;
	void *own;

	for (struct tstate *s = atomic_load(&threads); s; s = next) {
		next = s->next;
		if (s != t)
			munmap(s, slot_bytes());
	}
	atomic_store(&threads, NULL);
	close(live_fd);
	live_fd = -1;
	live_slots = 0;
	atomic_flag_clear(&live_busy);
	if (!t)
		return NULL;
	own = mmap(NULL, slot_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own != MAP_FAILED && state_move(t, own))
		return t;
	/* Still the parent's slot: this process must leave it alone. */
	pthread_setspecific(thread_key, NULL);
	vmem_self = NULL;
	return NULL;
}

/* The child: one thread (ours), a file of its own, a table of its own so
 * its file defines every stack it uses. */
static void child_after_fork(void)
{
	struct tstate *t = vmem_self;
	void *slot;

	if (atomic_load(&vmem_state) != ST_ON)
		return;
	t = child_states(t);
	vmem_objs_after_fork();
	close(out_fd);
	out_fd = -1;
	vmem_table = table_new();
	atomic_store(&vmem_next_stack, 1);
	if (t) {
		t->tid = (uint32_t)gettid();
		t->next = NULL;
		memset(t->callers, 0, sizeof(t->callers));
		t->memo_objs = NULL; /* their stack ids were the parent's */
		atomic_store(&t->busy, 0);
		flush_locked(t); /* drops the parent's events: the parent writes them */
		t->len = VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD;
		atomic_store(&threads, t);
	}
	if (open_output() < 0 || !vmem_table) {
		atomic_store(&vmem_state, ST_DONE);
		return;
	}
	if (t && (slot = live_slot()) != NULL)
		state_move(t, slot);
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS,  SIGABRT, SIGFPE, SIGILL, SIGTRAP,
				    SIGSYS,  SIGTERM, SIGINT,  SIGHUP, SIGQUIT};

static void on_fatal(int sig)
{
	vmem_guard++;
	finish(VMEM_END_SIGNAL, sig);
	signal(sig, SIG_DFL);
	raise(sig);
	vmem_guard--;
}

/* Our handler only where the program had the default: a handler of its
 * own, installed later, replaces ours and is left alone. */
static void install_signals(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal;
		sa.sa_flags = SA_NODEFER | SA_RESETHAND;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

#define RESOLVE(name) vmem_real.name = (__typeof__(vmem_real.name))dlsym(RTLD_NEXT, #name)

static void resolve(void)
{
	RESOLVE(malloc);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(free);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	RESOLVE(reallocarray);
	RESOLVE(execve);
	RESOLVE(execvp);
	RESOLVE(execvpe);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	vmem_real.exit_ = (__typeof__(vmem_real.exit_))dlsym(RTLD_NEXT, "_exit");
	vmem_real.Exit_ = (__typeof__(vmem_real.Exit_))dlsym(RTLD_NEXT, "_Exit");
}

/* Runs once, at the first allocation (often before any constructor). */
void vmem_start(void)
{
	int expect = ST_OFF;

	if (!atomic_compare_exchange_strong(&vmem_state, &expect, ST_INIT))
		return;
	vmem_initialising = true;
	vmem_guard++;
	resolve();
	map_clock();
	vmem_table = table_new();
	if (!vmem_table || pthread_key_create(&thread_key, thread_gone) != 0 || open_output() < 0) {
		atomic_store(&vmem_state, ST_DONE);
	} else {
		pthread_atfork(NULL, NULL, child_after_fork);
		install_signals();
		atomic_store(&vmem_state, ST_ON);
	}
	vmem_guard--;
	vmem_initialising = false;
}

/* libunwind is opened here, once the C library is whole, rather than in
 * the first malloc (which may come before); the events before use frame
 * pointers. */
__attribute__((constructor)) static void on_load(void)
{
	vmem_start();
	if (atomic_load(&vmem_state) != ST_ON)
		return;
	vmem_guard++;
	vmem_objs_refresh(true);
	load_unwinder();
	vmem_guard--;
}

__attribute__((destructor)) static void on_unload(void)
{
	finish(VMEM_END_EXIT, 0);
}
/* ---- what the process-end and exec wrappers (memory_exec.c) need ---- */

/* A child of vfork shares our memory until it calls exec or _exit, which
 * no fork handler announces: the state it would change is the parent's. */
bool vmem_vfork_child(void)
{
	return owner != 0 && getpid() != owner;
}

void vmem_finish_exit(void)
{
	finish(VMEM_END__EXIT, 0);
}

/* The new image opens a file of its own; what we buffered goes first. */
void vmem_before_exec(void)
{
	finish(VMEM_END_EXEC, 0);
}

/* A failed exec carries on recording into a new file. */
void vmem_after_failed_exec(void)
{
	int expect = ST_DONE;

	if (atomic_compare_exchange_strong(&vmem_state, &expect, ST_ON) && open_output() < 0)
		atomic_store(&vmem_state, ST_DONE);
}
