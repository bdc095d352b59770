/*
 * libveles-memory.so, the end of a process and the change of its image:
 * _exit and _Exit write out what was recorded; the exec family writes it
 * before the new image replaces ours, and a failed exec records on. A
 * child of vfork does neither: the buffers and the file are its parent's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "memory_priv.h"

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
	if (vmem_vfork_child())
		return vmem_real.execvpe(file, argv, envp);
	vmem_before_exec();
	ret = vmem_real.execvpe(file, argv, envp);
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
