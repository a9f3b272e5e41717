// SPDX-License-Identifier: GPL-2.0
/*
 * AArch64 (A64) instruction classifier.
 *
 * Written from the encoding tables of the Arm Architecture Reference
 * Manual (DDI 0487).  The top-level split is on bits 28:25 (op0):
 *
 *	0000		reserved: UDF (and SME, which the kernel never uses)
 *	0001, 0011	unallocated
 *	0010		SVE
 *	100x		data processing, immediate (adr/adrp live here)
 *	101x		branches, exception generation, system
 *	x1x0		loads and stores (literal loads, exclusives)
 *	x101, x111	data processing, register / SIMD and FP
 *
 * The branch/exception/system group and the literal and exclusive loads
 * and stores are decoded down to every field, and their unallocated
 * encodings are BAD.  The rest of the data processing and load/store space
 * is only classified as OTHER, unallocated encodings included: such a word
 * raises UNDEFINED wherever it is executed, in line or out of line, and
 * fully validating thousands of SIMD/SVE encodings would buy nothing for
 * fbt or kinst.  The checker shows where this differs from capstone.
 *
 * Policy (what is NOP, REFUSED, EXCL):
 *   NOP	nop and bti: no effect besides being a landing pad, which
 *		the breakpoint's handler does not need.  Other hints (yield,
 *		sev, csdb, esb, the pac/aut hints, which change x30 or x17,
 *		and hints not allocated yet) are OTHER: they are harmless out
 *		of line but may not be skipped.
 *   REFUSED	svc, hvc, smc, hlt, dcps*, tcancel (traps and debug state);
 *		eret*, drps; wfi, wfe, wfit, wfet (would sleep inside the
 *		breakpoint handler); every msr, immediate or register (DAIF,
 *		SPSel, PAN, the translation and exception registers: changing
 *		them from the handler's context is wrong or unsafe; cfinv,
 *		xaflag and axflag are flag-only and stay OTHER); mrs of DAIF
 *		(the handler runs with interrupts masked, so it would read the
 *		wrong value).  Other mrs (sp_el0 for current, the counters)
 *		and sys (dc, ic, at, tlbi), isb, dsb, dmb, clrex, sb are
 *		OTHER.
 *   EXCL	ldxr/ldaxr/stxr/stlxr and the pair forms, every size: a
 *		breakpoint between the load and the store clears the
 *		exclusive monitor, so the store fails and the retry loop
 *		hits the breakpoint again, forever.  Load-acquire/store-
 *		release (ldar, stlr) and the LSE atomics (cas, casp, ldadd,
 *		swp...) are single instructions: OTHER.
 */
#include "decode.h"

static s64 sext(u32 v, unsigned int bits)
{
	u64 m = (u64)1 << (bits - 1);

	return (s64)(((u64)v ^ m) - m);
}

static void clear(struct xdt_a64_insn *out, u32 w)
{
	*out = (struct xdt_a64_insn){ .insn = w, .cls = XDT_INSN_OTHER,
				      .op = XDT_A64_OP_NONE };
}

static int bad(struct xdt_a64_insn *out)
{
	clear(out, out->insn);
	out->cls = XDT_INSN_BAD;
	return 0;
}

/* 11010100 opc:3 imm16 op2:3 LL:2 */
static int exception(u32 w, struct xdt_a64_insn *out)
{
	unsigned int opc = (w >> 21) & 7, ll = w & 3;

	if ((w >> 2) & 7)
		return bad(out);
	switch (opc) {
	case 0:		/* svc, hvc, smc */
		if (!ll)
			return bad(out);
		out->cls = XDT_INSN_REFUSED;
		return 4;
	case 1:		/* brk */
		if (ll)
			return bad(out);
		out->cls = XDT_INSN_BRK;
		return 4;
	case 2:		/* hlt */
	case 3:		/* tcancel */
		if (ll)
			return bad(out);
		out->cls = XDT_INSN_REFUSED;
		return 4;
	case 5:		/* dcps1-3 */
		if (!ll)
			return bad(out);
		out->cls = XDT_INSN_REFUSED;
		return 4;
	}
	return bad(out);
}

/* Hint space: CRm:op2 is the hint number. */
static int hint(unsigned int h, struct xdt_a64_insn *out)
{
	switch (h) {
	case 0:				/* nop */
	case 32: case 34: case 36: case 38:	/* bti, bti c/j/jc */
		out->cls = XDT_INSN_NOP;
		break;
	case 2:				/* wfe */
	case 3:				/* wfi */
		out->cls = XDT_INSN_REFUSED;
		break;
	default:
		out->cls = XDT_INSN_OTHER;
	}
	return 4;
}

/* 1101010100 L op0:2 op1:3 CRn:4 CRm:4 op2:3 Rt:5 */
static int system_insn(u32 w, struct xdt_a64_insn *out)
{
	unsigned int l = (w >> 21) & 1, op0 = (w >> 19) & 3;
	unsigned int op1 = (w >> 16) & 7, crn = (w >> 12) & 15;
	unsigned int crm = (w >> 8) & 15, op2 = (w >> 5) & 7, rt = w & 31;

	if (op0 >= 2) {
		/* mrs DAIF: op0 3, op1 3, CRn 4, CRm 2, op2 1 */
		if (l && !(op0 == 3 && op1 == 3 && crn == 4 && crm == 2 &&
			   op2 == 1))
			out->cls = XDT_INSN_OTHER;
		else
			out->cls = XDT_INSN_REFUSED;
		return 4;
	}
	if (op0 == 1) {			/* sys, sysl */
		out->cls = XDT_INSN_OTHER;
		return 4;
	}
	if (l)
		return bad(out);
	switch (crn) {
	case 1:				/* wfet, wfit */
		if (op1 == 3 && !crm && op2 <= 1) {
			out->cls = XDT_INSN_REFUSED;
			return 4;
		}
		return bad(out);
	case 2:
		if (op1 != 3 || rt != 31)
			return bad(out);
		return hint(crm << 3 | op2, out);
	case 3:				/* barriers */
		if (op1 != 3 || rt != 31)
			return bad(out);
		switch (op2) {
		case 2:			/* clrex */
		case 4:			/* dsb (ssbb, pssbb) */
		case 5:			/* dmb */
		case 6:			/* isb */
			out->cls = XDT_INSN_OTHER;
			return 4;
		case 7:			/* sb */
			if (crm)
				return bad(out);
			out->cls = XDT_INSN_OTHER;
			return 4;
		}
		return bad(out);
	case 4:				/* msr (immediate) to PSTATE */
		if (rt != 31)
			return bad(out);
		if (!op1 && !crm && op2 <= 2)	/* cfinv, xaflag, axflag */
			out->cls = XDT_INSN_OTHER;
		else
			out->cls = XDT_INSN_REFUSED;
		return 4;
	}
	return bad(out);
}

/* 1101011 opc:4 op2:5 op3:6 Rn:5 op4:5 */
static int branch_reg(u32 w, struct xdt_a64_insn *out)
{
	unsigned int opc = (w >> 21) & 15, op3 = (w >> 10) & 63;
	unsigned int rn = (w >> 5) & 31, op4 = w & 31;
	int pac;

	if (((w >> 16) & 31) != 31)
		return bad(out);
	if (!op3) {
		pac = 0;
		if (op4)
			return bad(out);
	} else if ((op3 & ~1u) == 2) {
		pac = 1;
		out->flags |= XDT_A64_PAC | ((op3 & 1) ? XDT_A64_PAC_B : 0);
		out->rm = (u8)op4;
	} else {
		return bad(out);
	}
	out->rn = (u8)rn;
	switch (opc) {
	case 0:				/* br, braaz/brabz */
	case 8:				/* braa/brab Xn, Xm */
		if (pac ? opc == 0 && op4 != 31 : opc == 8)
			return bad(out);
		out->cls = XDT_INSN_JMP_IND;
		out->op = XDT_A64_OP_BR;
		return 4;
	case 1:				/* blr, blraaz/blrabz */
	case 9:				/* blraa/blrab Xn, Xm */
		if (pac ? opc == 1 && op4 != 31 : opc == 9)
			return bad(out);
		out->cls = XDT_INSN_CALL_IND;
		out->op = XDT_A64_OP_BLR;
		return 4;
	case 2:				/* ret Xn, retaa/retab */
		if (pac && (rn != 31 || op4 != 31))
			return bad(out);
		if (pac) {
			out->rn = 30;	/* retaa: x30, modifier sp */
			out->rm = 31;
		}
		out->cls = XDT_INSN_RET;
		out->op = XDT_A64_OP_RET;
		return 4;
	case 4:				/* eret, eretaa/eretab */
		if (rn != 31 || (pac && op4 != 31))
			return bad(out);
		break;
	case 5:				/* drps */
		if (pac || rn != 31)
			return bad(out);
		break;
	default:
		return bad(out);
	}
	out->flags = 0;
	out->rn = 0;
	out->rm = 0;
	out->cls = XDT_INSN_REFUSED;
	return 4;
}

/* opc:2 011 V 00 imm19 Rt */
static int load_literal(u32 w, struct xdt_a64_insn *out)
{
	static const u8 gp_size[4] = { 4, 8, 4, 0 };
	unsigned int opc = w >> 30;

	if (w & (1u << 26)) {			/* SIMD/FP */
		if (opc == 3)
			return bad(out);
		out->flags = XDT_A64_FP;
		out->size = (u8)(4u << opc);
		out->op = XDT_A64_OP_LDR_LIT;
	} else {
		out->size = gp_size[opc];
		out->op = opc == 2 ? XDT_A64_OP_LDRSW_LIT :
			  opc == 3 ? XDT_A64_OP_PRFM_LIT : XDT_A64_OP_LDR_LIT;
		if (opc == 1)
			out->flags = XDT_A64_SF;
	}
	out->rd = (u8)(w & 31);
	out->imm = sext((w >> 5) & 0x7ffff, 19) * 4;
	out->cls = XDT_INSN_PCREL;
	return 4;
}

int xdt_a64_decode(u32 w, struct xdt_a64_insn *out)
{
	unsigned int op0 = (w >> 25) & 15;

	clear(out, w);
	if ((w & 0x7c000000) == 0x14000000) {		/* b, bl */
		out->imm = sext(w & 0x3ffffff, 26) * 4;
		if (w >> 31) {
			out->cls = XDT_INSN_CALL_REL;
			out->op = XDT_A64_OP_BL;
		} else {
			out->cls = XDT_INSN_JMP_REL;
			out->op = XDT_A64_OP_B;
		}
		return 4;
	}
	if ((w & 0x7c000000) == 0x34000000) {		/* cbz/cbnz, tbz/tbnz */
		out->rd = (u8)(w & 31);
		out->cls = XDT_INSN_JCC_REL;
		if (w & (1u << 25)) {
			out->bit = (u8)((w >> 31) << 5 | ((w >> 19) & 31));
			out->imm = sext((w >> 5) & 0x3fff, 14) * 4;
			out->op = (w & (1u << 24)) ? XDT_A64_OP_TBNZ :
						     XDT_A64_OP_TBZ;
		} else {
			out->imm = sext((w >> 5) & 0x7ffff, 19) * 4;
			out->op = (w & (1u << 24)) ? XDT_A64_OP_CBNZ :
						     XDT_A64_OP_CBZ;
			if (w >> 31)
				out->flags = XDT_A64_SF;
		}
		return 4;
	}
	if ((w & 0xff000000) == 0x54000000) {		/* b.cond, bc.cond */
		out->cond = (u8)(w & 15);
		out->imm = sext((w >> 5) & 0x7ffff, 19) * 4;
		out->cls = XDT_INSN_JCC_REL;
		out->op = XDT_A64_OP_BCOND;
		return 4;
	}
	if ((w & 0xff000000) == 0xd4000000)
		return exception(w, out);
	if ((w & 0xffc00000) == 0xd5000000)
		return system_insn(w, out);
	if ((w & 0xfe000000) == 0xd6000000)
		return branch_reg(w, out);
	if ((w & 0x1f000000) == 0x10000000) {		/* adr, adrp */
		u32 imm21 = ((w >> 5) & 0x7ffff) << 2 | ((w >> 29) & 3);

		out->rd = (u8)(w & 31);
		out->imm = sext(imm21, 21);
		if (w >> 31) {
			out->imm *= 4096;
			out->op = XDT_A64_OP_ADRP;
		} else {
			out->op = XDT_A64_OP_ADR;
		}
		out->cls = XDT_INSN_PCREL;
		return 4;
	}
	if ((w & 0x3b000000) == 0x18000000)
		return load_literal(w, out);
	/* size:2 0010000 L o1 Rs o0 Rt2 Rn Rt; o1 with size 0x is casp */
	if ((w & 0x3f800000) == 0x08000000 &&
	    (!(w & (1u << 21)) || (w >> 31))) {
		out->rd = (u8)(w & 31);
		out->rn = (u8)((w >> 5) & 31);
		out->op = (w & (1u << 22)) ? XDT_A64_OP_EXCL_LOAD :
					     XDT_A64_OP_EXCL_STORE;
		out->cls = XDT_INSN_EXCL;
		return 4;
	}
	if (op0 <= 1 || op0 == 3)	/* udf, sme, unallocated */
		return bad(out);
	/* Branch/system space (101x) not matched above is unallocated. */
	if ((op0 & 14) == 10)
		return bad(out);
	return 4;
}
