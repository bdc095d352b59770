/*
 * Per-process data (-s Z, collectl's process detail): every /proc/PID/stat
 * becomes a row of table MT_PROC named "PID comm", read with one openat per
 * process from a directory kept open. Rows can be filtered (--procfilt)
 * and the shown ones sorted and cut to the top N (--top).
 */
#ifndef MONITOR_PROCS_H
#define MONITOR_PROCS_H

#include <dirent.h>

#include "monitor/monitor.h"
#include "util/buf.h"

/* The columns of MT_PROC, in the order of its table definition. */
enum {
	PC_PPID,
	PC_UID,
	PC_STATE, /* the state letter's code */
	PC_PRIO,  /* signed, stored as its two's complement */
	PC_NICE,  /* signed too */
	PC_THREADS,
	PC_CPU, /* the cpu it last ran on */
	PC_VSZ, /* KB */
	PC_RSS, /* KB */
	PC_MINFLT,
	PC_MAJFLT,
	PC_UTIME, /* milliseconds, whatever the kernel's tick */
	PC_STIME,
	PC_NCOLS,
};

#define MON_PROCFILT_MAX 16

/* --procfilt and --top: which processes are kept and shown. */
struct mon_procsel {
	struct {
		char kind; /* c C p P u U, as collectl's --procfilt */
		char arg[32];
		uint64_t num; /* p, P, U; u once its name is resolved */
	} filt[MON_PROCFILT_MAX];
	size_t nfilt;
	int sort;   /* a column of the verbose line; -1: by pid */
	size_t top; /* 0: all */
};

/* Parses collectl's --procfilt list "cbash,p1234,uroot" into @sel. */
int mon_procsel_filter(struct mon_procsel *sel, const char *spec);
/* Parses --top "[FIELD][,N]" (FIELD time, syst, usrt, accum, vsz, rss,
 * majf, minf, flt; default time and 20). */
int mon_procsel_top(struct mon_procsel *sel, const char *spec);
/* Whether row @row of a process table passes @sel's filter (true when it
 * has none). */
bool mon_procsel_match(const struct mon_procsel *sel, const struct mon_table *t, size_t row);

/* Parses one /proc/PID/stat into a row of @t; @uid is the owner of the
 * process's directory (its effective user). */
int mon_parse_pidstat(const char *text, uint64_t uid, struct mon_table *t);

/* Reading every process: the directory stays open and is listed again. */
struct mon_procs_reader {
	DIR *dir;
	char buf[1024];
};

/* Reads /proc/PID/stat of every process under @root into @t (reset by
 * the caller), keeping those @sel matches (@sel NULL: all). */
int mon_procs_read(struct mon_procs_reader *r, const char *root, const struct mon_procsel *sel,
		   struct mon_table *t);
void mon_procs_close(struct mon_procs_reader *r);

/* The numbers of a process row, in the order of the view's fields. */
void mon_proc_row(const struct mon_interval *iv, size_t row, double *out);

/* Verbose and plot output of the processes of an interval; @heading NULL:
 * the rows without their headings. */
void mon_procs_verbose(const struct mon_procsel *sel, const struct mon_interval *iv,
		       const char *heading, struct buf *b);
void mon_procs_plot_header(char sep, struct buf *b);
void mon_procs_plot(const struct mon_procsel *sel, const struct mon_interval *iv, char sep,
		    const char *stamp, struct buf *b);

#endif
