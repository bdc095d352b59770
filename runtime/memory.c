/*
 * libveles-memory.so: loaded with LD_PRELOAD by `veles collect memory`, it
 * records every allocation and release of the program with its call stack
 * (docs/collect-memory.md, format in docs/memory-format.md).
 *
 * Cost is the point: an event is a frame-pointer walk, a hash of the
 * frames, one lookup in a lock-free table of stacks, and a few varints
 * appended to the thread's own buffer. Buffers go to the output file with
 * one write() each when full, so a crash loses at most the last buffer of
 * each thread, and at exit, _exit, exec and fatal signals.
 *
 * Nothing here may allocate through malloc: thread state, the stack table
 * and the buffers are mmap'd, and the C library functions we call either
 * do not allocate or run under the recursion guard, which sends any
 * allocation they make straight to the real allocator unrecorded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "memformat.h"
#include "memory_priv.h"

#define TLS __thread __attribute__((tls_model("initial-exec")))
#define BUF_SIZE (64 * 1024)
#define BUF_SLACK (24 + 10 * (VMEM_MAX_FRAMES + 3)) /* the largest record pair */
#define TABLE_BITS 20
#define TABLE_PROBES 64
#define BOOT_ARENA (64 * 1024)

/* ---- the real allocator ---- */

struct real_fns vmem_real;

/* dlsym() may allocate (its error buffer) before malloc is resolved: it
 * gets memory from this arena, which free() recognises and ignores. */
static _Alignas(64) unsigned char boot_arena[BOOT_ARENA];
static _Atomic size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t used = atomic_load(&boot_used), at;

	do {
		at = (used + 15) & ~(size_t)15;
		if (n > BOOT_ARENA - at)
			return NULL;
	} while (!atomic_compare_exchange_weak(&boot_used, &used, at + n));
	return boot_arena + at;
}

static bool in_boot(const void *p)
{
	return (const unsigned char *)p >= boot_arena &&
	       (const unsigned char *)p < boot_arena + BOOT_ARENA;
}

/* ---- state ---- */

/* Releases record one frame: most come from few places, and a small
 * direct-mapped cache per thread finds their ids without hashing. */
#define CALLER_CACHE 256
struct caller {
	uintptr_t pc;
	uint32_t id;
};

struct tstate {
	atomic_int busy;	/* set while the owner appends or anyone flushes: lock() */
	volatile bool flushing; /* inside flush_locked */
	atomic_bool spare;	/* its thread has ended: thread_new may take it */
	uint32_t tid;
	size_t len; /* bytes used in buf, headers included */
	uint64_t base_ns, last_ns;
	uintptr_t last_addr;
	uint32_t last_id[2]; /* the block's last stack id of allocations, of releases */
	uintptr_t stack_lo, stack_hi;
	struct tstate *next;
	struct caller callers[CALLER_CACHE]; /* a release's caller -> its stack id */
	unsigned char buf[BUF_SIZE];
};

struct slot {
	_Atomic uint64_t key;
	_Atomic uint32_t id;
};

enum { ST_OFF, ST_INIT, ST_ON, ST_DONE };
static atomic_int state = ST_OFF;
static int out_fd = -1;
static struct slot *table;
static atomic_uint next_stack = 1;
static _Atomic(struct tstate *) threads;
static pthread_key_t thread_key;
static uint64_t start_ns;
static pid_t owner;	 /* the process the output belongs to */
static bool free_stacks; /* VELES_MEMORY_FREE_STACKS=1: whole stacks for releases too */

static TLS struct tstate *self;
static TLS int guard; /* > 0: inside our own code, record nothing */
static TLS bool initialising;

static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Even the coarse clock costs 6 ns through the vDSO, a tenth of a malloc;
 * a thread of our own to read it would cost more, since glibc's malloc
 * takes its locks once a process has a second thread. `collect memory`
 * keeps CLOCK_MONOTONIC in a shared page (VELES_MEMORY_CLOCK) instead,
 * stored every 2 ms, and an event reads one word: snapshots are
 * tens of milliseconds long. Without the page, events read the clock.
 */
static const _Atomic uint64_t *shared_clock;

static inline uint64_t now_ns(void)
{
	if (__builtin_expect(shared_clock != NULL, 1))
		return atomic_load_explicit(shared_clock, memory_order_relaxed);
	return clock_ns();
}

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
		shared_clock = p;
}

/*
 * Code without frame pointers: libunwind's unw_backtrace reads the DWARF
 * unwind tables (VELES_MEMORY_UNWIND=libunwind, which `collect memory` sets
 * for such a program). It is opened with dlopen at start, so that programs
 * with frame pointers never load it and its liblzma. Its frames start in
 * our own code: they are taken from the caller's return address on, which
 * the interposed function's frame gives exactly.
 */
static int (*unwinder)(void **, int);

static void load_unwinder(void)
{
	const char *mode = getenv("VELES_MEMORY_UNWIND");
	void *h;

	if (!mode || strcmp(mode, "libunwind") != 0)
		return;
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&unwinder = dlsym(h, "unw_backtrace");
}

/* ---- output ---- */

static void write_all(const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len > 0 && out_fd >= 0) {
		ssize_t n = write(out_fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void write_block(int kind, const void *data, size_t len)
{
	unsigned char head[VMEM_BLOCK_HEAD];

	head[0] = (unsigned char)kind;
	put_u32(head + 1, (uint32_t)len);
	write_all(head, sizeof(head));
	write_all(data, len);
}

/* Empties @t into the file; the caller holds t->busy. */
static void flush_locked(struct tstate *t)
{
	t->flushing = true;
	atomic_signal_fence(memory_order_seq_cst);
	if (t->len > VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD) {
		t->buf[0] = VMEM_BLOCK_EVENTS;
		put_u32(t->buf + 1, (uint32_t)(t->len - VMEM_BLOCK_HEAD));
		put_u32(t->buf + 5, t->tid);
		put_u64(t->buf + 9, t->base_ns);
		write_all(t->buf, t->len);
	}
	t->len = VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD;
	t->base_ns = t->last_ns = now_ns();
	t->last_addr = 0;
	t->last_id[0] = t->last_id[1] = 0;
	atomic_signal_fence(memory_order_seq_cst);
	t->flushing = false;
}

/* The owner's flush, with signals held off: a fatal signal's handler
 * cannot tell whether an interrupted write went out (flush_committed). */
static __attribute__((noinline, cold)) void flush_owned(struct tstate *t)
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
	t->buf[0] = VMEM_BLOCK_EVENTS;
	put_u32(t->buf + 1, (uint32_t)(len - VMEM_BLOCK_HEAD));
	put_u32(t->buf + 5, t->tid);
	put_u64(t->buf + 9, t->base_ns);
	write_all(t->buf, len);
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

/* The maps let the reader find which file each return address is in. */
static void write_maps(void)
{
	static char text[256 * 1024];
	size_t len = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
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

	if (!atomic_compare_exchange_strong(&state, &expect, ST_DONE))
		return;
	flush_all(how != VMEM_END_EXEC);
	write_maps();
	write_end(how, sig);
	close(out_fd);
	out_fd = -1;
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
	free_stacks = fs && *fs == '1';
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

/* ---- threads ---- */

/*
 * The owner marks its buffer busy with plain stores: an atomic exchange on
 * every event cost more than the rest of the recording. Within the thread
 * (a signal handler) the mark is exact; another thread flushing at exit
 * or on a fatal signal takes the buffer with a compare-and-swap and may,
 * in a narrow window, race with an owner still running: the process is
 * ending then, and the reader drops a block that does not decode.
 */
static void lock(struct tstate *t)
{
	atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
}

static void unlock(struct tstate *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

static void thread_gone(void *arg)
{
	struct tstate *t = arg;

	lock(t);
	flush_owned(t);
	unlock(t);
	/* A destructor run after ours that allocates takes a state again, and
	 * gives it back when its key's destructor runs once more. */
	self = NULL;
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

static struct tstate *thread_new(void)
{
	struct tstate *t = thread_reuse();

	if (t) {
		/* Stack ids are the process's: the callers cache stays right. */
		t->tid = (uint32_t)gettid();
		t->stack_lo = t->stack_hi = 0;
		thread_bounds(t);
		pthread_setspecific(thread_key, t);
		return t;
	}
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
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

/* The child: one thread (ours), a file of its own, a table of its own so
 * its file defines every stack it uses. */
static void child_after_fork(void)
{
	struct tstate *t = self;

	if (atomic_load(&state) != ST_ON)
		return;
	close(out_fd);
	out_fd = -1;
	table = table_new();
	atomic_store(&next_stack, 1);
	atomic_store(&threads, NULL);
	if (t) {
		t->tid = (uint32_t)gettid();
		t->next = NULL;
		memset(t->callers, 0, sizeof(t->callers));
		atomic_store(&t->busy, 0);
		flush_locked(t); /* drops the parent's events: the parent writes them */
		t->len = VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD;
		atomic_store(&threads, t);
	}
	if (open_output() < 0 || !table)
		atomic_store(&state, ST_DONE);
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS,  SIGABRT, SIGFPE, SIGILL, SIGTRAP,
				    SIGSYS,  SIGTERM, SIGINT,  SIGHUP, SIGQUIT};

static void on_fatal(int sig)
{
	guard++;
	finish(VMEM_END_SIGNAL, sig);
	signal(sig, SIG_DFL);
	raise(sig);
	guard--;
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
	vmem_real.exit_ = (__typeof__(vmem_real.exit_))dlsym(RTLD_NEXT, "_exit");
	vmem_real.Exit_ = (__typeof__(vmem_real.Exit_))dlsym(RTLD_NEXT, "_Exit");
}

/* Runs once, at the first allocation (often before any constructor). */
void vmem_start(void)
{
	int expect = ST_OFF;

	if (!atomic_compare_exchange_strong(&state, &expect, ST_INIT))
		return;
	initialising = true;
	guard++;
	resolve();
	map_clock();
	table = table_new();
	if (!table || pthread_key_create(&thread_key, thread_gone) != 0 || open_output() < 0) {
		atomic_store(&state, ST_DONE);
	} else {
		pthread_atfork(NULL, NULL, child_after_fork);
		install_signals();
		atomic_store(&state, ST_ON);
	}
	guard--;
	initialising = false;
}

/* libunwind is opened here, once the C library is whole, rather than in
 * the first malloc (which may come before); the events before use frame
 * pointers. */
__attribute__((constructor)) static void on_load(void)
{
	vmem_start();
	if (atomic_load(&state) != ST_ON)
		return;
	guard++;
	load_unwinder();
	guard--;
}

__attribute__((destructor)) static void on_unload(void)
{
	finish(VMEM_END_EXIT, 0);
}

/* ---- recording ---- */

#define HOT static inline __attribute__((always_inline))

/*
 * A prefix varint (docs/memory-format.md): the count of bytes is in the
 * first byte's low bits, so a number costs a count of its bits, a shift
 * and one unaligned word store, with no loop whose varying exit would
 * mispredict. The buffer's slack has room for the bytes past the end.
 * varint_bytes[i] is the length of a number below 2^56 with i leading zero
 * bits: a division by 7 costs more than the lookup.
 */
static const unsigned char varint_bytes[64] = {
	9, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7, 7, 7, 7, 7, 7, 7,
	6, 6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3,
	3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};

HOT size_t put_varint(unsigned char *p, uint64_t v)
{
	uint64_t word;
	unsigned n;

	if (__builtin_expect(v >> 56, 0)) {
		p[0] = 0xff;
		put_u64(p + 1, v);
		return 9;
	}
	n = varint_bytes[__builtin_clzll(v | 1)];
	word = (v << n) | (((uint64_t)1 << (n - 1)) - 1);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &word, sizeof(word));
#else
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(word >> (8 * i));
#endif
	return n;
}

static inline uint64_t zigzag(uintptr_t a, uintptr_t b)
{
	int64_t d = (int64_t)(a - b);

	return ((uint64_t)d << 1) ^ (d < 0 ? UINT64_MAX : 0);
}

/* One multiply-add per frame during the walk; this spreads the bits over
 * the table. Never 0: that marks an empty slot. */
static inline uint64_t hash_final(uint64_t h, int n)
{
	h ^= (uint64_t)n;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 32;
	return h ? h : 1;
}

/*
 * Return addresses by frame pointers, from the interposed function's caller
 * outwards, hashing them on the way: @fp is the interposed function's frame.
 * A frame pointer must lie above the previous one and inside this thread's
 * stack, so a frame compiled without frame pointers ends the walk rather
 * than sending it into unmapped memory.
 */
static inline __attribute__((always_inline)) int walk(const struct tstate *t, uintptr_t *fp,
						      uintptr_t *pc, uint64_t *hash)
{
	uintptr_t hi = t->stack_hi - 16;
	uint64_t h = 0;
	int n = 0;

	if ((uintptr_t)fp < t->stack_lo)
		fp = (uintptr_t *)(hi + 1);
	while (n < VMEM_MAX_FRAMES && (uintptr_t)fp <= hi && !((uintptr_t)fp & 7)) {
		uintptr_t *next = (uintptr_t *)fp[0];
		uintptr_t ret = fp[1];

		if (ret < 4096)
			break;
		pc[n++] = ret;
		h = (h + ret) * 0x9e3779b97f4a7c15u;
		if (next <= fp)
			break;
		fp = next;
	}
	*hash = hash_final(h, n);
	return n;
}

#define UNWIND_OWN 8 /* our frames above the caller's, at most */

static int unwind(const struct tstate *t, uintptr_t *fp, uintptr_t *pc, uint64_t *hash)
{
	void *ip[VMEM_MAX_FRAMES + UNWIND_OWN];
	uintptr_t first;
	uint64_t h = 0;
	int m, k = 0, n = 0;

	if ((uintptr_t)fp < t->stack_lo || (uintptr_t)fp + 16 > t->stack_hi)
		return walk(t, fp, pc, hash);
	first = fp[1];
	m = unwinder(ip, VMEM_MAX_FRAMES + UNWIND_OWN);
	while (k < m && k < UNWIND_OWN && (uintptr_t)ip[k] != first)
		k++;
	if (k == m || (uintptr_t)ip[k] != first)
		return walk(t, fp, pc, hash);
	for (; k < m && n < VMEM_MAX_FRAMES; k++) {
		pc[n++] = (uintptr_t)ip[k];
		h = (h + (uintptr_t)ip[k]) * 0x9e3779b97f4a7c15u;
	}
	*hash = hash_final(h, n);
	return n;
}

static void put_stack(struct tstate *t, uint32_t id, const uintptr_t *pc, int n)
{
	unsigned char *p = t->buf + t->len;
	uintptr_t prev = 0;

	*p++ = VMEM_STACK;
	p += put_varint(p, id);
	p += put_varint(p, (uint64_t)n);
	for (int i = 0; i < n; i++) {
		p += put_varint(p, zigzag(pc[i], prev));
		prev = pc[i];
	}
	atomic_signal_fence(memory_order_release);
	t->len = (size_t)(p - t->buf);
}

/* The id of the stack hashed @h, defining it in @t's buffer on its first
 * use anywhere; 0 when the table is full (the event then has no stack). */
static uint32_t stack_id_probe(struct tstate *t, uint64_t h, const uintptr_t *pc, int n)
{
	size_t mask = ((size_t)1 << TABLE_BITS) - 1;

	for (size_t i = h & mask, probe = 0; probe < TABLE_PROBES; i = (i + 1) & mask, probe++) {
		struct slot *s = &table[i];
		uint64_t key = atomic_load_explicit(&s->key, memory_order_acquire);
		uint32_t id;

		if (key == 0 && atomic_compare_exchange_strong(&s->key, &key, h)) {
			id = atomic_fetch_add(&next_stack, 1);
			put_stack(t, id, pc, n);
			atomic_store_explicit(&s->id, id, memory_order_release);
			return id;
		}
		if (key != h)
			continue;
		while ((id = atomic_load_explicit(&s->id, memory_order_acquire)) == 0)
			;
		return id;
	}
	return 0;
}

/* Most stacks are found at their first slot, with two loads. */
HOT uint32_t stack_id(struct tstate *t, uint64_t h, const uintptr_t *pc, int n)
{
	struct slot *s = &table[h & (((size_t)1 << TABLE_BITS) - 1)];

	if (atomic_load_explicit(&s->key, memory_order_acquire) == h) {
		uint32_t id = atomic_load_explicit(&s->id, memory_order_acquire);

		if (id)
			return id;
	}
	return stack_id_probe(t, h, pc, n);
}

/* A release's one frame, through the thread's cache of callers. */
HOT uint32_t caller_id(struct tstate *t, uintptr_t pc)
{
	struct caller *c = &t->callers[(pc ^ (pc >> 8)) & (CALLER_CACHE - 1)];
	uint64_t h;

	if (c->pc == pc && c->id)
		return c->id;
	h = hash_final((0 + pc) * 0x9e3779b97f4a7c15u, 1);
	c->id = stack_id(t, h, &pc, 1);
	c->pc = pc;
	return c->id;
}

HOT struct tstate *thread_state(void)
{
	if (!self && atomic_load(&state) == ST_ON)
		self = thread_new();
	return self;
}

/* The thread's buffer with room for one more event and its stack, or NULL
 * when not recording. Takes the buffer (lock) and the guard. */
HOT struct tstate *begin(void)
{
	struct tstate *t;

	guard++;
	t = thread_state(); /* the caller saw the state on: recording() */
	if (!t) {
		guard--;
		return NULL;
	}
	lock(t);
	if (__builtin_expect(t->len + BUF_SLACK > BUF_SIZE, 0))
		flush_owned(t);
	return t;
}

static inline void end(struct tstate *t, unsigned char *p, uintptr_t addr)
{
	t->last_addr = addr;
	/* The record is whole before len covers it (flush_committed). */
	atomic_signal_fence(memory_order_release);
	t->len = (size_t)(p - t->buf);
	unlock(t);
	guard--;
}

static inline bool is_release(int kind)
{
	return kind == VMEM_FREE || kind == VMEM_DELETE || kind == VMEM_DELETE_ARRAY;
}

/* The event's first bytes: kind and flags, time, stack id, address. */
HOT unsigned char *put_head(struct tstate *t, int kind, uint32_t id, uintptr_t addr)
{
	unsigned char *p = t->buf + t->len;
	uint64_t now = now_ns();
	int64_t diff = (int64_t)(addr - t->last_addr);
	unsigned char head = (unsigned char)kind;
	uint32_t *last_id = &t->last_id[is_release(kind)];

	if (now > t->last_ns)
		head |= VMEM_F_TIME;
	/* Allocators hand out 16-byte aligned blocks: drop the zero bits. */
	if (((addr | t->last_addr) & 15) == 0) {
		head |= VMEM_F_ADDR16;
		diff >>= 4; /* exact: both are multiples of 16 */
	}
	/* Runs of releases from one place are common: their id goes once. */
	if (id == *last_id)
		head |= VMEM_F_SAME;
	*p++ = head;
	if (head & VMEM_F_TIME) {
		p += put_varint(p, now - t->last_ns);
		t->last_ns = now;
	}
	if (id != *last_id) {
		/* A program's first 127 stacks take one byte, and most use fewer. */
		if (__builtin_expect(id < 128, 1))
			*p++ = (unsigned char)(id << 1);
		else
			p += put_varint(p, id);
		*last_id = id;
	}
	p += put_varint(p, ((uint64_t)diff << 1) ^ (diff < 0 ? UINT64_MAX : 0));
	return p;
}

/* The interposed function's frame: our own frame's link (we are called
 * from it, never inlined into it). */
#define CALLER_FRAME() (*(uintptr_t **)__builtin_frame_address(0))

/* An allocation (or a release with its whole stack); @old is the released
 * address of a realloc. */
HOT void put_alloc(uintptr_t *fp, int kind, const void *addr, size_t size, const void *old)
{
	uintptr_t pc[VMEM_MAX_FRAMES];
	struct tstate *t = begin();
	unsigned char *p;
	uint64_t h;
	int n;

	if (!t)
		return;
	n = __builtin_expect(unwinder != NULL, 0) ? unwind(t, fp, pc, &h) : walk(t, fp, pc, &h);
	p = put_head(t, kind, stack_id(t, h, pc, n), (uintptr_t)addr);
	if (!is_release(kind))
		p += put_varint(p, size);
	if (kind == VMEM_REALLOC || kind == VMEM_REALLOCARRAY)
		p += put_varint(p, zigzag((uintptr_t)old, (uintptr_t)addr));
	end(t, p, (uintptr_t)addr);
}

__attribute__((noinline)) static void record_alloc(int kind, const void *addr, size_t size,
						   const void *old)
{
	put_alloc(CALLER_FRAME(), kind, addr, size, old);
}

/* A release keeps only its caller unless asked for more: its uid is that
 * caller, and walking half the events costs more than all the rest. */
HOT void put_release(uintptr_t *fp, int kind, const void *addr)
{
	struct tstate *t;
	uintptr_t pc;

	if (free_stacks) {
		put_alloc(fp, kind, addr, 0, NULL);
		return;
	}
	t = begin();
	if (!t)
		return;
	pc = (uintptr_t)fp >= t->stack_lo && (uintptr_t)fp + 16 <= t->stack_hi ? fp[1] : 0;
	end(t, put_head(t, kind, pc ? caller_id(t, pc) : 0, (uintptr_t)addr), (uintptr_t)addr);
}

__attribute__((noinline)) static void record_release(int kind, const void *addr)
{
	put_release(CALLER_FRAME(), kind, addr);
}

static inline bool recording(void)
{
	if (__builtin_expect(atomic_load_explicit(&state, memory_order_relaxed) == ST_OFF, 0))
		vmem_start();
	return guard == 0 && atomic_load_explicit(&state, memory_order_relaxed) == ST_ON;
}

/* ---- the C allocator ---- */

EXPORT void *malloc(size_t size)
{
	void *p;

	if (__builtin_expect(!vmem_real.malloc, 0)) {
		if (initialising)
			return boot_alloc(size);
		vmem_start();
		if (!vmem_real.malloc)
			return boot_alloc(size);
	}
	if (!recording())
		return vmem_real.malloc(size);
	p = vmem_real.malloc(size);
	/* malloc and free, most of the events, record inline: their own frame
	 * is the interposed function's frame. */
	if (p)
		put_alloc(__builtin_frame_address(0), VMEM_MALLOC, p, size, NULL);
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!vmem_real.free)
		vmem_start();
	if (recording())
		put_release(__builtin_frame_address(0), VMEM_FREE, p);
	vmem_real.free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (__builtin_expect(!vmem_real.calloc, 0)) {
		/* The arena is static, hence zeroed. */
		if (size && n > SIZE_MAX / size)
			return NULL;
		if (initialising)
			return boot_alloc(n * size);
		vmem_start();
		if (!vmem_real.calloc)
			return boot_alloc(n * size);
	}
	if (!recording())
		return vmem_real.calloc(n, size);
	p = vmem_real.calloc(n, size);
	if (p)
		record_alloc(VMEM_CALLOC, p, n * size, NULL);
	return p;
}

/* A block of the arena moves to the real heap: its size is unknown, so
 * copy as much as can be there. */
static void *realloc_boot(void *old, size_t size)
{
	size_t room = (size_t)(boot_arena + BOOT_ARENA - (unsigned char *)old);
	void *p = malloc(size);

	if (p)
		memcpy(p, old, size < room ? size : room);
	return p;
}

EXPORT void *realloc(void *old, size_t size)
{
	void *p;

	if (old && in_boot(old))
		return realloc_boot(old, size);
	if (!vmem_real.realloc)
		vmem_start();
	if (!vmem_real.realloc)
		return NULL;
	if (!recording())
		return vmem_real.realloc(old, size);
	p = vmem_real.realloc(old, size);
	if (p || size == 0)
		record_alloc(VMEM_REALLOC, p, p ? size : 0, old);
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (old && in_boot(old))
		return size && n > SIZE_MAX / size ? NULL : realloc_boot(old, n * size);
	if (!vmem_real.reallocarray)
		vmem_start();
	if (!vmem_real.reallocarray)
		return NULL;
	if (!recording())
		return vmem_real.reallocarray(old, n, size);
	/* The C library's reallocarray calls realloc through the PLT, which
	 * would record the same event again. */
	guard++;
	p = vmem_real.reallocarray(old, n, size);
	guard--;
	/* A size of 0 frees, as realloc does; an overflow fails untouched. */
	if (p || (old && (n == 0 || size == 0)))
		record_alloc(VMEM_REALLOCARRAY, p, p ? n * size : 0, old);
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	int ret;

	if (!vmem_real.posix_memalign)
		vmem_start();
	if (!recording())
		return vmem_real.posix_memalign(out, align, size);
	guard++;
	ret = vmem_real.posix_memalign(out, align, size);
	guard--;
	if (ret == 0)
		record_alloc(VMEM_POSIX_MEMALIGN, *out, size, NULL);
	return ret;
}

/* aligned_alloc, memalign, valloc and pvalloc share one shape; the guard
 * keeps a C library that builds one on another from counting twice. */
#define ALIGNED(name, kind, params, args, size_expr)                                               \
	EXPORT void *name params                                                                   \
	{                                                                                          \
		void *p;                                                                           \
		if (!vmem_real.name)                                                               \
			vmem_start();                                                              \
		if (!recording())                                                                  \
			return vmem_real.name args;                                                \
		guard++;                                                                           \
		p = vmem_real.name args;                                                           \
		guard--;                                                                           \
		if (p)                                                                             \
			record_alloc(kind, p, size_expr, NULL);                                    \
		return p;                                                                          \
	}

ALIGNED(aligned_alloc, VMEM_ALIGNED_ALLOC, (size_t align, size_t size), (align, size), size)
ALIGNED(memalign, VMEM_MEMALIGN, (size_t align, size_t size), (align, size), size)
ALIGNED(valloc, VMEM_VALLOC, (size_t size), (size), size)
ALIGNED(pvalloc, VMEM_PVALLOC, (size_t size), (size), size)

/* ---- C++ operator new and delete (the Itanium ABI's mangled names) ----
 *
 * Each calls the C++ library's own operator under the guard, so bad_alloc,
 * the new-handler and nothrow keep their meaning and the malloc inside is
 * not counted twice.
 */
#define NEW(sym, kind, params, args, size)                                                         \
	EXPORT void *sym params                                                                    \
	{                                                                                          \
		static void *(*next)params;                                                        \
		void *p;                                                                           \
		if (!next)                                                                         \
			next = (void *(*)params)dlsym(RTLD_NEXT, #sym);                            \
		if (!recording())                                                                  \
			return next args;                                                          \
		guard++;                                                                           \
		p = next args;                                                                     \
		guard--;                                                                           \
		if (p)                                                                             \
			record_alloc(kind, p, size, NULL);                                         \
		return p;                                                                          \
	}

#define DELETE(sym, kind, params, args)                                                            \
	EXPORT void sym params                                                                     \
	{                                                                                          \
		static void(*next) params;                                                         \
		if (!next)                                                                         \
			next = (void(*) params)dlsym(RTLD_NEXT, #sym);                             \
		if (p && recording())                                                              \
			record_release(kind, p);                                                   \
		guard++;                                                                           \
		next args;                                                                         \
		guard--;                                                                           \
	}

/* Opaque stand-ins for std::align_val_t and const std::nothrow_t&. */
typedef size_t align_t;
typedef const void *nothrow_t;

NEW(_Znwm, VMEM_NEW, (size_t n), (n), n)
NEW(_Znam, VMEM_NEW_ARRAY, (size_t n), (n), n)
NEW(_ZnwmRKSt9nothrow_t, VMEM_NEW, (size_t n, nothrow_t t), (n, t), n)
NEW(_ZnamRKSt9nothrow_t, VMEM_NEW_ARRAY, (size_t n, nothrow_t t), (n, t), n)
NEW(_ZnwmSt11align_val_t, VMEM_NEW, (size_t n, align_t a), (n, a), n)
NEW(_ZnamSt11align_val_t, VMEM_NEW_ARRAY, (size_t n, align_t a), (n, a), n)
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, VMEM_NEW, (size_t n, align_t a, nothrow_t t), (n, a, t), n)
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, VMEM_NEW_ARRAY, (size_t n, align_t a, nothrow_t t),
    (n, a, t), n)

DELETE(_ZdlPv, VMEM_DELETE, (void *p), (p))
DELETE(_ZdaPv, VMEM_DELETE_ARRAY, (void *p), (p))
DELETE(_ZdlPvm, VMEM_DELETE, (void *p, size_t n), (p, n))
DELETE(_ZdaPvm, VMEM_DELETE_ARRAY, (void *p, size_t n), (p, n))
DELETE(_ZdlPvRKSt9nothrow_t, VMEM_DELETE, (void *p, nothrow_t t), (p, t))
DELETE(_ZdaPvRKSt9nothrow_t, VMEM_DELETE_ARRAY, (void *p, nothrow_t t), (p, t))
DELETE(_ZdlPvSt11align_val_t, VMEM_DELETE, (void *p, align_t a), (p, a))
DELETE(_ZdaPvSt11align_val_t, VMEM_DELETE_ARRAY, (void *p, align_t a), (p, a))
DELETE(_ZdlPvmSt11align_val_t, VMEM_DELETE, (void *p, size_t n, align_t a), (p, n, a))
DELETE(_ZdaPvmSt11align_val_t, VMEM_DELETE_ARRAY, (void *p, size_t n, align_t a), (p, n, a))
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, VMEM_DELETE, (void *p, align_t a, nothrow_t t),
       (p, a, t))
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, VMEM_DELETE_ARRAY, (void *p, align_t a, nothrow_t t),
       (p, a, t))

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

	if (atomic_compare_exchange_strong(&state, &expect, ST_ON) && open_output() < 0)
		atomic_store(&state, ST_DONE);
}
