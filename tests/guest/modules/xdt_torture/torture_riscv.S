/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt_torture, riscv64: the instruction classes kinst must relocate or
 * emulate.  Every function takes x in a0 and returns a u64 in a0; the
 * expected values are computed in tests/guest/test_torture.py.  Offsets are
 * from the function's symbol (check with objdump -d -M no-aliases).
 *
 * The file is assembled with `.option norvc`: every instruction is the
 * 4-byte form, so nothing is compressed behind our back -- except in
 * xdt_torture_rv_compressed, assembled with `.option rvc` as a whole (see
 * there why the switch may not fall inside a function), where the
 * classes under test are spelled c.* so they are compressed for sure.
 *
 * Control flow does not depend on x: every instruction runs once per call,
 * except the loop in _lrsc and the blocks marked "never", which only run
 * if a branch went the wrong way -- each adds a distinct bit to the
 * result, so a wrong direction shows in the value.
 *
 * Every function but the leaf opens its frame with `addi sp, sp, -N`
 * (+0), the first instruction fbt's fallback accepts for a function
 * without ftrace's nops, then `sd ra; sd s0; addi s0, sp, N`, the frame
 * the kernel's unwinder expects.  xdt_torture_rv_leaf opens with an slli
 * on purpose: fbt refuses it ("no ftrace nops or frame-opening
 * instruction at entry").
 *
 * xdt_torture_rv_leaf(x) = 3x + 1        +12 ret (jalr x0, 0(ra))
 *
 * xdt_torture_rv_auipc(x) = ((x + D0) ^ D1) + 0x400
 *   +16 auipc; +20 addi (address of data)     +28 auipc; +32 ld
 *   +40 auipc; +44 sd (store to a slot)       +48 auipc; +52 ld
 *   +60 auipc t5, 0; +64 auipc t6, 0: t6 - t5 = 4 must hold;  +92 ret
 *
 * xdt_torture_rv_branch(x) = x + 5460
 *   +28 jal x0 (j), taken
 *   +36 beq taken    +44 beq not taken   +52 bne taken   +60 bne not taken
 *   +68 blt taken    +76 blt not taken   +84 bge taken   +92 bge not taken
 *   +100 bltu taken  +108 bltu not taken +124 bgeu taken +136 bgeu not taken
 *   +160 ret; never run: +32, +40, +56, +72, +88, +104, +128
 *
 * xdt_torture_rv_call(x) = (L(x) ^ (L(x+5) << 1)) + L(x+7), L = leaf
 *   +28 jal ra, leaf      +40 auipc ra; +44 jalr ra (the `call` pair)
 *   +56 auipc; +60 ld (a function pointer); +68 jalr ra, 0(t0)
 *   +76 auipc; +80 addi; +84 jalr x0, 0(t1) (jr forward, in function)
 *   +116 ret, and the leaf's ret three times per call; never run: +88
 *
 * xdt_torture_rv_compressed(x) = L(x + 20)   (all 2-byte but the auipc/addi
 *   pairs at +36 and +48)
 *   +0  c.addi16sp sp, -32 (fbt's entry site)
 *   +12 c.j, taken
 *   +18 c.beqz taken   +22 c.bnez not taken
 *   +28 c.bnez taken   +32 c.beqz not taken
 *   +36 auipc; +40 addi; +44 c.jr t0 (forward, in function)
 *   +48 auipc; +52 addi; +58 c.jalr t1 (calls the leaf)
 *   +68 c.jr ra (the return); never run: +14, +20, +30, +46
 *
 * xdt_torture_rv_lrsc(x) = x + 3 * 0x123
 *   +32 lr.d; +36 addi; +40 sc.d; +44 bnez (retry); +52 bnez: three
 *   atomic adds on a .data word.  kinst must refuse +32..+40 (inside the
 *   lr/sc sequence).  Counts from +32 to +44 are at least 3 per call: an
 *   sc may fail and retry.  +72 ret
 */
#include <linux/linkage.h>

	.option norvc

	.section .rodata, "a"
	.balign 8
xt_rv_data:
	.quad 0x1122334455667788, 0x0f0f0f0f0f0f0f0f

	.data
	.balign 8
xt_rv_slot:
	.quad 0
xt_rv_excl:
	.quad 0
xt_rv_fnptr:
	.quad xdt_torture_rv_leaf

	.macro frame_open
	addi sp, sp, -16
	sd ra, 8(sp)
	sd s0, 0(sp)
	addi s0, sp, 16
	.endm

	.macro frame_close
	ld ra, 8(sp)
	ld s0, 0(sp)
	addi sp, sp, 16
	.endm

	.text

SYM_FUNC_START(xdt_torture_rv_leaf)
	slli t0, a0, 1
	add a0, a0, t0
	addi a0, a0, 1
	ret
SYM_FUNC_END(xdt_torture_rv_leaf)

SYM_FUNC_START(xdt_torture_rv_auipc)
	frame_open
1:	auipc t0, %pcrel_hi(xt_rv_data)		/* auipc + addi */
	addi t0, t0, %pcrel_lo(1b)
	ld t1, 8(t0)
2:	auipc t2, %pcrel_hi(xt_rv_data)		/* auipc + ld */
	ld t2, %pcrel_lo(2b)(t2)
	add a0, a0, t2
3:	auipc t3, %pcrel_hi(xt_rv_slot)		/* auipc + sd */
	sd a0, %pcrel_lo(3b)(t3)
4:	auipc t4, %pcrel_hi(xt_rv_slot)
	ld a0, %pcrel_lo(4b)(t4)
	xor a0, a0, t1
	auipc t5, 0
	auipc t6, 0
	sub t6, t6, t5
	slli t6, t6, 8
	add a0, a0, t6
	frame_close
	ret
SYM_FUNC_END(xdt_torture_rv_auipc)

SYM_FUNC_START(xdt_torture_rv_branch)
	frame_open
	mv t0, a0
	li t1, -1
	li t2, 1
	j 1f				/* jal x0, taken */
	addi t0, t0, 1			/* never */
1:	beq t2, t2, 2f			/* taken */
	addi t0, t0, 2			/* never */
2:	beq t1, t2, 3f			/* not taken */
	addi t0, t0, 4
3:	bne t1, t2, 4f			/* taken */
	addi t0, t0, 8			/* never */
4:	bne t2, t2, 5f			/* not taken */
	addi t0, t0, 16
5:	blt t1, t2, 6f			/* taken: -1 < 1 */
	addi t0, t0, 32			/* never */
6:	blt t2, t1, 7f			/* not taken */
	addi t0, t0, 64
7:	bge t2, t1, 8f			/* taken */
	addi t0, t0, 128		/* never */
8:	bge t1, t2, 9f			/* not taken */
	addi t0, t0, 256
9:	bltu t2, t1, 10f		/* taken: 1 < ~0 */
	addi t0, t0, 512		/* never */
10:	bltu t1, t2, 11f		/* not taken */
	addi t0, t0, 1024
11:	li t3, 2048
	bgeu t1, t2, 12f		/* taken */
	add t0, t0, t3			/* never */
12:	slli t3, t3, 1
	bgeu t2, t1, 13f		/* not taken */
	add t0, t0, t3			/* 4096 */
13:	mv a0, t0
	frame_close
	ret
SYM_FUNC_END(xdt_torture_rv_branch)

SYM_FUNC_START(xdt_torture_rv_call)
	addi sp, sp, -32
	sd ra, 24(sp)
	sd s0, 16(sp)
	sd s1, 8(sp)
	sd s2, 0(sp)
	addi s0, sp, 32
	mv s1, a0
	jal ra, xdt_torture_rv_leaf	/* jal */
	mv s2, a0
	addi a0, s1, 5
	call xdt_torture_rv_leaf	/* auipc ra + jalr ra */
	slli a0, a0, 1
	xor s2, s2, a0
1:	auipc t0, %pcrel_hi(xt_rv_fnptr)
	ld t0, %pcrel_lo(1b)(t0)
	addi a0, s1, 7
	jalr ra, 0(t0)			/* indirect call */
	add s2, s2, a0
2:	auipc t1, %pcrel_hi(3f)
	addi t1, t1, %pcrel_lo(2b)
	jalr x0, 0(t1)			/* jr forward */
	addi s2, s2, 1			/* never */
3:	mv a0, s2
	ld ra, 24(sp)
	ld s0, 16(sp)
	ld s1, 8(sp)
	ld s2, 0(sp)
	addi sp, sp, 32
	ret
SYM_FUNC_END(xdt_torture_rv_call)


SYM_FUNC_START(xdt_torture_rv_lrsc)
	frame_open
1:	auipc t0, %pcrel_hi(xt_rv_excl)
	addi t0, t0, %pcrel_lo(1b)
	sd a0, 0(t0)
	li t3, 3
2:	lr.d t1, (t0)
	addi t1, t1, 0x123
	sc.d t2, t1, (t0)
	bnez t2, 2b			/* the sc failed: retry */
	addi t3, t3, -1
	bnez t3, 2b
	ld a0, 0(t0)
	frame_close
	ret
SYM_FUNC_END(xdt_torture_rv_lrsc)

/*
 * Assembled with rvc as a whole: gas marks every change of ISA with a
 * `$x<isa string>` mapping symbol, which 6.1's module kallsyms does not
 * know for one (it skips only `$x` and `$x.`), so a switch inside a
 * function would end the function there as kallsyms (and so fbt and
 * kinst) see it.  Here the switches fall on function boundaries.  The
 * function is the last in the file: gas does not honour the `.balign 4`
 * of a function after it (2 bytes of padding cannot be a 4-byte nop), so
 * that one would start 2-aligned.  The prologue and epilogue compress
 * too (c.sdsp, c.addi4spn, c.mv, c.ldsp, c.addi16sp).  The first instruction is spelled c.addi16sp: for
 * `addi sp, sp, -32` gas picks c.addi sp, -32 (0x1101), which fbt's
 * fallback does not take for a frame-opening instruction.
 */
	.option push
	.option rvc
SYM_FUNC_START(xdt_torture_rv_compressed)
	c.addi16sp sp, -32		/* not `addi`: gas would pick c.addi */
	sd ra, 24(sp)
	sd s0, 16(sp)
	sd s1, 8(sp)
	addi s0, sp, 32
	mv s1, a0
	c.j 1f				/* taken */
	c.addi s1, 1			/* never */
1:	c.li a5, 0
	c.beqz a5, 2f			/* taken */
	c.addi s1, 2			/* never */
2:	c.bnez a5, 3f			/* not taken */
	c.addi s1, 4
3:	c.li a4, 1
	c.bnez a4, 4f			/* taken */
	c.addi s1, 8			/* never */
4:	c.beqz a4, 5f			/* not taken */
	c.addi s1, 16
5:	auipc t0, %pcrel_hi(6f)
	addi t0, t0, %pcrel_lo(5b)
	c.jr t0				/* forward */
	c.addi s1, 31			/* never */
6:	auipc t1, %pcrel_hi(xdt_torture_rv_leaf)
	addi t1, t1, %pcrel_lo(6b)
	mv a0, s1
	c.jalr t1			/* leaf(x + 20) */
	ld ra, 24(sp)
	ld s0, 16(sp)
	ld s1, 8(sp)
	addi sp, sp, 32
	c.jr ra				/* the return */
SYM_FUNC_END(xdt_torture_rv_compressed)
	.option pop
