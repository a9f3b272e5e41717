// SPDX-License-Identifier: GPL-2.0
/*
 * RISC-V instruction decoder: RV64I, M, A, F, D, C, Zicsr, Zifencei, and
 * the Zicbom/Zicboz cache-block operations (cbo.*), which the kernel
 * patches in for non-coherent DMA.  Written from the RISC-V unprivileged
 * and privileged specifications.
 *
 * Length: bits 1:0 != 11 is a 16-bit (compressed) instruction; bits 1:0
 * == 11 with bits 4:2 != 111 is 32 bits; longer encodings are BAD.
 * Anything not in the extensions above is BAD, including reserved
 * compressed encodings and the all-zero parcel (defined to be illegal).
 * HINT encodings (writes to x0 and the like) are valid: OTHER.
 *
 * Policy (what is NOP, REFUSED, EXCL):
 *   NOP	addi x0, x0, 0 and c.nop only; other hints are OTHER.
 *   REFUSED	ecall; sret, mret, dret; wfi (would sleep in the breakpoint
 *		handler); sfence.vma; every Zicsr instruction.  CSR reads of
 *		time/cycle would be harmless, but sstatus/sie/satp writes are
 *		not, and telling them apart buys nothing for fbt/kinst.
 *		fence.i is OTHER: it only synchronises this hart's fetches.
 *   EXCL	lr.w, lr.d, sc.w, sc.d: a breakpoint between lr and sc clears
 *		the reservation, the sc fails and the loop retries into the
 *		breakpoint forever.  AMOs are single instructions: OTHER.
 */
#include "decode.h"

static s32 sext(u32 v, unsigned int bits)
{
	u32 m = (u32)1 << (bits - 1);

	return (s32)((v ^ m) - m);
}

static void clear(struct xdt_rv_insn *in)
{
	*in = (struct xdt_rv_insn){ .cls = XDT_INSN_BAD,
				    .op = XDT_RV_OP_NONE };
}

static int bad(struct xdt_rv_insn *in)
{
	clear(in);
	return 0;
}

static int ok(struct xdt_rv_insn *in, int len, int cls)
{
	in->len = (u8)len;
	in->cls = (u8)cls;
	return len;
}

#define BIT(h, n)	(((h) >> (n)) & 1u)

static int decode16(u32 h, struct xdt_rv_insn *in)
{
	unsigned int f3 = h >> 13, r1 = (h >> 7) & 31, r2 = (h >> 2) & 31;

	in->compressed = 1;
	switch ((h & 3) << 3 | f3) {
	case 000:			/* c.addi4spn; 0 is the illegal parcel */
		if (!((h >> 5) & 0xff))
			return bad(in);
		return ok(in, 2, XDT_INSN_OTHER);
	case 001: case 002: case 003:	/* c.fld c.lw c.ld */
	case 005: case 006: case 007:	/* c.fsd c.sw c.sd */
		return ok(in, 2, XDT_INSN_OTHER);
	case 004:			/* reserved */
		return bad(in);

	case 010:			/* c.nop, c.addi */
		return ok(in, 2, h == 1 ? XDT_INSN_NOP : XDT_INSN_OTHER);
	case 011:			/* c.addiw */
		if (!r1)
			return bad(in);
		return ok(in, 2, XDT_INSN_OTHER);
	case 012:			/* c.li */
		return ok(in, 2, XDT_INSN_OTHER);
	case 013:			/* c.addi16sp, c.lui: nonzero imm */
		if (!BIT(h, 12) && !r2)
			return bad(in);
		return ok(in, 2, XDT_INSN_OTHER);
	case 014:			/* c.srli c.srai c.andi, reg-reg */
		if (((h >> 10) & 3) == 3 && BIT(h, 12) && BIT(h, 6))
			return bad(in);	/* reserved (Zcb) */
		return ok(in, 2, XDT_INSN_OTHER);
	case 015:			/* c.j: imm[11|4|9:8|10|6|7|3:1|5] */
		in->op = XDT_RV_OP_JAL;
		in->imm = sext(BIT(h, 12) << 11 | BIT(h, 11) << 4 |
			       ((h >> 9) & 3) << 8 | BIT(h, 8) << 10 |
			       BIT(h, 7) << 6 | BIT(h, 6) << 7 |
			       ((h >> 3) & 7) << 1 | BIT(h, 2) << 5, 12);
		return ok(in, 2, XDT_INSN_JMP_REL);
	case 016:			/* c.beqz, c.bnez: imm[8|4:3], [7:6|2:1|5] */
	case 017:
		in->op = f3 == 6 ? XDT_RV_OP_BEQ : XDT_RV_OP_BNE;
		in->rs1 = (u8)(8 + ((h >> 7) & 7));
		in->imm = sext(BIT(h, 12) << 8 | ((h >> 10) & 3) << 3 |
			       ((h >> 5) & 3) << 6 | ((h >> 3) & 3) << 1 |
			       BIT(h, 2) << 5, 9);
		return ok(in, 2, XDT_INSN_JCC_REL);

	case 020:			/* c.slli */
	case 021:			/* c.fldsp */
	case 025: case 026: case 027:	/* c.fsdsp c.swsp c.sdsp */
		return ok(in, 2, XDT_INSN_OTHER);
	case 022:			/* c.lwsp, c.ldsp: rd != 0 */
	case 023:
		if (!r1)
			return bad(in);
		return ok(in, 2, XDT_INSN_OTHER);
	case 024:
		if (r2)			/* c.mv, c.add */
			return ok(in, 2, XDT_INSN_OTHER);
		if (!BIT(h, 12)) {	/* c.jr */
			if (!r1)
				return bad(in);
			in->op = XDT_RV_OP_JALR;
			in->rs1 = (u8)r1;
			return ok(in, 2, r1 == 1 ? XDT_INSN_RET :
						   XDT_INSN_JMP_IND);
		}
		if (!r1)		/* c.ebreak */
			return ok(in, 2, XDT_INSN_BRK);
		in->op = XDT_RV_OP_JALR;	/* c.jalr */
		in->rd = 1;
		in->rs1 = (u8)r1;
		return ok(in, 2, XDT_INSN_CALL_IND);
	}
	return bad(in);
}

/* OP-FP (1010011): only the S and D formats. */
static int op_fp(u32 w, unsigned int f3, unsigned int rs2)
{
	unsigned int f5 = w >> 27, fmt = (w >> 25) & 3;
	int rm_ok = f3 != 5 && f3 != 6;

	if (fmt > 1)
		return 0;
	switch (f5) {
	case 0x00: case 0x01: case 0x02: case 0x03:	/* add sub mul div */
		return rm_ok;
	case 0x0b:					/* fsqrt */
		return rm_ok && !rs2;
	case 0x04:					/* fsgnj[n|x] */
		return f3 <= 2;
	case 0x05:					/* fmin, fmax */
		return f3 <= 1;
	case 0x08:			/* fcvt.s.d (fmt S), fcvt.d.s (fmt D) */
		return rm_ok && rs2 == (fmt ? 0u : 1u);
	case 0x14:					/* fle flt feq */
		return f3 <= 2;
	case 0x18: case 0x1a:	/* fcvt.{w,wu,l,lu}.fmt and back */
		return rm_ok && rs2 <= 3;
	case 0x1c:					/* fmv.x.*, fclass */
		return !rs2 && f3 <= 1;
	case 0x1e:					/* fmv.*.x */
		return !rs2 && !f3;
	}
	return 0;
}

static int system32(u32 w, unsigned int f3, struct xdt_rv_insn *in)
{
	if (f3 == 4)
		return bad(in);		/* hypervisor loads: not RV64G */
	if (f3)				/* csrrw csrrs csrrc csrr[wsc]i */
		return ok(in, 4, XDT_INSN_REFUSED);
	switch (w) {
	case 0x00000073:		/* ecall */
	case 0x10200073:		/* sret */
	case 0x30200073:		/* mret */
	case 0x7b200073:		/* dret */
	case 0x10500073:		/* wfi */
		return ok(in, 4, XDT_INSN_REFUSED);
	case 0x00100073:		/* ebreak */
		return ok(in, 4, XDT_INSN_BRK);
	}
	if ((w >> 25) == 0x09 && !((w >> 7) & 31))	/* sfence.vma */
		return ok(in, 4, XDT_INSN_REFUSED);
	return bad(in);
}

static int decode32(u32 w, struct xdt_rv_insn *in)
{
	unsigned int f3 = (w >> 12) & 7, f7 = w >> 25;
	unsigned int rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
	unsigned int rs2 = (w >> 20) & 31;
	s32 i_imm = (s32)w >> 20;
	s32 s_imm = (s32)(w & 0xfe000000) >> 20 | (s32)rd;

	in->rd = (u8)rd;
	in->rs1 = (u8)rs1;
	in->rs2 = (u8)rs2;
	switch ((w >> 2) & 31) {
	case 0x00:			/* LOAD: lb lh lw ld lbu lhu lwu */
		if (f3 == 7)
			return bad(in);
		in->rs2 = 0;
		in->imm = i_imm;
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x01:			/* LOAD-FP: flw fld */
		if (f3 != 2 && f3 != 3)
			return bad(in);
		in->rs2 = 0;
		in->imm = i_imm;
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x03:			/* MISC-MEM */
		in->rs2 = 0;
		if (f3 == 0 || f3 == 1)	/* fence (.tso, pause), fence.i */
			return ok(in, 4, XDT_INSN_OTHER);
		if (f3 == 2 && !rd && (w >> 20) <= 4 && (w >> 20) != 3)
			return ok(in, 4, XDT_INSN_OTHER);	/* cbo.* */
		return bad(in);
	case 0x04:			/* OP-IMM */
		in->rs2 = 0;
		in->imm = i_imm;
		if (f3 == 1 && (w >> 26))		/* slli */
			return bad(in);
		if (f3 == 5 && (w >> 26) && (w >> 26) != 0x10)	/* srli srai */
			return bad(in);
		if (w == 0x00000013)
			return ok(in, 4, XDT_INSN_NOP);	/* addi x0, x0, 0 */
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x05:			/* AUIPC */
		in->rs1 = 0;
		in->rs2 = 0;
		in->imm = (s32)(w & 0xfffff000);
		in->op = XDT_RV_OP_AUIPC;
		return ok(in, 4, XDT_INSN_PCREL);
	case 0x06:			/* OP-IMM-32: addiw slliw srliw sraiw */
		in->rs2 = 0;
		in->imm = i_imm;
		if (f3 == 0 || ((f3 == 1 || f3 == 5) &&
				(!f7 || (f3 == 5 && f7 == 0x20))))
			return ok(in, 4, XDT_INSN_OTHER);
		return bad(in);
	case 0x08:			/* STORE: sb sh sw sd */
	case 0x09:			/* STORE-FP: fsw fsd */
		if ((w & 4) ? f3 != 2 && f3 != 3 : f3 > 3)
			return bad(in);
		in->rd = 0;
		in->imm = s_imm;
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x0b:			/* AMO */
		if (f3 != 2 && f3 != 3)
			return bad(in);
		switch (w >> 27) {
		case 0x02:		/* lr */
			if (rs2)
				return bad(in);
			in->op = XDT_RV_OP_LR;
			return ok(in, 4, XDT_INSN_EXCL);
		case 0x03:		/* sc */
			in->op = XDT_RV_OP_SC;
			return ok(in, 4, XDT_INSN_EXCL);
		case 0x00: case 0x01: case 0x04: case 0x08: case 0x0c:
		case 0x10: case 0x14: case 0x18: case 0x1c:
			return ok(in, 4, XDT_INSN_OTHER);
		}
		return bad(in);
	case 0x0c:			/* OP */
		if (!f7 || f7 == 1 || (f7 == 0x20 && (f3 == 0 || f3 == 5)))
			return ok(in, 4, XDT_INSN_OTHER);
		return bad(in);
	case 0x0d:			/* LUI */
		in->rs1 = 0;
		in->rs2 = 0;
		in->imm = (s32)(w & 0xfffff000);
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x0e:			/* OP-32 */
		if ((!f7 && (f3 == 0 || f3 == 1 || f3 == 5)) ||
		    (f7 == 0x20 && (f3 == 0 || f3 == 5)) ||
		    (f7 == 1 && (f3 == 0 || f3 >= 4)))
			return ok(in, 4, XDT_INSN_OTHER);
		return bad(in);
	case 0x10: case 0x11: case 0x12: case 0x13:	/* fmadd ... fnmadd */
		if (((w >> 25) & 3) > 1 || f3 == 5 || f3 == 6)
			return bad(in);
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x14:			/* OP-FP */
		if (!op_fp(w, f3, rs2))
			return bad(in);
		return ok(in, 4, XDT_INSN_OTHER);
	case 0x18:			/* BRANCH: imm[12|10:5], [4:1|11] */
		if (f3 == 2 || f3 == 3)
			return bad(in);
		in->rd = 0;
		in->op = (u8)(XDT_RV_OP_BEQ + (f3 >= 4 ? f3 - 2 : f3));
		in->imm = (s32)(w & 0x80000000) >> 19 |
			  (s32)(BIT(w, 7) << 11 | ((w >> 25) & 0x3f) << 5 |
				((w >> 8) & 15) << 1);
		return ok(in, 4, XDT_INSN_JCC_REL);
	case 0x19:			/* JALR */
		if (f3)
			return bad(in);
		in->rs2 = 0;
		in->imm = i_imm;
		in->op = XDT_RV_OP_JALR;
		if (rd)
			return ok(in, 4, XDT_INSN_CALL_IND);
		return ok(in, 4, rs1 == 1 && !i_imm ? XDT_INSN_RET :
						    XDT_INSN_JMP_IND);
	case 0x1b:			/* JAL: imm[20|10:1|11|19:12] */
		in->rs1 = 0;
		in->rs2 = 0;
		in->op = XDT_RV_OP_JAL;
		in->imm = (s32)(w & 0x80000000) >> 11 |
			  (s32)((w & 0xff000) | BIT(w, 20) << 11 |
				((w >> 21) & 0x3ff) << 1);
		return ok(in, 4, rd ? XDT_INSN_CALL_REL : XDT_INSN_JMP_REL);
	case 0x1c:			/* SYSTEM */
		in->rs2 = 0;
		in->imm = i_imm;
		return system32(w, f3, in);
	}
	return bad(in);
}

int xdt_rv_decode(const u8 *p, size_t avail, struct xdt_rv_insn *insn)
{
	u32 w;

	clear(insn);
	if (avail < 2)
		return 0;
	w = (u32)p[0] | (u32)p[1] << 8;
	if ((w & 3) != 3)
		return decode16(w, insn);
	if ((w & 0x1c) == 0x1c || avail < 4)
		return 0;		/* 48 bits and longer; truncated */
	w |= (u32)p[2] << 16 | (u32)p[3] << 24;
	return decode32(w, insn);
}
