/*
 * libveles-memory.so, the end of a process and the change of its image:
 * _exit and _Exit write out what was recorded; the exec family (fexecve
 * and execveat too) writes it before the new image replaces ours, and a
 * failed exec records on. An exec of a statically linked program, which
 * the preload cannot follow, is said on stderr. A
 * child of vfork does neither: the buffers and the file are its parent's.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memory_priv.h"

/* ---- programs that cannot be followed ---- */

/* An ELF file without an interpreter (static, or static-pie). */
static bool fd_is_static(int fd)
{
	Elf64_Ehdr eh;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_INTERP)
			return false;
	}
	/* A shared library has no interpreter either, but no entry point. */
	return eh.e_entry != 0;
}

static void say(const char *s)
{
	ssize_t n = write(2, s, strlen(s));

	(void)n;
}

/*
 * A statically linked program ignores LD_PRELOAD: its allocations go
 * unrecorded. Reached through a script or another program, nothing else
 * would tell: one line on stderr before the exec. @fd is the program, or
 * -1 for @path relative to @dir.
 */
static void warn_if_static(int dir, const char *path, int fd)
{
	int own = -1;

	if (vmem_vfork_child() || atomic_load(&vmem_state) != ST_ON)
		return;
	if (fd < 0)
		fd = own = openat(dir, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fd_is_static(fd)) {
		char name[4096], link[32] = "/proc/self/fd/";
		size_t at = strlen(link);
		ssize_t n;

		/* Run from a descriptor: its file's name. */
		if (!path || !*path) {
			do
				link[at++] = (char)('0' + fd % 10);
			while ((fd /= 10) > 0 && at < sizeof(link) - 1);
			for (size_t i = strlen("/proc/self/fd/"), j = at - 1; i < j; i++, j--) {
				char c = link[i];

				link[i] = link[j];
				link[j] = c;
			}
			link[at] = '\0';
			n = readlink(link, name, sizeof(name) - 1);
			name[n > 0 ? n : 0] = '\0';
			path = n > 0 ? name : "a program run from a file descriptor";
		}
		say("veles: collect memory: ");
		say(path);
		say(" is statically linked: its allocations are not recorded\n");
	}
	if (own >= 0)
		close(own);
}

/* execvp's search of PATH, to find the program it will run. */
static void warn_if_static_in_path(const char *file)
{
	const char *dirs = getenv("PATH");
	char path[4096];

	if (!file || !*file)
		return;
	if (strchr(file, '/')) {
		warn_if_static(AT_FDCWD, file, -1);
		return;
	}
	for (const char *d = dirs && *dirs ? dirs : "/bin:/usr/bin"; d;) {
		const char *colon = strchr(d, ':');
		size_t len = colon ? (size_t)(colon - d) : strlen(d);

		if (len + strlen(file) + 2 <= sizeof(path)) {
			memcpy(path, len ? d : ".", len ? len : 1);
			len = len ? len : 1;
			path[len] = '/';
			memcpy(path + len + 1, file, strlen(file) + 1);
			if (access(path, X_OK) == 0) {
				warn_if_static(AT_FDCWD, path, -1);
				return;
			}
		}
		d = colon ? colon + 1 : NULL;
	}
}

/* ---- process ends and image changes ---- */

EXPORT void _exit(int status)
{
	if (!vmem_real.exit_)
		vmem_start();
	if (!vmem_vfork_child())
		vmem_finish_exit();
	vmem_real.exit_(status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	if (!vmem_real.Exit_)
		vmem_start();
	if (!vmem_vfork_child())
		vmem_finish_exit();
	vmem_real.Exit_(status);
	__builtin_unreachable();
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int ret;

	if (!vmem_real.execve)
		vmem_start();
	warn_if_static(AT_FDCWD, path, -1);
	if (vmem_vfork_child())
		return vmem_real.execve(path, argv, envp);
	vmem_before_exec();
	ret = vmem_real.execve(path, argv, envp);
	vmem_after_failed_exec();
	return ret;
}

EXPORT int execv(const char *path, char *const argv[])
{
	extern char **environ;

	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	int ret;

	if (!vmem_real.execvp)
		vmem_start();
	warn_if_static_in_path(file);
	if (vmem_vfork_child())
		return vmem_real.execvp(file, argv);
	vmem_before_exec();
	ret = vmem_real.execvp(file, argv);
	vmem_after_failed_exec();
	return ret;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int ret;

	if (!vmem_real.execvpe)
		vmem_start();
	warn_if_static_in_path(file);
	if (vmem_vfork_child())
		return vmem_real.execvpe(file, argv, envp);
	vmem_before_exec();
	ret = vmem_real.execvpe(file, argv, envp);
	vmem_after_failed_exec();
	return ret;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int ret;

	if (!vmem_real.fexecve)
		vmem_start();
	if (!vmem_real.fexecve) {
		errno = ENOSYS;
		return -1;
	}
	warn_if_static(AT_FDCWD, NULL, fd);
	if (vmem_vfork_child())
		return vmem_real.fexecve(fd, argv, envp);
	vmem_before_exec();
	ret = vmem_real.fexecve(fd, argv, envp);
	vmem_after_failed_exec();
	return ret;
}

EXPORT int execveat(int dir, const char *path, char *const argv[], char *const envp[], int flags)
{
	int ret;

	if (!vmem_real.execveat)
		vmem_start();
	if (!vmem_real.execveat) {
		errno = ENOSYS;
		return -1;
	}
	warn_if_static(dir, path, (flags & AT_EMPTY_PATH) && !*path ? dir : -1);
	if (vmem_vfork_child())
		return vmem_real.execveat(dir, path, argv, envp, flags);
	vmem_before_exec();
	ret = vmem_real.execveat(dir, path, argv, envp, flags);
	vmem_after_failed_exec();
	return ret;
}

/* glibc's execl family calls its internal execve, past our interposition:
 * they are gathered into an argument vector here and sent through ours. */
#define EXECL_MAX 1024 /* arguments written out in a call: never many */

static int collect_args(const char *arg0, va_list ap, char **argv)
{
	int n = 0;

	argv[n++] = (char *)arg0;
	while (arg0 && n < EXECL_MAX && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	if (n == EXECL_MAX) {
		errno = E2BIG;
		return -1;
	}
	argv[n] = NULL;
	return 0;
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	extern char **environ;
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = collect_args(arg, ap, argv);
	va_end(ap);
	return ret < 0 ? -1 : execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = collect_args(arg, ap, argv);
	va_end(ap);
	return ret < 0 ? -1 : execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *argv[EXECL_MAX + 1];
	char **envp;
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = collect_args(arg, ap, argv);
	envp = ret < 0 ? NULL : va_arg(ap, char **);
	va_end(ap);
	return ret < 0 ? -1 : execve(path, argv, envp);
}
