/*
 * veles monitor: samples the system from /proc at an interval, turns
 * counters into rates and prints them (brief, verbose, plot), records raw
 * samples to a compressed file and plays them back.
 *
 * Every /proc file becomes a table: named rows (a cpu, a disk, an
 * interface) of fixed u64 columns. Parsing, rates, wrap correction,
 * recording and playback are written once over tables; the views (one per
 * -s letter) turn the rates of an interval into the numbers shown.
 */
#ifndef MONITOR_MONITOR_H
#define MONITOR_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MON_NAME 32 /* row names: "cpu12", "nvme0n1", "eth0", an irq */

/*
 * How the monitor tells the user something (a module's error, a damaged
 * recording): a whole line without its newline, which the front end shows
 * on stderr. The library never prints; NULL says nothing.
 */
typedef void (*mon_say_fn)(void *arg, const char *line);
/* Formats a line and gives it to @say, if set. */
void mon_say(mon_say_fn say, void *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

enum mon_tab {
	MT_CPU,	 /* /proc/stat cpu lines: row "cpu" is the total */
	MT_STAT, /* /proc/stat: interrupts, context switches, forks, run queue */
	MT_LOAD, /* /proc/loadavg */
	MT_MEM,	 /* /proc/meminfo */
	MT_DISK, /* /proc/diskstats, whole disks and device-mapper volumes */
	MT_NET,	 /* /proc/net/dev */
	MT_IRQ,	 /* /proc/interrupts, summed over cpus */
	MT_SOCK, /* /proc/net/sockstat */
	MT_NFS,	 /* /proc/net/rpc/nfs, the client side */
	MT_PROC, /* /proc/PID/stat of every process, rows "PID comm" */
	MT_FREQ, /* /sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq */
	MT_COUNT,
};

enum mon_col_kind {
	MON_GAUGE,     /* a level: shown as it is */
	MON_COUNTER32, /* an increasing count that wraps at 2^32 */
	MON_COUNTER64, /* an increasing count of 64 bits; going down, it was reset */
	/* A sum over cpus of counts that each wrap at 2^32 (/proc/interrupts):
	 * wraps on any cpus take whole 2^32s off the sum, so the increase is
	 * the low 32 bits of the sum's, exact while an interval brings fewer
	 * than 2^32 of them. */
	MON_COUNTER32_SUM,
};

struct mon_col {
	const char *name;
	enum mon_col_kind kind;
};

struct mon_table {
	size_t nrows, cap;
	char (*names)[MON_NAME];
	uint64_t *vals; /* nrows x the table's column count */
	unsigned gen;	/* playback: equal generations have equal row names */
};

struct mon_tabdef {
	const char *name;
	const char *path; /* under /proc */
	const struct mon_col *cols;
	size_t ncols;
	/* Parses the whole text of the file into @t (already reset). */
	int (*parse)(const char *text, struct mon_table *t);
};

extern const struct mon_tabdef mon_tabdefs[MT_COUNT];

/* A module's record: its index among the loaded modules and a text line
 * that starts with the module's discriminator. */
struct mon_modrec {
	unsigned module;
	char *line;
};

struct mon_sample {
	double t;	  /* seconds since the epoch */
	unsigned present; /* bit per enum mon_tab */
	struct mon_table tab[MT_COUNT];
	size_t nmod, capmod;
	struct mon_modrec *mod;
};

/* The parsers, one per file (monitor/proc_*.c), and /proc/stat's two tables. */
int mon_parse_cpu(const char *text, struct mon_table *t);
int mon_parse_stat(const char *text, struct mon_table *t);
int mon_parse_loadavg(const char *text, struct mon_table *t);
int mon_parse_meminfo(const char *text, struct mon_table *t);
int mon_parse_diskstats(const char *text, struct mon_table *t);
int mon_parse_netdev(const char *text, struct mon_table *t);
int mon_parse_interrupts(const char *text, struct mon_table *t);
int mon_parse_sockstat(const char *text, struct mon_table *t);
int mon_parse_nfs(const char *text, struct mon_table *t);
/* True for a whole disk or volume (sda, nvme0n1, dm-0), false for a
 * partition or a loop, ram or cd-rom device. */
bool mon_disk_is_whole(const char *name, size_t n);

/* Tables (monitor/table.c). */
void mon_table_reset(struct mon_table *t);
void mon_table_release(struct mon_table *t);
/* Appends a row named by the first @n bytes of @name (cut to MON_NAME-1),
 * its values zeroed; returns them. */
uint64_t *mon_table_add(struct mon_table *t, const char *name, size_t n, size_t ncols);
/* The row named @name, or -1. */
long mon_table_find(const struct mon_table *t, const char *name);
void mon_table_copy(struct mon_table *dst, const struct mon_table *src, size_t ncols);
/* Column @name of table @tab, or -1. */
int mon_col_index(enum mon_tab tab, const char *name);
/* Parses the unsigned decimal at *@p, skipping leading blanks; 0 when none. */
uint64_t mon_num(const char **p);

void mon_sample_reset(struct mon_sample *s);
void mon_sample_release(struct mon_sample *s);
void mon_sample_copy(struct mon_sample *dst, const struct mon_sample *src);
void mon_sample_add_modrec(struct mon_sample *s, unsigned module, const char *line, size_t n);

/* Rates (monitor/rates.c). The seed's fix(): a counter that went down has
 * wrapped at @width bits (32 or 64) and is corrected by adding 2^width. */
uint64_t mon_fix(uint64_t prev, uint64_t cur, unsigned width);

struct mon_rates {
	size_t nrows;
	size_t cap;
	double *v; /* aligned with the current table's rows */
};

struct mon_interval {
	const struct mon_sample *cur, *prev;
	struct mon_rates rates[MT_COUNT];
	double secs;	  /* the interval's length */
	int per_interval; /* --on: counters per interval, not per second */
};

/* Fills @iv->rates from @prev and @cur: counters become deltas (wraps
 * corrected) divided by the interval unless per_interval; gauges stay. A
 * row missing from @prev (a new disk) gets zero rates. */
void mon_interval_compute(struct mon_interval *iv, const struct mon_sample *prev,
			  const struct mon_sample *cur);
void mon_interval_release(struct mon_interval *iv);
/* The rate of row @row, column @col of table @tab (0 when absent). */
static inline double mon_rate(const struct mon_interval *iv, enum mon_tab tab, size_t row, int col)
{
	const struct mon_rates *r = &iv->rates[tab];

	if (row >= r->nrows || col < 0)
		return 0;
	return r->v[row * mon_tabdefs[tab].ncols + (size_t)col];
}

/* Reading the live system (monitor/reader.c): files stay open and are read
 * again from offset 0 at each sample, which costs one pread per file. */
struct mon_procs_reader;
struct mon_procsel;
struct mon_freq_reader;

struct mon_reader {
	const char *root; /* "/proc", or a directory of fixtures */
	int fd[MT_COUNT];
	unsigned want; /* bit per table */
	struct mon_procs_reader *procs;
	const struct mon_procsel *procsel; /* processes kept; NULL: all */
	struct mon_freq_reader *freq;
	char *buf;
	size_t cap;
};

void mon_reader_init(struct mon_reader *r, const char *root, unsigned want);
/* Reads every wanted table into @s (its time set by the caller). Files that
 * do not exist here (nfs without a client) leave their table empty. */
int mon_reader_read(struct mon_reader *r, struct mon_sample *s);
void mon_reader_close(struct mon_reader *r);

/* Each cpu's clock in kHz into @t, rows "cpuN", from /sys beside
 * @proc_root (monitor/sys_cpufreq.c); files opened at the first call. */
int mon_freq_read(struct mon_freq_reader **f, const char *proc_root, struct mon_table *t);
void mon_freq_close(struct mon_freq_reader **f);

#endif
