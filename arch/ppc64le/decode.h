/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Power ISA (64-bit, little-endian) instruction classifier.
 *
 * Every instruction is one 32-bit word, so the length is always 4; what
 * the decoder gives is the class: the branch family (b, bc, bclr, bcctr,
 * bctar, with or without link; a conditional bclr is a RET with .cond),
 * addpcis (PC-relative), the traps (tw, td, twi, tdi: BRK), the
 * load-reserve/store-conditional pairs (EXCL), what changes or depends
 * on interrupt state (sc, rfid & co., mtmsr[d], wait, the power-saving
 * stops, attn, mfspr/mtspr of SRR0/1 and HSRR0/1: REFUSED), primary
 * opcode 0 (BAD) and `ori 0,0,0` (NOP).  Everything else is OTHER
 * without being validated: a word objdump cannot disassemble is OTHER
 * here (tools/xdt-decode-check counts them).  POWER10's prefixed
 * instructions (primary opcode 1) are not in a POWER9 kernel and are
 * OTHER too.
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
