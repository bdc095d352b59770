/* USDT argument specs: parsing every operand form, values from registers
 * and from a stack copy (sign and width), and operands refused. */
#include <asm/perf_regs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "collect/trace/trace-usdt.h"
#include "testutil.h"

static void test_parse(void **state)
{
	struct usdt_arg a;

	(void)state;
	assert_int_equal(usdt_arg_parse("-4@%edi", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_REG);
	assert_int_equal(a.reg, PERF_REG_X86_DI);
	assert_int_equal(a.bytes, 4);
	assert_true(a.is_signed);
	assert_int_equal(usdt_arg_parse("8@-24(%rbp)", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_MEM);
	assert_int_equal(a.reg, PERF_REG_X86_BP);
	assert_int_equal(a.value, -24);
	assert_false(a.is_signed);
	assert_int_equal(usdt_arg_parse("2@(%r12)", &a), 0);
	assert_int_equal(a.reg, PERF_REG_X86_R12);
	assert_int_equal(a.value, 0);
	assert_int_equal(usdt_arg_parse("4@$-5", &a), 0);
	assert_int_equal(a.kind, USDT_ARG_IMM);
	assert_int_equal(a.value, -5);
	assert_int_equal(usdt_arg_parse("1@%r9b", &a), 0);
	assert_int_equal(a.reg, PERF_REG_X86_R9);
}

static void test_refused(void **state)
{
	struct usdt_arg a;

	(void)state;
	assert_int_equal(usdt_arg_parse("%edi", &a), ERR_PARSE);
	assert_int_equal(usdt_arg_parse("3@%edi", &a), ERR_PARSE);
	assert_int_equal(usdt_arg_parse("4@%xmm0", &a), ERR_PARSE);
	assert_int_equal(usdt_arg_parse("8@counter(%rip)", &a), ERR_PARSE);
	assert_int_equal(usdt_arg_parse("8@8(%rax,%rbx,2)", &a), ERR_PARSE);
	assert_int_equal(usdt_arg_parse("4@$x", &a), ERR_PARSE);
}

static void test_values(void **state)
{
	uint64_t regs[64] = {0};
	unsigned char stack[64] = {0};
	struct usdt_hit h = {regs, stack, sizeof(stack)};
	struct usdt_arg a;
	int64_t v = 0;
	int32_t neg = -7;
	uint16_t big = 0xfffe;

	(void)state;
	regs[PERF_REG_X86_DI] = 0xffffffffull; /* -1 in 32 bits */
	assert_int_equal(usdt_arg_parse("-4@%edi", &a), 0);
	assert_true(usdt_arg_value(&a, &h, &v));
	assert_int_equal(v, -1);
	assert_int_equal(usdt_arg_parse("4@%edi", &a), 0);
	assert_true(usdt_arg_value(&a, &h, &v));
	assert_int_equal(v, 0xffffffffll);
	/* Memory within the sampled stack: sp = 1000, rbp = 1032. */
	regs[PERF_REG_X86_SP] = 1000;
	regs[PERF_REG_X86_BP] = 1032;
	memcpy(stack + 12, &neg, 4);
	memcpy(stack + 40, &big, 2);
	assert_int_equal(usdt_arg_parse("-4@-20(%rbp)", &a), 0);
	assert_true(usdt_arg_value(&a, &h, &v));
	assert_int_equal(v, -7);
	assert_int_equal(usdt_arg_parse("2@8(%rbp)", &a), 0);
	assert_true(usdt_arg_value(&a, &h, &v));
	assert_int_equal(v, 0xfffe);
	/* Below the stack pointer, or past the copy: not there. */
	assert_int_equal(usdt_arg_parse("8@-40(%rbp)", &a), 0);
	assert_false(usdt_arg_value(&a, &h, &v));
	assert_int_equal(usdt_arg_parse("8@28(%rbp)", &a), 0);
	assert_false(usdt_arg_value(&a, &h, &v));
	h.regs = NULL;
	assert_int_equal(usdt_arg_parse("8@%rax", &a), 0);
	assert_false(usdt_arg_value(&a, &h, &v));
	assert_int_equal(usdt_arg_parse("8@$42", &a), 0);
	assert_true(usdt_arg_value(&a, &h, &v));
	assert_int_equal(v, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
