/* tpstream: a tracepoint recording read back in time order, each sample
 * named by its thread's comm at that time, the stored formats kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "perf/sampler.h"
#include "perf/tpstream.h"
#include "testutil.h"
#include "util/error.h"

struct rec {
	struct perf_event_header h;
	unsigned char body[120];
};

/* A sample as sample_type IP|TID|TIME|CPU|PERIOD|RAW lays it out; the raw
 * data is a u16 common_type and a u32 payload. */
static void add_sample(struct perf_data_writer *w, uint32_t tid, uint64_t time, uint32_t cpu,
		       uint32_t payload)
{
	struct rec r = {.h = {.type = PERF_RECORD_SAMPLE}};
	uint64_t ip = 0, period = 1;
	uint32_t ids[2] = {tid, tid}, cpus[2] = {cpu, 0}, size = 8;
	unsigned char raw[8] = {7, 0};
	size_t at = 0;

	memcpy(raw + 4, &payload, 4);
	memcpy(r.body + at, &ip, 8), at += 8;
	memcpy(r.body + at, ids, 8), at += 8;
	memcpy(r.body + at, &time, 8), at += 8;
	memcpy(r.body + at, cpus, 8), at += 8;
	memcpy(r.body + at, &period, 8), at += 8;
	memcpy(r.body + at, &size, 4), at += 4;
	memcpy(r.body + at, raw, 8), at += 8;
	r.h.size = (uint16_t)(sizeof(r.h) + ((at + 7) & ~(size_t)7));
	assert_int_equal(perf_data_write(w, &r, r.h.size), 0);
}

/* A comm record with the sample_id_all trailer (u32 pid, tid; u64 time;
 * u32 cpu, res) the kernel appends. */
static void add_comm(struct perf_data_writer *w, uint32_t tid, const char *name, uint64_t time)
{
	struct rec r = {.h = {.type = PERF_RECORD_COMM}};
	uint32_t ids[2] = {tid, tid};
	size_t at = 8 + ((strlen(name) + 8) & ~(size_t)7);

	memcpy(r.body, ids, 8);
	memcpy(r.body + 8, name, strlen(name));
	memcpy(r.body + at, ids, 8);
	memcpy(r.body + at + 8, &time, 8);
	r.h.size = (uint16_t)(sizeof(r.h) + at + 24);
	assert_int_equal(perf_data_write(w, &r, r.h.size), 0);
}

static void add_fork(struct perf_data_writer *w, uint32_t tid, uint32_t ptid, uint64_t time)
{
	struct rec r = {.h = {.type = PERF_RECORD_FORK, .size = sizeof(r.h) + 24}};
	uint32_t v[4] = {ptid, ptid, tid, ptid};

	memcpy(r.body, v, 16);
	memcpy(r.body + 16, &time, 8);
	assert_int_equal(perf_data_write(w, &r, r.h.size), 0);
}

static char *write_recording(uint32_t event_type, bool raw)
{
	char *dir = tmp_fresh_dir(), *path = xasprintf("%s/t.data", dir);
	struct perf_data_header h = {.magic = PERF_DATA_MAGIC, .version = PERF_DATA_VERSION};
	struct perf_data_writer w = {0};
	const char *ev = "test:tp";

	h.name_len = (uint32_t)strlen(ev);
	h.header_size = (uint32_t)(sizeof(h) + h.name_len);
	h.sample_type = PERF_SAMPLER_TYPE | (raw ? PERF_SAMPLE_RAW : 0);
	h.event_type = event_type;
	assert_int_equal(perf_data_create(&w, path, &h, ev), 0);
	assert_int_equal(perf_data_write_tpformat(&w, "test", "name: tp\nID: 7\nformat:\n"), 0);
	add_comm(&w, 100, "first", 50);
	add_fork(&w, 101, 100, 60);
	add_sample(&w, 100, 300, 1, 3); /* CPU 1's buffer is drained first */
	add_sample(&w, 100, 100, 0, 1);
	add_comm(&w, 100, "second", 200);
	add_sample(&w, 101, 250, 0, 2);
	add_sample(&w, 0, 10, 0, 0);
	assert_int_equal(perf_data_close(&w, true), 0);
	free(dir);
	return path;
}

static void test_time_order_and_names(void **state)
{
	char *path = write_recording(PERF_TYPE_TRACEPOINT, true);
	struct tp_stream s;
	static const char *const names[] = {"swapper", "first", "first", "second"};
	uint32_t payload;

	UNUSED(state);
	assert_int_equal(tp_stream_open(path, &s), 0);
	assert_int_equal(s.nformats, 1);
	assert_string_equal(s.formats[0].system, "test");
	assert_string_equal(s.formats[0].text, "name: tp\nID: 7\nformat:\n");
	assert_int_equal(s.nsamples, 4);
	for (size_t i = 0; i < 4; i++) {
		memcpy(&payload, s.samples[i].raw + 4, 4);
		assert_int_equal(payload, i); /* the payloads count in time order */
		assert_int_equal(s.samples[i].raw_size, 8);
		assert_string_equal(s.comms[s.samples[i].comm], names[i]);
	}
	assert_int_equal(s.samples[3].cpu, 1);
	assert_int_equal(s.samples[2].tid, 101);
	tp_stream_free(&s);
	free(path);
}

static void test_rejects_other_recordings(void **state)
{
	char *clock = write_recording(PERF_TYPE_SOFTWARE, true);
	char *noraw = write_recording(PERF_TYPE_TRACEPOINT, false);
	struct tp_stream s;

	UNUSED(state);
	assert_int_equal(tp_stream_open(clock, &s), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "not a tracepoint"));
	assert_int_equal(tp_stream_open(noraw, &s), ERR_INVALID);
	assert_non_null(strstr(err_msg(), "no raw tracepoint fields"));
	free(clock);
	free(noraw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_order_and_names),
		cmocka_unit_test(test_rejects_other_recordings),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
