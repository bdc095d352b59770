/* The views: turning an interval's rates into the numbers shown. */
#include <string.h>

#include "monitor/procs.h"
#include "monitor/view.h"
#include "util/common.h"

#define BIT(t) (1u << (t))
#define R(iv, tab, row, col) mon_rate(iv, tab, row, col)

/* The cpu columns in /proc/stat order, as percentages of row @row. */
static void cpu_percent(const struct mon_interval *iv, size_t row, double *out)
{
	double v[10], total = 0;

	for (int i = 0; i < 8; i++) {
		v[i] = R(iv, MT_CPU, row, i);
		total += v[i];
	}
	if (total <= 0)
		total = 1;
	out[0] = 100 * v[0] / total; /* user */
	out[1] = 100 * v[1] / total; /* nice */
	out[2] = 100 * v[2] / total; /* system */
	out[3] = 100 * v[4] / total; /* iowait */
	out[4] = 100 * v[5] / total; /* irq */
	out[5] = 100 * v[6] / total; /* softirq */
	out[6] = 100 * v[7] / total; /* steal */
	out[7] = 100 * v[3] / total; /* idle */
	out[8] = 100 - out[7] - out[3];
}

static const struct mon_field cpu_fields[] = {
	{"User%", NULL, 5, 0, false},	 {"Nice%", NULL, 5, 0, false},
	{"Sys%", "sys", 4, 0, false},	 {"Wait%", NULL, 5, 0, false},
	{"Irq%", NULL, 4, 0, false},	 {"Soft%", NULL, 5, 0, false},
	{"Steal%", NULL, 6, 0, false},	 {"Idle%", NULL, 5, 0, false},
	{"Totl%", "cpu", 5, 0, false},	 {"Intrpt", "inter", 6, 0, false},
	{"Ctxsw", "ctxsw", 6, 0, false}, {"Forks", NULL, 5, 0, false},
	{"ProcRun", NULL, 7, 0, false},	 {"ProcBlk", NULL, 7, 0, false},
};

static void cpu_summary(const struct mon_interval *iv, double *out)
{
	cpu_percent(iv, 0, out);
	out[9] = R(iv, MT_STAT, 0, 0);
	out[10] = R(iv, MT_STAT, 0, 1);
	out[11] = R(iv, MT_STAT, 0, 2);
	out[12] = R(iv, MT_STAT, 0, 3);
	out[13] = R(iv, MT_STAT, 0, 4);
}

/* Per cpu: the percentages, then the clock (0 without cpufreq). */
static const struct mon_field cpu_detail_fields[] = {
	{"User%", NULL, 5, 0, false},  {"Nice%", NULL, 5, 0, false}, {"Sys%", NULL, 4, 0, false},
	{"Wait%", NULL, 5, 0, false},  {"Irq%", NULL, 4, 0, false},  {"Soft%", NULL, 5, 0, false},
	{"Steal%", NULL, 6, 0, false}, {"Idle%", NULL, 5, 0, false}, {"Totl%", NULL, 5, 0, false},
	{"MHz", NULL, 5, 0, false},
};

static void cpu_detail(const struct mon_interval *iv, size_t row, double *out)
{
	const struct mon_table *f = &iv->cur->tab[MT_FREQ];
	const char *name = iv->cur->tab[MT_CPU].names[row];
	/* Row cpuN of the frequencies is usually row N, one before cpuN's
	 * row in /proc/stat (after the total). */
	long k = row && row - 1 < f->nrows && !strcmp(f->names[row - 1], name)
			 ? (long)row - 1
			 : mon_table_find(f, name);

	cpu_percent(iv, row, out);
	out[9] = k >= 0 ? mon_rate(iv, MT_FREQ, (size_t)k, 0) / 1000 : 0;
}

static bool skip_total_cpu(const struct mon_interval *iv, size_t row)
{
	return row == 0 && !strcmp(iv->cur->tab[MT_CPU].names[0], "cpu");
}

/* Bytes per second from 512-byte sectors, in KB. */
#define SECT_KB(x) ((x) / 2)

static const struct mon_field disk_fields[] = {
	{"KBRead", "KBRead", 7, 0, false}, {"Reads", "Reads", 6, 0, false},
	{"RMerge", NULL, 6, 0, false},	   {"KBWrit", "KBWrit", 7, 0, false},
	{"Writes", "Writes", 6, 0, false}, {"WMerge", NULL, 6, 0, false},
	{"RWait", NULL, 5, 1, false},	   {"WWait", NULL, 5, 1, false},
	{"QueLen", NULL, 6, 1, false},	   {"Util%", NULL, 5, 0, false},
};

/* Milliseconds per operation, from the two counters' deltas. */
static double per_op(double ms, double ops)
{
	return ops > 0 ? ms / ops : 0;
}

static void disk_row(const struct mon_interval *iv, size_t row, double *out)
{
	/* Rates are per second unless --on; time shares need per second. */
	double per_sec = iv->per_interval && iv->secs > 0 ? 1 / iv->secs : 1;

	out[0] = SECT_KB(R(iv, MT_DISK, row, 2));
	out[1] = R(iv, MT_DISK, row, 0);
	out[2] = R(iv, MT_DISK, row, 1);
	out[3] = SECT_KB(R(iv, MT_DISK, row, 6));
	out[4] = R(iv, MT_DISK, row, 4);
	out[5] = R(iv, MT_DISK, row, 5);
	out[6] = per_op(R(iv, MT_DISK, row, 3), out[1]);
	out[7] = per_op(R(iv, MT_DISK, row, 7), out[4]);
	out[8] = R(iv, MT_DISK, row, 10) * per_sec / 1000;
	out[9] = R(iv, MT_DISK, row, 9) * per_sec / 10;
}

/* Totals count physical disks once: volumes sit on top of them. */
static bool is_volume(const struct mon_interval *iv, size_t row)
{
	return !strncmp(iv->cur->tab[MT_DISK].names[row], "dm-", 3) ||
	       !strncmp(iv->cur->tab[MT_DISK].names[row], "md", 2);
}

static void disk_summary(const struct mon_interval *iv, double *out)
{
	double row[ARRAY_SIZE(disk_fields)];
	double ms_r = 0, ms_w = 0;

	memset(out, 0, 6 * sizeof(*out));
	for (size_t i = 0; i < iv->cur->tab[MT_DISK].nrows; i++) {
		if (is_volume(iv, i))
			continue;
		disk_row(iv, i, row);
		for (int k = 0; k < 6; k++)
			out[k] += row[k];
		ms_r += R(iv, MT_DISK, i, 3);
		ms_w += R(iv, MT_DISK, i, 7);
	}
	out[6] = per_op(ms_r, out[1]);
	out[7] = per_op(ms_w, out[4]);
}

static const struct mon_field disk_sum_fields[] = {
	{"KBRead", "KBRead", 7, 0, false}, {"Reads", "Reads", 6, 0, false},
	{"RMerge", NULL, 6, 0, false},	   {"KBWrit", "KBWrit", 7, 0, false},
	{"Writes", "Writes", 6, 0, false}, {"WMerge", NULL, 6, 0, false},
	{"RWait", NULL, 5, 1, false},	   {"WWait", NULL, 5, 1, false},
};

static const struct mon_field mem_fields[] = {
	{"Tot", NULL, 6, 0, true},	{"Used", NULL, 6, 0, true},   {"Free", "Free", 5, 0, true},
	{"Buf", "Buff", 5, 0, true},	{"Cach", "Cach", 5, 0, true}, {"Avail", NULL, 5, 0, true},
	{"Inac", "Inac", 5, 0, true},	{"Dirty", NULL, 5, 0, true},  {"Anon", NULL, 5, 0, true},
	{"Map", NULL, 5, 0, true},	{"Slab", "Slab", 5, 0, true}, {"Commit", NULL, 6, 0, true},
	{"SwapUsed", NULL, 8, 0, true},
};

static void mem_summary(const struct mon_interval *iv, double *out)
{
	const double tot = R(iv, MT_MEM, 0, 0), free = R(iv, MT_MEM, 0, 1);

	out[0] = tot;
	out[1] = tot - free;
	out[2] = free;
	out[3] = R(iv, MT_MEM, 0, 3);
	out[4] = R(iv, MT_MEM, 0, 4);
	out[5] = R(iv, MT_MEM, 0, 2);
	out[6] = R(iv, MT_MEM, 0, 6);
	out[7] = R(iv, MT_MEM, 0, 9);
	out[8] = R(iv, MT_MEM, 0, 11);
	out[9] = R(iv, MT_MEM, 0, 12);
	out[10] = R(iv, MT_MEM, 0, 14);
	out[11] = R(iv, MT_MEM, 0, 15);
	out[12] = R(iv, MT_MEM, 0, 7) - R(iv, MT_MEM, 0, 8);
}

static const struct mon_field net_fields[] = {
	{"KBIn", "KBIn", 6, 0, false},	 {"PktIn", "PktIn", 6, 0, false},
	{"KBOut", "KBOut", 6, 0, false}, {"PktOut", "PktOut", 6, 0, false},
	{"Errs", NULL, 4, 0, false},	 {"Drops", NULL, 5, 0, false},
};

static void net_row(const struct mon_interval *iv, size_t row, double *out)
{
	out[0] = R(iv, MT_NET, row, 0) / 1024;
	out[1] = R(iv, MT_NET, row, 1);
	out[2] = R(iv, MT_NET, row, 4) / 1024;
	out[3] = R(iv, MT_NET, row, 5);
	out[4] = R(iv, MT_NET, row, 2) + R(iv, MT_NET, row, 6);
	out[5] = R(iv, MT_NET, row, 3) + R(iv, MT_NET, row, 7);
}

static bool is_loopback(const struct mon_interval *iv, size_t row)
{
	return !strcmp(iv->cur->tab[MT_NET].names[row], "lo");
}

static void net_summary(const struct mon_interval *iv, double *out)
{
	double row[ARRAY_SIZE(net_fields)];

	memset(out, 0, ARRAY_SIZE(net_fields) * sizeof(*out));
	for (size_t i = 0; i < iv->cur->tab[MT_NET].nrows; i++) {
		if (is_loopback(iv, i))
			continue;
		net_row(iv, i, row);
		for (size_t k = 0; k < ARRAY_SIZE(net_fields); k++)
			out[k] += row[k];
	}
}

static const struct mon_field irq_fields[] = {
	{"Intrpt", "Int", 6, 0, false},
};

static void irq_summary(const struct mon_interval *iv, double *out)
{
	out[0] = 0;
	for (size_t i = 0; i < iv->cur->tab[MT_IRQ].nrows; i++)
		out[0] += R(iv, MT_IRQ, i, 0);
}

static void irq_row(const struct mon_interval *iv, size_t row, double *out)
{
	out[0] = R(iv, MT_IRQ, row, 0);
}

static bool irq_quiet(const struct mon_interval *iv, size_t row)
{
	return R(iv, MT_IRQ, row, 0) == 0;
}

static const struct mon_field sock_fields[] = {
	{"Used", NULL, 5, 0, false}, {"Tcp", "Tcp", 4, 0, false},  {"Orph", NULL, 4, 0, false},
	{"Tw", NULL, 4, 0, false},   {"Alloc", NULL, 5, 0, false}, {"Mem", NULL, 5, 0, false},
	{"Udp", "Udp", 4, 0, false}, {"Raw", "Raw", 4, 0, false},  {"Frag", "Frag", 4, 0, false},
};

static void sock_summary(const struct mon_interval *iv, double *out)
{
	static const int cols[] = {0, 1, 2, 3, 4, 5, 6, 8, 9};

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		out[i] = R(iv, MT_SOCK, 0, cols[i]);
}

static const struct mon_field nfs_fields[] = {
	{"Calls", NULL, 6, 0, false},	 {"Retrans", NULL, 7, 0, false},
	{"Reads", "Reads", 5, 0, false}, {"Writes", "Writes", 6, 0, false},
	{"Commit", "Comm", 6, 0, false}, {"Getattr", NULL, 7, 0, false},
	{"Lookup", NULL, 6, 0, false},	 {"Access", NULL, 6, 0, false},
	{"Meta", "Meta", 5, 0, false},
};

static void nfs_summary(const struct mon_interval *iv, double *out)
{
	static const int cols[] = {0, 1, 3, 4, 5, 6, 7, 8};

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		out[i] = R(iv, MT_NFS, 0, cols[i]);
	out[8] = out[5] + out[6] + out[7];
}

static const struct mon_field proc_fields[] = {
	{"Run", "Run", 4, 0, false},	{"Blk", "Blk", 4, 0, false},  {"Forks", "Frk", 5, 0, false},
	{"Load1", "L1", 5, 2, false},	{"Load5", NULL, 5, 2, false}, {"Load15", NULL, 6, 2, false},
	{"Threads", NULL, 7, 0, false},
};

static void proc_summary(const struct mon_interval *iv, double *out)
{
	out[0] = R(iv, MT_STAT, 0, 3);
	out[1] = R(iv, MT_STAT, 0, 4);
	out[2] = R(iv, MT_STAT, 0, 2);
	out[3] = R(iv, MT_LOAD, 0, 0) / 100;
	out[4] = R(iv, MT_LOAD, 0, 1) / 100;
	out[5] = R(iv, MT_LOAD, 0, 2) / 100;
	out[6] = R(iv, MT_LOAD, 0, 4);
}

/* Per process, in the order of mon_proc_row; verbose and plot lay them
 * out with the user, state and command between (monitor/procs.c). */
static const struct mon_field pid_fields[] = {
	{"PID", NULL, 7, 0, false},  {"PR", NULL, 3, 0, false},	      {"PPID", NULL, 6, 0, false},
	{"THRD", NULL, 4, 0, false}, {"VSZ", NULL, 6, 0, true},	      {"RSS", NULL, 6, 0, true},
	{"CP", NULL, 2, 0, false},   {"SysT", NULL, 6, 2, false},     {"UsrT", NULL, 6, 2, false},
	{"Pct", NULL, 4, 0, false},  {"AccuTime", NULL, 8, 2, false}, {"MajF", NULL, 6, 0, false},
	{"MinF", NULL, 6, 0, false},
};

#define FIELDS(f) f, ARRAY_SIZE(f)

static const struct mon_view views[] = {
	{'c', "CPU", "CPU SUMMARY", BIT(MT_CPU) | BIT(MT_STAT), true, FIELDS(cpu_fields),
	 cpu_summary, MT_CPU, NULL, NULL},
	{'C', "CPU", "SINGLE CPU STATISTICS", BIT(MT_CPU) | BIT(MT_FREQ), true,
	 FIELDS(cpu_detail_fields), NULL, MT_CPU, skip_total_cpu, cpu_detail},
	{'d', "DSK", "DISK SUMMARY", BIT(MT_DISK), true, FIELDS(disk_sum_fields), disk_summary,
	 MT_DISK, NULL, NULL},
	{'D', "DSK", "DISK STATISTICS", BIT(MT_DISK), true, FIELDS(disk_fields), NULL, MT_DISK,
	 NULL, disk_row},
	{'m', "MEM", "MEMORY SUMMARY (KB)", BIT(MT_MEM), false, FIELDS(mem_fields), mem_summary,
	 MT_MEM, NULL, NULL},
	{'n', "NET", "NETWORK SUMMARY", BIT(MT_NET), true, FIELDS(net_fields), net_summary, MT_NET,
	 NULL, NULL},
	{'N', "NET", "NETWORK STATISTICS", BIT(MT_NET), true, FIELDS(net_fields), NULL, MT_NET,
	 NULL, net_row},
	{'j', "INT", "INTERRUPT SUMMARY", BIT(MT_IRQ), true, FIELDS(irq_fields), irq_summary,
	 MT_IRQ, NULL, NULL},
	{'J', "INT", "INTERRUPT DETAIL", BIT(MT_IRQ), true, FIELDS(irq_fields), NULL, MT_IRQ,
	 irq_quiet, irq_row},
	{'s', "SOCK", "SOCKET STATISTICS", BIT(MT_SOCK), false, FIELDS(sock_fields), sock_summary,
	 MT_SOCK, NULL, NULL},
	{'f', "NFS", "NFS CLIENT SUMMARY", BIT(MT_NFS), true, FIELDS(nfs_fields), nfs_summary,
	 MT_NFS, NULL, NULL},
	{'z', "PRC", "PROCESS SUMMARY", BIT(MT_STAT) | BIT(MT_LOAD), true, FIELDS(proc_fields),
	 proc_summary, MT_STAT, NULL, NULL},
	{'Z', "PID", "PROCESS DETAIL", BIT(MT_PROC), true, FIELDS(pid_fields), NULL, MT_PROC, NULL,
	 mon_proc_row},
};

const struct mon_view *mon_view_find(char c)
{
	for (size_t i = 0; i < ARRAY_SIZE(views); i++)
		if (views[i].letter == c)
			return &views[i];
	return NULL;
}

const char *mon_view_letters(void)
{
	return "cCdDmnNjJsfzZ";
}
