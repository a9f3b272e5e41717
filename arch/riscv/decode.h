/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RISC-V (RV64GC + Zicsr + Zifencei) instruction decoder for fbt and kinst.
 *
 * Finds an instruction's length (2 or 4 bytes), validates it against the
 * base ISA and the G and C extensions, and classifies it (core/xdt_insn.h).
 * Compressed control transfers are reported in their 32-bit form (c.j as
 * jal x0, c.jr as jalr x0, c.beqz as beq rs1, x0, ...), so kinst emulates
 * one set of instructions; the compressed flag tells the length apart.
 *
 * No state, no allocation, no libc: the same file builds in xdt.ko and in
 * the host checker (tools/xdt-decode-check.c), which compares it against
 * riscv64 objdump over every function of a riscv vmlinux.
 */
#ifndef XDT_RISCV_DECODE_H
#define XDT_RISCV_DECODE_H

#include "xdt_insn.h"

#define XDT_RV_MAX_INSN_LEN	4

/* The precise instruction, for the classes kinst must emulate. */
enum xdt_rv_op {
	XDT_RV_OP_NONE = 0,	/* nothing kinst needs to know */
	XDT_RV_OP_JAL,		/* jal rd, imm (also c.j: rd = x0) */
	XDT_RV_OP_JALR,		/* jalr rd, imm(rs1) (c.jr, c.jalr) */
	XDT_RV_OP_BEQ,		/* beq rs1, rs2, imm (c.beqz: rs2 = x0) */
	XDT_RV_OP_BNE,		/* bne rs1, rs2, imm (c.bnez: rs2 = x0) */
	XDT_RV_OP_BLT,
	XDT_RV_OP_BGE,
	XDT_RV_OP_BLTU,
	XDT_RV_OP_BGEU,
	XDT_RV_OP_AUIPC,	/* auipc rd, imm (imm already << 12) */
	XDT_RV_OP_LR,		/* lr.w/lr.d rd, (rs1) */
	XDT_RV_OP_SC,		/* sc.w/sc.d rd, rs2, (rs1) */
};

struct xdt_rv_insn {
	u8 len;		/* 2 or 4; 0 when BAD */
	u8 cls;		/* enum xdt_insn_class */
	u8 op;		/* enum xdt_rv_op */
	u8 compressed;	/* 1 for a 16-bit (C extension) encoding */
	u8 rd;		/* x0..x31 (f0..f31 for FP destinations) */
	u8 rs1;
	u8 rs2;
	s32 imm;	/* see below */
};
/*
 * imm: branches and jal (c.j, c.beqz, ...): the byte offset from the
 * instruction's address; jalr: the offset added to rs1; auipc: the value
 * added to the pc (the 20-bit field << 12, sign-extended); for other
 * I/S-type instructions their 12-bit immediate.  rd, rs1, rs2 and imm are
 * filled for every instruction kinst emulates (JMP/JCC/CALL, RET, the
 * indirect branches, PCREL, EXCL), and for 32-bit instructions wherever
 * the format has the field; otherwise 0.
 */

/*
 * Decode one instruction at @p with @avail readable bytes (the parcel is
 * read 16 bits at a time, little-endian, so a 2-byte instruction at the
 * end of a function does not read past it).  Returns insn->len, or 0 with
 * cls XDT_INSN_BAD (unknown or reserved encoding, 48/64-bit encodings,
 * truncated).
 */
int xdt_rv_decode(const u8 *p, size_t avail, struct xdt_rv_insn *insn);

#endif /* XDT_RISCV_DECODE_H */
