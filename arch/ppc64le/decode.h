/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Power ISA (64-bit, little-endian) instruction classifier.
 *
 * NOT YET THE STEP-5 DECODER (docs/porting.md): it knows the branch
 * family (b, bc, bclr, bcctr, with or without link) and the traps, which
 * is what fbt's return sites need, and calls every other word OTHER
 * without validating it: no BAD, no REFUSED (mtmsr, rfid, ...), no EXCL
 * (lwarx/stwcx.), no PC-relative (addpcis) and no prefixed (POWER10)
 * instructions.  kinst refuses every function until it is complete, and
 * tools/xdt-decode-check does not know it yet.
 *
 * No state, no allocation, no libc: the same file will build in the host
 * checker.
 */
#ifndef XDT_PPC_DECODE_H
#define XDT_PPC_DECODE_H

#include "xdt_insn.h"

struct xdt_ppc_insn {
	u8 cls;		/* enum xdt_insn_class */
	u8 link;	/* LK = 1: a call (sets LR) */
	u8 cond;	/* a conditional branch (BO is not "always") */
	u8 bo, bi;	/* bc/bclr/bcctr: the BO and BI fields */
	s32 imm;	/* b/bc: the byte offset from the instruction */
};

/*
 * Classify the word @w.  Returns 4 (the length) and fills @in; every
 * word is 4 bytes long.
 */
unsigned int xdt_ppc_decode(u32 w, struct xdt_ppc_insn *in);

#endif
