/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AArch64 (A64) instruction classifier for fbt and kinst.
 *
 * Every A64 instruction is one little-endian 32-bit word, so there is no
 * length to find; what matters is the class (core/xdt_insn.h) and, for
 * every instruction that depends on its own address, the operands kinst
 * needs to emulate or relocate it: b, bl, b.cond, cbz/cbnz, tbz/tbnz,
 * adr, adrp, ldr/ldrsw/prfm (literal), br, blr, ret.
 *
 * No state, no allocation, no libc: the same file builds in xdt.ko and in
 * the host checker (tools/xdt-decode-check.c), which compares it against
 * capstone over every function of an arm64 vmlinux.
 */
#ifndef XDT_AARCH64_DECODE_H
#define XDT_AARCH64_DECODE_H

#include "xdt_insn.h"

#define XDT_A64_INSN_LEN	4

/* The precise instruction, for the classes kinst must emulate. */
enum xdt_a64_op {
	XDT_A64_OP_NONE = 0,	/* nothing kinst needs to know */
	XDT_A64_OP_B,		/* b label */
	XDT_A64_OP_BL,		/* bl label */
	XDT_A64_OP_BCOND,	/* b.cond label (also bc.cond) */
	XDT_A64_OP_CBZ,		/* cbz Rt, label */
	XDT_A64_OP_CBNZ,	/* cbnz Rt, label */
	XDT_A64_OP_TBZ,		/* tbz Rt, #bit, label */
	XDT_A64_OP_TBNZ,	/* tbnz Rt, #bit, label */
	XDT_A64_OP_ADR,		/* adr Xd, label */
	XDT_A64_OP_ADRP,	/* adrp Xd, label (4K page) */
	XDT_A64_OP_LDR_LIT,	/* ldr Wt/Xt/St/Dt/Qt, label (size, FP) */
	XDT_A64_OP_LDRSW_LIT,	/* ldrsw Xt, label */
	XDT_A64_OP_PRFM_LIT,	/* prfm op, label: a hint, may be skipped */
	XDT_A64_OP_BR,		/* br Xn; braa/brab(z) with XDT_A64_PAC */
	XDT_A64_OP_BLR,		/* blr Xn; blraa/blrab(z) with XDT_A64_PAC */
	XDT_A64_OP_RET,		/* ret Xn; retaa/retab with XDT_A64_PAC */
	XDT_A64_OP_EXCL_LOAD,	/* ldxr/ldaxr/ldxp/ldaxp (all sizes) */
	XDT_A64_OP_EXCL_STORE,	/* stxr/stlxr/stxp/stlxp (all sizes) */
};

/* flags */
#define XDT_A64_SF	0x01	/* cbz/cbnz on Xt (else Wt); ldr Xt */
#define XDT_A64_FP	0x02	/* ldr literal into a SIMD/FP register */
#define XDT_A64_PAC	0x04	/* pointer-authenticated branch or return:
				 * rm holds the modifier register (31 = the
				 * zero/sp form: braaz, retaa uses sp) */
#define XDT_A64_PAC_B	0x08	/* ... with key B rather than A */

struct xdt_a64_insn {
	u32 insn;	/* the word */
	u8 cls;		/* enum xdt_insn_class */
	u8 op;		/* enum xdt_a64_op */
	u8 flags;	/* XDT_A64_* */
	u8 rd;		/* Rd (adr/adrp), Rt (cbz, tbz, ldr literal, excl) */
	u8 rn;		/* Rn: br/blr/ret target, exclusive base */
	u8 rm;		/* PAC modifier register */
	u8 cond;	/* b.cond: the condition, 0 (eq) .. 15 (nv) */
	u8 bit;		/* tbz/tbnz: the bit tested, 0..63 */
	u8 size;	/* ldr literal: bytes loaded (4, 8, 16); 0 for prfm */
	s64 imm;	/* see below */
};
/*
 * imm: for b, bl, b.cond, cbz/cbnz, tbz/tbnz, adr and the literal loads
 * the byte offset from the instruction's address (target = pc + imm); for
 * adrp the byte offset from the instruction's 4K page (target =
 * (pc & ~0xfff) + imm).  For anything else 0.  Registers are 0..31; what
 * 31 means (xzr/wzr or sp) depends on the instruction, as in the manual.
 */

/*
 * Classify one A64 instruction.  Returns 4, or 0 with cls XDT_INSN_BAD
 * for UDF and for the unallocated encodings this decoder recognises (see
 * decode.c for where it stops looking).
 */
int xdt_a64_decode(u32 insn, struct xdt_a64_insn *out);

#endif /* XDT_AARCH64_DECODE_H */
