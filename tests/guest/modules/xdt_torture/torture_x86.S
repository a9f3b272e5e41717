/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt_torture, x86_64: the instruction classes kinst must relocate or
 * emulate.  Every function takes x in %rdi and returns a u64 in %rax; the
 * expected values are computed in tests/guest/test_torture.py.  Offsets are
 * from the function's symbol (check with objdump -d xdt_torture.ko).
 *
 * Control flow does not depend on x: every instruction runs once per call,
 * except the loop bodies (counts given) and the blocks marked "never",
 * which only run if a branch went the wrong way -- each adds a distinct
 * bit to the result, so a wrong direction shows in the value.
 *
 * `ret` is spelled out, not the kernel's RET macro, so it stays a c3 even
 * in a RETHUNK/SLS configuration (this one has neither).
 *
 * Every function but the leaf opens with `push %rbp; mov %rsp, %rbp`
 * (+0, +1), the first instruction fbt's fallback accepts for a function
 * without an ftrace site, so all are fbt-probeable today and objtool sees
 * a standard frame.  xdt_torture_x86_leaf opens without one on purpose:
 * fbt refuses it ("no ftrace NOP or push %rbp at entry").
 *
 * Functions are 16-byte aligned, so each symbol's kallsyms size runs over
 * the NOP padding after its ret (decodable, never executed).
 *
 * xdt_torture_x86_leaf(x) = 3x + 1                          (bare leaf)
 *   +0  lea 1(%rdi,%rdi,2), %rax     +5  ret (c3)
 *
 * xdt_torture_x86_riprel(x) = ((D0 + x + 3) ^ D1) + 0x11 + 0x1000
 *   +4  mov D0(%rip), %rax           RIP-relative load (48 8b 05 disp32)
 *   +14 mov %rax, slot(%rip)         RIP-relative store (48 89 05)
 *   +21 addq $3, slot(%rip)          RIP-relative RMW, imm8 after disp32
 *   +29 lea D0(%rip), %rcx           RIP-relative lea (48 8d 0d)
 *   +40 mov slot(%rip), %rax         RIP-relative load again
 *   +50 movzbl D0+7(%rip), %ecx      0f-map opcode, disp with an addend
 *   +62 cmpl $0x55667788, D0(%rip)   RIP-relative, imm32 after disp32
 *   +83 ret
 *
 * xdt_torture_x86_jmp(x) = x + 0xa4   (STACK_FRAME_NON_STANDARD: objtool
 *   would call the dead blocks after the jmps unreachable)
 *   +7  jmp rel8 (eb), taken         +16 je rel8 (74), taken
 *   +22 jne rel8 (75), not taken     +28 jmp rel32 (e9), taken
 *   +43 jb rel32 (0f 82), taken      +53 jae rel32 (0f 83), not taken
 *   +74 jl rel8 (7c), taken          +80 jb rel8 (72), not taken
 *   +89 ret; never run: +9, +18, +33, +49, +76
 *
 * xdt_torture_x86_call(x) = (L(x) ^ (L(x+5) << 1)) + L(x+7), L = leaf
 *   +10 call rel32 (e8) leaf         +22 lea leaf(%rip), %rax
 *   +29 call *%rax (ff d0)
 *   +41 call *fnptr(%rip) (ff 15: indirect through RIP-relative memory)
 *   +54 ret, and the leaf's ret three times per call
 *
 * xdt_torture_x86_loop(x) = rol64(acc + x, 7) five times from 0, + 0x200
 *   +11..+18 the body, 5 times per call
 *   +18 loop rel8 (e2): taken 4 times, not taken once
 *   +20 jrcxz rel8 (e3), taken       +31 jrcxz, not taken
 *   +40 ret; never run: +22
 */
#include <linux/linkage.h>
#include <linux/objtool.h>

	.section .rodata, "a"
	.balign 8
xt_x86_data:
	.quad 0x1122334455667788, 0x0f0f0f0f0f0f0f0f

	.data
	.balign 8
xt_x86_slot:
	.quad 0
xt_x86_fnptr:
	.quad xdt_torture_x86_leaf

	.text

SYM_FUNC_START(xdt_torture_x86_leaf)
	lea 1(%rdi,%rdi,2), %rax
	ret
SYM_FUNC_END(xdt_torture_x86_leaf)

SYM_FUNC_START(xdt_torture_x86_riprel)
	push %rbp
	mov %rsp, %rbp
	mov xt_x86_data(%rip), %rax
	add %rdi, %rax
	mov %rax, xt_x86_slot(%rip)
	addq $3, xt_x86_slot(%rip)
	lea xt_x86_data(%rip), %rcx
	mov 8(%rcx), %rdx
	mov xt_x86_slot(%rip), %rax
	xor %rdx, %rax
	movzbl xt_x86_data+7(%rip), %ecx
	add %rcx, %rax
	xor %ecx, %ecx
	cmpl $0x55667788, xt_x86_data(%rip)
	sete %cl
	shl $12, %rcx
	add %rcx, %rax
	pop %rbp
	ret
SYM_FUNC_END(xdt_torture_x86_riprel)

SYM_FUNC_START(xdt_torture_x86_jmp)
	push %rbp
	mov %rsp, %rbp
	mov %rdi, %rax
	jmp 1f				/* rel8, taken */
	add $0x1, %rax			/* never */
1:	cmp %rdi, %rax
	je 2f				/* rel8, taken */
	add $0x2, %rax			/* never */
2:	jne 3f				/* rel8, not taken */
	add $0x4, %rax
3:	{disp32} jmp 4f			/* rel32, taken */
	add $0x8, %rax			/* never */
4:	xor %ecx, %ecx
	cmp $1, %rcx
	{disp32} jb 5f			/* rel32, taken (0 < 1) */
	add $0x10, %rax			/* never */
5:	{disp32} jae 6f			/* rel32, not taken */
	add $0x20, %rax
6:	mov $-1, %rcx
	cmp $1, %rcx
	jl 7f				/* rel8, taken (signed -1 < 1) */
	add $0x40, %rax			/* never */
7:	jb 8f				/* rel8, not taken (unsigned) */
	add $0x80, %rax
8:	pop %rbp
	ret
SYM_FUNC_END(xdt_torture_x86_jmp)
/*
 * The blocks after the unconditional jmps are dead code by design (they
 * run only if kinst gets a jmp wrong); objtool calls them "unreachable
 * instruction".  This tells it not to validate this one function.
 */
STACK_FRAME_NON_STANDARD xdt_torture_x86_jmp

SYM_FUNC_START(xdt_torture_x86_call)
	push %rbp
	mov %rsp, %rbp
	push %rbx
	push %r12
	mov %rdi, %rbx
	call xdt_torture_x86_leaf	/* call rel32 */
	mov %rax, %r12
	lea 5(%rbx), %rdi
	lea xdt_torture_x86_leaf(%rip), %rax
	call *%rax			/* indirect, register */
	add %rax, %rax
	xor %rax, %r12
	lea 7(%rbx), %rdi
	call *xt_x86_fnptr(%rip)	/* indirect, RIP-relative memory */
	add %r12, %rax
	pop %r12
	pop %rbx
	pop %rbp
	ret
SYM_FUNC_END(xdt_torture_x86_call)

SYM_FUNC_START(xdt_torture_x86_loop)
	push %rbp
	mov %rsp, %rbp
	xor %eax, %eax
	mov $5, %ecx
1:	add %rdi, %rax
	rol $7, %rax
	loop 1b				/* taken 4 times, then falls through */
	jrcxz 2f			/* taken: %rcx == 0 */
	add $0x100, %rax		/* never */
2:	inc %rcx
	jrcxz 3f			/* not taken: %rcx == 1 */
	add $0x200, %rax
3:	pop %rbp
	ret
SYM_FUNC_END(xdt_torture_x86_loop)
