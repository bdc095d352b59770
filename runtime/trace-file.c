/*
 * The trace runtime's files (docs/trace-format.md): each thread's file,
 * whose start (its state, and its record buffers or its sums) is mapped
 * shared, and each process's PID.meta, written when the process starts
 * and added to as it loads objects and when it exits. Nothing here waits
 * for the end of the process to write what was recorded: a process killed
 * outright leaves it all.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "trace-priv.h"

char vt_dir[4096] HIDDEN;
uint64_t vt_tsc_start HIDDEN;
struct timespec vt_ts_start HIDDEN;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* ---- writing ---- */

static NOINSTR void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		c += w;
		n -= (size_t)w;
	}
}

/*
 * fprintf to a file descriptor through a buffer on the stack: the meta
 * file is written from hooks that may run in a signal handler, where
 * stdio and malloc may hold the lock the interrupted code took.
 */
static NOINSTR __attribute__((format(printf, 2, 3))) void fd_printf(int fd, const char *fmt, ...)
{
	char line[4096 + 256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		write_all(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* PID.meta: the process's own (a forked child writes its own). */
static NOINSTR int open_meta(int flags)
{
	char path[sizeof(vt_dir) + 64];

	snprintf(path, sizeof(path), "%s/%d.meta", vt_dir, (int)getpid());
	return open(path, flags | O_CLOEXEC, 0644);
}

static NOINSTR int open_in_dir(const char *name, int flags)
{
	char path[sizeof(vt_dir) + 64];

	snprintf(path, sizeof(path), "%s/%s", vt_dir, name);
	return open(path, flags | O_CLOEXEC, 0644);
}

static NOINSTR void unlink_in_dir(const char *name)
{
	char path[sizeof(vt_dir) + 64];

	snprintf(path, sizeof(path), "%s/%s", vt_dir, name);
	unlink(path);
}

/* ---- PID.meta ---- */

/* The executable segments listed in the meta file so far. */
struct range {
	uintptr_t lo, hi;
};
static struct range *ranges;
static size_t nranges, ranges_cap;
static int ranges_busy;

static NOINSTR bool listed(uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < nranges; i++)
		if (ranges[i].lo == lo && ranges[i].hi == hi)
			return true;
	return false;
}

/* One "object" line per executable segment not listed yet. */
static NOINSTR int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	int fd = *(int *)arg;
	char exe[4096];
	const char *name = info->dlpi_name;

	(void)size;
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return 0;
		exe[n] = '\0';
		name = exe;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || listed(lo, hi))
			continue;
		if (nranges == ranges_cap) {
			size_t cap = ranges_cap ? ranges_cap * 2 : 64;
			struct range *r = realloc(ranges, cap * sizeof(*r));

			if (!r)
				return 1;
			ranges = r;
			ranges_cap = cap;
		}
		ranges[nranges++] = (struct range){lo, hi};
		fd_printf(fd, "object %#lx %#lx %#lx %s\n", (unsigned long)info->dlpi_addr,
			  (unsigned long)lo, (unsigned long)hi, name);
	}
	return 0;
}

static NOINSTR void list_objects(int fd)
{
	dl_iterate_phdr(add_object, &fd);
}

/*
 * The objects the process loaded after it started (dlopen), the first
 * time a thread defines a function outside those listed: a process killed
 * later has them in its meta file all the same.
 */
NOINSTR void vt_note_address(uintptr_t a)
{
	int fd;

	if (__atomic_exchange_n(&ranges_busy, 1, __ATOMIC_ACQUIRE))
		return; /* another thread lists them now */
	for (size_t i = 0; i < nranges; i++)
		if (a >= ranges[i].lo && a < ranges[i].hi)
			goto out;
	fd = open_meta(O_WRONLY | O_APPEND);
	if (fd >= 0) {
		list_objects(fd);
		close(fd);
	}
out:
	__atomic_store_n(&ranges_busy, 0, __ATOMIC_RELEASE);
}

/* PID.meta as the process (or a forked child) starts: the counter and the
 * clock then, and the objects loaded. */
NOINSTR void vt_meta_start(bool aggregate)
{
	int fd = open_meta(O_WRONLY | O_CREAT | O_TRUNC);

	if (fd < 0)
		return;
	fd_printf(fd, "veles-trace %d\npid %d\nmode %s\n", VTR_VERSION, (int)getpid(),
		  aggregate ? "aggregate" : "records");
	fd_printf(fd, "start %lu %ld.%09ld\n", (unsigned long)vt_tsc_start,
		  (long)vt_ts_start.tv_sec, vt_ts_start.tv_nsec);
	/* One thread only, here: at the start, or in a forked child, whose
	 * copy of the flag may be set by a parent thread that did not come. */
	__atomic_store_n(&ranges_busy, 1, __ATOMIC_RELAXED);
	nranges = 0;
	list_objects(fd);
	__atomic_store_n(&ranges_busy, 0, __ATOMIC_RELEASE);
	close(fd);
}

static NOINSTR double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* At exit: the counter's calibration over the run. A process that never
 * exits has none, and the collector calibrates it itself. */
NOINSTR void vt_meta_end(void)
{
	struct timespec now;
	uint64_t tsc;
	int fd;

	/* A millisecond at least between the two readings keeps the rate
	 * within a part in a thousand even for a program that ran for less. */
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
		tsc = __rdtsc();
	} while (seconds_between(&vt_ts_start, &now) < 1e-3);
	fd = open_meta(O_WRONLY | O_APPEND);
	if (fd < 0)
		return;
	fd_printf(fd, "clock %lu %ld.%09ld %lu %ld.%09ld\n", (unsigned long)vt_tsc_start,
		  (long)vt_ts_start.tv_sec, vt_ts_start.tv_nsec, (unsigned long)tsc,
		  (long)now.tv_sec, now.tv_nsec);
	close(fd);
}

/* ---- threads' files ---- */

static NOINSTR size_t page_size(void)
{
	static size_t page;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	return page;
}

/*
 * The file is still the one opened: a program may close every descriptor
 * (a daemon) or dup2 another file onto ours, which must not grow. Opened
 * again by name when it is not.
 */
static NOINSTR int own_fd(struct tbuf *b)
{
	struct stat st;

	if (b->fd >= 0 && fstat(b->fd, &st) == 0 && (uint64_t)st.st_dev == b->dev &&
	    (uint64_t)st.st_ino == b->ino)
		return b->fd;
	b->fd = open_in_dir(b->name, O_RDWR);
	if (b->fd >= 0 && (fstat(b->fd, &st) < 0 || (uint64_t)st.st_dev != b->dev ||
			   (uint64_t)st.st_ino != b->ino)) {
		close(b->fd);
		b->fd = -1;
	}
	return b->fd;
}

/* Bytes [@at, @at + @len) of @fd allocated (so a full disk is an error
 * here, not a SIGBUS when the page is first written). */
static NOINSTR int grow_file(int fd, size_t at, size_t len)
{
	int r = fallocate(fd, 0, (off_t)at, (off_t)len);

	if (r < 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
		r = ftruncate(fd, (off_t)(at + len));
	return r;
}

/* Pages in at once, rather than one fault each as the hooks reach them. */
static NOINSTR void populate(void *p, size_t len)
{
	madvise(p, len, MADV_POPULATE_WRITE);
}

/* Address space for one thread's sums: far more than it will use, never
 * more than a sixteenth of what RLIMIT_AS leaves the process. */
static NOINSTR size_t reservation(void)
{
	size_t want = (size_t)1 << 30;
	struct rlimit r;

	if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && want > r.rlim_cur / 16)
		want = r.rlim_cur / 16;
	return want & ~(page_size() - 1);
}

static NOINSTR size_t pages(size_t n)
{
	return (n + page_size() - 1) & ~(page_size() - 1);
}

/*
 * Makes the thread's file @name and maps it: records, the state and the
 * two buffers; sums, the state and a first chunk, in a reservation to
 * grow in. The tbuf at its start is zero (a new file), the header filled.
 * NULL when it cannot.
 */
NOINSTR struct tbuf *vt_map_thread(const char *name, bool aggregate, pid_t tid)
{
	size_t head = pages(sizeof(struct tbuf)), bufs = pages((BUF_WORDS + BUF_SLACK) * 4);
	size_t size = aggregate ? head + CHUNK_BYTES : head + 2 * bufs;
	size_t len = aggregate ? reservation() : size;
	int fd = open_in_dir(name, O_RDWR | O_CREAT | O_TRUNC);
	void *p = MAP_FAILED;
	struct tbuf *b;
	struct stat st;

	if (fd < 0)
		return NULL;
	if (grow_file(fd, 0, size) < 0 || fstat(fd, &st) < 0) {
		close(fd);
		unlink_in_dir(name);
		return NULL;
	}
	/* Less when the address space is short (many threads, a limit). */
	while (len >= size && (p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_NORESERVE, fd, 0)) == MAP_FAILED)
		len = (len / 4) & ~(page_size() - 1);
	if (p == MAP_FAILED) {
		close(fd);
		unlink_in_dir(name);
		return NULL;
	}
	populate(p, size);
	b = p;
	b->h = (struct vtr_header){.magic = aggregate ? VTA_MAGIC : VTR_MAGIC,
				   .version = VTR_VERSION,
				   .pid = (uint32_t)getpid(),
				   .tid = (uint32_t)tid,
				   .tsc0 = __rdtsc(),
				   .data = aggregate ? head : size,
				   .base = (uint64_t)(uintptr_t)p};
	if (!aggregate) {
		/* Buffer 0 fills first; 1 is held, empty. */
		b->h.buf[0] = head;
		b->h.buf[1] = head + bufs;
		b->h.bufcap = BUF_WORDS + BUF_SLACK;
		b->h.state = VTR_STATE(0, 0, 1);
	}
	b->fd = fd;
	b->dev = (uint64_t)st.st_dev;
	b->ino = (uint64_t)st.st_ino;
	b->size = size;
	b->reserved = len;
	snprintf(b->name, sizeof(b->name), "%s", name);
	return b;
}

/*
 * Another chunk of the file, with every signal held: a handler's hooks
 * never see it half grown. False when there is no more (the disk, the
 * reservation): the caller stops recording the thread, marked full.
 */
NOINSTR bool vt_grow(struct tbuf *b)
{
	size_t chunk = b->size < CHUNK_MAX ? b->size : CHUNK_MAX;
	sigset_t every, old;
	bool grown = false;
	int fd;

	sigfillset(&every);
	pthread_sigmask(SIG_SETMASK, &every, &old);
	if (b->size + chunk <= b->reserved && (fd = own_fd(b)) >= 0 &&
	    grow_file(fd, b->size, chunk) == 0) {
		populate((char *)b + b->size, chunk);
		b->size += chunk;
		grown = true;
	} else {
		b->h.flags |= VTR_FULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return grown;
}

NOINSTR bool vt_append(struct tbuf *b, const void *p, size_t n, uint64_t at)
{
	const char *c = p;
	int fd = own_fd(b);

	while (fd >= 0 && n > 0) {
		ssize_t w = pwrite(fd, c, n, (off_t)at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		c += w;
		n -= (size_t)w;
		at += (size_t)w;
	}
	if (n)
		b->h.flags |= VTR_FULL;
	return n == 0;
}

NOINSTR void vt_drop_buffers(struct tbuf *b)
{
	int fd = own_fd(b);

	if (fd >= 0)
		fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)b->h.buf[0],
			  (off_t)(b->h.data - b->h.buf[0]));
}

/* The thread's file, unmapped. @used: the bytes worth keeping, the rest
 * of the room it was given goes (0: keep the file as it is). */
NOINSTR void vt_unmap_thread(struct tbuf *b, size_t used)
{
	size_t len = b->reserved;
	int fd = own_fd(b);

	if (used && fd >= 0)
		(void)!ftruncate(fd, (off_t)used);
	if (fd >= 0)
		close(fd);
	munmap(b, len);
}
