/* Decoding the memory runtime's records (docs/memory-format.md), from
 * bytes written here by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "collect/memory/memread.h"
#include "memformat.h"
#include "util/common.h"

struct out {
	unsigned char b[512];
	size_t n;
};

static void le(struct out *o, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		o->b[o->n++] = (unsigned char)(v >> (8 * i));
}

/* The prefix varint of docs/memory-format.md, written the slow way. */
static void varint(struct out *o, uint64_t v)
{
	unsigned n = 1;

	while (n < 9 && v >> (7 * n))
		n++;
	if (n == 9) {
		o->b[o->n++] = 0xff;
		le(o, v, 8);
		return;
	}
	le(o, (v << n) | ((1u << (n - 1)) - 1), (int)n);
}

static uint64_t zz(int64_t d)
{
	return ((uint64_t)d << 1) ^ (d < 0 ? UINT64_MAX : 0);
}

static void header(struct out *o)
{
	memcpy(o->b, VMEM_MAGIC, VMEM_MAGIC_LEN);
	o->n = VMEM_MAGIC_LEN;
	le(o, VMEM_VERSION, 4);
	le(o, 4242, 4);
	le(o, 1, 4);
	le(o, 0, 4);
	le(o, 1000, 8);
}

/* One events block: a stack, a malloc, a realloc and a free. */
static size_t events_block(struct out *o)
{
	size_t head = o->n, start;

	o->b[o->n++] = VMEM_BLOCK_EVENTS;
	le(o, 0, 4);
	start = o->n;
	le(o, 77, 4);	/* tid */
	le(o, 5000, 8); /* base ns */
	o->b[o->n++] = VMEM_STACK;
	varint(o, 1);
	varint(o, 2);
	varint(o, zz(0x401000));
	varint(o, zz(0x10)); /* 0x401010 */
	o->b[o->n++] = VMEM_MALLOC | VMEM_F_TIME;
	varint(o, 3);
	varint(o, 1);
	varint(o, zz(0x5000));
	varint(o, 24);
	o->b[o->n++] = VMEM_REALLOC | VMEM_F_ADDR16; /* no time flag: dt 0 */
	varint(o, 1);
	varint(o, zz(0x10)); /* new 0x5100, in units of 16 */
	varint(o, 48);
	varint(o, zz(-0x100)); /* old 0x5000 */
	o->b[o->n++] = VMEM_FREE | VMEM_F_TIME | VMEM_F_ADDR16;
	varint(o, 2);
	varint(o, 0);
	varint(o, zz(-0x10)); /* back to 0x5000 */
	for (int i = 0; i < 4; i++)
		o->b[head + 1 + i] = (unsigned char)((o->n - start) >> (8 * i));
	return head;
}

static void test_events(void **state)
{
	struct out o = {0};
	struct mem_file f = {0};

	UNUSED(state);
	header(&o);
	events_block(&o);
	assert_int_equal(mem_parse(o.b, o.n, "t", &f), 0);
	assert_int_equal(f.pid, 4242);
	assert_int_equal(f.nev, 3);
	assert_int_equal(f.truncated, 0);
	assert_int_equal(f.ev[0].kind, VMEM_MALLOC);
	assert_int_equal(f.ev[0].ns, 5003);
	assert_int_equal(f.ev[0].addr, 0x5000);
	assert_int_equal(f.ev[0].size, 24);
	assert_int_equal(f.ev[0].tid, 77);
	assert_int_equal(f.ev[1].addr, 0x5100);
	assert_int_equal(f.ev[1].old, 0x5000);
	assert_int_equal(f.ev[1].size, 48);
	assert_int_equal(f.ev[2].kind, VMEM_FREE);
	assert_int_equal(f.ev[1].ns, 5003);
	assert_int_equal(f.ev[2].addr, 0x5000);
	assert_int_equal(f.ev[2].ns, 5005);
	assert_true(f.nstacks > 1 && f.stacks[1].defined);
	assert_int_equal(f.stacks[1].n, 2);
	assert_int_equal(f.stacks[1].pc[1], 0x401010);
	assert_int_equal(f.end, 0);
	mem_file_release(&f);
}

/* A crash mid-write leaves a block cut short: the whole blocks before it
 * are kept. */
static void test_truncated(void **state)
{
	struct out o = {0};
	struct mem_file f = {0};
	size_t whole;

	UNUSED(state);
	header(&o);
	events_block(&o);
	whole = o.n;
	events_block(&o);
	assert_int_equal(mem_parse(o.b, whole + 9, "t", &f), 0);
	assert_int_equal(f.nev, 3);
	assert_int_equal(f.truncated, 1);
	mem_file_release(&f);
}

static void test_end_and_maps(void **state)
{
	struct out o = {0};
	struct mem_file f = {0};
	static const char maps[] = "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";

	UNUSED(state);
	header(&o);
	o.b[o.n++] = VMEM_BLOCK_MAPS;
	le(&o, sizeof(maps) - 1, 4);
	memcpy(o.b + o.n, maps, sizeof(maps) - 1);
	o.n += sizeof(maps) - 1;
	o.b[o.n++] = 99; /* a block from a newer writer: skipped */
	le(&o, 2, 4);
	o.n += 2;
	o.b[o.n++] = VMEM_BLOCK_END;
	le(&o, 10, 4);
	le(&o, 9999, 8);
	o.b[o.n++] = VMEM_END_SIGNAL;
	o.b[o.n++] = 11;
	assert_int_equal(mem_parse(o.b, o.n, "t", &f), 0);
	assert_string_equal(f.maps, maps);
	assert_int_equal(f.end, VMEM_END_SIGNAL);
	assert_int_equal(f.end_signal, 11);
	assert_int_equal(f.nev, 0);
	mem_file_release(&f);
}

/* Sizes of every width: one byte, two, eight (2^55) and the nine of a
 * number of 2^56 or more, with the stack id given once and then repeated
 * by VMEM_F_SAME; the writer's own bytes for 300 are checked. */
static void test_varint_widths(void **state)
{
	static const uint64_t sizes[] = {5, 300, (uint64_t)1 << 55, UINT64_MAX - 7};
	struct out o = {0};
	struct mem_file f = {0};
	size_t head, start, at;

	UNUSED(state);
	header(&o);
	head = o.n;
	o.b[o.n++] = VMEM_BLOCK_EVENTS;
	le(&o, 0, 4);
	start = o.n;
	le(&o, 1, 4);
	le(&o, 0, 8);
	for (int i = 0; i < 4; i++) {
		/* The first names stack 5; the others repeat it with the flag. */
		o.b[o.n++] = VMEM_MALLOC | (i ? VMEM_F_SAME : 0);
		if (i == 0)
			varint(&o, 5);
		at = o.n;
		varint(&o, zz(16 * (i + 1)));
		varint(&o, sizes[i]);
	}
	assert_int_equal(o.b[o.n - 9], 0xff); /* the last size takes nine bytes */
	assert_true(at > 0);
	for (int i = 0; i < 4; i++)
		o.b[head + 1 + i] = (unsigned char)((o.n - start) >> (8 * i));
	assert_int_equal(mem_parse(o.b, o.n, "t", &f), 0);
	assert_int_equal(f.nev, 4);
	for (int i = 0; i < 4; i++) {
		assert_true(f.ev[i].size == sizes[i]);
		assert_int_equal(f.ev[i].stack, 5);
	}
	assert_int_equal(f.ev[3].addr, 16 + 32 + 48 + 64);
	mem_file_release(&f);
	o.n = 0;
	varint(&o, 300); /* shifted by two over the prefix bits 01 */
	assert_int_equal(o.n, 2);
	assert_int_equal(o.b[0], (300 << 2 | 1) & 0xff);
	assert_int_equal(o.b[1], 300 >> 6);
}

/* One slot of a live file at @at: @len bytes of @block's buffer (its
 * events block) committed, under number @seq. */
static void live_slot(unsigned char *live, size_t at, const struct out *block, uint64_t len,
		      uint64_t seq)
{
	struct out o = {0};

	memcpy(o.b, VMEM_LIVE_MAGIC, VMEM_MAGIC_LEN);
	o.n = VMEM_LIVE_LEN;
	le(&o, len, 8);
	le(&o, seq, 8);
	le(&o, VMEM_LIVE_HEAD, 4); /* the buffer right after the head */
	le(&o, 256, 4);		   /* slot size */
	memcpy(live + at, o.b, o.n);
	memcpy(live + at + VMEM_LIVE_HEAD, block->b, block->n);
}

/* A process killed outright: its live file's buffers are read, but for
 * one a FLUSHED block says was written, an empty one, and the record
 * past the committed length (cut short); a slot without magic ends it. */
static void test_live(void **state)
{
	struct out o = {0}, block = {0};
	struct mem_file f = {0};
	static unsigned char live[4 * 256];

	UNUSED(state);
	header(&o);
	events_block(&o);
	o.b[o.n++] = VMEM_BLOCK_FLUSHED;
	le(&o, 8, 4);
	le(&o, 7, 8);
	events_block(&block);
	live_slot(live, 0, &block, block.n, 7);
	live_slot(live, 256, &block, block.n - 2, 8); /* the free cut short */
	live_slot(live, 512, &block, VMEM_BLOCK_HEAD + VMEM_EVENTS_HEAD, 9);
	live_slot(live, 768, &block, block.n, 10);
	live[768] = 'X';
	assert_int_equal(mem_parse(o.b, o.n, "t", &f), 0);
	assert_int_equal(f.nev, 3);
	mem_parse_live(live, sizeof(live), &f);
	assert_int_equal(f.nev, 5);
	assert_int_equal(f.nlive, 2);
	assert_int_equal(f.ev[3].kind, VMEM_MALLOC);
	assert_int_equal(f.ev[3].tid, 77);
	assert_int_equal(f.ev[3].ns, 5003);
	assert_int_equal(f.ev[4].kind, VMEM_REALLOC);
	assert_int_equal(f.ev[4].addr, 0x5100);
	mem_parse_live(live, 100, &f); /* shorter than a slot: nothing */
	assert_int_equal(f.nev, 5);
	mem_file_release(&f);
}

static void test_not_records(void **state)
{
	struct mem_file f = {0};
	struct out o = {0};

	UNUSED(state);
	assert_int_equal(mem_parse((const unsigned char *)"hello", 5, "x.bin", &f), ERR_PARSE);
	assert_non_null(strstr(err_msg(), "x.bin: not a memory record file"));
	header(&o);
	o.b[8] = 9; /* version */
	assert_int_equal(mem_parse(o.b, o.n, "y", &f), ERR_PARSE);
	assert_non_null(strstr(err_msg(), "version 9"));
	assert_string_equal(mem_kind_name(VMEM_NEW_ARRAY), "new[]");
	assert_null(mem_kind_name(0));
	assert_true(mem_kind_frees(VMEM_DELETE));
	assert_false(mem_kind_frees(VMEM_REALLOC));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),	     cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_end_and_maps), cmocka_unit_test(test_varint_widths),
		cmocka_unit_test(test_not_records),  cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
