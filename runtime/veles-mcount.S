/*
 * The trace runtime's entry points for programs compiled with -pg
 * (docs/collect-trace.md): mcount, which gcc calls after a function's
 * prologue, and __fentry__, which -pg -mfentry calls before it. Both save
 * every register that may carry an argument, hand the function and the
 * stack slot of its return address to veles-mcount.c, and return into
 * the function. C replaces that return address with vt_mcount_return,
 * which records the exit and goes on to the saved address.
 *
 * The fast path's C is compiled with -mgeneral-regs-only and leaves the
 * vector registers alone; only the slow path, which may call into libc,
 * saves them (xmm0-7 carry arguments, xmm0-1 return values).
 */
#include "mcount-layout.h"

	.text

/* Frame on an aligned stack; the argument registers (and r10, the static
 * chain of nested functions; rax, the vector count of a variadic call). */
.macro SAVE_ARGS
	.cfi_startproc
	push %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	and $-16, %rsp
	push %rdi
	push %rsi
	push %rdx
	push %rcx
	push %r8
	push %r9
	push %rax
	push %r10
.endm

/* fn in rdi and its return slot in rsi: vt_mcount_enter, and when it
 * asks, vt_mcount_enter_slow with the vector registers saved. The
 * answer in r11: 1 traced, 2 not traced (0 is the slow path's). Then the
 * registers back and the frame left. */
.macro ENTER
	push %rdi
	push %rsi
	call vt_mcount_enter
	test %eax, %eax
	jnz 2f
	sub $128, %rsp
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	movdqu %xmm2, 32(%rsp)
	movdqu %xmm3, 48(%rsp)
	movdqu %xmm4, 64(%rsp)
	movdqu %xmm5, 80(%rsp)
	movdqu %xmm6, 96(%rsp)
	movdqu %xmm7, 112(%rsp)
	mov 136(%rsp), %rdi
	mov 128(%rsp), %rsi
	lea 144(%rsp), %rdx			/* the saved registers, r10 first */
	call vt_mcount_enter_slow
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	movdqu 32(%rsp), %xmm2
	movdqu 48(%rsp), %xmm3
	movdqu 64(%rsp), %xmm4
	movdqu 80(%rsp), %xmm5
	movdqu 96(%rsp), %xmm6
	movdqu 112(%rsp), %xmm7
	add $128, %rsp
2:
	mov %eax, %r11d
	add $16, %rsp
	pop %r10
	pop %rax
	pop %r9
	pop %r8
	pop %rcx
	pop %rdx
	pop %rsi
	pop %rdi
	leave
	.cfi_def_cfa %rsp, 8
.endm

/* The cycle counter into the thread's last stamp, the delta from the one
 * before in rdx (rax: the stamp); a delta too long for a short record
 * goes to @slow, before any write. */
.macro STAMP slow
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, %rdx
	sub TB_LAST(%rsi), %rdx
	cmp $DELTA_MAX, %rdx
	ja \slow
	mov %rax, TB_LAST(%rsi)
.endm

/*
 * The word just stored at (%rax) is whole: the header's committed end
 * moves over it if it was at %rax (as commit() in trace-priv.h), then over
 * the records handlers stored after it meanwhile. Clobbers rax and
 * @scratch; rsi is the thread's buffer.
 */
.macro COMMIT scratch
	lea 4(%rax), \scratch
	cmpxchg \scratch, TB_DONE(%rsi)	/* one instruction: a handler comes before or after */
	jne 9f				/* a record before it is open: its hook commits ours */
	cmp TB_POS(%rsi), \scratch
	je 9f
8:	mov TB_DONE(%rsi), %rax
	mov TB_POS(%rsi), \scratch
	cmp %rax, \scratch
	je 9f
	cmpxchg \scratch, TB_DONE(%rsi)
	jmp 8b
9:
.endm

/* The five registers the fast paths use, which the traced function's
 * arguments or return value may be in; POP_FAST leaves the unwind
 * information to its caller, whose frames differ. */
.macro PUSH_FAST
	push %rax
	push %rdx
	push %rcx
	push %rsi
	push %rdi
	.cfi_adjust_cfa_offset 40
.endm

.macro POP_FAST
	pop %rdi
	pop %rsi
	pop %rcx
	pop %rdx
	pop %rax
.endm

/*
 * The entry's fast path, for a function whose record word is cached, a
 * short delta, room in the buffer and on the shadow stack: the same
 * checks and writes as vt_mcount_enter's, in the five registers saved
 * (rax, rdx, rcx, rsi, rdi: the function is at 40(%rsp)) and r11, which
 * carries nothing on entry. Leaves the caller's return address slot in
 * rdx. Anything else, before any write, goes to @slow.
 */
.macro FAST_ENTER slow, slot_to_rdx:vararg
	mov tb@gottpoff(%rip), %rsi
	mov %fs:(%rsi), %rsi
	cmp $1, %rsi
	jbe \slow
	mov mc@gottpoff(%rip), %rcx
	mov %fs:MC_TOP(%rcx), %rax
	cmp %fs:MC_END(%rcx), %rax
	jae \slow			/* full, or not allocated yet */
	mov TB_POS(%rsi), %rax
	cmp TB_END(%rsi), %rax
	jae \slow
	mov 40(%rsp), %rdi			/* the function */
	mov %rdi, %r11
	and $FAST_MASK, %r11d
	add %rsi, %r11
	mov TB_FAST+FAST_WORD(%r11), %eax	/* the word, then its function */
	cmp %rdi, TB_FAST+FAST_FN(%r11)
	jne \slow
	mov %eax, %r11d
	mov %eax, %edi				/* the word again, for the entry */
	STAMP \slow
	add %edx, %r11d
	mov $4, %eax
	xadd %rax, TB_POS(%rsi)			/* reserved in one instruction */
	mov %r11d, (%rax)
	COMMIT %r11
	mov $SHENT_SIZE, %eax
	xadd %rax, %fs:MC_TOP(%rcx)		/* the entry, reserved in one instruction */
	\slot_to_rdx
	mov (%rdx), %r11
	mov %r11, SHENT_RET(%rax)
	mov %rdx, SHENT_SLOT(%rax)
	mov 40(%rsp), %r11
	mov %r11, SHENT_FN(%rax)
	mov %edi, SHENT_WORD(%rax)
.endm

/* mcount: after the prologue, (%rbp) holds the function's frame pointer,
 * 8 above which lies its return address, replaced by vt_mcount_return. */
	.globl mcount
	.type mcount, @function
	.globl _mcount
	.type _mcount, @function
mcount:
_mcount:
	.cfi_startproc
	PUSH_FAST
	FAST_ENTER .Lmcount_slow, lea 8(%rbp), %rdx
	lea vt_mcount_return(%rip), %r11
	mov %r11, (%rdx)
	POP_FAST
	.cfi_adjust_cfa_offset -40
	ret
.Lmcount_slow:
	.cfi_adjust_cfa_offset 40
	POP_FAST
	.cfi_adjust_cfa_offset -40
	.cfi_endproc
	SAVE_ARGS
	mov 8(%rbp), %rdi
	mov (%rbp), %rsi
	add $8, %rsi
	ENTER
	ret
	.cfi_endproc
	.size mcount, .-mcount
	.size _mcount, .-_mcount

/*
 * __fentry__: the caller's return address is above the one into the
 * function. A traced function is not returned to but called from here,
 * from where its caller's call left the stack: it sees the stack it was
 * called with (its arguments there included), and its return, into
 * vt_mcount_return which follows the call, is the one the processor's
 * return predictor expects.
 *
 * Everything but the fast path first, in C: 8(%rbp) returns into the
 * function, 16(%rbp) is the caller's return address.
 */
.Lfentry_c:
	SAVE_ARGS
	mov 8(%rbp), %rdi
	lea 16(%rbp), %rsi
	ENTER
	cmp $1, %r11d
	je .Lfentry_call
	ret
	.cfi_endproc

/* The fast path's way out, with the five registers it saved. */
	.cfi_startproc
	.cfi_def_cfa_offset 48
.Lfentry_slow:
	POP_FAST
	.cfi_def_cfa_offset 8
	jmp .Lfentry_c
	.cfi_endproc

/* The fast path first; anything else goes to the C above with the
 * registers as they came. */
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	.cfi_startproc
	PUSH_FAST
	FAST_ENTER .Lfentry_slow, lea 48(%rsp), %rdx
	POP_FAST
	.cfi_adjust_cfa_offset -40
.Lfentry_call:
	pop %r11
	add $8, %rsp /* the caller's return address: on the shadow stack */
	.cfi_undefined %rip
	call *%r11
	/* Falls into vt_mcount_return: the call's return address. */
	.cfi_endproc
	.size __fentry__, .-__fentry__

/*
 * Where a traced function returns to. The return value is in rax and rdx
 * (integers, small structures, the address of a large one) or xmm0 and
 * xmm1 (floating point); the stack pointer is one past the slot the
 * return address was in, which tells frames a longjmp skipped. The
 * caller's address comes back in rax, and in rdx the function when its
 * exit needs the slow path.
 */
	.globl vt_mcount_return
	.hidden vt_mcount_return
	.type vt_mcount_return, @function
vt_mcount_return:
	.cfi_startproc
	.cfi_undefined %rip
	/* The fast path: the top of the shadow stack is this return's, the
	 * function's word is cached, the delta short and there is room; as
	 * vt_mcount_exit. Only rax and rdx (and the vector registers, left
	 * alone) carry anything at a return: rax and rdx wait in r9 and r10,
	 * the other caller-saved registers are scratch, the stack unused.
	 * Anything else, before any write, goes to the C below. */
	mov %rax, %r9
	mov %rdx, %r10
	mov mc@gottpoff(%rip), %rcx
	mov %fs:MC_TOP(%rcx), %r8		/* one past the top entry */
	lea -8(%rsp), %rdi			/* where the return address was */
	cmp %rdi, SHENT_SLOT-SHENT_SIZE(%r8)
	jne .Lreturn_c
	mov SHENT_WORD-SHENT_SIZE(%r8), %edi
	test %edi, %edi
	jz .Lreturn_c				/* entered through the C */
	mov tb@gottpoff(%rip), %rsi
	mov %fs:(%rsi), %rsi
	cmp $1, %rsi
	jbe .Lreturn_c
	mov TB_POS(%rsi), %rdx
	cmp TB_END(%rsi), %rdx
	jae .Lreturn_c
	STAMP .Lreturn_c
	lea EXIT_BIT(%rdi, %rdx), %edi
	mov $4, %eax
	xadd %rax, TB_POS(%rsi)
	mov %edi, (%rax)
	COMMIT %rdi
	mov SHENT_RET-SHENT_SIZE(%r8), %r11
	subq $SHENT_SIZE, %fs:MC_TOP(%rcx)
	mov %r9, %rax
	mov %r10, %rdx
	jmp *%r11
.Lreturn_c:
	mov %r9, %rax
	mov %r10, %rdx
	push %rbp
	mov %rsp, %rbp
	and $-16, %rsp
	push %rax
	push %rdx
	mov %rbp, %rdi
	call vt_mcount_exit
	test %rdx, %rdx
	jnz .Lexit_slow
.Lexit_done:
	mov %rax, %r11
	pop %rdx
	pop %rax
	leave
	jmp *%r11
.Lexit_slow:
	sub $48, %rsp
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	mov %rax, 32(%rsp)
	mov %rdx, %rdi
	call vt_mcount_exit_slow
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	mov 32(%rsp), %rax
	add $48, %rsp
	jmp .Lexit_done
	.cfi_endproc
	.size vt_mcount_return, .-vt_mcount_return

/* __fentry__'s return into an untraced function. */
	.cfi_startproc
3:	ret
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
