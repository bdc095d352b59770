/*
 * What the parts of libveles-memory.so share: memory.c records, and
 * memory_exec.c wraps the calls that end the process or replace its image.
 * Everything here has hidden visibility (the library is built with
 * -fvisibility=hidden): the program sees only the interposed functions.
 */
#ifndef RUNTIME_MEMORY_PRIV_H
#define RUNTIME_MEMORY_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

/* The C library's own functions, found with dlsym(RTLD_NEXT) at start. */
struct real_fns {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	void (*exit_)(int); /* _exit and _Exit: they do not return (see below) */
	void (*Exit_)(int);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvp)(const char *, char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
};
extern struct real_fns vmem_real;

/* Resolves the real functions and starts recording (once). */
void vmem_start(void);
/* Writes out every thread's buffer and closes the file: _exit and _Exit. */
void vmem_finish_exit(void);
void vmem_before_exec(void);
/* Whether this is a vfork child, which must leave the recording alone. */
bool vmem_vfork_child(void);
void vmem_after_failed_exec(void);

#endif
