/* The tables: which /proc file, which columns in the order parsers fill. */
#include "monitor/monitor.h"
#include "util/common.h"

static const struct mon_col cpu_cols[] = {
	{"user", MON_COUNTER64},       {"nice", MON_COUNTER64},	  {"system", MON_COUNTER64},
	{"idle", MON_COUNTER64},       {"iowait", MON_COUNTER64}, {"irq", MON_COUNTER64},
	{"softirq", MON_COUNTER64},    {"steal", MON_COUNTER64},  {"guest", MON_COUNTER64},
	{"guest_nice", MON_COUNTER64},
};

static const struct mon_col stat_cols[] = {
	{"intr", MON_COUNTER64}, {"ctxt", MON_COUNTER64}, {"forks", MON_COUNTER64},
	{"running", MON_GAUGE},	 {"blocked", MON_GAUGE},
};

/* Load averages in hundredths, so they stay integers. */
static const struct mon_col load_cols[] = {
	{"load1", MON_GAUGE},	 {"load5", MON_GAUGE},	 {"load15", MON_GAUGE},
	{"runnable", MON_GAUGE}, {"threads", MON_GAUGE},
};

/* Kilobytes, as /proc/meminfo gives them. */
static const struct mon_col mem_cols[] = {
	{"total", MON_GAUGE},	 {"free", MON_GAUGE},	   {"avail", MON_GAUGE},
	{"buffers", MON_GAUGE},	 {"cached", MON_GAUGE},	   {"active", MON_GAUGE},
	{"inactive", MON_GAUGE}, {"swaptotal", MON_GAUGE}, {"swapfree", MON_GAUGE},
	{"dirty", MON_GAUGE},	 {"writeback", MON_GAUGE}, {"anon", MON_GAUGE},
	{"mapped", MON_GAUGE},	 {"shmem", MON_GAUGE},	   {"slab", MON_GAUGE},
	{"commit", MON_GAUGE},
};

/* The kernel prints the millisecond columns as 32-bit values. */
static const struct mon_col disk_cols[] = {
	{"reads", MON_COUNTER64},    {"rmerged", MON_COUNTER64},  {"rsectors", MON_COUNTER64},
	{"rms", MON_COUNTER32},	     {"writes", MON_COUNTER64},	  {"wmerged", MON_COUNTER64},
	{"wsectors", MON_COUNTER64}, {"wms", MON_COUNTER32},	  {"inflight", MON_GAUGE},
	{"iotime", MON_COUNTER32},   {"weighted", MON_COUNTER32},
};

static const struct mon_col net_cols[] = {
	{"rxbytes", MON_COUNTER64}, {"rxpkts", MON_COUNTER64},	{"rxerrs", MON_COUNTER64},
	{"rxdrop", MON_COUNTER64},  {"txbytes", MON_COUNTER64}, {"txpkts", MON_COUNTER64},
	{"txerrs", MON_COUNTER64},  {"txdrop", MON_COUNTER64},
};

/* The kernel counts interrupts per cpu in 32 bits; rows sum the cpus. */
static const struct mon_col irq_cols[] = {
	{"count", MON_COUNTER32_SUM},
};

static const struct mon_col sock_cols[] = {
	{"used", MON_GAUGE},  {"tcp", MON_GAUGE},    {"orphan", MON_GAUGE},  {"tw", MON_GAUGE},
	{"alloc", MON_GAUGE}, {"tcpmem", MON_GAUGE}, {"udp", MON_GAUGE},     {"udpmem", MON_GAUGE},
	{"raw", MON_GAUGE},   {"frag", MON_GAUGE},   {"fragmem", MON_GAUGE},
};

/* NFS client calls, versions 3 and 4 added together. */
static const struct mon_col nfs_cols[] = {
	{"calls", MON_COUNTER32},   {"retrans", MON_COUNTER32}, {"authrefresh", MON_COUNTER32},
	{"read", MON_COUNTER32},    {"write", MON_COUNTER32},	{"commit", MON_COUNTER32},
	{"getattr", MON_COUNTER32}, {"lookup", MON_COUNTER32},	{"access", MON_COUNTER32},
};

/* /proc/PID/stat, in the order of enum PC_* (monitor/procs.h). */
static const struct mon_col proc_cols[] = {
	{"ppid", MON_GAUGE},	   {"uid", MON_GAUGE},	      {"state", MON_GAUGE},
	{"prio", MON_GAUGE},	   {"nice", MON_GAUGE},	      {"threads", MON_GAUGE},
	{"cpu", MON_GAUGE},	   {"vsz", MON_GAUGE},	      {"rss", MON_GAUGE},
	{"minflt", MON_COUNTER64}, {"majflt", MON_COUNTER64}, {"utime", MON_COUNTER64},
	{"stime", MON_COUNTER64},
};

static const struct mon_col freq_cols[] = {
	{"khz", MON_GAUGE},
};

#define TAB(n, p, c, f)                                                                            \
	{                                                                                          \
		n, p, c, ARRAY_SIZE(c), f                                                          \
	}

const struct mon_tabdef mon_tabdefs[MT_COUNT] = {
	[MT_CPU] = TAB("cpu", "stat", cpu_cols, mon_parse_cpu),
	[MT_STAT] = TAB("stat", "stat", stat_cols, mon_parse_stat),
	[MT_LOAD] = TAB("load", "loadavg", load_cols, mon_parse_loadavg),
	[MT_MEM] = TAB("mem", "meminfo", mem_cols, mon_parse_meminfo),
	[MT_DISK] = TAB("disk", "diskstats", disk_cols, mon_parse_diskstats),
	[MT_NET] = TAB("net", "net/dev", net_cols, mon_parse_netdev),
	[MT_IRQ] = TAB("irq", "interrupts", irq_cols, mon_parse_interrupts),
	[MT_SOCK] = TAB("sock", "net/sockstat", sock_cols, mon_parse_sockstat),
	[MT_NFS] = TAB("nfs", "net/rpc/nfs", nfs_cols, mon_parse_nfs),
	/* A directory: read by mon_procs_read, not by a parser of one file. */
	[MT_PROC] = TAB("proc", "", proc_cols, NULL),
	/* Under /sys: read by mon_freq_read. */
	[MT_FREQ] = TAB("freq", "", freq_cols, NULL),
};
