/*
 * The "environment" a profile's header records (docs/profile-format.md),
 * read back, and what differs between two: so `check`, `diff`, `log
 * --perf` and `bisect` can say that two sides were measured on different
 * machines, kernels, governors or compilers, and refuse under --strict-env.
 */
#ifndef ANALYZE_ENVINFO_H
#define ANALYZE_ENVINFO_H

#include <stdbool.h>

struct buf;
struct profile;

struct env_info {
	bool present; /* the header had an "environment" object */
	char *host, *cpu, *kernel, *arch, *governor, *hypervisor, *compiler; /* NULL: unknown */
	long cores;							     /* 0: unknown */
	int vm;				/* -1 unknown, 0 no, 1 yes */
	double load_before, load_after; /* NaN: unknown */
};

/* Reads @p's environment; e->present is false when it has none (a profile
 * of Perun or of an older Veles) or it cannot be parsed. */
void env_info_get(const struct profile *p, struct env_info *e);
/* Parses the "environment" object's JSON text @json into @e. */
void env_info_parse(const char *json, struct env_info *e);
void env_info_release(struct env_info *e);

/*
 * What differs between two present environments, among host, CPU model,
 * cores, kernel, governor, VM and compiler, appended to @out as "kernel
 * 6.1.0 vs 6.18.4, compiler GCC 12 vs clang 16"; returns how many differ
 * (0 when either is not present: nothing can be said).
 */
int env_info_diff(const struct env_info *a, const struct env_info *b, struct buf *out);

/* Appends @e as "Label: value" lines (what `show summary` prints). */
void env_info_describe(const struct env_info *e, struct buf *out);

struct strmap;

/* Two sides of a comparison held to one environment (what `check`,
 * `diff`, `log --perf`, `bisect` and veles_check do). */
struct env_guard {
	bool strict;	     /* a difference, or a side without one, is refused */
	const char *option;  /* what the refusal calls @strict: "--strict-env" */
	struct strmap *said; /* the differences warned of already, or NULL */
	/* "A and B were measured in different environments: kernel 6.1 vs
	 * 6.18", each distinct difference once; NULL: none. */
	void (*warn)(void *arg, const char *msg);
	void *arg;
};

/* Compares @a (named @an) with @b (@bn): 0 after warning of a difference,
 * or with g->strict ERR_INVALID and its one-line message. */
int env_guard_check(const struct env_guard *g, const struct env_info *a, const char *an,
		    const struct env_info *b, const char *bn);
/* env_guard_check() on the environments two profiles record. */
int env_guard_profiles(const struct env_guard *g, const struct profile *a, const char *an,
		       const struct profile *b, const char *bn);

#endif
