/*
 * USDT probes (<sys/sdt.h>): the .note.stapsdt notes of an ELF file, each
 * a probe's address, its semaphore and its arguments' specs ("-4@%edi
 * 8@-16(%rbp) 4@$5"), and the values of those arguments in a probe hit's
 * registers and stack (x86-64).
 */
#ifndef COLLECT_TRACE_USDT_H
#define COLLECT_TRACE_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS 12

enum usdt_arg_kind { USDT_ARG_REG, USDT_ARG_MEM, USDT_ARG_IMM, USDT_ARG_NONE };

struct usdt_arg {
	enum usdt_arg_kind kind;
	int bytes;	/* 1, 2, 4 or 8 */
	bool is_signed; /* a negative size in the spec */
	int reg;	/* PERF_REG_X86_*: the register, or the memory operand's base */
	int64_t value;	/* the immediate, or the memory operand's displacement */
};

struct usdt_probe {
	char *provider, *name;
	uint64_t pc;	   /* the probe's address (symbol value space) */
	uint64_t sema_off; /* its semaphore's file offset, 0 when none */
	char *spec;	   /* the arguments as the note writes them */
	int nargs;	   /* -1: a spec this reader cannot evaluate */
	struct usdt_arg args[USDT_MAX_ARGS];
};

struct usdt_list {
	struct usdt_probe *probes;
	size_t n;
};

/* The probes of the ELF file @path (none when it has no notes). */
int usdt_read(const char *path, struct usdt_list *out);
void usdt_list_free(struct usdt_list *l);
/* Parses one argument spec ("-4@%edi"); 0 or ERR_PARSE. */
int usdt_arg_parse(const char *spec, struct usdt_arg *a);

/* A probe hit: the user registers by PERF_REG_X86_* number, the stack. */
struct usdt_hit {
	const uint64_t *regs; /* indexed by PERF_REG_X86_*, NULL when none */
	const unsigned char *stack;
	size_t stack_len; /* the bytes from regs[SP] up */
};

/* Argument @a's value in @h; false when it is not there (memory off the
 * stack sampled). Sign- or zero-extended to 64 bits as its spec says. */
bool usdt_arg_value(const struct usdt_arg *a, const struct usdt_hit *h, int64_t *out);
/* The low @bytes of @v, sign-extended when @is_signed. */
int64_t usdt_extend(uint64_t v, int bytes, bool is_signed);

#endif
