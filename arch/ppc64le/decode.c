// SPDX-License-Identifier: GPL-2.0
/*
 * Power ISA branch and trap classification (decode.h says what it does
 * not do yet).  Field names are the ISA's: the primary opcode is the top
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

unsigned int xdt_ppc_decode(u32 w, struct xdt_ppc_insn *in)
{
	*in = (struct xdt_ppc_insn){ .cls = XDT_INSN_OTHER };

	switch (OP(w)) {
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
			in->cls = XDT_INSN_JMP_IND;	/* absolute: rare */
		else if (in->link)
			in->cls = XDT_INSN_CALL_REL;
		else
			in->cls = in->cond ? XDT_INSN_JCC_REL : XDT_INSN_JMP_REL;
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
		in->bo = BO(w);
		in->bi = BI(w);
		in->link = LK(w);
		in->cond = !bo_always(in->bo);
		if (XO10(w) == 16)		/* bclr[l] */
			in->cls = in->link ? XDT_INSN_CALL_IND : XDT_INSN_RET;
		else if (XO10(w) == 528 || XO10(w) == 560) /* bcctr, bctar */
			in->cls = in->link ? XDT_INSN_CALL_IND
					   : XDT_INSN_JMP_IND;
		break;
	case 31:
		if (XO10(w) == 4 || XO10(w) == 68)	/* tw, td */
			in->cls = XDT_INSN_BRK;
		break;
	}
	return 4;
}
