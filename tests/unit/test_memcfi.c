/* The memory runtime's reader of unwind tables (runtime/memory_cfi.c), on
 * an .eh_frame_hdr and .eh_frame made up here: the rules it gives at
 * chosen addresses, and no read outside the tables however they are
 * damaged (the ASan build checks that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "memory_cfi.h"

#define IMG 1024
#define FRAME 64 /* where .eh_frame starts */
#define CODE 0x1000

/* The made-up functions: their start (from the image), size, and CFA
 * program. */
struct fn {
	uintptr_t at, size;
	unsigned char prog[24];
	size_t len;
};

static const struct fn fns[] = {
	/* A function with a frame pointer: push %rbp; mov %rsp,%rbp (at +1,
	 * +4), leave at +0x54. */
	{CODE, 0x100, {0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6, 0x02, 0x50, 0x0c, 7, 8}, 13},
	/* A CFA that is a DWARF expression. */
	{CODE + 0x200, 0x10, {0x41, 0x0f, 2, 0x76, 0x78}, 5},
	/* The thread's first frame: the return address is undefined. */
	{CODE + 0x300, 0x10, {0x07, 16}, 2},
	/* remember_state and restore_state around an epilogue. */
	{CODE + 0x400, 0x20, {0x41, 0x0e, 16, 0x0a, 0x41, 0x0e, 8, 0x0b}, 8},
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

static _Alignas(16) unsigned char img[IMG];

static void put32(size_t at, uint32_t v)
{
	memcpy(img + at, &v, 4);
}

/* Writes the header, one CIE and an FDE per function; returns the end. */
static size_t build(void)
{
	static const unsigned char cie[] = {1, 'z',  'R',  0, 1, 0x78, 16,
					    1, 0x1b, 0x0c, 7, 8, 0x90, 1};
	size_t p = FRAME + 8 + sizeof(cie), fde[NFNS];

	memset(img, 0, sizeof(img));
	put32(FRAME, 4 + sizeof(cie));
	memcpy(img + FRAME + 8, cie, sizeof(cie));
	for (size_t i = 0; i < NFNS; i++) {
		size_t start = p;

		fde[i] = p;
		put32(p + 4, (uint32_t)(p + 4 - FRAME)); /* back to the CIE */
		put32(p + 8, (uint32_t)(fns[i].at - (p + 8)));
		put32(p + 12, (uint32_t)fns[i].size);
		img[p + 16] = 0; /* no augmentation data */
		memcpy(img + p + 17, fns[i].prog, fns[i].len);
		p += 17 + fns[i].len;
		p = (p + 3) & ~(size_t)3;
		put32(start, (uint32_t)(p - start - 4));
	}
	img[0] = 1;
	img[1] = 0x1b;
	img[2] = 0x03;
	img[3] = 0x3b;
	put32(4, (uint32_t)(FRAME - 4));
	put32(8, NFNS);
	for (size_t i = 0; i < NFNS; i++) {
		put32(12 + 8 * i, (uint32_t)fns[i].at);
		put32(16 + 8 * i, (uint32_t)fde[i]);
	}
	return p;
}

static struct cfi_rule at(size_t end, uintptr_t off)
{
	struct cfi_tables tab = {img, img, img + end};

	return cfi_rule_at(&tab, (uintptr_t)img + off);
}

static void test_frame_pointer_function(void **state)
{
	size_t end = build();
	struct cfi_rule r;

	(void)state;
	r = at(end, CODE + 1); /* on entry */
	assert_int_equal(r.kind, CFI_OK);
	assert_int_equal(r.cfa_off, 8);
	assert_int_equal(r.ra_off, -8);
	assert_int_equal(r.flags, 0);
	r = at(end, CODE + 2); /* after push %rbp */
	assert_int_equal(r.kind, CFI_OK);
	assert_int_equal(r.cfa_off, 16);
	assert_int_equal(r.flags, CFI_RBP_SAVED);
	assert_int_equal(r.rbp_off, -16);
	r = at(end, CODE + 0x30); /* the body */
	assert_int_equal(r.kind, CFI_OK);
	assert_int_equal(r.cfa_off, 16);
	assert_int_equal(r.flags, CFI_CFA_RBP | CFI_RBP_SAVED);
	r = at(end, CODE + 0x60); /* after leave */
	assert_int_equal(r.kind, CFI_OK);
	assert_int_equal(r.cfa_off, 8);
	assert_int_equal(r.flags, CFI_RBP_SAVED);
}

static void test_kinds(void **state)
{
	size_t end = build();

	(void)state;
	assert_int_equal(at(end, CODE + 0x200 + 1).kind, CFI_OK);
	assert_int_equal(at(end, CODE + 0x200 + 4).kind, CFI_HARD);
	assert_int_equal(at(end, CODE + 0x300 + 4).kind, CFI_END);
	/* Between functions, and beyond the last. */
	assert_int_equal(at(end, CODE + 0x180).kind, CFI_STOP);
	assert_int_equal(at(end, CODE + 0x900).kind, CFI_STOP);
	assert_int_equal(at(end, CODE - 0x10).kind, CFI_STOP);
}

static void test_remember_state(void **state)
{
	size_t end = build();
	struct cfi_rule r = at(end, CODE + 0x400 + 4);

	(void)state;
	assert_int_equal(r.kind, CFI_OK);
	assert_int_equal(r.cfa_off, 16);
}

static void test_judge(void **state)
{
	size_t end = build();
	struct cfi_tables tab = {img, img, img + end};

	(void)state;
	/* One function of four with a frame pointer. */
	assert_int_equal(cfi_judge(&tab), 0);
	img[0] = 2; /* an unknown version */
	assert_int_equal(cfi_judge(&tab), -1);
}

/* A rule the walk can apply, or a plain refusal: a known kind, known flags. */
static void assert_sane(struct cfi_rule r)
{
	assert_true(r.kind == CFI_OK || r.kind == CFI_END || r.kind == CFI_STOP ||
		    r.kind == CFI_HARD);
	assert_int_equal(r.flags & ~(CFI_CFA_RBP | CFI_RBP_SAVED), 0);
}

/* Tables cut short or with bytes changed: a sane answer and no stray read
 * (the ASan build checks the reads); a header cut before its table has
 * nothing to give. */
static void test_damaged(void **state)
{
	uint32_t seed = 12345;
	size_t end = build();

	(void)state;
	for (size_t cut = 0; cut < end; cut++)
		for (uintptr_t off = CODE; off < CODE + 0x500; off += 0x21) {
			struct cfi_rule r = at(cut, off);

			assert_sane(r);
			if (cut < 12)
				assert_int_equal(r.kind, CFI_STOP);
		}
	for (int round = 0; round < 2000; round++) {
		struct cfi_tables tab = {img, img, img + end};
		int judged;

		build();
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			img[(seed >> 8) % end] ^= (unsigned char)(1u << ((seed >> 4) % 8));
		}
		for (uintptr_t off = CODE; off < CODE + 0x500; off += 0x11)
			assert_sane(at(end, off));
		judged = cfi_judge(&tab);
		assert_true(judged >= -1 && judged <= 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_pointer_function),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_remember_state),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
