/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt_torture, aarch64: the instruction classes kinst must relocate or
 * emulate.  Every function takes x in x0 and returns a u64 in x0; the
 * expected values are computed in tests/guest/test_torture.py.  Offsets are
 * from the function's symbol (A64 is fixed-width: +4 per instruction).
 *
 * Control flow does not depend on x: every instruction runs once per call,
 * except the loop in _excl and the blocks marked "never", which only run
 * if a branch went the wrong way -- each adds a distinct bit to the
 * result, so a wrong direction shows in the value.
 *
 * SYM_FUNC_START puts `bti c` at +0 of every function (a hint: BTI is off
 * in this config); fbt steps over it.  Every function but the leaf then
 * has two NOPs (+4, +8), the pair -fpatchable-function-entry=2 leaves for
 * ftrace.  They are not listed in __patchable_function_entries, so
 * ftrace never touches them; fbt, which on arm64 only patches ftrace's
 * second NOP (arch/aarch64/fbt_isa.c), can probe these functions like
 * compiled ones.  xdt_torture_a64_leaf has no NOPs on purpose: fbt
 * refuses it ("no ftrace NOP at entry ...").
 *
 * Literals live in .rodata and data in .data, never in .text: a word in
 * the text would be decoded, and offered to kinst, as an instruction.
 *
 * xdt_torture_a64_leaf(x) = 3x + 1          +12 ret (bare leaf, no NOPs)
 *
 * xdt_torture_a64_adr(x) = ((x + LIT) ^ D1) + D0 + 0x80
 *   +12 adr x1, LIT (to .rodata)    +20 adrp x2, data
 *   +24 add x2, x2, :lo12:data      +32 adrp x4, data
 *   +36 ldr x4, [x4, :lo12:data]    +40 adr x5 (forward, code)
 *   +44 adr x6 (backward, code): x5 - x6 = 8 must hold;  +68 ret
 *
 * xdt_torture_a64_ldrlit(x) = ((x + LIT) ^ 0x89abcdef) - 16
 *   +12 ldr x1, LIT (64-bit literal)    +16 ldr w2, LITW (zero-extends)
 *   +20 ldrsw x3, LITSW (sign-extends 0xfffffff0)
 *   +24 prfm pldl1keep, LIT (literal prefetch, a hint);  +40 ret
 *
 * xdt_torture_a64_branch(x) = x + 20
 *   +16 b, taken                     +28 b.eq, taken
 *   +36 b.ne, not taken              +52 b.lt, taken (signed)
 *   +60 b.lo, not taken (unsigned)   +68 b.hi, taken
 *   +80 ret; never run: +20, +32, +56, +72
 *
 * xdt_torture_a64_cbz(x) = x + 1130
 *   +24 cbz x, taken      +32 cbnz x, not taken   +40 cbz w, taken
 *   +48 cbz x, not taken  +56 cbnz x, taken       +64 cbnz w, not taken
 *   +72 tbz #32, not taken                        +80 tbnz #32, taken
 *   +88 tbz #5 (w), taken +100 tbnz #5, taken     +108 tbnz #4, not taken
 *   +116 tbz #33, taken
 *   +128 ret; never run: +28, +44, +60, +84, +92, +104, +120
 *
 * xdt_torture_a64_call(x) = (L(x) ^ (L(x+5) << 1)) + L(x+7), L = leaf
 *   +28 bl leaf            +36 adr x16, leaf (to another function)
 *   +44 blr x16            +52 adr x17 (forward); +56 br x17
 *   +68 adrp; +72 ldr (a function pointer); +76 blr x16
 *   +92 ret, and the leaf's ret three times per call; never run: +60
 *
 * xdt_torture_a64_excl(x) = x + 3 * 0x123
 *   +28 ldxr; +32 add; +36 stxr; +40 cbnz (retry); +48 b.ne: three
 *   atomic adds on a .data word.  kinst must refuse +28..+36 (inside the
 *   exclusive sequence: a trap there clears the monitor, and the stxr
 *   fails for ever).  Counts from +28 to +40 are at least 3 per call:
 *   under TCG a stxr may fail and retry.
 */
#include <linux/linkage.h>

	.section .rodata, "a"
	.balign 8
xt_a64_lit:
	.quad 0x0123456789abcdef
xt_a64_litw:
	.word 0x89abcdef
xt_a64_litsw:
	.word 0xfffffff0

	.data
	.balign 8
xt_a64_data:
	.quad 0x1122334455667788, 0x0f0f0f0f0f0f0f0f
xt_a64_excl:
	.quad 0
xt_a64_fnptr:
	.quad xdt_torture_a64_leaf

	.macro fbt_nops
	nop
	nop
	.endm

	.text

SYM_FUNC_START(xdt_torture_a64_leaf)
	add x1, x0, x0, lsl #1
	add x0, x1, #1
	ret
SYM_FUNC_END(xdt_torture_a64_leaf)

SYM_FUNC_START(xdt_torture_a64_adr)
	fbt_nops
	adr x1, xt_a64_lit
	ldr x1, [x1]
	adrp x2, xt_a64_data
	add x2, x2, :lo12:xt_a64_data
	ldr x3, [x2, #8]
	adrp x4, xt_a64_data
	ldr x4, [x4, :lo12:xt_a64_data]
1:	adr x5, 2f
	adr x6, 1b
2:	sub x5, x5, x6
	add x0, x0, x1
	eor x0, x0, x3
	add x0, x0, x4
	add x0, x0, x5, lsl #4
	ret
SYM_FUNC_END(xdt_torture_a64_adr)

SYM_FUNC_START(xdt_torture_a64_ldrlit)
	fbt_nops
	ldr x1, xt_a64_lit
	ldr w2, xt_a64_litw
	ldrsw x3, xt_a64_litsw
	prfm pldl1keep, xt_a64_lit
	add x0, x0, x1
	eor x0, x0, x2
	add x0, x0, x3
	ret
SYM_FUNC_END(xdt_torture_a64_ldrlit)

SYM_FUNC_START(xdt_torture_a64_branch)
	fbt_nops
	mov x1, x0
	b 1f				/* taken */
	add x1, x1, #1			/* never */
1:	cmp x0, x0
	b.eq 2f				/* taken */
	add x1, x1, #2			/* never */
2:	b.ne 3f				/* not taken */
	add x1, x1, #4
3:	mov x2, #-1
	cmp x2, #1
	b.lt 4f				/* taken: signed -1 < 1 */
	add x1, x1, #8			/* never */
4:	b.lo 5f				/* not taken: unsigned ~0 > 1 */
	add x1, x1, #16
5:	b.hi 6f				/* taken */
	add x1, x1, #32			/* never */
6:	mov x0, x1
	ret
SYM_FUNC_END(xdt_torture_a64_branch)

SYM_FUNC_START(xdt_torture_a64_cbz)
	fbt_nops
	mov x1, x0
	mov x2, #0
	movz x3, #1, lsl #32		/* w3 == 0, x3 != 0 */
	cbz x2, 1f			/* taken */
	add x1, x1, #1			/* never */
1:	cbnz x2, 2f			/* not taken */
	add x1, x1, #2
2:	cbz w3, 3f			/* taken */
	add x1, x1, #4			/* never */
3:	cbz x3, 4f			/* not taken */
	add x1, x1, #8
4:	cbnz x3, 5f			/* taken */
	add x1, x1, #16			/* never */
5:	cbnz w3, 6f			/* not taken */
	add x1, x1, #32
6:	tbz x3, #32, 7f			/* not taken: bit 32 set */
	add x1, x1, #64
7:	tbnz x3, #32, 8f		/* taken */
	add x1, x1, #128		/* never */
8:	tbz w3, #5, 9f			/* taken */
	add x1, x1, #256		/* never */
9:	mov x4, #0x20
	tbnz x4, #5, 10f		/* taken */
	add x1, x1, #512		/* never */
10:	tbnz x4, #4, 11f		/* not taken */
	add x1, x1, #1024
11:	tbz x3, #33, 12f		/* taken: bit 33 clear */
	add x1, x1, #2048		/* never */
12:	mov x0, x1
	ret
SYM_FUNC_END(xdt_torture_a64_cbz)

SYM_FUNC_START(xdt_torture_a64_call)
	fbt_nops
	stp x29, x30, [sp, #-32]!
	mov x29, sp
	stp x19, x20, [sp, #16]
	mov x19, x0
	bl xdt_torture_a64_leaf
	mov x20, x0
	adr x16, xdt_torture_a64_leaf
	add x0, x19, #5
	blr x16
	eor x20, x20, x0, lsl #1
	adr x17, 1f
	br x17
	add x20, x20, #1		/* never */
1:	add x0, x19, #7
	adrp x16, xt_a64_fnptr
	ldr x16, [x16, :lo12:xt_a64_fnptr]
	blr x16
	add x0, x20, x0
	ldp x19, x20, [sp, #16]
	ldp x29, x30, [sp], #32
	ret
SYM_FUNC_END(xdt_torture_a64_call)

SYM_FUNC_START(xdt_torture_a64_excl)
	fbt_nops
	adrp x1, xt_a64_excl
	add x1, x1, :lo12:xt_a64_excl
	str x0, [x1]
	mov x3, #3
1:	ldxr x2, [x1]
	add x2, x2, #0x123
	stxr w4, x2, [x1]
	cbnz w4, 1b			/* the store lost the monitor: retry */
	subs x3, x3, #1
	b.ne 1b
	ldr x0, [x1]
	ret
SYM_FUNC_END(xdt_torture_a64_excl)
