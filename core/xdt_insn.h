/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instruction classes shared by every ISA's decoder (arch/<isa>/decode.c).
 *
 * fbt and kinst ask one question of a decoder: may this instruction be
 * replaced by a breakpoint, and if so how is it executed afterwards
 * (generically out of line, or emulated/relocated because it depends on
 * its own address)?  The class answers that in ISA-neutral terms; each
 * decoder's struct carries the ISA-specific operands.
 *
 * Builds in xdt.ko and in user space (tools/xdt-decode-check.c), hence
 * the one allowed #ifdef below.
 */
#ifndef XDT_INSN_H
#define XDT_INSN_H

/* The one allowed #ifdef: kernel vs user space types. */
#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#include <stddef.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif

/*
 * The x86 opcode tables pack a class into 4 bits, so every class an x86
 * table entry can name must stay below 16; the classes only other ISAs
 * produce come after BAD.
 */
enum xdt_insn_class {
	XDT_INSN_OTHER = 0,	/* ordinary: safe to execute out of line */
	XDT_INSN_RET,		/* return to the link register / stack */
	XDT_INSN_JMP_REL,	/* PC-relative unconditional jump */
	XDT_INSN_JCC_REL,	/* PC-relative conditional branch */
	XDT_INSN_CALL_REL,	/* PC-relative call (links) */
	XDT_INSN_JMP_IND,	/* jump through a register or memory */
	XDT_INSN_CALL_IND,	/* call through a register or memory */
	XDT_INSN_LOOP,		/* x86 loop/jrcxz */
	XDT_INSN_BRK,		/* an existing breakpoint: int3, brk, ebreak */
	XDT_INSN_PUSH_RBP,	/* x86 prologue: push %rbp */
	XDT_INSN_MOV_RSP_RBP,	/* x86 prologue: mov %rsp,%rbp */
	XDT_INSN_NOP,		/* no architectural effect: may be skipped */
	XDT_INSN_REFUSED,	/* privileged, interrupt state, traps, sleeps */
	XDT_INSN_BAD,		/* could not decode (invalid, truncated) */
	XDT_INSN_PCREL,		/* reads PC-relative data: adr(p), ldr literal,
				 * auipc; must be emulated or relocated */
	XDT_INSN_EXCL,		/* part of an exclusive (LL/SC) sequence: a
				 * trap between the load and the store clears
				 * the monitor, so the sequence never ends */
	XDT_INSN_NCLASSES
};

/* The x86 name, kept so that arch/x86_64 reads naturally. */
#define XDT_INSN_INT3	XDT_INSN_BRK

/* "ret", "jmp", ... for tests and listings; "?" if out of range. */
static inline const char *xdt_insn_class_name(int cls)
{
	static const char *const names[XDT_INSN_NCLASSES] = {
		[XDT_INSN_OTHER]	= "other",
		[XDT_INSN_RET]		= "ret",
		[XDT_INSN_JMP_REL]	= "jmp",
		[XDT_INSN_JCC_REL]	= "jcc",
		[XDT_INSN_CALL_REL]	= "call",
		[XDT_INSN_JMP_IND]	= "jmp_ind",
		[XDT_INSN_CALL_IND]	= "call_ind",
		[XDT_INSN_LOOP]		= "loop",
		[XDT_INSN_BRK]		= "brk",
		[XDT_INSN_PUSH_RBP]	= "push_rbp",
		[XDT_INSN_MOV_RSP_RBP]	= "mov_rsp_rbp",
		[XDT_INSN_NOP]		= "nop",
		[XDT_INSN_REFUSED]	= "refused",
		[XDT_INSN_BAD]		= "bad",
		[XDT_INSN_PCREL]	= "pcrel",
		[XDT_INSN_EXCL]		= "excl",
	};

	if (cls < 0 || cls >= XDT_INSN_NCLASSES)
		return "?";
	return names[cls];
}

#endif /* XDT_INSN_H */
