/* The trace reader: records into calls (nesting, exclusive time, long
 * deltas, returns without entries, longjmp), up to the committed end,
 * version 3 files, sums, .meta files, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/trace-format.h"
#include "collect/trace/trace-read.h"
#include "collect/trace/trace-sym.h"
#include "testutil.h"

#define BASE 0x7f0000000000ull
#define CAP 64 /* words per buffer */

/* A thread's header: buffer 0 at the end of the header, buffer 1 after
 * it, the written records after both; 1 held, 0 filled up to @whole. */
static struct vtr_header header(size_t whole)
{
	struct vtr_header h = {.magic = VTR_MAGIC,
			       .version = VTR_VERSION,
			       .pid = 42,
			       .tid = 43,
			       .tsc0 = 1000,
			       .data = sizeof(h) + 2 * CAP * 4,
			       .base = BASE,
			       .state = VTR_STATE(0, 0, 1),
			       .buf = {sizeof(h), sizeof(h) + CAP * 4},
			       .bufcap = CAP};

	h.done = BASE + h.buf[0] + whole * 4;
	return h;
}

/* A thread's file: the words given in buffer 0, @whole of them committed. */
static size_t make_file_committed(uint8_t *out, const uint32_t *w, size_t n, size_t whole)
{
	struct vtr_header h = header(whole);

	memset(out, 0, h.data);
	memcpy(out, &h, sizeof(h));
	memcpy(out + h.buf[0], w, n * sizeof(*w));
	return h.data;
}

static size_t make_file(uint8_t *out, const uint32_t *w, size_t n)
{
	return make_file_committed(out, w, n, n);
}

#define DEF(addr) VTR_DEFINE, 0, (uint32_t)(addr), 0
/* One-word records: function @f entered or returned from @d cycles later. */
#define IN(f, d) (VTR_SHORT | (f) << VTR_SHORT_SHIFT | (d))
#define OUT(f, d) (VTR_SHORT | VTR_SHORT_EXIT | (f) << VTR_SHORT_SHIFT | (d))

static void read_words(const uint32_t *w, size_t n, struct trace_data *d, int want)
{
	uint8_t file[8192];
	size_t len = make_file(file, w, n);

	assert_int_equal(trace_read_records(file, len, "t.vtr", d), want);
}

static void test_nested(void **state)
{
	/* f0 { f1 {} }: f1 takes 20 cycles, f0 32 of which 12 are its own. */
	const uint32_t w[] = {DEF(0x1000), IN(0, 10), DEF(0x2000), IN(1, 5), OUT(1, 20), OUT(0, 7)};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 2);
	assert_int_equal(d.calls[0].addr, 0x2000);
	assert_int_equal(d.calls[0].incl, 20);
	assert_int_equal(d.calls[0].excl, 20);
	assert_int_equal(d.calls[0].order, 1);
	assert_int_equal(d.calls[0].depth, 1);
	assert_int_equal(d.calls[1].addr, 0x1000);
	assert_int_equal(d.calls[1].incl, 32);
	assert_int_equal(d.calls[1].excl, 12);
	assert_int_equal(d.calls[1].order, 0);
	assert_int_equal(d.calls[1].pid, 42);
	assert_int_equal(d.calls[1].tid, 43);
	trace_data_free(&d);
}

static void test_sizes(void **state)
{
	/* --size: a size record gives the next entry its size, a negative one
	 * too; an entry without one has none. */
	const uint32_t w[] = {DEF(0x1000), VTR_SIZE,  0,	 37,	   0,
			      IN(0, 1),	   OUT(0, 2), VTR_SIZE,	 0,	   (uint32_t)-5,
			      0xffffffffu, IN(0, 1),  OUT(0, 2), IN(0, 1), OUT(0, 2)};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 3);
	assert_true(d.calls[0].has_size);
	assert_int_equal(d.calls[0].size, 37);
	assert_true(d.calls[1].has_size);
	assert_int_equal(d.calls[1].size, -5);
	assert_false(d.calls[2].has_size);
	trace_data_free(&d);
}

static void test_long_delta(void **state)
{
	/* Two-word records: a delta past 32 bits, and one past a short's 20. */
	const uint32_t w[] = {DEF(0x1000), 0, 1,	VTR_HIGH, 2,
			      VTR_EXIT,	   3, IN(0, 1), VTR_EXIT, 0x100000};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 2);
	assert_int_equal(d.calls[0].incl, (2ull << 32) + 3);
	assert_int_equal(d.calls[1].incl, 0x100000);
	trace_data_free(&d);
}

static void test_unmatched(void **state)
{
	/* A return from before the records began (a fork) is not timed; a
	 * longjmp out of f1 back into f0 drops f1's open call. */
	const uint32_t w[] = {DEF(0x1000), OUT(0, 4), DEF(0x2000), IN(0, 1), IN(1, 2), OUT(0, 3)};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.calls[0].addr, 0x1000);
	assert_int_equal(d.calls[0].incl, 5);
	assert_int_equal(d.calls[0].excl, 5);
	assert_int_equal(d.calls[0].depth, 0);
	trace_data_free(&d);
}

static void test_cut_short(void **state)
{
	/* A define whose address record is missing: the file ends there. */
	const uint32_t w[] = {DEF(0x1000), IN(0, 1), OUT(0, 1), VTR_DEFINE, 0};
	struct trace_data d = {0};

	UNUSED(state);
	read_words(w, ARRAY_SIZE(w), &d, 0);
	assert_int_equal(d.ncalls, 1);
	trace_data_free(&d);
}

static void test_bad_records(void **state)
{
	const uint32_t undefined[] = {IN(0, 1)}, ok[] = {DEF(0x1000), IN(0, 1), OUT(0, 1)};
	struct trace_data d = {0};
	uint8_t file[2048] = {1};
	struct vtr_header h = header(0), bad;
	size_t len = make_file(file, ok, ARRAY_SIZE(ok));

	UNUSED(state);
	read_words(undefined, ARRAY_SIZE(undefined), &d, ERR_PARSE);
	assert_int_equal(trace_read_records((uint8_t[64]){1}, 8, "t.vtr", &d), ERR_PARSE);
	assert_int_equal(trace_read_records((uint8_t[256]){1}, 256, "t.vtr", &d), ERR_PARSE);
	/* A buffer outside the head, more held words than a buffer holds,
	 * records said to start past the end. */
	memcpy(&h, file, sizeof(h));
	bad = h;
	bad.buf[1] = h.data - 4;
	memcpy(file, &bad, sizeof(bad));
	assert_int_equal(trace_read_records(file, len, "t.vtr", &d), ERR_PARSE);
	bad = h;
	bad.state = VTR_STATE(0, CAP + 1, 1);
	memcpy(file, &bad, sizeof(bad));
	assert_int_equal(trace_read_records(file, len, "t.vtr", &d), ERR_PARSE);
	bad = h;
	bad.data = len + 4;
	memcpy(file, &bad, sizeof(bad));
	assert_int_equal(trace_read_records(file, len, "t.vtr", &d), ERR_PARSE);
	/* A committed end outside the buffer being filled: nothing of it. */
	bad = h;
	bad.done = BASE + h.buf[1] + 4;
	memcpy(file, &bad, sizeof(bad));
	assert_int_equal(trace_read_records(file, len, "t.vtr", &d), 0);
	assert_int_equal(d.ncalls, 0);
	trace_data_free(&d);
}

/*
 * A process killed outright: the records written to the file, then the
 * held buffer's whole words, then the other buffer's up to the committed
 * end (the word after it was reserved, maybe not stored). More written
 * words said than the file has are cut to it. A file of zeros is a thread
 * killed before its header; the header's lost calls and full flag count.
 */
static void test_committed(void **state)
{
	const uint32_t w[] = {DEF(0x1000), IN(0, 1), OUT(0, 1), IN(0, 1), OUT(0, 1)};
	const uint32_t def[] = {DEF(0x1000)}, held[] = {IN(0, 1), OUT(0, 1)},
		       fill[] = {IN(0, 1), OUT(0, 2)};
	struct trace_data d = {0};
	uint8_t file[2048], zeros[4096] = {0};
	struct vtr_header h;
	size_t len = make_file_committed(file, w, ARRAY_SIZE(w), 7);

	UNUSED(state);
	/* The last return reserved, not committed: that call is not whole. */
	assert_int_equal(trace_read_records(file, len, "t.vtr", &d), 0);
	assert_int_equal(d.ncalls, 1);
	len = make_file_committed(file, w, ARRAY_SIZE(w), 8);
	assert_int_equal(trace_read_records(file, len, "t.vtr", &d), 0);
	assert_int_equal(d.ncalls, 3);
	/* Written, held in buffer 0, filling buffer 1: in that order. */
	h = header(0);
	h.state = VTR_STATE(ARRAY_SIZE(def), ARRAY_SIZE(held), 0);
	h.done = BASE + h.buf[1] + sizeof(fill);
	h.lost = 3;
	h.flags = VTR_FULL;
	memset(file, 0, sizeof(file));
	memcpy(file, &h, sizeof(h));
	memcpy(file + h.buf[0], held, sizeof(held));
	memcpy(file + h.buf[1], fill, sizeof(fill));
	memcpy(file + h.data, def, sizeof(def));
	assert_int_equal(trace_read_records(file, h.data + sizeof(def), "t.vtr", &d), 0);
	assert_int_equal(d.ncalls, 5);
	assert_int_equal(d.calls[4].incl, 2);
	assert_int_equal(d.nfull, 1);
	assert_int_equal(d.nlost, 1);
	assert_int_equal(d.lost[0].pid, 42);
	assert_int_equal(d.lost[0].n, 3);
	/* The written words cut short: an error, not records read askew. */
	assert_int_equal(trace_read_records(file, h.data + 8, "t.vtr", &d), ERR_PARSE);
	assert_int_equal(trace_read_records(zeros, sizeof(zeros), "t.vtr", &d), 0);
	assert_int_equal(d.nthreads, 4);
	trace_data_free(&d);
}

/* A version 3 file: a 24-byte header, every whole record to its end. */
static void test_version3(void **state)
{
	const uint32_t head[6] = {VTR_MAGIC, 3, 42, 43, 1000, 0};
	const uint32_t w[] = {DEF(0x1000), IN(0, 1), OUT(0, 5), VTR_DEFINE};
	uint8_t file[128];
	struct trace_data d = {0};

	UNUSED(state);
	memcpy(file, head, sizeof(head));
	memcpy(file + sizeof(head), w, sizeof(w));
	assert_int_equal(trace_read_records(file, sizeof(head) + sizeof(w), "t.vtr", &d), 0);
	assert_int_equal(d.ncalls, 1);
	assert_int_equal(d.calls[0].incl, 5);
	assert_int_equal(d.calls[0].tid, 43);
	trace_data_free(&d);
}

/* --aggregate's binary sums: the whole ones only, a function never
 * returned from left out, its count its histogram's. */
static void test_sums(void **state)
{
	struct {
		struct vtr_header h;
		struct vtr_sum s[3];
	} f;
	struct trace_data d = {0};

	UNUSED(state);
	memset(&f, 0, sizeof(f));
	f.h = (struct vtr_header){.magic = VTA_MAGIC,
				  .version = VTR_VERSION,
				  .pid = 5,
				  .tid = 6,
				  .data = sizeof(f.h),
				  .done = 2};
	f.s[0] = (struct vtr_sum){
		.addr = 0x1000, .incl = 500, .excl = 300, .nmin = ~40ull, .max = 260};
	f.s[0].hist[21] = 2;
	f.s[0].hist[33] = 3;
	f.s[1].addr = 0x2000; /* entered only */
	f.s[2] = f.s[0];      /* past done: not whole */
	assert_int_equal(trace_read_sums(&f, sizeof(f), "s.agg", &d), 0);
	assert_int_equal(d.ncalls, 1);
	assert_true(d.aggregate);
	assert_int_equal(d.calls[0].order, 5);
	assert_int_equal(d.calls[0].tid, 6);
	assert_int_equal(d.aggs[0].min, 40);
	assert_int_equal(d.aggs[0].max, 260);
	assert_int_equal(d.aggs[0].nhist, 2);
	assert_int_equal(d.hist[d.aggs[0].hist_at + 1].k, 33);
	f.h.done = 3;
	f.s[2].nmin = ~300ull; /* quicker than its slowest: wrong */
	assert_int_equal(trace_read_sums(&f, sizeof(f), "s.agg", &d), ERR_PARSE);
	f.h.magic = VTR_MAGIC;
	assert_int_equal(trace_read_sums(&f, sizeof(f), "s.agg", &d), ERR_PARSE);
	trace_data_free(&d);
}

static void test_meta(void **state)
{
	struct trace_proc p = {0};
	const char *text = "veles-trace 1\npid 7\nmode records\n"
			   "clock 1000 10.000000000 3001000 11.000000000\nlost 12\n"
			   "object 0x5000 0x6000 0x7000 /bin/prog with space\n";

	UNUSED(state);
	assert_int_equal(trace_read_meta(text, "m", &p), 0);
	assert_int_equal(p.pid, 7);
	assert_int_equal(p.lost, 12);
	assert_true(p.ns_per_tick > 333.33 && p.ns_per_tick < 333.34);
	assert_int_equal(p.nobjs, 1);
	assert_int_equal(p.objs[0].bias, 0x5000);
	assert_int_equal(p.objs[0].hi, 0x7000);
	assert_string_equal(p.objs[0].path, "/bin/prog with space");
	free(p.objs[0].path);
	free(p.objs);
	memset(&p, 0, sizeof(p));
	assert_int_equal(trace_read_meta("pid 7\n", "m", &p), ERR_PARSE);
	assert_int_equal(trace_read_meta("clock 5 2.0 5 3.0\n", "m", &p), ERR_PARSE);
	assert_int_equal(trace_read_meta("object zz\n", "m", &p), ERR_PARSE);
	assert_int_equal(trace_read_meta("start x\n", "m", &p), ERR_PARSE);
	free(p.objs);
}

/* A process that never exited: its start and the collector's own reading
 * after it calibrate it; an object listed twice counts once. */
static void test_meta_killed(void **state)
{
	struct trace_data d = {0};
	const char *text = "veles-trace 4\npid 7\nmode records\nstart 1000 10.5\n"
			   "object 0x5000 0x6000 0x7000 /bin/prog\n"
			   "object 0x5000 0x6000 0x7000 /bin/prog\n"
			   "object 0x9000 0xa000 0xb000 /lib/x.so\n";

	UNUSED(state);
	d.procs = calloc(1, sizeof(*d.procs));
	d.nprocs = 1;
	assert_int_equal(trace_read_meta(text, "m", &d.procs[0]), 0);
	assert_true(d.procs[0].ns_per_tick == 0);
	assert_int_equal(d.procs[0].nobjs, 2);
	trace_calibrate(&d, 2000001000, 11.5);
	assert_true(d.procs[0].ns_per_tick > 0.4999 && d.procs[0].ns_per_tick < 0.5001);
	/* Calibrated at exit: left as it was. */
	trace_calibrate(&d, 4001000, 11.5);
	assert_true(d.procs[0].ns_per_tick > 0.4999 && d.procs[0].ns_per_tick < 0.5001);
	trace_data_free(&d);
}

/* --aggregate's sums: min, max and the K:N buckets, which must count the
 * calls; a function not called leaves nothing. */
static void test_aggregate(void **state)
{
	struct trace_data d = {0};
	const char *text = "0x1000 5 500 300 40 260 21:2 24:1 33:2\n"
			   "0x2000 0 0 0 18446744073709551615 0\n"
			   "0x3000 1 7 7 7 7 7:1\n";

	UNUSED(state);
	assert_int_equal(trace_read_aggregate(text, "a", 3, 4, &d), 0);
	assert_int_equal(d.ncalls, 2);
	assert_true(d.aggregate);
	assert_int_equal(d.calls[0].order, 5);
	assert_int_equal(d.calls[0].tid, 4);
	assert_int_equal(d.aggs[0].min, 40);
	assert_int_equal(d.aggs[0].max, 260);
	assert_int_equal(d.aggs[0].nhist, 3);
	assert_int_equal(d.hist[d.aggs[0].hist_at + 2].k, 33);
	assert_int_equal(d.hist[d.aggs[0].hist_at + 2].n, 2);
	assert_int_equal(d.calls[1].addr, 0x3000);
	assert_int_equal(d.aggs[1].nhist, 1);
	assert_int_equal(d.hist[d.aggs[1].hist_at].k, 7);
	/* Buckets that miss a call, out of order, past the last, or a line cut. */
	assert_int_equal(trace_read_aggregate("0x1 3 9 9 1 5 4:2\n", "a", 3, 4, &d), ERR_PARSE);
	assert_int_equal(trace_read_aggregate("0x1 2 9 9 1 5 9:1 4:1\n", "a", 3, 4, &d), ERR_PARSE);
	assert_int_equal(trace_read_aggregate("0x1 1 9 9 1 5 252:1\n", "a", 3, 4, &d), ERR_PARSE);
	assert_int_equal(trace_read_aggregate("0x1 1 9 9\n0x2 1 9 9 1 5 4:1\n", "a", 3, 4, &d),
			 ERR_PARSE);
	assert_int_equal(d.ncalls, 2);
	trace_data_free(&d);
}

/* -f names a C++ function mangled, demangled, or without its parameters. */
static void test_name_matches(void **state)
{
	const char *m = "_ZNK3geo4Poly4areaEi", *d = "geo::Poly::area(int) const";

	UNUSED(state);
	assert_true(trace_name_matches("main", "main", NULL));
	assert_false(trace_name_matches("mai", "main", NULL));
	assert_true(trace_name_matches(m, m, d));
	assert_true(trace_name_matches(d, m, d));
	assert_true(trace_name_matches("geo::Poly::area", m, d));
	assert_false(trace_name_matches("geo::Poly::are", m, d));
	assert_false(trace_name_matches("geo::Poly::area()", m, d));
	assert_false(trace_name_matches("geo::Poly", m, d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested),	   cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_long_delta), cmocka_unit_test(test_unmatched),
		cmocka_unit_test(test_cut_short),  cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_meta),	   cmocka_unit_test(test_meta_killed),
		cmocka_unit_test(test_committed),  cmocka_unit_test(test_version3),
		cmocka_unit_test(test_sums),	   cmocka_unit_test(test_name_matches),
		cmocka_unit_test(test_aggregate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
