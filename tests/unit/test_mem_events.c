#include "profile_testlib.h"
#include "view/heapmap.h"
#include "view/mem_events.h"
#include "view/mem_report.h"

/* Rows grouped by type, as a profile file holds them; "order" says how
 * they happened: row 1, 2, 3, then 0. The exec of pid 7 ended its image
 * after order 1. */
static const char memory_json[] =
	"{\"resources\":{"
	"\"a#0\":{\"amount\":[16,32],\"address\":[4096,8192],\"order\":[3,0],\"pid\":[7,7],"
	"\"thread\":[1,2]},"
	"\"f#0\":{\"amount\":[0],\"address\":[8192],\"order\":[1],\"pid\":[7],\"thread\":[2]},"
	"\"r#0\":{\"amount\":[64],\"address\":[12288],\"old-address\":[4096],\"order\":[2],"
	"\"pid\":[7],\"thread\":[1]}},"
	"\"header\":{\"type\":\"memory\",\"cmd\":\"x\",\"units\":{\"memory\":\"B\"},"
	"\"execs\":[[7,1]]},"
	"\"resource_type_map\":{"
	"\"a#0\":{\"subtype\":\"malloc\",\"uid\":\"a\",\"type\":\"memory\",\"snapshot\":0},"
	"\"f#0\":{\"subtype\":\"free\",\"uid\":\"f\",\"type\":\"memory\",\"snapshot\":1},"
	"\"r#0\":{\"subtype\":\"realloc\",\"uid\":\"r\",\"type\":\"memory\",\"snapshot\":2}}}";

static void test_events_in_order(void **state)
{
	struct profile *p = load_str(memory_json);
	struct mem_events e;
	struct mem_event m;
	struct buf uid = BUF_INIT;
	static const uint64_t addr[] = {8192, 8192, 12288, 4096};
	static const enum mem_ev_kind kind[] = {MEM_ALLOC, MEM_FREE, MEM_REALLOC, MEM_ALLOC};

	UNUSED(state);
	mem_events_open(p, &e);
	assert_int_equal(e.n, 4);
	assert_true(e.ordered);
	for (size_t i = 0; i < e.n; i++) {
		mem_events_get(&e, i, &m);
		assert_int_equal(m.addr, addr[i]);
		assert_int_equal(m.kind, kind[i]);
		assert_int_equal(m.pid, 7);
	}
	mem_events_get(&e, 2, &m);
	assert_int_equal(m.old, 4096);
	assert_int_equal(m.amount, 64);
	assert_int_equal(m.snapshot, 2);
	assert_int_equal(m.thread, 1);
	assert_string_equal(profile_uid(p, m.row, &uid), "r");
	buf_release(&uid);
	/* The image ended at the last event of order 1: position 1. */
	assert_int_equal(e.nexecs, 1);
	assert_int_equal(e.execs[0].pid, 7);
	assert_int_equal(e.execs[0].pos, 1);
	mem_events_close(&e);
	profile_free(p);
}

/* The seed's layout: no order, so the rows' own order, and no execs. */
static void test_unordered(void **state)
{
	struct profile *p = load_data("memory.perf");
	struct mem_events e;
	struct mem_event m;

	UNUSED(state);
	mem_events_open(p, &e);
	assert_false(e.ordered);
	assert_int_equal(e.nexecs, 0);
	assert_int_equal(e.n, 2);
	mem_events_get(&e, 0, &m);
	assert_int_equal(m.kind, MEM_ALLOC);
	assert_int_equal(m.amount, 4);
	assert_int_equal(m.addr, 19284560);
	assert_int_equal(m.old, 0);
	mem_events_close(&e);
	profile_free(p);
}

static void test_kinds(void **state)
{
	UNUSED(state);
	assert_int_equal(mem_kind_of(NULL), MEM_ALLOC);
	assert_int_equal(mem_kind_of("calloc"), MEM_ALLOC);
	assert_int_equal(mem_kind_of("delete[]"), MEM_FREE);
	assert_int_equal(mem_kind_of("reallocarray"), MEM_REALLOC);
}

/* The replay of the events above: 8192 is freed by the thread that just
 * allocated it (temporary), the realloc's old block was never seen, and
 * 12288 and 4096 stay live to the end, at the peak. */
static void test_report(void **state)
{
	struct profile *p = load_str(memory_json);
	struct mem_report r;

	UNUSED(state);
	mem_report_build(p, &r);
	assert_int_equal(r.t.allocs, 3);
	assert_int_equal(r.t.frees, 2);
	assert_int_equal(r.t.bytes, 112);
	assert_int_equal(r.t.temporary, 1);
	assert_int_equal(r.t.peak, 80);
	assert_int_equal(r.t.peak_row, 0);
	assert_int_equal(r.t.leaked, 80);
	assert_int_equal(r.t.leaked_blocks, 2);
	assert_int_equal(r.nsites, 2);
	assert_int_equal(r.nleaks, 2);
	for (size_t i = 0; i < r.nsites; i++) {
		const struct mem_site *s = &r.sites[i];
		bool a = strcmp(s->uid, "a") == 0;

		assert_true(a || strcmp(s->uid, "r") == 0);
		assert_int_equal(s->count, a ? 2 : 1);
		assert_int_equal(s->bytes, a ? 48 : 64);
		assert_int_equal(s->leaked, a ? 16 : 64);
		assert_int_equal(s->peak, a ? 16 : 64);
		assert_int_equal(s->temporary, a ? 1 : 0);
	}
	assert_string_equal(mem_report_trace(&r, 0), "");
	mem_report_release(&r);
	profile_free(p);
}

/* The same events as blocks: 8192 lives through snapshot 0, freed in 1;
 * the two allocated after the exec live to the end; the peak is snapshot 2. */
static void test_heapmap(void **state)
{
	struct profile *p = load_str(memory_json);
	struct heapmap h;

	UNUSED(state);
	assert_int_equal(heapmap_build(p, &h), 0);
	assert_int_equal(h.pid, 7);
	assert_int_equal(h.nblocks, 3);
	assert_int_equal(h.first, 0);
	assert_int_equal(h.last, 2);
	for (size_t i = 0; i < h.nblocks; i++)
		if (h.blocks[i].addr == 8192)
			assert_int_equal(h.blocks[i].to, 1);
		else
			assert_int_equal(h.blocks[i].to, INT64_MAX);
	assert_int_equal(heapmap_peak(&h), 2);
	assert_int_equal(h.nranges, 1);
	assert_int_equal(h.span, 12352 - 4096);
	heapmap_release(&h);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_in_order), cmocka_unit_test(test_unordered),
		cmocka_unit_test(test_kinds),		cmocka_unit_test(test_report),
		cmocka_unit_test(test_heapmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
