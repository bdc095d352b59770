/* src/perf: event names, count scaling, the record file, symbols, and
 * resolving a synthetic recording's samples. No counters are opened. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "perf/child.h"
#include "perf/counters.h"
#include "perf/datafile.h"
#include "perf/metrics.h"
#include "perf/session.h"
#include "perf/symbols.h"
#include "testutil.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/fsutil.h"

static void test_event_names(void **state)
{
	struct perf_event_attr a;

	UNUSED(state);
	assert_int_equal(perf_event_parse("page-faults", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(perf_event_parse("faults", &a), 0); /* perf's alias */
	assert_int_equal(a.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(perf_event_parse("cycles", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_HARDWARE);
	assert_int_equal(a.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(perf_event_parse("L1-dcache-load-misses", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(a.config, PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
					   PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	assert_int_equal(perf_event_parse("r1a8", &a), 0);
	assert_int_equal(a.type, PERF_TYPE_RAW);
	assert_int_equal(a.config, 0x1a8);
	/* No stores for instruction caches; not hex; not anything. */
	assert_int_equal(perf_event_parse("L1-icache-stores", &a), ERR_NOTFOUND);
	assert_int_equal(perf_event_parse("rxyz", &a), ERR_NOTFOUND);
	assert_int_equal(perf_event_parse("no-such-event", &a), ERR_NOTFOUND);
	assert_string_equal(err_msg(), "unknown event 'no-such-event' (see veles list)");
	assert_int_equal(perf_event_parse("../x:y", &a), ERR_NOTFOUND);
	/* A recording's event names (without its formats) lead nowhere
	 * outside tracefs's events/, with or without tracefs. */
	{
		char *text = NULL;

		assert_int_equal(perf_tracepoint_format("sched:../../../etc", &text), ERR_NOTFOUND);
		assert_int_equal(perf_tracepoint_format("../sched:x", &text), ERR_NOTFOUND);
		assert_int_equal(perf_tracepoint_format("a/b:x", &text), ERR_NOTFOUND);
		assert_null(text);
	}
	/* perf's privilege-level modifiers. */
	assert_int_equal(perf_event_parse("cycles:u", &a), 0);
	assert_int_equal(a.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_true(!a.exclude_user && a.exclude_kernel && a.exclude_hv);
	assert_int_equal(perf_event_parse("page-faults:uk", &a), 0);
	assert_true(!a.exclude_user && !a.exclude_kernel && a.exclude_hv);
	assert_int_equal(perf_event_parse("task-clock:k", &a), 0);
	assert_true(a.exclude_user && !a.exclude_kernel);
	/* p, pp, ppp: precise_ip, privilege levels untouched unless given. */
	assert_int_equal(perf_event_parse("cycles:pp", &a), 0);
	assert_int_equal(a.precise_ip, 2);
	assert_true(!a.exclude_user && !a.exclude_kernel && !a.exclude_hv);
	assert_int_equal(perf_event_parse("instructions:uppp", &a), 0);
	assert_int_equal(a.config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_true(a.precise_ip == 3 && !a.exclude_user && a.exclude_kernel);
	assert_int_equal(perf_event_parse("cycles:pppp", &a), ERR_NOTFOUND);
	assert_int_equal(perf_event_parse("cycles:x", &a), ERR_NOTFOUND);
	assert_string_equal(err_msg(), "unknown event 'cycles:x' (see veles list)");
	assert_int_equal(perf_event_parse("cycles:", &a), ERR_NOTFOUND);
}

static void test_scaling(void **state)
{
	UNUSED(state);
	/* Counted half the time it was enabled: the count doubles. */
	assert_true(perf_scaled(100, 2000, 1000) == 200.0);
	assert_true(perf_scaled(100, 1000, 1000) == 100.0);
	assert_true(perf_scaled(100, 1000, 0) == 0.0);
}

static void test_counter_list(void **state)
{
	struct perf_counters cs = {0};

	UNUSED(state);
	assert_int_equal(perf_counters_add(&cs, "task-clock,page-faults"), 0);
	assert_int_equal(cs.n, 2);
	assert_string_equal(cs.v[1].name, "page-faults");
	assert_int_equal(perf_counters_add(&cs, "cs,bogus"), ERR_NOTFOUND);
	assert_int_equal(cs.n, 3); /* the good ones before the bad one stay */
	perf_counters_free(&cs);
}

static void assert_metric(struct perf_metric m, double value, const char *unit)
{
	assert_non_null(m.unit);
	assert_string_equal(m.unit, unit);
	assert_true(m.value > value - 1e-9 && m.value < value + 1e-9);
}

static void test_metrics(void **state)
{
	struct perf_counters cs = {0};
	/* task-clock 2 ms over a 4 ms span; 4e6 cycles, 1e7 instructions ... */
	struct perf_count c[] = {
		{2e6, true}, {4e6, true}, {1e7, true}, {1000, true}, {50, true},  {400, true},
		{100, true}, {800, true}, {8, true},   {3000, true}, {1e6, true}, {5, false},
	};

	UNUSED(state);
	assert_int_equal(perf_counters_add(&cs, "task-clock,cycles,instructions,branches,"
						"branch-misses,cache-references,cache-misses,"
						"L1-dcache-loads,L1-dcache-load-misses,page-faults,"
						"stalled-cycles-frontend,cs"),
			 0);
	assert_metric(perf_metric(&cs, c, 0, 4e6), 0.5, "CPUs utilized");
	assert_metric(perf_metric(&cs, c, 1, 4e6), 2.0, "GHz");
	assert_metric(perf_metric(&cs, c, 2, 4e6), 2.5, "insn per cycle");
	assert_null(perf_metric(&cs, c, 3, 4e6).unit);
	assert_metric(perf_metric(&cs, c, 4, 4e6), 5.0, "% of all branches");
	assert_metric(perf_metric(&cs, c, 6, 4e6), 25.0, "% of all cache refs");
	assert_metric(perf_metric(&cs, c, 8, 4e6), 1.0, "% of all accesses");
	/* 3000 faults in 2 ms of task time: 1.5 M/sec */
	assert_metric(perf_metric(&cs, c, 9, 4e6), 1.5, "M/sec");
	assert_metric(perf_metric(&cs, c, 10, 4e6), 25.0, "% frontend cycles idle");
	assert_null(perf_metric(&cs, c, 11, 4e6).unit); /* not counted */
	/* Without its partner (cycles not counted) there is no IPC. */
	c[1].counted = false;
	assert_null(perf_metric(&cs, c, 2, 4e6).unit);
	/* Without task-clock, rates are per second of wall time. */
	c[0].counted = false;
	assert_metric(perf_metric(&cs, c, 9, 4e6), 750.0, "K/sec");
	assert_true(perf_is_clock(&cs.v[0]) && !perf_is_clock(&cs.v[9]));
	perf_counters_free(&cs);
}

static char *write_file(const char *name, const void *recs, size_t len, const char *event)
{
	char *path = xasprintf("%s/%s", tmp_base, name);
	struct perf_data_writer w;
	struct perf_data_header h = {.magic = PERF_DATA_MAGIC, .version = PERF_DATA_VERSION};

	h.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	h.name_len = (uint32_t)strlen(event);
	h.header_size = (uint32_t)(sizeof(h) + h.name_len);
	h.period = 99;
	h.freq = 1;
	assert_int_equal(perf_data_create(&w, path, &h, event), 0);
	assert_int_equal(perf_data_write(&w, recs, len), 0);
	assert_int_equal(perf_data_close(&w, true), 0);
	return path;
}

static void test_data_file(void **state)
{
	struct perf_data d;
	char *path = write_file("a.data", "\1\0\0\0\0\0\x08\0", 8, "cpu-clock");
	char *bad = xasprintf("%s/bad.data", tmp_base);

	UNUSED(state);
	assert_int_equal(perf_data_load(path, &d), 0);
	assert_string_equal(d.event, "cpu-clock");
	assert_int_equal(d.h.period, 99);
	assert_int_equal(d.records, sizeof(d.h) + 9);
	assert_int_equal(d.len - d.records, 8);
	perf_data_free(&d);
	static const char junk[] = "VELESPD2 and more bytes than a header has, but a wrong magic";

	assert_int_equal(file_write_atomic(bad, junk, sizeof(junk)), 0);
	assert_int_equal(perf_data_load(bad, &d), ERR_PARSE);
	free(path);
	free(bad);
}

__attribute__((noinline)) int perf_test_marker(int x);
__attribute__((noinline)) int perf_test_marker(int x)
{
	return x * 3 + 1;
}

static char *self_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	assert_true(n > 0);
	buf[n] = '\0';
	return xstrdup(buf);
}

static const struct perf_sym *sym_named(const struct perf_dso *d, const char *name)
{
	for (size_t i = 0; i < d->nsyms; i++)
		if (strcmp(d->syms[i].name, name) == 0)
			return &d->syms[i];
	return NULL;
}

static void test_symbols(void **state)
{
	char *exe = self_path();
	struct perf_dso *d = perf_dso_load(exe);
	const struct perf_sym *s = sym_named(d, "perf_test_marker");
	uint64_t off;

	UNUSED(state);
	assert_non_null(s);
	assert_true(s->end > s->start);
	assert_ptr_equal(perf_dso_find_addr(d, s->start + 1), s);
	assert_true(perf_dso_offset(d, s->start, &off));
	assert_ptr_equal(perf_dso_find(d, off), s);
	perf_dso_free(d);
	d = perf_dso_load("/no/such/file");
	assert_int_equal(d->nsyms, 0);
	assert_null(perf_dso_find(d, 0));
	perf_dso_free(d);
	free(exe);
}

struct got {
	char names[4][64];
	uint64_t period[4];
	char comm[4][16];
	size_t n;
};

static void on_sample(const struct perf_sample *smp, void *arg)
{
	struct got *g = arg;

	if (g->n < 4) {
		snprintf(g->names[g->n], sizeof(g->names[0]), "%s", perf_loc_sym(&smp->at));
		snprintf(g->comm[g->n], sizeof(g->comm[0]), "%s", smp->comm);
		g->period[g->n++] = smp->period;
	}
}

/* Appends a record of @type with body @body (@len bytes) to @b. */
static void add_rec(struct buf *b, uint32_t type, const void *body, size_t len)
{
	struct perf_event_header h = {.type = type, .size = (uint16_t)(sizeof(h) + len)};

	buf_add(b, &h, sizeof(h));
	buf_add(b, body, len);
}

static void add_sample_at(struct buf *b, uint64_t ip, uint32_t pid, uint64_t period, uint64_t time)
{
	uint64_t v[5] = {ip, (uint64_t)pid | (uint64_t)pid << 32, time, 0, period};

	add_rec(b, PERF_RECORD_SAMPLE, v, sizeof(v));
}

static void add_sample(struct buf *b, uint64_t ip, uint32_t pid, uint64_t period)
{
	add_sample_at(b, ip, pid, period, 1000);
}

struct mmap_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	char file[4096];
};

static void test_session_resolves(void **state)
{
	char *exe = self_path();
	struct perf_dso *d = perf_dso_load(exe);
	const struct perf_sym *s = sym_named(d, "perf_test_marker");
	const uint64_t base = 0x10000000;
	struct buf b = BUF_INIT;
	struct {
		uint32_t pid, tid;
		char comm[8];
	} comm = {42, 42, "prog"};
	struct mmap_body map = {42, 42, base, 0x10000000, 0, ""};
	struct perf_session *ses;
	struct got g = {0};
	uint64_t off, lost;
	char *path;

	UNUSED(state);
	assert_true(perf_dso_offset(d, s->start, &off));
	snprintf(map.file, sizeof(map.file), "%s", exe);
	add_rec(&b, PERF_RECORD_COMM, &comm, sizeof(comm));
	add_rec(&b, PERF_RECORD_MMAP, &map,
		offsetof(struct mmap_body, file) + ((strlen(exe) + 8) & ~7u));
	add_sample(&b, base + off + 1, 42, 7);
	add_sample(&b, 0x5000, 42, 1);	   /* outside every map */
	add_sample(&b, base + off, 43, 1); /* another process: no maps */
	path = write_file("s.data", b.data, b.len, "cpu-clock");
	assert_int_equal(perf_session_open(path, &ses), 0);
	assert_int_equal(perf_session_samples(ses, on_sample, &g, &lost), 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.names[0], "perf_test_marker");
	assert_string_equal(g.comm[0], "prog");
	assert_int_equal(g.period[0], 7);
	assert_string_equal(g.names[1], "[unknown]");
	assert_string_equal(g.names[2], "[unknown]");
	assert_string_equal(g.comm[2], "[unknown]");
	perf_session_free(ses);
	perf_dso_free(d);
	buf_release(&b);
	free(path);
	free(exe);
}

/*
 * The records of two CPUs' buffers, one after the other: CPU 1's sample
 * of process 50 comes first in the file but after CPU 0's comm and mmap
 * (with their sample_id_all trailer: u32 pid, tid; u64 time; u32 cpu, res)
 * in time, and is named all the same. The idle task is "swapper".
 */
static void test_session_time_order(void **state)
{
	char *exe = self_path();
	struct perf_dso *d = perf_dso_load(exe);
	const struct perf_sym *s = sym_named(d, "perf_test_marker");
	const uint64_t base = 0x20000000;
	struct buf b = BUF_INIT;
	struct {
		uint32_t pid, tid;
		char comm[8];
		uint32_t tpid, ttid;
		uint64_t time;
		uint32_t cpu, res;
	} comm = {50, 50, "late", 50, 50, 1500, 0, 0};
	struct mmap_body map = {50, 50, base, 0x10000000, 0, ""};
	size_t flen;
	uint64_t off, lost, trailer[3] = {50 | (uint64_t)50 << 32, 1600, 0};
	struct perf_session *ses;
	struct got g = {0};
	char *path;

	UNUSED(state);
	assert_true(perf_dso_offset(d, s->start, &off));
	snprintf(map.file, sizeof(map.file), "%s", exe);
	flen = (strlen(exe) + 8) & ~(size_t)7;
	memcpy(map.file + flen, trailer, sizeof(trailer));
	add_sample_at(&b, base + off + 1, 50, 3, 2000); /* CPU 1 */
	add_sample_at(&b, 0x1000, 0, 1, 2100);
	add_rec(&b, PERF_RECORD_COMM, &comm, sizeof(comm)); /* CPU 0 */
	add_rec(&b, PERF_RECORD_MMAP, &map,
		offsetof(struct mmap_body, file) + flen + sizeof(trailer));
	path = write_file("o.data", b.data, b.len, "cpu-clock");
	assert_int_equal(perf_session_open(path, &ses), 0);
	assert_int_equal(perf_session_samples(ses, on_sample, &g, &lost), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.names[0], "perf_test_marker");
	assert_string_equal(g.comm[0], "late");
	assert_int_equal(g.period[0], 3);
	assert_string_equal(g.comm[1], "swapper");
	perf_session_free(ses);
	perf_dso_free(d);
	buf_release(&b);
	free(path);
	free(exe);
}

/* A held child starts in its own directory; ours stays. */
static void test_child_cwd(void **state)
{
	char *dir = tmp_fresh_dir(), *real = realpath(dir, NULL), *out = xasprintf("%s/pwd", dir);
	char *ours = getcwd(NULL, 0), *now, *want = xasprintf("%s\n", real);
	char *argv[] = {"sh", "-c", "pwd -P", NULL};
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct perf_child_io io = {.in_fd = -1, .out_fd = fd, .err_fd = -1, .cwd = dir};
	struct perf_child ch;
	struct buf b = BUF_INIT;
	int status;

	UNUSED(state);
	assert_true(fd >= 0);
	assert_int_equal(perf_child_fork_io(&ch, argv, &io), 0);
	assert_int_equal(perf_child_start(&ch, argv[0]), 0);
	assert_int_equal(waitpid(ch.pid, &status, 0), ch.pid);
	ch.pid = 0;
	perf_child_release(&ch);
	close(fd);
	assert_int_equal(file_read_all(out, &b), 0);
	assert_string_equal(buf_str(&b), want);
	now = getcwd(NULL, 0);
	assert_string_equal(now, ours);
	/* A directory that is not there: the exec's error, named. */
	io.out_fd = -1;
	io.cwd = out;
	assert_int_equal(perf_child_fork_io(&ch, argv, &io), 0);
	assert_int_equal(perf_child_start(&ch, argv[0]), ERR_CHILD);
	assert_string_equal(err_msg(), "cannot run sh: Not a directory");
	perf_child_release(&ch);
	buf_release(&b);
	free(now);
	free(ours);
	free(want);
	free(out);
	free(real);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_names),	 cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_counter_list),	 cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_data_file),	 cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_session_resolves), cmocka_unit_test(test_session_time_order),
		cmocka_unit_test(test_child_cwd),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
