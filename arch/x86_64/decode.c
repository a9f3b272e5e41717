// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction length decoder and classifier (64-bit mode only).
 *
 * Contents
 *   1. Encoding summary
 *   2. Opcode table entries: operand shape + class
 *   3. One-byte opcode map
 *   4. Two-byte opcode map (0f xx); the 0f 38 and 0f 3a maps
 *   5. Decoder: prefixes, VEX/EVEX, ModRM/SIB/displacement, immediates
 *   6. Group-dependent classification (fixups after ModRM)
 *
 * Rules: builds in xdt.ko and in user space (tools/xdt-decode-check.c).
 * No libc, no allocation, no floating point, no writable globals; every
 * table is const.  Every byte read is checked against @avail.
 *
 * ==== 1. Encoding summary =================================================
 *
 *   [legacy prefixes] [REX] opcode [ModRM [SIB] [disp]] [imm]
 *   [legacy prefixes] VEX/EVEX opcode ModRM [SIB] [disp] [imm]
 *
 *   legacy prefixes  f0 f2 f3, 2e 36 3e 26 64 65, 66 (operand size),
 *                    67 (address size); any order, at most 14 of them
 *   REX              40-4f, must be the last byte before the opcode; the
 *                    CPU ignores a REX followed by a legacy prefix or by
 *                    another REX, objdump
 *                    shows it as an instruction of its own, compilers never
 *                    emit it: BAD.  REX.W (bit 3) selects 64-bit operands
 *   opcode           xx | 0f xx | 0f 38 xx | 0f 3a xx
 *   VEX2  c5 [R vvvv L pp]                   map 0f
 *   VEX3  c4 [RXB mmmmm] [W vvvv L pp]       mmmmm: 1=0f 2=0f38 3=0f3a
 *   EVEX  62 [RXBR' 0 mmm] [W vvvv 1 pp] [z L'L b V' aaa]
 *                                            mmm: 1, 2, 3, 5, 6 (FP16)
 *         In 64-bit mode c4, c5 and 62 are always VEX/EVEX (LES, LDS and
 *         BOUND do not exist).  A VEX/EVEX after 66, f2, f3, f0 or REX
 *         raises #UD: BAD.  EVEX disp8*N compression does not change the
 *         length.
 *   ModRM mod(7:6) reg(5:3) rm(2:0)
 *         mod=11         register, nothing follows
 *         rm=100         a SIB byte follows (mod != 11)
 *         mod=00 rm=101  disp32, RIP-relative (also with 67: EIP-relative)
 *         SIB base=101 with mod=00: disp32, no base
 *         mod=01 disp8, mod=10 disp32
 *         In 64-bit mode 67 only truncates the address; the ModRM/SIB
 *         layout is the 32/64-bit one (there is no 16-bit addressing).
 *   Immediates
 *         z  imm16 with 66 (and no REX.W), else imm32
 *         v  b8-bf only: imm64 with REX.W, imm16 with 66, else imm32
 *         moffs (a0-a3): 8 bytes, 4 with 67
 *
 *   Near relative branches with 66 have a vendor-dependent operand size
 *   (Intel ignores 66 in 64-bit mode, AMD truncates to rel16/IP16), so
 *   their length and target are not well defined: BAD.  Compilers never
 *   emit them.
 */
#include "decode.h"

/* ==== 2. Opcode table entries ============================================ */

/* Operand shape: which bytes follow the opcode. */
enum {
	SH_NONE,	/* nothing */
	SH_M,		/* ModRM (+SIB, +disp) */
	SH_MB,		/* ModRM, imm8 */
	SH_MZ,		/* ModRM, imm16/32 */
	SH_B,		/* imm8 (or rel8) */
	SH_W,		/* imm16 */
	SH_Z,		/* imm16/32 (or rel32) */
	SH_V,		/* imm16/32/64 (mov r, imm: b8-bf) */
	SH_O,		/* moffs64, moffs32 with 67 (a0-a3) */
	SH_WB,		/* imm16, imm8 (enter) */
	SH_G3B,		/* f6 group 3: ModRM, imm8 for /0 and /1 */
	SH_G3Z,		/* f7 group 3: ModRM, imm16/32 for /0 and /1 */
	SH_MBB,		/* ModRM, imm8, imm8 (extrq/insertq) */
	SH_BAD,		/* invalid in 64-bit mode */
	SH_PFX,		/* prefix, REX or escape: consumed before the lookup */
};

/* An entry is (class << 4) | shape. */
#define E(cls, sh)	((u8)((XDT_INSN_##cls << 4) | SH_##sh))
#define E_SHAPE(e)	((e) & 0x0f)
#define E_CLASS(e)	((e) >> 4)

/*
 * Two-letter names so that a row of 16 opcodes fits one line.
 *
 *	NO none		MR ModRM	MB ModRM,ib	MZ ModRM,iz
 *	IB ib		IW iw		IZ iz		IV iv (b8-bf)
 *	MO moffs	EN iw,ib	GB/GZ group 3 (f6/f7)
 *	XX invalid in 64-bit mode	PP prefix/REX/escape/VEX
 *	RN RB RW RM	refused: none, ib, iw, ModRM
 *	JB JZ		jcc rel8, rel32		SB SZ	jmp rel8, rel32
 *	CZ		call rel32		LB	loop/jrcxz rel8
 *	RT RI		ret, ret iw		BP	int3
 */
#define NO	E(OTHER, NONE)
#define MR	E(OTHER, M)
#define MB	E(OTHER, MB)
#define MZ	E(OTHER, MZ)
#define IB	E(OTHER, B)
#define IW	E(OTHER, W)
#define IZ	E(OTHER, Z)
#define IV	E(OTHER, V)
#define MO	E(OTHER, O)
#define EN	E(OTHER, WB)
#define GB	E(OTHER, G3B)
#define GZ	E(OTHER, G3Z)
#define XX	E(BAD, BAD)
#define PP	E(OTHER, PFX)
#define RN	E(REFUSED, NONE)
#define RB	E(REFUSED, B)
#define RW	E(REFUSED, W)
#define RM	E(REFUSED, M)
#define JB	E(JCC_REL, B)
#define JZ	E(JCC_REL, Z)
#define SB	E(JMP_REL, B)
#define SZ	E(JMP_REL, Z)
#define CZ	E(CALL_REL, Z)
#define LB	E(LOOP, B)
#define RT	E(RET, NONE)
#define RI	E(RET, W)
#define BP	E(INT3, NONE)

/*
 * ==== 3. One-byte opcode map (Intel SDM Vol. 2, Table A-2) ================
 *
 * Entries whose class depends on ModRM.reg or on the exact bytes are
 * listed with their shape here and finished in section 6:
 * 55 push %rbp, 89/8b mov %rsp,%rbp, 8f group 1a, 90 nop/xchg, c3/c2 with
 * 66, c6/c7 group 11 (xabort/xbegin), fe group 4, ff group 5.
 */
static const u8 xdt_map1[256] = {
/*	  x0  x1  x2  x3  x4  x5  x6  x7  x8  x9  xa  xb  xc  xd  xe  xf */
/* 0x */ MR, MR, MR, MR, IB, IZ, XX, XX, MR, MR, MR, MR, IB, IZ, XX, PP,
	/* add; push/pop es: invalid; or; push cs: invalid; 0f escape */
/* 1x */ MR, MR, MR, MR, IB, IZ, XX, XX, MR, MR, MR, MR, IB, IZ, XX, XX,
	/* adc; push/pop ss: invalid; sbb; push/pop ds: invalid */
/* 2x */ MR, MR, MR, MR, IB, IZ, PP, XX, MR, MR, MR, MR, IB, IZ, PP, XX,
	/* and; es:; daa: invalid; sub; cs:; das: invalid */
/* 3x */ MR, MR, MR, MR, IB, IZ, PP, XX, MR, MR, MR, MR, IB, IZ, PP, XX,
	/* xor; ss:; aaa: invalid; cmp; ds:; aas: invalid */
/* 4x */ PP, PP, PP, PP, PP, PP, PP, PP, PP, PP, PP, PP, PP, PP, PP, PP,
	/* REX prefixes (inc/dec in 32-bit mode) */
/* 5x */ NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO,
	/* push r64; pop r64 */
/* 6x */ XX, XX, PP, MR, PP, PP, PP, PP, IZ, MZ, IB, MB, RN, RN, RN, RN,
	/* pusha/popa: invalid; EVEX; movsxd; fs: gs: 66 67 */
	/* push iz; imul iz; push ib; imul ib; ins/outs: refused */
/* 7x */ JB, JB, JB, JB, JB, JB, JB, JB, JB, JB, JB, JB, JB, JB, JB, JB,
	/* jcc rel8 */
/* 8x */ MB, MZ, XX, MB, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, RM, MR,
	/* group 1 (82: invalid); test; xchg; mov; mov Sreg; lea */
	/* mov to Sreg: refused (mov ss shadows interrupts); group 1a */
/* 9x */ NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, XX, NO, NO, RN, NO, NO,
	/* nop/xchg; cbw/cwd; callf: invalid; fwait; pushf */
	/* popf: refused; sahf; lahf */
/* ax */ MO, MO, MO, MO, NO, NO, NO, NO, IB, IZ, NO, NO, NO, NO, NO, NO,
	/* mov moffs; movs; cmps; test ib/iz; stos; lods; scas */
/* bx */ IB, IB, IB, IB, IB, IB, IB, IB, IV, IV, IV, IV, IV, IV, IV, IV,
	/* mov r8, ib; mov r, iv */
/* cx */ MB, MB, RI, RT, PP, PP, MB, MZ, EN, NO, RW, RN, BP, RB, XX, RN,
	/* group 2 ib; ret iw; ret; VEX3; VEX2; group 11; enter; leave */
	/* lret iw, lret: refused; int3; int n: refused */
	/* into: invalid; iret: refused */
/* dx */ MR, MR, MR, MR, XX, XX, XX, NO, MR, MR, MR, MR, MR, MR, MR, MR,
	/* group 2; aam/aad/salc: invalid; xlat; x87 escapes d8-df */
/* ex */ LB, LB, LB, LB, RB, RB, RB, RB, CZ, SZ, XX, SB, RN, RN, RN, RN,
	/* loopne/loope/loop/jrcxz; in/out ib: refused; call; jmp */
	/* jmpf: invalid; jmp rel8; in/out dx: refused */
/* fx */ PP, RN, PP, PP, RN, NO, GB, GZ, NO, NO, RN, RN, NO, NO, MR, MR,
	/* lock; int1: refused; repne rep; hlt: refused; cmc; group 3 */
	/* clc stc; cli sti: refused; cld std; group 4; group 5 */
};

/*
 * ==== 4. Two-byte opcode map 0f xx (Intel SDM Vol. 2, Table A-3) ==========
 *
 * Finished in section 6: 0f 1e (endbr), 0f 1f (nop /0), 0f 20-23 (always
 * register form), 0f 78/79 (vmread/vmwrite, or extrq/insertq with 66/f2),
 * 0f c7 group 9 (vmptrld/vmclear/vmxon/vmptrst, xrstors/xsaves refused).
 * Mandatory prefixes (66 f2 f3) select among SSE instructions but never
 * change the length, except 0f 78 (above).
 */
static const u8 xdt_map2[256] = {
/*	  x0  x1  x2  x3  x4  x5  x6  x7  x8  x9  xa  xb  xc  xd  xe  xf */
/* 0x */ RM, RM, MR, MR, XX, RN, RN, RN, RN, RN, XX, RN, XX, MR, NO, XX,
	/* group 6, group 7: refused; lar lsl */
	/* syscall clts sysret invd wbinvd ud2: refused */
	/* prefetchw; femms; 3DNow: not supported */
/* 1x */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* SSE moves; group 16 prefetch; hint nops, bnd, endbr; nop /0 */
/* 2x */ RM, RM, RM, RM, XX, XX, XX, XX, MR, MR, MR, MR, MR, MR, MR, MR,
	/* mov cr/dr: refused; mov tr: invalid; SSE movaps..comiss */
/* 3x */ RN, NO, RN, RN, RN, RN, XX, RN, PP, XX, PP, XX, XX, XX, XX, XX,
	/* wrmsr: refused; rdtsc; rdmsr rdpmc sysenter sysexit: refused */
	/* getsec: refused; 0f 38 and 0f 3a escapes */
/* 4x */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* cmovcc */
/* 5x */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* SSE */
/* 6x */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* MMX/SSE */
/* 7x */ MB, MB, MB, MB, MR, MR, MR, NO, RM, RM, XX, XX, MR, MR, MR, MR,
	/* pshuf ib; groups 12-14 ib; pcmpeq; emms; vmread vmwrite: refused; */
	/* haddpd hsubpd; movd/movq */
/* 8x */ JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ, JZ,
	/* jcc rel32 */
/* 9x */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* setcc */
/* ax */ NO, NO, NO, MR, MB, MR, MR, MR, NO, NO, RN, MR, MB, MR, MR, MR,
	/* push/pop fs; cpuid; bt; shld ib/cl */
	/* a6 a7: VIA PadLock xsha*, xstore/xcrypt* (not in the SDM; */
	/* Linux padlock-aes/sha, via-rng use them; ModRM is c0-e8) */
	/* push/pop gs; rsm: refused; bts; shrd ib/cl; group 15; imul */
/* bx */ MR, MR, MR, MR, MR, MR, MR, MR, MR, RM, MB, MR, MR, MR, MR, MR,
	/* cmpxchg; lss; btr; lfs lgs; movzx; popcnt; ud1: refused */
	/* group 8 ib; btc; bsf/tzcnt bsr/lzcnt; movsx */
/* cx */ MR, MR, MB, MR, MB, MB, MB, MR, NO, NO, NO, NO, NO, NO, NO, NO,
	/* xadd; cmpps ib; movnti; pinsrw pextrw shufps ib; group 9; bswap */
/* dx */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* MMX/SSE */
/* ex */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
	/* MMX/SSE */
/* fx */ MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, RM,
	/* MMX/SSE; ud0: refused */
};

/*
 * The three-byte maps are uniform for the length:
 *	0f 38 xx	ModRM, no immediate (SDM Table A-4); 0f 38 80-82
 *			(invept, invvpid, invpcid) are refused.
 *	0f 3a xx	ModRM, imm8 (SDM Table A-5).
 * Unassigned 0f 38/0f 3a opcodes are decoded with that shape too: they
 * raise #UD when executed, so at worst a length is given to an
 * instruction that does not exist.
 */

#undef NO
#undef MR
#undef MB
#undef MZ
#undef IB
#undef IW
#undef IZ
#undef IV
#undef MO
#undef EN
#undef GB
#undef GZ
#undef XX
#undef PP
#undef RN
#undef RB
#undef RW
#undef RM
#undef JB
#undef JZ
#undef SB
#undef SZ
#undef CZ
#undef LB
#undef RT
#undef RI
#undef BP

/* ==== 5. Decoder ========================================================== */

/* Opcode maps, as numbered by VEX.mmmmm / EVEX.mmm. */
enum {
	XDT_MAP1 = 0,		/* one-byte opcodes */
	XDT_MAP_0F = 1,
	XDT_MAP_0F38 = 2,
	XDT_MAP_0F3A = 3,
	XDT_MAP5 = 5,		/* EVEX only (AVX512-FP16) */
	XDT_MAP6 = 6,
};

/* Prefix state of the instruction being decoded. */
struct xdt_pfx {
	u8 p66;		/* operand-size override seen */
	u8 p67;		/* address-size override seen */
	u8 rep;		/* last of f2/f3, or 0 */
	u8 lock;	/* f0 seen */
	u8 rex;		/* effective REX byte, or 0 */
	u8 vex;		/* 1 if VEX or EVEX encoded */
};

static int xdt_is_legacy_prefix(u8 b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e:
	case 0x64: case 0x65: case 0x66: case 0x67:
	case 0xf0: case 0xf2: case 0xf3:
		return 1;
	}
	return 0;
}

static s32 xdt_read_rel(const u8 *p, unsigned int size)
{
	u32 v;

	if (size == 1)
		return (s32)(signed char)p[0];
	v = (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
	return (s32)v;
}

static void xdt_insn_clear(struct xdt_insn *insn)
{
	insn->len = 0;
	insn->cls = XDT_INSN_BAD;
	insn->opcode_len = 0;
	insn->modrm_off = 0;
	insn->rip_rel = 0;
	insn->disp_off = 0;
	insn->imm_off = 0;
	insn->rel_size = 0;
	insn->rel = 0;
}

static int xdt_bad(struct xdt_insn *insn)
{
	xdt_insn_clear(insn);
	return 0;
}

/*
 * Decode ModRM (+SIB +displacement) at @pos; returns the position after
 * them, or 0 if truncated.  @force_reg treats mod as 11 (mov cr/dr).
 */
static unsigned int xdt_modrm(const u8 *p, unsigned int avail,
			      unsigned int pos, int force_reg,
			      struct xdt_insn *insn)
{
	unsigned int mod, rm, disp = 0;

	if (pos >= avail)
		return 0;
	insn->modrm_off = (u8)pos;
	mod = p[pos] >> 6;
	rm = p[pos] & 7;
	pos++;
	if (force_reg || mod == 3)
		return pos;
	if (rm == 4) {				/* SIB */
		if (pos >= avail)
			return 0;
		if (mod == 0 && (p[pos] & 7) == 5)
			disp = 4;		/* no base, disp32 */
		pos++;
	} else if (mod == 0 && rm == 5) {
		insn->rip_rel = 1;		/* disp32(%rip) */
		disp = 4;
	}
	if (mod == 1)
		disp = 1;
	else if (mod == 2)
		disp = 4;
	if (disp) {
		insn->disp_off = (u8)pos;
		pos += disp;
	}
	return pos;
}

/*
 * ==== 6. Group-dependent classification ====================================
 *
 * Called once ModRM (if any) is known.  Returns the class, or XDT_INSN_BAD
 * for encodings that do not exist.  @shape may be adjusted (group 3,
 * xbegin, extrq/insertq) through *@shape.
 */
static int xdt_fixup(const u8 *p, unsigned int map, u8 op,
		     const struct xdt_pfx *px, const struct xdt_insn *insn,
		     int cls, int *shape)
{
	u8 modrm = insn->modrm_off ? p[insn->modrm_off] : 0;
	unsigned int mod = modrm >> 6, reg = (modrm >> 3) & 7;

	if (px->vex)
		return XDT_INSN_OTHER;

	if (map == XDT_MAP1) {
		switch (op) {
		case 0x55:				/* push %rbp */
			if (insn->modrm_off == 0 && p[0] == 0x55)
				return XDT_INSN_PUSH_RBP;
			break;
		case 0x89:				/* mov %rsp,%rbp */
		case 0x8b:				/* (both encodings) */
			if (insn->modrm_off == 2 && p[0] == 0x48 &&
			    modrm == (op == 0x89 ? 0xe5 : 0xec))
				return XDT_INSN_MOV_RSP_RBP;
			break;
		case 0x8f:				/* group 1a: pop /0 */
			if (reg != 0)
				return XDT_INSN_BAD;	/* XOP: not supported */
			break;
		case 0x90:		/* nop, unless REX.B (xchg %r8) or pause */
			if (!(px->rex & 1) && px->rep != 0xf3)
				return XDT_INSN_NOP;
			break;
		case 0xc2:				/* ret iw */
		case 0xc3:				/* ret */
			if (px->p66)
				return XDT_INSN_REFUSED;	/* 16-bit pop */
			break;
		case 0xc6:			/* group 11: mov /0, xabort */
			if (reg == 0)
				break;
			if (modrm == 0xf8)
				return XDT_INSN_REFUSED;	/* xabort ib */
			return XDT_INSN_BAD;
		case 0xc7:			/* group 11: mov /0, xbegin */
			if (reg == 0)
				break;
			if (modrm == 0xf8) {
				if (px->p66)
					return XDT_INSN_BAD;	/* rel16 */
				return XDT_INSN_REFUSED;	/* xbegin rel32 */
			}
			return XDT_INSN_BAD;
		case 0xf6:				/* group 3 */
			*shape = reg < 2 ? SH_MB : SH_M;
			break;
		case 0xf7:
			*shape = reg < 2 ? SH_MZ : SH_M;
			break;
		case 0xfe:				/* group 4: inc/dec */
			if (reg > 1)
				return XDT_INSN_BAD;
			break;
		case 0xff:				/* group 5 */
			switch (reg) {
			case 2:
				return XDT_INSN_CALL_IND;	/* call *r/m */
			case 3:
				if (mod == 3)
					return XDT_INSN_BAD;
				return XDT_INSN_CALL_IND;	/* lcall *m */
			case 4:
				return XDT_INSN_JMP_IND;	/* jmp *r/m */
			case 5:
				if (mod == 3)
					return XDT_INSN_BAD;
				return XDT_INSN_JMP_IND;	/* ljmp *m */
			case 7:
				return XDT_INSN_BAD;
			}
			break;
		}
	} else if (map == XDT_MAP_0F) {
		switch (op) {
		case 0x1e:				/* endbr64, endbr32 */
			if (px->rep == 0xf3 && (modrm == 0xfa || modrm == 0xfb))
				return XDT_INSN_NOP;
			break;
		case 0x1f:				/* nop r/m */
			if (reg == 0)
				return XDT_INSN_NOP;
			break;
		case 0x78:		/* vmread, or extrq/insertq xmm, ib, ib */
		case 0x79:		/* vmwrite, or extrq/insertq xmm, xmm */
			if (px->rep == 0xf2 || (px->p66 && !px->rep)) {
				if (op == 0x78)
					*shape = SH_MBB;
				return XDT_INSN_OTHER;
			}
			break;
		case 0xc7:				/* group 9 */
			if (mod != 3 && (reg == 3 || reg == 5 || reg >= 6))
				return XDT_INSN_REFUSED; /* xrstors xsaves vmx */
			break;
		}
	} else if (map == XDT_MAP_0F38) {
		if (op >= 0x80 && op <= 0x82)	/* invept invvpid invpcid */
			return XDT_INSN_REFUSED;
	}
	return cls;
}

int xdt_x86_decode(const u8 *p, size_t avail_sz, struct xdt_insn *insn)
{
	struct xdt_pfx px = { 0, 0, 0, 0, 0, 0 };
	unsigned int avail, pos = 0, map, imm = 0;
	int cls, shape;
	u8 op, e;

	xdt_insn_clear(insn);
	avail = avail_sz > XDT_X86_MAX_INSN_LEN ? XDT_X86_MAX_INSN_LEN :
		(unsigned int)avail_sz;

	/* Legacy prefixes and REX. */
	for (;;) {
		if (pos >= avail)
			return xdt_bad(insn);
		op = p[pos];
		if (xdt_is_legacy_prefix(op)) {
			if (op == 0x66)
				px.p66 = 1;
			else if (op == 0x67)
				px.p67 = 1;
			else if (op == 0xf2 || op == 0xf3)
				px.rep = op;
			else if (op == 0xf0)
				px.lock = 1;
			if (px.rex)	/* REX not last: ignored by the CPU */
				return xdt_bad(insn);
		} else if ((op & 0xf0) == 0x40) {
			if (px.rex)	/* two REX: the first is ignored */
				return xdt_bad(insn);
			px.rex = op;
		} else {
			break;
		}
		pos++;
	}

	/* Opcode: one-byte, 0f xx, 0f 38 xx, 0f 3a xx, or VEX/EVEX. */
	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		unsigned int nbytes = op == 0xc5 ? 2 : op == 0xc4 ? 3 : 4;

		if (px.p66 || px.rep || px.lock || px.rex)
			return xdt_bad(insn);		/* #UD */
		if (pos + nbytes >= avail)
			return xdt_bad(insn);
		if (op == 0xc5)
			map = XDT_MAP_0F;
		else if (op == 0xc4)
			map = p[pos + 1] & 0x1f;
		else
			map = p[pos + 1] & 0x07;
		if (map != XDT_MAP_0F && map != XDT_MAP_0F38 &&
		    map != XDT_MAP_0F3A &&
		    !(op == 0x62 && (map == XDT_MAP5 || map == XDT_MAP6)))
			return xdt_bad(insn);
		if (op == 0x62 && !(p[pos + 2] & 0x04))
			return xdt_bad(insn);		/* EVEX fixed bit */
		px.vex = 1;
		pos += nbytes;
		op = p[pos++];
		insn->opcode_len = 1;
		/* Shapes of VEX/EVEX instructions (no z/v immediates). */
		if (map == XDT_MAP_0F) {
			e = xdt_map2[op];
			if (op == 0x77)
				shape = SH_NONE;	/* vzeroupper/all */
			else if (E_SHAPE(e) == SH_MB)
				shape = SH_MB;		/* 70-73 c2 c4-c6 */
			else
				shape = SH_M;
		} else if (map == XDT_MAP_0F3A) {
			shape = SH_MB;
		} else {
			shape = SH_M;
		}
		cls = XDT_INSN_OTHER;
	} else if (op == 0x0f) {
		if (++pos >= avail)
			return xdt_bad(insn);
		op = p[pos++];
		if (op == 0x38 || op == 0x3a) {
			map = op == 0x38 ? XDT_MAP_0F38 : XDT_MAP_0F3A;
			if (pos >= avail)
				return xdt_bad(insn);
			op = p[pos++];
			insn->opcode_len = 3;
			shape = map == XDT_MAP_0F38 ? SH_M : SH_MB;
			cls = XDT_INSN_OTHER;
		} else {
			map = XDT_MAP_0F;
			insn->opcode_len = 2;
			e = xdt_map2[op];
			shape = E_SHAPE(e);
			cls = E_CLASS(e);
		}
	} else {
		map = XDT_MAP1;
		pos++;
		insn->opcode_len = 1;
		e = xdt_map1[op];
		shape = E_SHAPE(e);
		cls = E_CLASS(e);
	}
	if (shape == SH_BAD || shape == SH_PFX)
		return xdt_bad(insn);

	/* ModRM, SIB, displacement. */
	switch (shape) {
	case SH_M:
	case SH_MB:
	case SH_MZ:
	case SH_G3B:
	case SH_G3Z:
		pos = xdt_modrm(p, avail, pos,
				map == XDT_MAP_0F && op >= 0x20 && op <= 0x23 &&
				!px.vex, insn);
		if (!pos)
			return xdt_bad(insn);
		break;
	}

	cls = xdt_fixup(p, map, op, &px, insn, cls, &shape);
	if (cls == XDT_INSN_BAD)
		return xdt_bad(insn);

	/* Immediates. */
	switch (shape) {
	case SH_MB:
	case SH_B:
		imm = 1;
		break;
	case SH_W:
	case SH_MBB:
		imm = 2;
		break;
	case SH_WB:
		imm = 3;
		break;
	case SH_MZ:
	case SH_Z:
		imm = px.p66 && !(px.rex & 8) ? 2 : 4;
		break;
	case SH_V:
		imm = px.rex & 8 ? 8 : px.p66 ? 2 : 4;
		break;
	case SH_O:
		imm = px.p67 ? 4 : 8;
		break;
	}
	if (imm) {
		insn->imm_off = (u8)pos;
		pos += imm;
	}
	if (pos > avail)
		return xdt_bad(insn);

	/* Relative branches: the immediate is the displacement. */
	switch (cls) {
	case XDT_INSN_JMP_REL:
	case XDT_INSN_JCC_REL:
	case XDT_INSN_CALL_REL:
	case XDT_INSN_LOOP:
		if (px.p66)
			return xdt_bad(insn);	/* vendor-dependent size */
		insn->rel_size = (u8)imm;
		insn->rel = xdt_read_rel(p + insn->imm_off, imm);
		break;
	}

	insn->len = (u8)pos;
	insn->cls = (u8)cls;
	return pos;
}
