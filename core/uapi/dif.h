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
 *  |    op    |       index (16)    |    rd    |   I-form  (SETX, SETS, LDV,
 *  +----------+----------+----------+----------+   variables, CALL)
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

/*
 * DTrace's DIF_DIR_NREGS: %r0 (always 0) and seven more.  The compiler
 * hands out what -x iregs says (this by default) and the verifier refuses
 * any register past it; a power of two, the interpreter masks with it.
 */
#define DIF_NREGS	8

enum dif_form {
	DIF_F_R,	/* rd, r1, r2 as the op uses them */
	DIF_F_I,	/* rd, 16-bit index */
	DIF_F_B,	/* r1 (BZ/BNZ), 16-bit target */
};

/*
 * Operand use, for the verifier and the disassembler (and documentation):
 * which of r1, r2 an op reads, whether it writes rd, or reads it (the
 * stores: the value to store, or the address to store at), and whether its
 * 16-bit index names a variable of the program's table (struct xdt_var).
 */
#define DIF_U_R1	0x01	/* reads r1 */
#define DIF_U_R2	0x02	/* reads r2 */
#define DIF_U_WD	0x04	/* writes rd (never %r0) */
#define DIF_U_RD	0x08	/* reads rd */
#define DIF_U_VAR	0x10	/* I-form index is a variable id */
#define DIF_U_3		(DIF_U_R1 | DIF_U_R2 | DIF_U_WD)

/*
 * Variables (ops 0x26..0x2f).  The index is the variable's id: its place in
 * the program's variable table, which says its scope (global, thread-local
 * self->, clause-local this->), whether it is an associative array, its
 * value size and whether the value is held by reference (strings, structs):
 *   loads   rd = the value; for a by-reference variable, the address of its
 *           storage (of zeroes if a dynamic variable does not exist)
 *   stores  the value in rd; for a by-reference variable rd is the address
 *           of the value, copied (a string up to its NUL, at most size).
 *           Storing 0 into a thread-local or array element frees it.
 * Associative arrays take their key from the tuple stack: PUSHTV pushes an
 * integer, PUSHTS a string, PUSHTR a value held by reference (a struct,
 * union or array: its address); the latter two are copied when the key is
 * built -- a string up to strsize bytes, a PUSHTR value the size the
 * variable's table gives its key (struct xdt_var's keysize), so the size
 * is the program's, fixed at load, never a register's.  The array op (and
 * CALL, to which a PUSHTR element is its address) consumes the whole
 * stack.  At most 8 elements.
 *
 * Memory stores (STB..STX, COPYS) write only into the program's own
 * variable storage and scratch; any other address faults ("invalid
 * address"), as a load of a bad address does.
 */

/*	  name	  val  form	  mnemonic   use		  meaning */
#define DIF_OPS(X) \
	X(NOP,	  0x00, DIF_F_R,  "nop",     0)		/* nothing */			\
	X(RET,	  0x01, DIF_F_R,  "ret",     DIF_U_RD)	/* return rd */			\
	X(MOV,	  0x02, DIF_F_R,  "mov",     DIF_U_R1 | DIF_U_WD) /* rd = r1 */	\
	X(ADD,	  0x03, DIF_F_R,  "add",     DIF_U_3)	/* rd = r1 + r2 */		\
	X(SUB,	  0x04, DIF_F_R,  "sub",     DIF_U_3)	/* rd = r1 - r2 */		\
	X(MUL,	  0x05, DIF_F_R,  "mul",     DIF_U_3)	/* rd = r1 * r2 */		\
	X(SDIV,	  0x06, DIF_F_R,  "sdiv",    DIF_U_3)	/* rd = r1 / r2, signed; r2=0: ERROR */ \
	X(UDIV,	  0x07, DIF_F_R,  "udiv",    DIF_U_3)	/* unsigned divide */		\
	X(SREM,	  0x08, DIF_F_R,  "srem",    DIF_U_3)	/* signed remainder */		\
	X(UREM,	  0x09, DIF_F_R,  "urem",    DIF_U_3)	/* unsigned remainder */	\
	X(AND,	  0x0a, DIF_F_R,  "and",     DIF_U_3)	/* rd = r1 & r2 */		\
	X(OR,	  0x0b, DIF_F_R,  "or",      DIF_U_3)	/* rd = r1 | r2 */		\
	X(XOR,	  0x0c, DIF_F_R,  "xor",     DIF_U_3)	/* rd = r1 ^ r2 */		\
	X(SLL,	  0x0d, DIF_F_R,  "sll",     DIF_U_3)	/* rd = r1 << (r2 & 63) */	\
	X(SRL,	  0x0e, DIF_F_R,  "srl",     DIF_U_3)	/* logical right shift */	\
	X(SRA,	  0x0f, DIF_F_R,  "sra",     DIF_U_3)	/* arithmetic right shift */	\
	X(NOT,	  0x10, DIF_F_R,  "not",     DIF_U_R1 | DIF_U_WD) /* rd = ~r1 */	\
	X(NEG,	  0x11, DIF_F_R,  "neg",     DIF_U_R1 | DIF_U_WD) /* rd = -r1 */	\
	X(SEQ,	  0x12, DIF_F_R,  "seq",     DIF_U_3)	/* rd = r1 == r2 */		\
	X(SNE,	  0x13, DIF_F_R,  "sne",     DIF_U_3)	/* rd = r1 != r2 */		\
	X(SLT,	  0x14, DIF_F_R,  "slt",     DIF_U_3)	/* rd = r1 < r2, signed */	\
	X(SLTU,	  0x15, DIF_F_R,  "sltu",    DIF_U_3)	/* unsigned */			\
	X(SLE,	  0x16, DIF_F_R,  "sle",     DIF_U_3)	/* rd = r1 <= r2, signed */	\
	X(SLEU,	  0x17, DIF_F_R,  "sleu",    DIF_U_3)	/* unsigned */			\
	X(SCMP,	  0x18, DIF_F_R,  "scmp",    DIF_U_3)	/* rd = strcmp(r1, r2) sign: -1/0/1 */ \
	X(BA,	  0x19, DIF_F_B,  "ba",      0)		/* goto target */		\
	X(BZ,	  0x1a, DIF_F_B,  "bz",      DIF_U_R1)	/* if (r1 == 0) goto target */	\
	X(BNZ,	  0x1b, DIF_F_B,  "bnz",     DIF_U_R1)	/* if (r1 != 0) goto target */	\
	X(SETX,	  0x1c, DIF_F_I,  "setx",    DIF_U_WD)	/* rd = ints[index] */		\
	X(SETS,	  0x1d, DIF_F_I,  "sets",    DIF_U_WD)	/* rd = &strtab[index] */	\
	X(LDV,	  0x1e, DIF_F_I,  "ldv",     DIF_U_WD)	/* rd = built-in variable index */ \
	X(LDSB,	  0x1f, DIF_F_R,  "ldsb",    DIF_U_R1 | DIF_U_WD) /* rd = *(s8 *)r1, checked */ \
	X(LDSH,	  0x20, DIF_F_R,  "ldsh",    DIF_U_R1 | DIF_U_WD) /* s16 */		\
	X(LDSW,	  0x21, DIF_F_R,  "ldsw",    DIF_U_R1 | DIF_U_WD) /* s32 */		\
	X(LDUB,	  0x22, DIF_F_R,  "ldub",    DIF_U_R1 | DIF_U_WD) /* u8 */		\
	X(LDUH,	  0x23, DIF_F_R,  "lduh",    DIF_U_R1 | DIF_U_WD) /* u16 */		\
	X(LDUW,	  0x24, DIF_F_R,  "lduw",    DIF_U_R1 | DIF_U_WD) /* u32 */		\
	X(LDX,	  0x25, DIF_F_R,  "ldx",     DIF_U_R1 | DIF_U_WD) /* u64 */		\
	X(LDGS,	  0x26, DIF_F_I,  "ldgs",    DIF_U_WD | DIF_U_VAR) /* rd = global */	\
	X(STGS,	  0x27, DIF_F_I,  "stgs",    DIF_U_RD | DIF_U_VAR) /* global = rd */	\
	X(LDTS,	  0x28, DIF_F_I,  "ldts",    DIF_U_WD | DIF_U_VAR) /* rd = self->var */ \
	X(STTS,	  0x29, DIF_F_I,  "stts",    DIF_U_RD | DIF_U_VAR) /* self->var = rd */ \
	X(LDLS,	  0x2a, DIF_F_I,  "ldls",    DIF_U_WD | DIF_U_VAR) /* rd = this->var */ \
	X(STLS,	  0x2b, DIF_F_I,  "stls",    DIF_U_RD | DIF_U_VAR) /* this->var = rd */ \
	X(LDGAA,  0x2c, DIF_F_I,  "ldgaa",   DIF_U_WD | DIF_U_VAR) /* rd = var[tuple] */ \
	X(STGAA,  0x2d, DIF_F_I,  "stgaa",   DIF_U_RD | DIF_U_VAR) /* var[tuple] = rd */ \
	X(LDTAA,  0x2e, DIF_F_I,  "ldtaa",   DIF_U_WD | DIF_U_VAR) /* rd = self->var[tuple] */ \
	X(STTAA,  0x2f, DIF_F_I,  "sttaa",   DIF_U_RD | DIF_U_VAR) /* self->var[tuple] = rd */ \
	X(PUSHTV, 0x30, DIF_F_R,  "pushtv",  DIF_U_R1)	/* push integer r1 on the tuple stack */ \
	X(PUSHTS, 0x31, DIF_F_R,  "pushts",  DIF_U_R1)	/* push string at r1 */		\
	X(FLUSHTS, 0x32, DIF_F_R, "flushts", 0)		/* empty the tuple stack */	\
	X(CALL,	  0x33, DIF_F_I,  "call",    DIF_U_WD)	/* rd = subroutine index(tuple) */ \
	X(ALLOCS, 0x34, DIF_F_R,  "allocs",  DIF_U_R1 | DIF_U_WD) /* rd = r1 zeroed scratch bytes */ \
	X(COPYS,  0x35, DIF_F_R,  "copys",   DIF_U_R1 | DIF_U_R2 | DIF_U_RD) /* copy r2 bytes r1 -> rd */ \
	X(STB,	  0x36, DIF_F_R,  "stb",     DIF_U_R1 | DIF_U_RD) /* *(u8 *)rd = r1 */	\
	X(STH,	  0x37, DIF_F_R,  "sth",     DIF_U_R1 | DIF_U_RD) /* u16 */		\
	X(STW,	  0x38, DIF_F_R,  "stw",     DIF_U_R1 | DIF_U_RD) /* u32 */		\
	X(STX,	  0x39, DIF_F_R,  "stx",     DIF_U_R1 | DIF_U_RD) /* u64 */		\
	X(LDARG,  0x3a, DIF_F_R,  "ldarg",   DIF_U_R1 | DIF_U_WD) /* rd = args[r1] (0..9, else ERROR) */ \
	X(COPYSTR, 0x3b, DIF_F_R, "copystr", DIF_U_R1 | DIF_U_R2 | DIF_U_RD) /* string r1 -> rd, r2 bytes at most */ \
	X(LDUREG, 0x3c, DIF_F_R,  "ldureg",  DIF_U_R1 | DIF_U_WD) /* rd = uregs[r1] (the ISA's index, else ERROR) */ \
	X(PUSHTR, 0x3d, DIF_F_R,  "pushtr",  DIF_U_R1)	/* push the bytes at r1 (a struct key) */

enum dif_op {
#define DIF_ENUM(name, val, form, mn, use) DIF_OP_##name = val,
	DIF_OPS(DIF_ENUM)
#undef DIF_ENUM
	DIF_NOPS
};

/*
 * Built-in variables for LDV, in the order the compiler and VM share:
 * X(name, D name, firing slot).  A variable with a slot (1 ..
 * DIF_NFIRINGVARS) is a clock sampled at its first read in a firing; every
 * later read in that firing, by any clause of any consumer, gets the same
 * value: two reads in one clause agree, as DTrace's machine state caches
 * them (illumos for one clause; xdt for the whole firing, so clauses of
 * one firing agree too).  0: read afresh each time.
 */
#define DIF_VARS(X) \
	X(ARG0, "arg0", 0) X(ARG1, "arg1", 0) X(ARG2, "arg2", 0)	\
	X(ARG3, "arg3", 0) X(ARG4, "arg4", 0) X(ARG5, "arg5", 0)	\
	X(ARG6, "arg6", 0) X(ARG7, "arg7", 0) X(ARG8, "arg8", 0)	\
	X(ARG9, "arg9", 0)						\
	X(PROBEPROV, "probeprov", 0) X(PROBEMOD, "probemod", 0)	\
	X(PROBEFUNC, "probefunc", 0) X(PROBENAME, "probename", 0)	\
	X(EXECNAME, "execname", 0) X(PID, "pid", 0) X(TID, "tid", 0)	\
	X(UID, "uid", 0) X(CPU, "cpu", 0)				\
	X(TIMESTAMP, "timestamp", 1) X(VTIMESTAMP, "vtimestamp", 2)	\
	X(WALLTIMESTAMP, "walltimestamp", 3) X(ERRNO, "errno", 0)	\
	X(EPID, "epid", 0) X(ID, "id", 0) X(CURTHREAD, "curthread", 0)	\
	X(CALLER, "caller", 0) X(STACKDEPTH, "stackdepth", 0)		\
	X(UCALLER, "ucaller", 0) X(USTACKDEPTH, "ustackdepth", 0)	\
	X(PPID, "ppid", 0) X(IPL, "ipl", 0) X(GID, "gid", 0)
#define DIF_NFIRINGVARS	3

enum dif_var {
#define DIF_VENUM(name, str, slot) DIF_VAR_##name,
	DIF_VARS(DIF_VENUM)
#undef DIF_VENUM
	DIF_NVARS
};


/*
 * Subroutines for CALL, one table for the VM, the verifier, the compiler
 * and the disassembler: X(name, index, D name, D return type, arguments,
 * flags).
 * Arguments are one letter each, the tuple stack's elements in order: 'i'
 * an integer (or pointer), 's' a string, 'S' a string or NULL (integer 0);
 * those after a '|' are optional.  A "string" result is in scratch space;
 * "void" subroutines are called for their effect.  DIF_SF_DESTR marks a
 * destructive one (DTrace's copyout, copyoutstr): the verifier refuses it
 * in a program enabled without -w.  Adding a subroutine is a row here and
 * a function subr_NAME in core/portable/subr.c.
 */
#define DIF_SF_DESTR	0x1
#define DIF_SUBRS(X) \
	X(RAND,	     0, "rand",	     "int",	 "", 0)	/* pseudo-random */  \
	X(STRLEN,    1, "strlen",    "size_t",	 "s", 0)			     \
	X(COPYIN,    2, "copyin",    "void *",	 "ii", 0)	/* user memory */    \
	X(COPYINSTR, 3, "copyinstr", "string",	 "i|i", 0)			     \
	X(COPYINTO,  4, "copyinto",  "void",	 "iii", 0)			     \
	X(BCOPY,     5, "bcopy",     "void",	 "iii", 0)	/* kernel memory */  \
	X(STRJOIN,   6, "strjoin",   "string",	 "ss", 0)			     \
	X(SUBSTR,    7, "substr",    "string",	 "si|i", 0)		     \
	X(INDEX,     8, "index",     "int",	 "ss|i", 0)		     \
	X(RINDEX,    9, "rindex",    "int",	 "ss|i", 0)		     \
	X(STRCHR,   10, "strchr",    "string",	 "si", 0)			     \
	X(STRRCHR,  11, "strrchr",   "string",	 "si", 0)			     \
	X(STRSTR,   12, "strstr",    "string",	 "ss", 0)			     \
	X(STRTOK,   13, "strtok",    "string",	 "Ss", 0)			     \
	X(BASENAME, 14, "basename",  "string",	 "s", 0)			     \
	X(DIRNAME,  15, "dirname",   "string",	 "s", 0)			     \
	X(CLEANPATH, 16, "cleanpath", "string",	 "s", 0)			     \
	X(LLTOSTR,  17, "lltostr",   "string",	 "i|i", 0)			     \
	X(STRTOLL,  18, "strtoll",   "int64_t",	 "s|i", 0)			     \
	X(TOUPPER,  19, "toupper",   "string",	 "s", 0)			     \
	X(TOLOWER,  20, "tolower",   "string",	 "s", 0)			     \
	X(HTONS,    21, "htons",     "uint16_t", "i", 0)			     \
	X(HTONL,    22, "htonl",     "uint32_t", "i", 0)			     \
	X(HTONLL,   23, "htonll",    "uint64_t", "i", 0)			     \
	X(NTOHS,    24, "ntohs",     "uint16_t", "i", 0)			     \
	X(NTOHL,    25, "ntohl",     "uint32_t", "i", 0)			     \
	X(NTOHLL,   26, "ntohll",    "uint64_t", "i", 0)			     \
	X(INET_NTOA, 27, "inet_ntoa", "string",	 "i", 0)	/* ipaddr_t * */     \
	X(INET_NTOA6, 28, "inet_ntoa6", "string", "i", 0)	/* in6_addr_t * */   \
	X(INET_NTOP, 29, "inet_ntop", "string",	 "ii", 0)	/* af, address */    \
	X(PROGENYOF, 30, "progenyof", "int",	 "i", 0)			     \
	X(GETMAJOR, 31, "getmajor",  "uint32_t", "i", 0)	/* Linux dev_t */    \
	X(GETMINOR, 32, "getminor",  "uint32_t", "i", 0)			     \
	X(JSON,     33, "json",	     "string",	 "ss", 0)	/* illumos' */ \
	X(COPYOUT,  34, "copyout",   "void",	 "iii", DIF_SF_DESTR)	     \
	X(COPYOUTSTR, 35, "copyoutstr", "void",	 "sii", DIF_SF_DESTR) \
	X(SPECULATION, 36, "speculation", "int", "", 0)	/* a free one's id, 0 */ \
	X(EXECARGS, 37, "execargs",  "string",	 "", 0)	/* psinfo_t's pr_psargs */ \
	X(D_PATH,   38, "d_path",    "string",	 "i", 0)	/* struct path * */ \
	X(MUTEX_OWNED, 39, "mutex_owned", "int", "i", 0)  /* struct mutex * */ \
	X(MUTEX_OWNER, 40, "mutex_owner", "struct task_struct *", "i", 0)     \
	X(MUTEX_TYPE_ADAPTIVE, 41, "mutex_type_adaptive", "int", "i", 0)      \
	X(MUTEX_TYPE_SPIN, 42, "mutex_type_spin", "int", "i", 0)	     \
	X(RW_READ_HELD, 43, "rw_read_held", "int", "i", 0) /* rw_semaphore * */ \
	X(RW_WRITE_HELD, 44, "rw_write_held", "int", "i", 0)		     \
	X(RW_ISWRITER, 45, "rw_iswriter", "int", "i", 0)

enum dif_subr {
#define DIF_SENUM(name, idx, str, rt, args, fl) DIF_SUBR_##name = idx,
	DIF_SUBRS(DIF_SENUM)
#undef DIF_SENUM
	DIF_NSUBRS
};

#define DIF_MAXTUPLE	8	/* tuple stack depth: keys and arguments */

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
