/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * DIF: the D Intermediate Format xdt's compiler emits and xdt.ko runs.
 *
 * A register machine with 16 64-bit registers; %r0 always reads 0 and writes
 * to it are refused.  Instructions are 32 bits, little-endian words:
 *
 *   31      24 23      16 15       8 7        0
 *  +----------+----------+----------+----------+
 *  |    op    |    r1    |    r2    |    rd    |   R-form  (most ops)
 *  +----------+----------+----------+----------+
 *  |    op    |       index (16)    |    rd    |   I-form  (SETX, SETS, LDV)
 *  +----------+----------+----------+----------+
 *  |    op    |    r1    |  target (16, insn)  |   B-form  (branches)
 *  +----------+----------+----------+----------+
 *
 * Branch targets are absolute instruction indices and must be forward
 * (> the branch's own index) and in range, so every program terminates;
 * the verifier refuses anything else.  A program ends with RET.
 *
 * Strings are values too: a register holds the kernel address of a
 * NUL-terminated string (string table, a built-in such as execname, or
 * memory), and the string ops read at most the program's strsize bytes.
 * Every memory access goes through the fault-safe loader: a bad address
 * aborts the clause and fires dtrace:::ERROR instead of faulting.
 *
 * The list below is the single definition: DIF_OPS(X) expands X(name,
 * value, form, mnemonic) for every op, for the interpreter's dispatch, the
 * verifier's tables and the disassembler.
 */
#ifndef XDT_DIF_H
#define XDT_DIF_H

#define DIF_NREGS	16

enum dif_form {
	DIF_F_R,	/* rd, r1, r2 as the op uses them */
	DIF_F_I,	/* rd, 16-bit index */
	DIF_F_B,	/* r1 (BZ/BNZ), 16-bit target */
};

/*	  name	  val  form	  mnemonic	    meaning */
#define DIF_OPS(X) \
	X(NOP,	  0x00, DIF_F_R,  "nop")	/* nothing */			\
	X(RET,	  0x01, DIF_F_R,  "ret")	/* return rd */			\
	X(MOV,	  0x02, DIF_F_R,  "mov")	/* rd = r1 */			\
	X(ADD,	  0x03, DIF_F_R,  "add")	/* rd = r1 + r2 */		\
	X(SUB,	  0x04, DIF_F_R,  "sub")	/* rd = r1 - r2 */		\
	X(MUL,	  0x05, DIF_F_R,  "mul")	/* rd = r1 * r2 */		\
	X(SDIV,	  0x06, DIF_F_R,  "sdiv")	/* rd = r1 / r2, signed; r2=0: ERROR */ \
	X(UDIV,	  0x07, DIF_F_R,  "udiv")	/* unsigned divide */		\
	X(SREM,	  0x08, DIF_F_R,  "srem")	/* signed remainder */		\
	X(UREM,	  0x09, DIF_F_R,  "urem")	/* unsigned remainder */	\
	X(AND,	  0x0a, DIF_F_R,  "and")	/* rd = r1 & r2 */		\
	X(OR,	  0x0b, DIF_F_R,  "or")		/* rd = r1 | r2 */		\
	X(XOR,	  0x0c, DIF_F_R,  "xor")	/* rd = r1 ^ r2 */		\
	X(SLL,	  0x0d, DIF_F_R,  "sll")	/* rd = r1 << (r2 & 63) */	\
	X(SRL,	  0x0e, DIF_F_R,  "srl")	/* logical right shift */	\
	X(SRA,	  0x0f, DIF_F_R,  "sra")	/* arithmetic right shift */	\
	X(NOT,	  0x10, DIF_F_R,  "not")	/* rd = ~r1 */			\
	X(NEG,	  0x11, DIF_F_R,  "neg")	/* rd = -r1 */			\
	X(SEQ,	  0x12, DIF_F_R,  "seq")	/* rd = r1 == r2 */		\
	X(SNE,	  0x13, DIF_F_R,  "sne")	/* rd = r1 != r2 */		\
	X(SLT,	  0x14, DIF_F_R,  "slt")	/* rd = r1 < r2, signed */	\
	X(SLTU,	  0x15, DIF_F_R,  "sltu")	/* unsigned */			\
	X(SLE,	  0x16, DIF_F_R,  "sle")	/* rd = r1 <= r2, signed */	\
	X(SLEU,	  0x17, DIF_F_R,  "sleu")	/* unsigned */			\
	X(SCMP,	  0x18, DIF_F_R,  "scmp")	/* rd = strcmp(r1, r2) sign: -1/0/1 */ \
	X(BA,	  0x19, DIF_F_B,  "ba")		/* goto target */		\
	X(BZ,	  0x1a, DIF_F_B,  "bz")		/* if (r1 == 0) goto target */	\
	X(BNZ,	  0x1b, DIF_F_B,  "bnz")	/* if (r1 != 0) goto target */	\
	X(SETX,	  0x1c, DIF_F_I,  "setx")	/* rd = ints[index] */		\
	X(SETS,	  0x1d, DIF_F_I,  "sets")	/* rd = &strtab[index] */	\
	X(LDV,	  0x1e, DIF_F_I,  "ldv")	/* rd = built-in variable index */ \
	X(LDSB,	  0x1f, DIF_F_R,  "ldsb")	/* rd = *(s8 *)r1, checked */	\
	X(LDSH,	  0x20, DIF_F_R,  "ldsh")	/* s16 */			\
	X(LDSW,	  0x21, DIF_F_R,  "ldsw")	/* s32 */			\
	X(LDUB,	  0x22, DIF_F_R,  "ldub")	/* u8 */			\
	X(LDUH,	  0x23, DIF_F_R,  "lduh")	/* u16 */			\
	X(LDUW,	  0x24, DIF_F_R,  "lduw")	/* u32 */			\
	X(LDX,	  0x25, DIF_F_R,  "ldx")	/* u64 */

enum dif_op {
#define DIF_ENUM(name, val, form, mn) DIF_OP_##name = val,
	DIF_OPS(DIF_ENUM)
#undef DIF_ENUM
	DIF_NOPS
};

/* Built-in variables for LDV, in the order the compiler and VM share. */
#define DIF_VARS(X) \
	X(ARG0, "arg0") X(ARG1, "arg1") X(ARG2, "arg2") X(ARG3, "arg3")	\
	X(ARG4, "arg4") X(ARG5, "arg5") X(ARG6, "arg6") X(ARG7, "arg7")	\
	X(ARG8, "arg8") X(ARG9, "arg9")					\
	X(PROBEPROV, "probeprov") X(PROBEMOD, "probemod")		\
	X(PROBEFUNC, "probefunc") X(PROBENAME, "probename")		\
	X(EXECNAME, "execname") X(PID, "pid") X(TID, "tid") X(UID, "uid") \
	X(CPU, "cpu") X(TIMESTAMP, "timestamp") X(VTIMESTAMP, "vtimestamp") \
	X(WALLTIMESTAMP, "walltimestamp") X(ERRNO, "errno")		\
	X(EPID, "epid") X(ID, "id")

enum dif_var {
#define DIF_VENUM(name, str) DIF_VAR_##name,
	DIF_VARS(DIF_VENUM)
#undef DIF_VENUM
	DIF_NVARS
};

#define DIF_OP(i)	((i) >> 24)
#define DIF_R1(i)	(((i) >> 16) & 0xff)
#define DIF_R2(i)	(((i) >> 8) & 0xff)
#define DIF_RD(i)	((i) & 0xff)
#define DIF_INDEX(i)	(((i) >> 8) & 0xffff)
#define DIF_TARGET(i)	((i) & 0xffff)

#define DIF_INSN_R(op, r1, r2, rd) \
	((__u32)(op) << 24 | (__u32)(r1) << 16 | (__u32)(r2) << 8 | (rd))
#define DIF_INSN_I(op, idx, rd) ((__u32)(op) << 24 | (__u32)(idx) << 8 | (rd))
#define DIF_INSN_B(op, r1, tgt) ((__u32)(op) << 24 | (__u32)(r1) << 16 | (tgt))

#endif
