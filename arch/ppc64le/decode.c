// SPDX-License-Identifier: GPL-2.0
/*
 * Power ISA instruction classification for fbt and kinst (decode.h).  Field names are the ISA's: the primary opcode is the top
 * six bits, BO/BI the branch condition, LK the link bit, AA absolute.
 */
#include "decode.h"

#define OP(w)		((w) >> 26)
#define XO10(w)		(((w) >> 1) & 0x3ff)
#define BO(w)		(((w) >> 21) & 31)
#define BI(w)		(((w) >> 16) & 31)
#define LK(w)		((w) & 1)
#define AA(w)		(((w) >> 1) & 1)

/* BO = 1z1zz: branch always (no CR test, no CTR decrement). */
static int bo_always(unsigned int bo)
{
	return (bo & 0x14) == 0x14;
}

static s32 sext(u32 v, unsigned int bits)
{
	u32 m = 1u << (bits - 1);

	return (s32)((v ^ m) - m);
}

/* The SPR number of mfspr/mtspr: its two 5-bit halves are swapped. */
static unsigned int spr(u32 w)
{
	return ((w >> 16) & 31) | ((w >> 11) & 31) << 5;
}

/*
 * SRR0/SRR1 and HSRR0/HSRR1: the interrupt that a probe's trap is (a
 * program check) writes SRR0/SRR1, so code that reads or writes them
 * between an interrupt and its rfid cannot have a trap in between.
 */
static int spr_refused(unsigned int n)
{
	return n == 26 || n == 27 || n == 314 || n == 315;
}

static void op31(u32 w, struct xdt_ppc_insn *in)
{
	switch (XO10(w)) {
	case 4: case 68:		/* tw, td */
		in->cls = XDT_INSN_BRK;
		break;
	case 20: case 52: case 84: case 116: case 276:
		/* lwarx, lbarx, ldarx, lharx, lqarx: a reservation that
		 * an interrupt before the store-conditional loses */
		in->cls = XDT_INSN_EXCL;
		break;
	case 150: case 182: case 214: case 694: case 726:
		/* stwcx., stqcx., stdcx., stbcx., sthcx. */
		in->cls = LK(w) ? XDT_INSN_EXCL : XDT_INSN_BAD;
		break;
	case 30:			/* wait */
	case 146: case 178:		/* mtmsr, mtmsrd */
		in->cls = XDT_INSN_REFUSED;
		break;
	case 339: case 467:		/* mfspr, mtspr */
		if (spr_refused(spr(w)))
			in->cls = XDT_INSN_REFUSED;
		break;
	}
}

static void op19(u32 w, struct xdt_ppc_insn *in)
{
	in->bo = BO(w);
	in->bi = BI(w);
	in->link = LK(w);
	/*
	 * addpcis RT, D (DX-form: a 5-bit XO, no XL-form opcode of 19 ends
	 * in it): RT = NIA + (D << 16), D = d0:d1:d2.
	 */
	if (((w >> 1) & 31) == 2) {
		in->link = 0;
		in->cls = XDT_INSN_PCREL;
		in->imm = 4 + (s32)((u32)sext((w >> 6 & 0x3ff) << 6 |
					      (w >> 16 & 31) << 1 | (w & 1),
					      16) << 16);
		return;
	}
	switch (XO10(w)) {
	case 16:			/* bclr[l] */
		in->cond = !bo_always(in->bo);
		in->cls = in->link ? XDT_INSN_CALL_IND : XDT_INSN_RET;
		break;
	case 528: case 560:		/* bcctr[l], bctar[l] */
		in->cond = !bo_always(in->bo);
		in->cls = in->link ? XDT_INSN_CALL_IND : XDT_INSN_JMP_IND;
		break;
	case 18: case 274: case 82: case 146:	/* rfid hrfid rfscv rfebb */
	case 370: case 402: case 434: case 466: case 498:
		/* stop, doze, nap, sleep, rvwinkle */
		in->cls = XDT_INSN_REFUSED;
		break;
	}
}

unsigned int xdt_ppc_decode(u32 w, struct xdt_ppc_insn *in)
{
	*in = (struct xdt_ppc_insn){ .cls = XDT_INSN_OTHER };

	switch (OP(w)) {
	case 0:
		/* attn (a hypervisor stop); every other word is illegal */
		in->cls = XDT_INSN_BAD;
		if (XO10(w) == 256)
			in->cls = XDT_INSN_REFUSED;
		break;
	case 2:			/* tdi */
	case 3:			/* twi */
		in->cls = XDT_INSN_BRK;
		break;
	case 16:		/* bc[l][a] */
		in->bo = BO(w);
		in->bi = BI(w);
		in->link = LK(w);
		in->cond = !bo_always(in->bo);
		in->imm = sext(w & 0xfffc, 16);
		if (AA(w))
			in->cls = in->link ? XDT_INSN_CALL_IND
					   : XDT_INSN_JMP_IND; /* absolute */
		else if (in->link)
			in->cls = XDT_INSN_CALL_REL;
		else
			in->cls = in->cond ? XDT_INSN_JCC_REL : XDT_INSN_JMP_REL;
		break;
	case 17:		/* sc, scv */
		in->cls = XDT_INSN_REFUSED;
		break;
	case 18:		/* b[l][a] */
		in->link = LK(w);
		in->imm = sext(w & 0x03fffffc, 26);
		if (AA(w))
			in->cls = in->link ? XDT_INSN_CALL_IND : XDT_INSN_JMP_IND;
		else
			in->cls = in->link ? XDT_INSN_CALL_REL : XDT_INSN_JMP_REL;
		break;
	case 19:
		op19(w, in);
		break;
	case 24:		/* ori 0,0,0: the preferred nop */
		if (w == 0x60000000u)
			in->cls = XDT_INSN_NOP;
		break;
	case 31:
		op31(w, in);
		break;
	}
	return 4;
}
