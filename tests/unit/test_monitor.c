/* veles monitor: the /proc parsers on files saved from a real machine,
 * rates and counter wrap, formatting, and a record-playback round trip. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "monitor/format.h"
#include "monitor/modules.h"
#include "monitor/monitor.h"
#include "monitor/procs.h"
#include "monitor/record.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

/* tests/data/proc/NAME parsed as table @tab. */
static void parse_fixture(const char *name, enum mon_tab tab, struct mon_table *t)
{
	char *path = xasprintf("%s/tests/data/proc/%s", getenv("VELES_SRCDIR"), name);
	struct buf b = BUF_INIT;

	assert_int_equal(file_read_all(path, &b), 0);
	mon_table_reset(t);
	assert_int_equal(mon_tabdefs[tab].parse(buf_str(&b), t), 0);
	buf_release(&b);
	free(path);
}

static uint64_t val(const struct mon_table *t, enum mon_tab tab, const char *row, const char *col)
{
	long r = mon_table_find(t, row);
	int c = mon_col_index(tab, col);

	assert_true(r >= 0);
	assert_true(c >= 0);
	return t->vals[(size_t)r * mon_tabdefs[tab].ncols + (size_t)c];
}

static void test_parse_cpu_and_stat(void **state)
{
	struct mon_table t = {0};

	UNUSED(state);
	parse_fixture("stat", MT_CPU, &t);
	assert_int_equal(t.nrows, 3); /* the total and two cpus */
	assert_string_equal(t.names[0], "cpu");
	assert_int_equal(val(&t, MT_CPU, "cpu", "user"), 244082);
	assert_int_equal(val(&t, MT_CPU, "cpu", "softirq"), 2697);
	assert_int_equal(val(&t, MT_CPU, "cpu0", "idle"), 433872);
	parse_fixture("stat", MT_STAT, &t);
	assert_int_equal(val(&t, MT_STAT, "stat", "intr"), 4458567);
	assert_int_equal(val(&t, MT_STAT, "stat", "ctxt"), 9678268);
	assert_int_equal(val(&t, MT_STAT, "stat", "forks"), 497577);
	assert_int_equal(val(&t, MT_STAT, "stat", "running"), 2);
	mon_table_release(&t);
}

/* /proc/stat read in one pass: each key wherever it is, 0 when absent,
 * and the cpu lines only at the top. */
static void test_parse_stat_one_pass(void **state)
{
	static const char text[] = "cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\n"
				   "procs_blocked 4\nintr 77 1 2\nbtime 5\nctxt 88\n"
				   "processes 99\nprocs_running 3\nsoftirq 1 2\ncpux 5\n";
	struct mon_table t = {0};

	UNUSED(state);
	assert_int_equal(mon_parse_cpu(text, &t), 0);
	assert_int_equal(t.nrows, 2); /* not "cpux", after the cpu lines */
	assert_int_equal(val(&t, MT_CPU, "cpu0", "guest_nice"), 10);
	mon_table_reset(&t);
	assert_int_equal(mon_parse_stat(text, &t), 0);
	assert_int_equal(val(&t, MT_STAT, "stat", "intr"), 77);
	assert_int_equal(val(&t, MT_STAT, "stat", "ctxt"), 88);
	assert_int_equal(val(&t, MT_STAT, "stat", "forks"), 99);
	assert_int_equal(val(&t, MT_STAT, "stat", "running"), 3);
	assert_int_equal(val(&t, MT_STAT, "stat", "blocked"), 4);
	mon_table_reset(&t);
	assert_int_equal(mon_parse_stat("cpu 1 2\nctxt 5", &t), 0);
	assert_int_equal(val(&t, MT_STAT, "stat", "intr"), 0);
	assert_int_equal(val(&t, MT_STAT, "stat", "ctxt"), 5);
	mon_table_release(&t);
}

static void test_parse_meminfo_loadavg(void **state)
{
	struct mon_table t = {0};

	UNUSED(state);
	parse_fixture("meminfo", MT_MEM, &t);
	assert_int_equal(val(&t, MT_MEM, "mem", "free"), 23858308);
	assert_int_equal(val(&t, MT_MEM, "mem", "cached"), 476972);
	assert_int_equal(val(&t, MT_MEM, "mem", "commit"), 78184);
	parse_fixture("loadavg", MT_LOAD, &t);
	assert_int_equal(val(&t, MT_LOAD, "load", "load1"), 135);
	assert_int_equal(val(&t, MT_LOAD, "load", "load5"), 234);
	assert_int_equal(val(&t, MT_LOAD, "load", "threads"), 100);
	mon_table_release(&t);
}

static void test_parse_diskstats_keeps_whole_disks(void **state)
{
	struct mon_table t = {0};

	UNUSED(state);
	parse_fixture("diskstats", MT_DISK, &t);
	assert_int_equal(t.nrows, 2); /* vda and zram0; the eight loops go */
	assert_int_equal(val(&t, MT_DISK, "vda", "reads"), 575191);
	assert_int_equal(val(&t, MT_DISK, "vda", "rsectors"), 23394642);
	assert_int_equal(val(&t, MT_DISK, "vda", "weighted"), 1240907);
	assert_true(mon_disk_is_whole("sda", 3));
	assert_false(mon_disk_is_whole("sda1", 4));
	assert_true(mon_disk_is_whole("nvme0n1", 7));
	assert_false(mon_disk_is_whole("nvme0n1p2", 9));
	assert_false(mon_disk_is_whole("mmcblk0p1", 9));
	assert_true(mon_disk_is_whole("dm-0", 4));
	assert_false(mon_disk_is_whole("loop3", 5));
	mon_table_release(&t);
}

static void test_parse_netdev_sockstat(void **state)
{
	struct mon_table t = {0};

	UNUSED(state);
	parse_fixture("net_dev", MT_NET, &t);
	assert_int_equal(t.nrows, 4);
	assert_int_equal(val(&t, MT_NET, "eth0", "rxbytes"), 159018582);
	assert_int_equal(val(&t, MT_NET, "eth0", "rxpkts"), 4171);
	assert_int_equal(val(&t, MT_NET, "eth0", "txbytes"), 228765);
	assert_int_equal(val(&t, MT_NET, "eth0", "txpkts"), 3013);
	parse_fixture("sockstat", MT_SOCK, &t);
	assert_int_equal(val(&t, MT_SOCK, "sock", "used"), 14);
	assert_int_equal(val(&t, MT_SOCK, "sock", "tcpmem"), 255);
	assert_int_equal(val(&t, MT_SOCK, "sock", "alloc"), 1);
	mon_table_release(&t);
}

static void test_parse_interrupts_nfs(void **state)
{
	struct mon_table t = {0};

	UNUSED(state);
	parse_fixture("interrupts", MT_IRQ, &t);
	assert_int_equal(val(&t, MT_IRQ, "LOC", "count"), 631223 + 706176);
	assert_int_equal(val(&t, MT_IRQ, "24", "count"), 1);
	assert_int_equal(val(&t, MT_IRQ, "ERR", "count"), 0);
	parse_fixture("nfs", MT_NFS, &t);
	assert_int_equal(val(&t, MT_NFS, "nfs", "calls"), 1500);
	assert_int_equal(val(&t, MT_NFS, "nfs", "retrans"), 3);
	/* Every proc4 count is 100 + its NFSPROC4_CLNT_* number, so a count
	 * taken from the wrong position shows. */
	assert_int_equal(val(&t, MT_NFS, "nfs", "read"), 200 + 101);
	assert_int_equal(val(&t, MT_NFS, "nfs", "write"), 300 + 102);
	assert_int_equal(val(&t, MT_NFS, "nfs", "commit"), 7 + 103);
	assert_int_equal(val(&t, MT_NFS, "nfs", "getattr"), 100 + 118);
	assert_int_equal(val(&t, MT_NFS, "nfs", "lookup"), 30 + 119);
	assert_int_equal(val(&t, MT_NFS, "nfs", "access"), 40 + 117);
	mon_table_release(&t);
}

/* /proc/PID/stat: a command with a space, negative priority and nice,
 * times in milliseconds, sizes in KB. */
static void test_parse_pidstat(void **state)
{
	struct mon_table t = {0};
	char *path = xasprintf("%s/tests/data/proc/4242/stat", getenv("VELES_SRCDIR"));
	struct buf b = BUF_INIT;
	long tick = sysconf(_SC_CLK_TCK), page_kb = sysconf(_SC_PAGESIZE) / 1024;
	struct mon_procsel sel = {.sort = -1};

	UNUSED(state);
	assert_int_equal(file_read_all(path, &b), 0);
	assert_int_equal(mon_parse_pidstat(buf_str(&b), 1000, &t), 0);
	assert_string_equal(t.names[0], "4242 burn me");
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "ppid"), 77);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "uid"), 1000);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "state"), 'R');
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "threads"), 2);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "minflt"), 1500);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "majflt"), 3);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "utime"), 250 * 1000 / tick);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "stime"), 50 * 1000 / tick);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "vsz"), 10240);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "rss"), 512 * page_kb);
	assert_int_equal(val(&t, MT_PROC, "4242 burn me", "cpu"), 1);
	assert_int_equal(
		mon_parse_pidstat("77 (bash) S 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 -2 -5 1", 0, &t), 0);
	assert_int_equal((int64_t)val(&t, MT_PROC, "77 bash", "prio"), -2);
	assert_int_equal((int64_t)val(&t, MT_PROC, "77 bash", "nice"), -5);
	assert_true(mon_parse_pidstat("77 bash S 1", 0, &t) < 0);

	/* --procfilt: any one filter matching keeps the process */
	assert_int_equal(mon_procsel_filter(&sel, "cburn,P1"), 0);
	assert_true(mon_procsel_match(&sel, &t, 0));
	assert_true(mon_procsel_match(&sel, &t, 1));
	sel.nfilt = 0;
	assert_int_equal(mon_procsel_filter(&sel, "Cbur,p5"), 0);
	assert_true(mon_procsel_match(&sel, &t, 0));
	assert_false(mon_procsel_match(&sel, &t, 1));
	assert_true(mon_procsel_filter(&sel, "x1") < 0);
	assert_true(mon_procsel_filter(&sel, "pabc") < 0);
	assert_int_equal(mon_procsel_top(&sel, "rss,5"), 0);
	assert_int_equal(sel.top, 5);
	assert_true(mon_procsel_top(&sel, "bogus") < 0);
	assert_true(mon_procsel_top(&sel, "time,0") < 0);
	mon_table_release(&t);
	buf_release(&b);
	free(path);
}

/* Reading every process: our own is there, with our command. */
static void test_live_processes(void **state)
{
	struct mon_reader r;
	struct mon_sample s = {0};
	char me[MON_NAME];
	bool found = false;

	UNUSED(state);
	snprintf(me, sizeof(me), "%d ", (int)getpid());
	mon_reader_init(&r, "/proc", 1u << MT_PROC);
	assert_int_equal(mon_reader_read(&r, &s), 0);
	assert_int_equal(mon_reader_read(&r, &s), 0); /* the directory listed again */
	assert_true(s.tab[MT_PROC].nrows >= 2);
	for (size_t i = 0; i < s.tab[MT_PROC].nrows; i++)
		found |= !strncmp(s.tab[MT_PROC].names[i], me, strlen(me));
	assert_true(found);
	mon_reader_close(&r);
	mon_sample_release(&s);
}

/* Each module's records carry its place among the loaded modules. */
static void test_module_records_carry_index(void **state)
{
	struct mon_modules ms = {0};
	struct mon_sample s = {0};
	char *dir = xasprintf("%s/plugins", getenv("VELES_BUILDDIR"));
	size_t hw = 0, misc = 0;

	UNUSED(state);
	setenv("VELES_MODULE_PATH", dir, 1);
	assert_int_equal(mon_modules_load(&ms, "hello:misc"), 0);
	assert_int_equal(ms.n, 2);
	mon_modules_get_data(&ms, &s);
	for (size_t i = 0; i < s.nmod; i++) {
		if (!strncmp(s.mod[i].line, "hw ", 3)) {
			assert_int_equal(s.mod[i].module, 0);
			hw++;
		} else {
			assert_int_equal(strncmp(s.mod[i].line, "misc ", 5), 0);
			assert_int_equal(s.mod[i].module, 1);
			misc++;
		}
	}
	assert_true(hw > 0 && misc > 0);
	mon_modules_unload(&ms);
	mon_sample_release(&s);
	free(dir);
}

static void test_live_files_parse(void **state)
{
	struct mon_reader r;
	struct mon_sample s = {0};

	UNUSED(state);
	mon_reader_init(&r, "/proc", (1u << MT_COUNT) - 1);
	assert_int_equal(mon_reader_read(&r, &s), 0);
	assert_true(s.tab[MT_CPU].nrows >= 2);
	assert_true(val(&s.tab[MT_MEM], MT_MEM, "mem", "total") > 0);
	assert_true(mon_table_find(&s.tab[MT_NET], "lo") >= 0);
	mon_reader_close(&r);
	mon_sample_release(&s);
}

static void test_fix_corrects_wraps(void **state)
{
	UNUSED(state);
	assert_int_equal(mon_fix(100, 250, 32), 150);
	assert_int_equal(mon_fix(4294967290u, 5, 32), 11);
	assert_int_equal(mon_fix(UINT64_MAX - 1, 3, 64), 5);
	/* Above 2^32 it cannot have wrapped at 32 bits: a reset. */
	assert_int_equal(mon_fix(5000000000u, 7, 32), 7);
}

/* A sample with one disk row and a cpu total, at time @t. */
static void disk_sample(struct mon_sample *s, double t, uint64_t reads, uint64_t rms)
{
	uint64_t *row;

	mon_sample_reset(s);
	s->t = t;
	s->present = 1u << MT_DISK | 1u << MT_MEM;
	row = mon_table_add(&s->tab[MT_DISK], "sda", 3, mon_tabdefs[MT_DISK].ncols);
	row[0] = reads;
	row[3] = rms;
	row = mon_table_add(&s->tab[MT_MEM], "mem", 3, mon_tabdefs[MT_MEM].ncols);
	row[1] = 1000 + reads;
}

static void test_rates_per_second_and_interval(void **state)
{
	struct mon_sample a = {0}, b = {0};
	struct mon_interval iv = {0};

	UNUSED(state);
	disk_sample(&a, 100.0, 1000, 4294967000u);
	disk_sample(&b, 100.5, 1600, 704); /* rms wrapped at 32 bits */
	mon_interval_compute(&iv, &a, &b);
	assert_true(iv.secs > 0.49 && iv.secs < 0.51);
	assert_float_equal(mon_rate(&iv, MT_DISK, 0, 0), 1200, 1e-6);
	assert_float_equal(mon_rate(&iv, MT_DISK, 0, 3), 2000, 1e-6);
	assert_float_equal(mon_rate(&iv, MT_MEM, 0, 1), 2600, 1e-9); /* a gauge */
	iv.per_interval = 1;
	mon_interval_compute(&iv, &a, &b);
	assert_float_equal(mon_rate(&iv, MT_DISK, 0, 0), 600, 1e-6);
	mon_interval_release(&iv);
	mon_sample_release(&a);
	mon_sample_release(&b);

	/* Interrupts count in 32 bits per cpu: cpu1 wraps while the row holds
	 * their sum. */
	disk_sample(&a, 100.0, 0, 0);
	disk_sample(&b, 100.5, 0, 0);
	a.present = b.present = 1u << MT_IRQ | 1u << MT_NET;
	assert_int_equal(mon_parse_interrupts("    CPU0   CPU1\n"
					      " LOC: 1000 4294967000  Local timer\n"
					      " ERR: 4294967295\n",
					      &a.tab[MT_IRQ]),
			 0);
	assert_int_equal(mon_parse_interrupts("    CPU0   CPU1\n"
					      " LOC: 1500 200  Local timer\n"
					      " ERR: 2\n",
					      &b.tab[MT_IRQ]),
			 0);
	/* A network counter that went down was reset (the interface came
	 * back): it counts from zero. */
	mon_table_add(&a.tab[MT_NET], "eth0", 4, mon_tabdefs[MT_NET].ncols)[0] = 5000000;
	mon_table_add(&b.tab[MT_NET], "eth0", 4, mon_tabdefs[MT_NET].ncols)[0] = 300;
	mon_interval_compute(&iv, &a, &b);
	assert_float_equal(mon_rate(&iv, MT_IRQ, 0, 0), 500 + 296 + 200, 1e-6);
	assert_float_equal(mon_rate(&iv, MT_IRQ, 1, 0), 3, 1e-6);
	assert_float_equal(mon_rate(&iv, MT_NET, 0, 0), 300, 1e-6);
	mon_interval_release(&iv);
	mon_sample_release(&a);
	mon_sample_release(&b);
}

static void test_formatting(void **state)
{
	char s[32];

	UNUSED(state);
	mon_fmt_fixed(s, 0.04, 1);
	assert_string_equal(s, "0.0");
	mon_fmt_fixed(s, 12.345, 2);
	assert_string_equal(s, "12.35");
	mon_fmt_fixed(s, -3.6, 0);
	assert_string_equal(s, "-4");
	mon_fmt_fixed(s, -0.2, 0);
	assert_string_equal(s, "0");
	/* Whole numbers at every change of length (as far as doubles hold them
	 * exactly), and their lengths. */
	for (uint64_t p = 1; p <= 1000000000000000ull; p *= 10) {
		char want[32];

		for (uint64_t x = p - 1; x <= p; x++) {
			snprintf(want, sizeof(want), "%llu", (unsigned long long)x);
			assert_int_equal(mon_fmt_fixed(s, (double)x, 0), strlen(want));
			assert_string_equal(s, want);
		}
	}
	/* Decimals as printf gives them (away from halfway cases). */
	for (int i = 0; i < 2000; i++) {
		double v = i * 0.37 - 50;

		for (int d = 2; d <= 6; d++) {
			char want[64];

			snprintf(want, sizeof(want), "%.*f", d, v);
			assert_int_equal(mon_fmt_fixed(s, v, d), strlen(want));
			assert_string_equal(s, want);
		}
	}
	mon_fmt_fixed(s, 1795544779.25, 3);
	assert_string_equal(s, "1795544779.250");
	mon_fmt_fixed(s, 1e15, 6); /* 64 bits hold 3 of the 6 decimals */
	assert_string_equal(s, "1000000000000000.000");
	mon_cvt(s, 1234, 6, false);
	assert_string_equal(s, "1234");
	mon_cvt(s, 123456789, 6, false);
	assert_string_equal(s, "123M");
	mon_cvt(s, 24684092, 5, true); /* KB */
	assert_string_equal(s, "24G");
}

/* mon_fmt_time against localtime_r and strftime, second by second over
 * @n seconds from @t0 (stepping by @step), both with and without the date. */
static void check_times(time_t t0, long n, long step)
{
	for (long i = 0; i < n; i++) {
		time_t s = t0 + i * step;
		struct tm tm;
		char want[64], got[64];

		localtime_r(&s, &tm);
		strftime(want, sizeof(want), "%Y%m%d %H:%M:%S.250", &tm);
		assert_int_equal(mon_fmt_time(got, (double)s + 0.25, true, true), strlen(want));
		assert_string_equal(got, want);
		assert_int_equal(mon_fmt_time(got, (double)s, false, false), 8);
		assert_memory_equal(got, want + 9, 8);
	}
}

/* The time of day is formatted once a minute and its seconds added: across
 * minutes, hours, days, a change to summer time and back, steps backwards,
 * in a zone whose offset has seconds, and with changes of offset that do
 * not fall on a minute (such minutes are asked second by second). */
static void test_time_format(void **state)
{
	const char *saved = getenv("TZ");
	char *old = saved ? xstrdup(saved) : NULL;
	/* 2026-03-29 00:58:00 UTC: Prague moves to summer time at 01:00 UTC. */
	const time_t spring = 1774745880;

	UNUSED(state);
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	check_times(spring, 300, 1);
	check_times(spring + 86400 * 3 - 150, 300, 1); /* across a day */
	check_times(spring + 7200, 40, -7);	       /* backwards */
	/* 2026-10-25 01:00 UTC: back to winter time, the hour 02:00 twice. */
	check_times(1792889940, 200, 1);
	setenv("TZ", "LMT+0:44:30", 1);
	tzset();
	check_times(spring + 100000, 200, 1);
	setenv("TZ", "CET-1CEST,M3.5.0/2:00:30,M10.5.0/3:00:30", 1);
	tzset();
	check_times(spring, 300, 1);
	check_times(1792889940, 200, 1);
	if (old)
		setenv("TZ", old, 1);
	else
		unsetenv("TZ");
	tzset();
	free(old);
}

static void test_record_playback_round_trip(void **state)
{
	char path[] = "/tmp/veles-monrec-XXXXXX";
	struct mon_writer w;
	struct mon_player p;
	struct mon_sample s = {0};
	const struct mon_sample *back;
	int fd = mkstemp(path);

	UNUSED(state);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mon_writer_open(&w, path, "host: test\n"), 0);
	for (int i = 0; i < 50; i++) {
		disk_sample(&s, 1700000000.25 + i, 1000u * (unsigned)i,
			    4294967000u + 100u * (unsigned)i);
		if (i == 20) /* a disk appears: the names are sent again */
			mon_table_add(&s.tab[MT_DISK], "sdb", 3, mon_tabdefs[MT_DISK].ncols)[0] = 9;
		mon_sample_add_modrec(&s, 0, "hello 1 2 3", 11);
		assert_int_equal(mon_writer_add(&w, &s), 0);
	}
	assert_int_equal(mon_writer_close(&w), 0);
	assert_int_equal(mon_player_open(&p, path), 0);
	assert_string_equal(p.header, "host: test\n");
	for (int i = 0; i < 50; i++) {
		assert_int_equal(mon_player_next(&p, &back), 1);
		assert_float_equal(back->t, 1700000000.25 + i, 1e-6);
		assert_int_equal(back->tab[MT_DISK].nrows, i == 20 ? 2 : 1);
		assert_int_equal(back->tab[MT_DISK].vals[0], 1000u * (unsigned)i);
		assert_int_equal(back->tab[MT_DISK].vals[3],
				 (uint32_t)(4294967000u + 100u * (unsigned)i));
		assert_int_equal(back->nmod, 1);
		assert_string_equal(back->mod[0].line, "hello 1 2 3");
	}
	assert_int_equal(mon_player_next(&p, &back), 0);
	assert_false(p.damaged);
	mon_player_close(&p);
	unlink(path);
	mon_sample_release(&s);
}

/* Bytes overwritten in the middle of a recording lose the samples of one
 * zstd frame at most: those before and after play, with their own values. */
static void test_playback_skips_damaged_frame(void **state)
{
	char path[] = "/tmp/veles-monrec-XXXXXX";
	enum { N = 400 };
	uint64_t want[N], x = 1, reads = 0;
	struct mon_writer w;
	struct mon_player p;
	struct mon_sample s = {0};
	const struct mon_sample *back;
	struct buf b = BUF_INIT;
	long last = -1, played = 0;
	int fd = mkstemp(path);

	UNUSED(state);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mon_writer_open(&w, path, "host: test\n"), 0);
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		reads += x >> 44; /* differences zstd cannot squeeze to nothing */
		want[i] = reads;
		disk_sample(&s, 1700000000.0 + i, reads, x >> 40);
		assert_int_equal(mon_writer_add(&w, &s), 0);
	}
	assert_int_equal(mon_writer_close(&w), 0);
	assert_int_equal(file_read_all(path, &b), 0);
	memset(b.data + b.len / 2, 0xff, 16);
	assert_int_equal(file_write_atomic(path, b.data, b.len), 0);
	assert_int_equal(mon_player_open(&p, path), 0);
	while (mon_player_next(&p, &back) == 1) {
		long i = lround(back->t - 1700000000.0);

		assert_true(i > last && i < N);
		assert_int_equal(back->tab[MT_DISK].vals[0], want[i]);
		last = i;
		played++;
	}
	assert_true(p.damaged);
	assert_int_equal(p.gaps, 1);
	assert_int_equal(last, N - 1);
	assert_true(played >= N - MON_FRAME_SAMPLES && played < N);
	mon_player_close(&p);
	buf_release(&b);
	unlink(path);
	mon_sample_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_cpu_and_stat),
		cmocka_unit_test(test_parse_stat_one_pass),
		cmocka_unit_test(test_parse_meminfo_loadavg),
		cmocka_unit_test(test_parse_diskstats_keeps_whole_disks),
		cmocka_unit_test(test_parse_netdev_sockstat),
		cmocka_unit_test(test_parse_interrupts_nfs),
		cmocka_unit_test(test_live_files_parse),
		cmocka_unit_test(test_parse_pidstat),
		cmocka_unit_test(test_live_processes),
		cmocka_unit_test(test_module_records_carry_index),
		cmocka_unit_test(test_fix_corrects_wraps),
		cmocka_unit_test(test_rates_per_second_and_interval),
		cmocka_unit_test(test_formatting),
		cmocka_unit_test(test_time_format),
		cmocka_unit_test(test_record_playback_round_trip),
		cmocka_unit_test(test_playback_skips_damaged_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
