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

/* __fentry__: 8(%rbp) returns into the function, whose own return
 * address is the one above, at 16(%rbp). */
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	SAVE_ARGS
	mov 8(%rbp), %rdi
	lea 16(%rbp), %rsi
	jmp .Lenter
	.cfi_endproc
	.size __fentry__, .-__fentry__

/* mcount: after the prologue, (%rbp) holds the function's frame pointer,
 * 8 above which lies its return address. */
	.globl mcount
	.type mcount, @function
	.globl _mcount
	.type _mcount, @function
mcount:
_mcount:
	SAVE_ARGS
	mov 8(%rbp), %rdi
	mov (%rbp), %rsi
	add $8, %rsi
.Lenter:
	push %rdi
	push %rsi
	call vt_mcount_enter
	test %eax, %eax
	jz .Lenter_slow
.Lenter_done:
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
	ret
.Lenter_slow:
	.cfi_def_cfa %rbp, 16
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
	jmp .Lenter_done
	.cfi_endproc
	.size mcount, .-mcount
	.size _mcount, .-_mcount

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

	.section .note.GNU-stack, "", @progbits
