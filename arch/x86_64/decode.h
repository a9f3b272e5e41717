/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 instruction length decoder and classifier for fbt and kinst.
 *
 * Decodes one 64-bit-mode instruction: its length, the offsets of its
 * ModRM / displacement / immediate fields, whether it is RIP-relative,
 * and the class the providers care about (return, relative branch,
 * indirect branch, refused, ...).  No state, no allocation, no libc:
 * the same file builds in xdt.ko and in the host checker
 * (tools/xdt-decode-check.c), which compares it against objdump over
 * every function of a vmlinux.
 */
#ifndef XDT_X86_64_DECODE_H
#define XDT_X86_64_DECODE_H

#include "xdt_insn.h"

#define XDT_X86_MAX_INSN_LEN	15

/* Classes: enum xdt_insn_class in core/xdt_insn.h. */

/*
 * The decoded instruction.  Offsets count from the first byte (the first
 * prefix, if any); an offset of 0 means "field absent", which is never
 * ambiguous because byte 0 is always a prefix or an opcode byte.
 */
struct xdt_insn {
	u8 len;		/* total length in bytes, 1..15; 0 when BAD */
	u8 cls;		/* enum xdt_insn_class */
	u8 opcode_len;	/* opcode bytes after prefixes/REX/VEX: 1-3 */
	u8 modrm_off;	/* offset of the ModRM byte, 0 if none */
	u8 rip_rel;	/* 1 if ModRM mod=00 rm=101 (RIP-relative) */
	u8 disp_off;	/* offset of the displacement, 0 if none */
	u8 imm_off;	/* offset of the first immediate byte, 0 if none */
	u8 rel_size;	/* *_REL and LOOP: rel8 or rel32 (1 or 4), else 0 */
	s32 rel;	/* the sign-extended relative displacement */
};
/*
 * opcode_len is 1 for VEX/EVEX (the map is implied by the prefix).  For a
 * *_REL or LOOP instruction the displacement is the last field:
 * imm_off + rel_size == len, and the target is address + len + rel.
 */

/*
 * Decode one 64-bit-mode instruction at @p with @avail readable bytes.
 * Returns insn->len, or 0 with insn->cls = XDT_INSN_BAD (invalid in
 * 64-bit mode, truncated, longer than 15 bytes, or not supported).
 */
int xdt_x86_decode(const u8 *p, size_t avail, struct xdt_insn *insn);

#endif /* XDT_X86_64_DECODE_H */
