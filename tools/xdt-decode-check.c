// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-decode-check: run xdt's instruction decoders (arch/x86_64,
 * arch/aarch64, arch/riscv, arch/ppc64le: decode.c) over every function of
 * a vmlinux,
 * or over hex strings, and compare them with a reference disassembler.
 *
 *   xdt-decode-check [--isa ISA] [-s] [-n] [-f FUNC]... VMLINUX
 *	ISA is x86_64, aarch64, riscv64 or ppc64le (default: the ELF's
 *	machine).
 *	Walks every FUNC symbol with size > 0 in an executable section,
 *	instruction by instruction, with xdt's decoder and the reference at
 *	the same addresses.  Prints, per function,
 *		@ FUNC ADDR SIZE [ALIAS...]
 *	then one line per instruction
 *		FUNC OFF LEN CLASS
 *	(OFF decimal, ADDR hex).  -s prints only the summary; -f limits the
 *	walk to the named functions (any alias matches); -n skips the
 *	reference.  Aliases (same address and size) are walked once, under
 *	the first name in (address, size, name) order.
 *
 *	On x86_64 a BAD instruction (LEN 0) ends the walk of its function:
 *	the next boundary is unknown.  A64 is fixed-length, so there a BAD
 *	word is 4 bytes like any other and the walk goes on; RISC-V BAD ends
 *	the walk, as on x86.
 *
 *	Summary (machine-readable, one fact a line):
 *		# isa ISA
 *		# reference capstone|objdump|none
 *		# functions N
 *		# instructions N		(decoded by xdt, BAD excluded)
 *		# bad N				(xdt BAD)
 *		# overrun N			(x86: BAD only because the
 *						 function ends mid-instruction)
 *		# boundary-mismatches N
 *		# boundary FUNC+OFF BYTES xdt=LEN ref=LEN MNEMONIC
 *						(the first 50)
 *		# target-mismatches N		(a branch or PC-relative target
 *						 differs from the reference's)
 *		# target FUNC+OFF BYTES xdt=ADDR ref=ADDR	(the first 50)
 *		# class NAME xdt=N agree=N disagree=N
 *		# pair XDTCLASS REFCLASS N	(each disagreeing pair)
 *		# disagree FUNC+OFF BYTES xdt=CLASS ref=CLASS:MNEMONIC
 *						(the first 20 of each pair)
 *	"agree" means the reference, read through the rules below, puts the
 *	instruction in the same class.  The reference never decides x86's
 *	push_rbp/mov_rsp_rbp by groups; those come from its operands.
 *
 * References
 *   x86_64, aarch64: libcapstone (4.0.x).  Class from the instruction id
 *	and the groups CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET, CS_GRP_INT,
 *	CS_GRP_IRET, CS_GRP_PRIVILEGE, CS_GRP_BRANCH_RELATIVE; "relative"
 *	vs "indirect" from whether the operand is an immediate; PC-relative
 *	data from x86's RIP base register and arm64's adr/adrp/literal
 *	operands; ids where groups say nothing (arm64 has no RET group for
 *	every return, no group for exclusives or for nop/bti).
 *   riscv64: GNU objdump (riscv64-linux-gnu-objdump -d -w -z -M
 *	no-aliases), run once over the whole file, because capstone 4 has
 *	no RISC-V support.  Class from the mnemonic and operands.
 *   ppc64le: GNU objdump (powerpc64le-linux-gnu-objdump -d -w -z -M
 *	raw,power10: no extended mnemonics, so `bc BO,BI,target` says the
 *	condition itself), for the same reason.  A word objdump prints as
 *	.long is BAD there; xdt's decoder does not validate every opcode
 *	(arch/ppc64le/decode.h), so such words are the "other bad" pair.
 *
 *   xdt-decode-check [--isa ISA] -x
 *	Read hex strings from stdin, one per line, and decode each.
 *	x86_64: bytes in memory order ("48 89 e5" or "4889e5"); prints
 *		LEN CLASS opcode_len modrm_off rip_rel disp_off imm_off
 *		rel_size rel
 *	aarch64: the word as the manual writes it ("d65f03c0"), or with
 *		spaces its four bytes in memory order; prints
 *		LEN CLASS OP flags rd rn rm cond bit size imm
 *	riscv64: a 4- or 8-digit parcel as objdump prints it ("8082",
 *		"00008067"), or with spaces bytes in memory order; prints
 *		LEN CLASS OP compressed rd rs1 rs2 imm
 *
 * Exit status: 0 on success (whatever the comparison found: the tests
 * judge it), 2 on usage or file errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "x86_64/decode.h"
#include "aarch64/decode.h"
#include "riscv/decode.h"
#include "ppc64le/decode.h"

enum isa { ISA_NONE, ISA_X86, ISA_A64, ISA_RV, ISA_PPC };

static const char *const isa_names[] = {
	[ISA_X86] = "x86_64", [ISA_A64] = "aarch64", [ISA_RV] = "riscv64",
	[ISA_PPC] = "ppc64le",
};

/* capstone 4 has no RISC-V; objdump is the reference there and for ppc64le */
static int uses_objdump(enum isa isa)
{
	return isa == ISA_RV || isa == ISA_PPC;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "xdt-decode-check: %s: %s\n", path, what);
	exit(2);
}

static const char usage[] =
	"usage: xdt-decode-check [--isa x86_64|aarch64|riscv64|ppc64le] [-s] "
	"[-n] "
	"[-f FUNC]... VMLINUX | [--isa ISA] -x";

/* ==== xdt's view ========================================================= */

struct view {
	int len;		/* 0: invalid */
	int cls;		/* enum xdt_insn_class */
	int has_target;
	unsigned long long target;
	char mnem[40];		/* reference only */
};

/* A fixed-width ISA's little-endian word at @p, or 0 with @v marked bad */
static int word_at(const unsigned char *p, size_t avail, struct view *v,
		   unsigned int *w)
{
	if (avail < 4) {
		v->len = 0;
		v->cls = XDT_INSN_BAD;
		return 0;
	}
	*w = p[0] | p[1] << 8 | p[2] << 16 | (unsigned int)p[3] << 24;
	return 1;
}

static void xdt_view(enum isa isa, const unsigned char *p, size_t avail,
		     unsigned long long addr, struct view *v)
{
	v->has_target = 0;
	v->target = 0;
	v->mnem[0] = 0;
	if (isa == ISA_X86) {
		struct xdt_insn in;

		v->len = xdt_x86_decode(p, avail, &in);
		v->cls = in.cls;
		if (in.rel_size) {
			v->has_target = 1;
			v->target = addr + in.len + (long long)in.rel;
		}
	} else if (isa == ISA_A64) {
		struct xdt_a64_insn in;
		unsigned int w;

		if (!word_at(p, avail, v, &w))
			return;
		v->len = xdt_a64_decode(w, &in);
		v->cls = in.cls;
		switch (in.op) {
		case XDT_A64_OP_B: case XDT_A64_OP_BL: case XDT_A64_OP_BCOND:
		case XDT_A64_OP_CBZ: case XDT_A64_OP_CBNZ:
		case XDT_A64_OP_TBZ: case XDT_A64_OP_TBNZ:
		case XDT_A64_OP_ADR: case XDT_A64_OP_LDR_LIT:
		case XDT_A64_OP_LDRSW_LIT: case XDT_A64_OP_PRFM_LIT:
			v->has_target = 1;
			v->target = addr + in.imm;
			break;
		case XDT_A64_OP_ADRP:
			v->has_target = 1;
			v->target = (addr & ~0xfffULL) + in.imm;
			break;
		}
	} else if (isa == ISA_PPC) {
		struct xdt_ppc_insn in;
		unsigned int w;

		if (!word_at(p, avail, v, &w))
			return;
		v->len = (int)xdt_ppc_decode(w, &in);
		v->cls = in.cls;
		if (in.cls == XDT_INSN_JMP_REL || in.cls == XDT_INSN_JCC_REL ||
		    in.cls == XDT_INSN_CALL_REL || in.cls == XDT_INSN_PCREL) {
			v->has_target = 1;
			v->target = addr + (long long)in.imm;
		}
	} else {
		struct xdt_rv_insn in;

		v->len = xdt_rv_decode(p, avail, &in);
		v->cls = in.cls;
		if (in.op == XDT_RV_OP_JAL ||
		    (in.op >= XDT_RV_OP_BEQ && in.op <= XDT_RV_OP_BGEU) ||
		    in.op == XDT_RV_OP_AUIPC) {
			v->has_target = 1;
			v->target = addr + (long long)in.imm;
		}
	}
}

/* ==== capstone's view (x86_64, aarch64) ================================== */

static csh cs;
static cs_insn *csi;

static void cs_open_isa(enum isa isa)
{
	cs_err e = isa == ISA_X86 ? cs_open(CS_ARCH_X86, CS_MODE_64, &cs) :
				    cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs);

	if (e != CS_ERR_OK)
		die(cs_strerror(e), "capstone");
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	csi = cs_malloc(cs);
}

static int cs_group(int g)
{
	const cs_detail *d = csi->detail;

	for (int i = 0; i < d->groups_count; i++)
		if (d->groups[i] == g)
			return 1;
	return 0;
}

static int x86_ref_class(void)
{
	const cs_x86 *x = &csi->detail->x86;
	unsigned int id = csi->id;
	int imm = x->op_count && x->operands[0].type == X86_OP_IMM;

	switch (id) {
	case X86_INS_RET:
		return XDT_INSN_RET;
	case X86_INS_INT3:
		return XDT_INSN_BRK;
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_JRCXZ: case X86_INS_JECXZ: case X86_INS_JCXZ:
		return XDT_INSN_LOOP;
	case X86_INS_NOP: case X86_INS_ENDBR64: case X86_INS_ENDBR32:
		return XDT_INSN_NOP;
	case X86_INS_PUSH:
		if (csi->size == 1 && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_RBP)
			return XDT_INSN_PUSH_RBP;
		break;
	case X86_INS_MOV:
		if (csi->size == 3 && x->op_count == 2 &&
		    x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_RBP &&
		    x->operands[1].type == X86_OP_REG &&
		    x->operands[1].reg == X86_REG_RSP)
			return XDT_INSN_MOV_RSP_RBP;
		break;
	/* Refused by xdt although capstone has no group saying so. */
	case X86_INS_CLI: case X86_INS_STI: case X86_INS_POPF:
	case X86_INS_POPFQ: case X86_INS_HLT: case X86_INS_UD2:
	case X86_INS_UD2B: case X86_INS_UD0: case X86_INS_SYSCALL:
	case X86_INS_SYSENTER: case X86_INS_XBEGIN: case X86_INS_XABORT:
	case X86_INS_IN: case X86_INS_OUT: case X86_INS_INSB:
	case X86_INS_INSW: case X86_INS_INSD: case X86_INS_OUTSB:
	case X86_INS_OUTSW: case X86_INS_OUTSD: case X86_INS_RETF:
	case X86_INS_RETFQ:
	/* xdt refuses all of 0f 00 and 0f 01 (descriptor tables, monitor,
	 * xgetbv, rdtscp...), msr access and the supervisor xsave forms */
	case X86_INS_SLDT: case X86_INS_STR: case X86_INS_LLDT:
	case X86_INS_LTR: case X86_INS_VERR: case X86_INS_VERW:
	case X86_INS_SGDT: case X86_INS_SIDT: case X86_INS_LGDT:
	case X86_INS_LIDT: case X86_INS_SMSW: case X86_INS_LMSW:
	case X86_INS_INVLPG: case X86_INS_SWAPGS: case X86_INS_RDTSCP:
	case X86_INS_MONITOR: case X86_INS_MWAIT: case X86_INS_XGETBV:
	case X86_INS_XSETBV: case X86_INS_CLAC: case X86_INS_STAC:
	case X86_INS_RDMSR: case X86_INS_WRMSR: case X86_INS_XSAVES:
	case X86_INS_XSAVES64: case X86_INS_XRSTORS: case X86_INS_XRSTORS64:
		return XDT_INSN_REFUSED;
	}
	if (cs_group(CS_GRP_RET))
		return XDT_INSN_RET;
	if (cs_group(CS_GRP_JUMP)) {
		if (id == X86_INS_JMP)
			return imm ? XDT_INSN_JMP_REL : XDT_INSN_JMP_IND;
		if (id == X86_INS_LJMP)
			return XDT_INSN_JMP_IND;
		return XDT_INSN_JCC_REL;
	}
	if (cs_group(CS_GRP_CALL))
		return imm ? XDT_INSN_CALL_REL : XDT_INSN_CALL_IND;
	if (cs_group(CS_GRP_INT) || cs_group(CS_GRP_IRET) ||
	    cs_group(CS_GRP_PRIVILEGE))
		return XDT_INSN_REFUSED;
	return XDT_INSN_OTHER;
}

static int a64_is_excl(unsigned int id)
{
	switch (id) {
	case ARM64_INS_LDXR: case ARM64_INS_LDXRB: case ARM64_INS_LDXRH:
	case ARM64_INS_LDAXR: case ARM64_INS_LDAXRB: case ARM64_INS_LDAXRH:
	case ARM64_INS_STXR: case ARM64_INS_STXRB: case ARM64_INS_STXRH:
	case ARM64_INS_STLXR: case ARM64_INS_STLXRB: case ARM64_INS_STLXRH:
	case ARM64_INS_LDXP: case ARM64_INS_LDAXP: case ARM64_INS_STXP:
	case ARM64_INS_STLXP:
		return 1;
	}
	return 0;
}

/* DAIF as capstone encodes a system register: op0:op1:CRn:CRm:op2. */
#define A64_SYSREG_DAIF	(3 << 14 | 3 << 11 | 4 << 7 | 2 << 3 | 1)

static int a64_ref_class(void)
{
	const cs_arm64 *a = &csi->detail->arm64;
	unsigned int id = csi->id;
	int last_imm = a->op_count &&
		       a->operands[a->op_count - 1].type == ARM64_OP_IMM;

	switch (id) {
	case ARM64_INS_RET:
		return XDT_INSN_RET;
	case ARM64_INS_B:
		return a->cc != ARM64_CC_INVALID ? XDT_INSN_JCC_REL :
						   XDT_INSN_JMP_REL;
	case ARM64_INS_BL:
		return XDT_INSN_CALL_REL;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		return XDT_INSN_JCC_REL;
	case ARM64_INS_BR:
		return XDT_INSN_JMP_IND;
	case ARM64_INS_BLR:
		return XDT_INSN_CALL_IND;
	case ARM64_INS_ADR: case ARM64_INS_ADRP:
		return XDT_INSN_PCREL;
	case ARM64_INS_LDR: case ARM64_INS_LDRSW: case ARM64_INS_PRFM:
		/* literal form: the address is an immediate operand */
		return last_imm && a->op_count == 2 &&
		       a->operands[0].type != ARM64_OP_IMM ?
		       XDT_INSN_PCREL : XDT_INSN_OTHER;
	case ARM64_INS_BRK:
		return XDT_INSN_BRK;
	case ARM64_INS_NOP:
		return XDT_INSN_NOP;
	case ARM64_INS_HINT:
		/* capstone 4 predates bti: hint #32/34/36/38 */
		if (a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM &&
		    (a->operands[0].imm & ~6LL) == 32)
			return XDT_INSN_NOP;
		return XDT_INSN_OTHER;
	case ARM64_INS_SVC: case ARM64_INS_HVC: case ARM64_INS_SMC:
	case ARM64_INS_HLT: case ARM64_INS_DCPS1: case ARM64_INS_DCPS2:
	case ARM64_INS_DCPS3: case ARM64_INS_ERET: case ARM64_INS_DRPS:
	case ARM64_INS_WFI: case ARM64_INS_WFE: case ARM64_INS_MSR:
		return XDT_INSN_REFUSED;
	case ARM64_INS_MRS:
		if (a->op_count == 2 &&
		    a->operands[1].type == ARM64_OP_REG_MRS &&
		    a->operands[1].reg == A64_SYSREG_DAIF)
			return XDT_INSN_REFUSED;
		return XDT_INSN_OTHER;
	}
	if (a64_is_excl(id))
		return XDT_INSN_EXCL;
	if (cs_group(CS_GRP_RET))
		return XDT_INSN_RET;
	if (cs_group(CS_GRP_CALL))
		return last_imm ? XDT_INSN_CALL_REL : XDT_INSN_CALL_IND;
	if (cs_group(CS_GRP_JUMP))
		return last_imm ? XDT_INSN_JCC_REL : XDT_INSN_JMP_IND;
	if (cs_group(CS_GRP_INT) || cs_group(CS_GRP_PRIVILEGE))
		return XDT_INSN_REFUSED;
	return XDT_INSN_OTHER;
}

static void cs_view(enum isa isa, const unsigned char *p, size_t avail,
		    unsigned long long addr, struct view *v)
{
	const uint8_t *code = p;
	size_t size = avail;
	uint64_t a = addr;

	v->has_target = 0;
	v->target = 0;
	if (!cs_disasm_iter(cs, &code, &size, &a, csi)) {
		v->len = 0;
		v->cls = XDT_INSN_BAD;
		snprintf(v->mnem, sizeof(v->mnem), "(invalid)");
		return;
	}
	v->len = csi->size;
	snprintf(v->mnem, sizeof(v->mnem), "%s", csi->mnemonic);
	if (isa == ISA_X86) {
		const cs_x86 *x = &csi->detail->x86;

		v->cls = x86_ref_class();
		if (cs_group(CS_GRP_BRANCH_RELATIVE) && x->op_count &&
		    x->operands[0].type == X86_OP_IMM) {
			v->has_target = 1;
			v->target = (unsigned long long)x->operands[0].imm;
		}
	} else {
		const cs_arm64 *ar = &csi->detail->arm64;

		v->cls = a64_ref_class();
		if ((v->cls == XDT_INSN_PCREL || v->cls == XDT_INSN_JMP_REL ||
		     v->cls == XDT_INSN_JCC_REL || v->cls == XDT_INSN_CALL_REL)
		    && ar->op_count &&
		    ar->operands[ar->op_count - 1].type == ARM64_OP_IMM) {
			v->has_target = 1;
			v->target = (unsigned long long)
				    ar->operands[ar->op_count - 1].imm;
		}
	}
}

/* ==== objdump's view (riscv64) =========================================== */

struct odrec {
	unsigned long long addr, target;
	unsigned char len, cls, has_target;
	unsigned short mnem;		/* index into mnems */
};

static struct odrec *od;
static size_t nod, aod;
static char (*mnems)[24];
static size_t nmnems, amnems;

static unsigned short intern(const char *m)
{
	size_t i;

	for (i = 0; i < nmnems; i++)
		if (!strcmp(mnems[i], m))
			return (unsigned short)i;
	if (nmnems == amnems) {
		amnems = amnems ? 2 * amnems : 256;
		mnems = realloc(mnems, amnems * sizeof(*mnems));
		if (!mnems || amnems > 65535)
			die("out of memory", "objdump");
	}
	strncpy(mnems[nmnems], m, sizeof(mnems[0]) - 1);
	mnems[nmnems][sizeof(mnems[0]) - 1] = 0;
	return (unsigned short)nmnems++;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Class of one objdump -M no-aliases line: mnemonic and operand text. */
static int rv_ref_class(const char *m, const char *ops)
{
	static const char *const refused[] = {
		"ecall", "sret", "mret", "dret", "wfi", "sfence.vma",
		"csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
	};
	static const char *const jcc[] = {
		"beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez",
	};

	if (m[0] == '.' || m[0] == '(' || !strcmp(m, "unimp"))
		return XDT_INSN_BAD;	/* .word/.short/.insn, (bad) */
	if (!strcmp(m, "jal"))
		return starts(ops, "zero,") ? XDT_INSN_JMP_REL :
					      XDT_INSN_CALL_REL;
	if (!strcmp(m, "c.j"))
		return XDT_INSN_JMP_REL;
	if (!strcmp(m, "jalr")) {
		if (!starts(ops, "zero,"))
			return XDT_INSN_CALL_IND;
		return !strcmp(ops, "zero,0(ra)") ? XDT_INSN_RET :
						    XDT_INSN_JMP_IND;
	}
	if (!strcmp(m, "c.jr"))
		return !strcmp(ops, "ra") ? XDT_INSN_RET : XDT_INSN_JMP_IND;
	if (!strcmp(m, "c.jalr"))
		return XDT_INSN_CALL_IND;
	for (size_t i = 0; i < sizeof(jcc) / sizeof(jcc[0]); i++)
		if (!strcmp(m, jcc[i]))
			return XDT_INSN_JCC_REL;
	if (!strcmp(m, "auipc"))
		return XDT_INSN_PCREL;
	if (!strcmp(m, "ebreak") || !strcmp(m, "c.ebreak"))
		return XDT_INSN_BRK;
	/* with no-aliases, c.nop prints as "c.addi zero,0" */
	if (!strcmp(m, "c.nop") ||
	    (!strcmp(m, "c.addi") && !strcmp(ops, "zero,0")) ||
	    (!strcmp(m, "addi") && !strcmp(ops, "zero,zero,0")))
		return XDT_INSN_NOP;
	if (starts(m, "lr.w") || starts(m, "lr.d") || starts(m, "sc.w") ||
	    starts(m, "sc.d"))
		return XDT_INSN_EXCL;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(m, refused[i]))
			return XDT_INSN_REFUSED;
	return XDT_INSN_OTHER;
}

/*
 * Class of one objdump -M raw line (ppc64le): mnemonic and operands, the
 * same rules as arch/ppc64le/decode.c written from the mnemonics' side.
 */
static int ppc_ref_class(const char *m, const char *ops)
{
	static const char *const refused[] = {
		"sc", "scv", "rfid", "hrfid", "rfscv", "rfebb", "mtmsr",
		"mtmsrd", "wait", "stop", "doze", "nap", "sleep", "rvwinkle",
		"attn",
	};
	static const char *const excl[] = {
		"lbarx", "lharx", "lwarx", "ldarx", "lqarx",
		"stbcx.", "sthcx.", "stwcx.", "stdcx.", "stqcx.",
	};
	static const char *const brk[] = { "tw", "td", "twi", "tdi" };
	char mm[24];
	size_t n = strlen(m);

	if (m[0] == '.' || m[0] == '(')
		return XDT_INSN_BAD;	/* .long, (bad) */
	/* a branch's +/- prediction hint says nothing of its class */
	snprintf(mm, sizeof(mm), "%s", m);
	if (n && n < sizeof(mm) && (mm[n - 1] == '+' || mm[n - 1] == '-'))
		mm[n - 1] = 0;
	if (!strcmp(mm, "b"))
		return XDT_INSN_JMP_REL;
	if (!strcmp(mm, "bl") || !strcmp(mm, "bcl"))
		return XDT_INSN_CALL_REL;
	if (!strcmp(mm, "ba") || !strcmp(mm, "bca") || !strcmp(mm, "bcctr") ||
	    !strcmp(mm, "bctar"))
		return XDT_INSN_JMP_IND;
	if (!strcmp(mm, "bla") || !strcmp(mm, "bcla") ||
	    !strcmp(mm, "bclrl") || !strcmp(mm, "bcctrl") ||
	    !strcmp(mm, "bctarl"))
		return XDT_INSN_CALL_IND;
	if (!strcmp(mm, "bc"))	/* BO 1z1zz: always */
		return (strtol(ops, NULL, 10) & 0x14) == 0x14 ?
		       XDT_INSN_JMP_REL : XDT_INSN_JCC_REL;
	if (!strcmp(mm, "bclr"))
		return XDT_INSN_RET;
	if (!strcmp(mm, "addpcis"))
		return XDT_INSN_PCREL;
	if (!strcmp(mm, "ori") && !strcmp(ops, "r0,r0,0"))
		return XDT_INSN_NOP;
	if (!strcmp(mm, "mfspr") || !strcmp(mm, "mtspr")) {
		/* mfspr RT,SPR / mtspr SPR,RS */
		const char *c = mm[1] == 'f' ? strchr(ops, ',') : NULL;
		long spr = strtol(c ? c + 1 : ops, NULL, 10);

		return spr == 26 || spr == 27 || spr == 314 || spr == 315 ?
		       XDT_INSN_REFUSED : XDT_INSN_OTHER;
	}
	for (size_t i = 0; i < sizeof(brk) / sizeof(brk[0]); i++)
		if (!strcmp(mm, brk[i]))
			return XDT_INSN_BRK;
	for (size_t i = 0; i < sizeof(excl) / sizeof(excl[0]); i++)
		if (!strcmp(mm, excl[i]))
			return XDT_INSN_EXCL;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(mm, refused[i]))
			return XDT_INSN_REFUSED;
	return XDT_INSN_OTHER;
}

static int cmp_od(const void *a, const void *b)
{
	const struct odrec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void objdump_load(enum isa isa, const char *path, const char *range)
{
	const char *od_cmd = isa == ISA_PPC ?
		"powerpc64le-linux-gnu-objdump -d -w -z -M raw,power10" :
		"riscv64-linux-gnu-objdump -d -w -z -M no-aliases";
	char cmd[4096], line[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s %s '%s'", od_cmd, range, path);
	f = popen(cmd, "r");
	if (!f)
		die(strerror(errno), od_cmd);
	while (fgets(line, sizeof(line), f)) {
		char *colon, *raw, *m, *ops, *end, *tab;
		struct odrec r = { 0 };
		size_t hex = 0;

		/* "addr:\tRAW\tmnemonic\toperands[ # comment]" */
		r.addr = strtoull(line, &colon, 16);
		if (colon == line || *colon != ':' || colon[1] != '\t')
			continue;
		raw = colon + 2;
		m = strchr(raw, '\t');
		if (!m)
			continue;
		for (char *s = raw; s < m; s++)
			hex += (*s >= '0' && *s <= '9') ||
			       (*s >= 'a' && *s <= 'f');
		*m++ = 0;
		if (!strncmp(m, "Address ", 8))
			continue;		/* past --stop-address */
		end = m + strcspn(m, "\n");
		*end = 0;
		tab = strchr(m, '\t');
		/* powerpc's objdump pads the mnemonic with spaces, not a tab */
		if (!tab && isa == ISA_PPC)
			tab = strchr(m, ' ');
		ops = tab ? tab + 1 : end;
		if (tab)
			*tab = 0;
		while (*ops == ' ')
			ops++;
		ops[strcspn(ops, "#")] = 0;
		for (char *e = ops + strlen(ops); e > ops && e[-1] == ' '; )
			*--e = 0;
		r.len = (unsigned char)(hex / 2);
		r.cls = (unsigned char)(isa == ISA_PPC ? ppc_ref_class(m, ops)
						       : rv_ref_class(m, ops));
		if (r.cls == XDT_INSN_JMP_REL || r.cls == XDT_INSN_CALL_REL ||
		    r.cls == XDT_INSN_JCC_REL) {
			/* the target is the last operand, in hex */
			char *c = strrchr(ops, ',');
			char *t = c ? c + 1 : ops;

			r.has_target = 1;
			r.target = strtoull(t, NULL, 16);
		} else if (r.cls == XDT_INSN_PCREL && isa == ISA_PPC) {
			/* addpcis RT,D: NIA + D << 16 */
			char *c = strrchr(ops, ',');
			long long imm = c ? strtoll(c + 1, NULL, 0) : 0;

			r.has_target = 1;
			r.target = r.addr + 4 + (unsigned long long)(imm * 65536);
		} else if (r.cls == XDT_INSN_PCREL) {
			char *c = strrchr(ops, ',');
			long long imm = c ? strtoll(c + 1, NULL, 0) : 0;

			r.has_target = 1;
			r.target = r.addr + (unsigned long long)
				   (long long)(int)((unsigned int)imm << 12);
		}
		r.mnem = intern(m);
		if (nod == aod) {
			aod = aod ? 2 * aod : 1 << 16;
			od = realloc(od, aod * sizeof(*od));
			if (!od)
				die("out of memory", "objdump");
		}
		od[nod++] = r;
	}
	if (pclose(f))
		die("objdump failed", path);
	qsort(od, nod, sizeof(*od), cmp_od);
}

static void od_view(enum isa isa, unsigned long long addr, struct view *v)
{
	size_t lo = 0, hi = nod;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (od[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nod || od[lo].addr != addr) {
		v->len = 0;
		v->cls = XDT_INSN_BAD;
		v->has_target = 0;
		snprintf(v->mnem, sizeof(v->mnem), "(no-insn-here)");
		return;
	}
	v->len = od[lo].len;
	v->cls = od[lo].cls;
	v->has_target = od[lo].has_target;
	v->target = od[lo].target;
	snprintf(v->mnem, sizeof(v->mnem), "%s", mnems[od[lo].mnem]);
	/* RISC-V: a BAD parcel has no length; a ppc64le word is 4 bytes */
	if (v->cls == XDT_INSN_BAD && isa == ISA_RV)
		v->len = 0;
}

/* ==== hex mode =========================================================== */

static const char *const a64_ops[] = {
	"none", "b", "bl", "bcond", "cbz", "cbnz", "tbz", "tbnz", "adr",
	"adrp", "ldr_lit", "ldrsw_lit", "prfm_lit", "br", "blr", "ret",
	"excl_load", "excl_store",
};

static const char *const rv_ops[] = {
	"none", "jal", "jalr", "beq", "bne", "blt", "bge", "bltu", "bgeu",
	"auipc", "lr", "sc",
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int hex_mode(enum isa isa)
{
	char line[512];

	while (fgets(line, sizeof(line), stdin)) {
		unsigned char b[64];
		size_t n = 0, digits = 0;
		int hi = -1, spaced = 0;
		unsigned long long word = 0;

		line[strcspn(line, "\n")] = 0;
		for (char *s = line; *s && n < sizeof(b); s++) {
			int v = hexval((unsigned char)*s);

			if (v < 0) {
				spaced |= digits > 0;
				continue;
			}
			digits++;
			word = word << 4 | (unsigned int)v;
			if (hi < 0) {
				hi = v;
			} else {
				b[n++] = (unsigned char)(hi << 4 | v);
				hi = -1;
			}
		}
		/* A parcel written as one number: store it little-endian. */
		if (isa != ISA_X86 && !spaced && (digits == 4 || digits == 8))
			for (n = 0; n < digits / 2; n++)
				b[n] = (unsigned char)(word >> (8 * n));
		if (isa == ISA_X86) {
			struct xdt_insn in;

			xdt_x86_decode(b, n, &in);
			printf("%u %s %u %u %u %u %u %u %d\n", in.len,
			       xdt_insn_class_name(in.cls), in.opcode_len,
			       in.modrm_off, in.rip_rel, in.disp_off,
			       in.imm_off, in.rel_size, (int)in.rel);
		} else if (isa == ISA_A64) {
			struct xdt_a64_insn in;
			unsigned int w = 0;
			int len;

			for (size_t i = 0; i < 4 && i < n; i++)
				w |= (unsigned int)b[i] << (8 * i);
			len = n == 4 ? xdt_a64_decode(w, &in) : 0;
			if (n != 4)
				xdt_a64_decode(0, &in);	/* udf: BAD */
			printf("%d %s %s %u %u %u %u %u %u %u %lld\n", len,
			       xdt_insn_class_name(in.cls), a64_ops[in.op],
			       in.flags, in.rd, in.rn, in.rm, in.cond, in.bit,
			       in.size, (long long)in.imm);
		} else if (isa == ISA_PPC) {
			struct xdt_ppc_insn in;
			unsigned int w = 0;

			for (size_t i = 0; i < 4 && i < n; i++)
				w |= (unsigned int)b[i] << (8 * i);
			xdt_ppc_decode(w, &in);
			printf("%d %s %u %u %u %u %d\n", n == 4 ? 4 : 0,
			       xdt_insn_class_name(in.cls), in.link, in.cond,
			       in.bo, in.bi, in.imm);
		} else {
			struct xdt_rv_insn in;

			xdt_rv_decode(b, n, &in);
			printf("%u %s %s %u %u %u %u %d\n", in.len,
			       xdt_insn_class_name(in.cls), rv_ops[in.op],
			       in.compressed, in.rd, in.rs1, in.rs2, in.imm);
		}
	}
	return 0;
}

/* ==== the walk =========================================================== */

struct func {
	const char *name;
	unsigned long long addr, size;
	const unsigned char *bytes;
	const unsigned char *sec_end;	/* end of the section's bytes */
};

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char obuf[1 << 20];
static int all;		/* -a: list every mismatch, not the first few */

#define MAX_LISTED	(all ? ~0ULL : 50ULL)
#define MAX_PER_PAIR	(all ? ~0ULL : 20ULL)

struct stats {
	unsigned long long nfunc, ninsn, nbad, noverrun, nbound, ntarget;
	unsigned long long count[XDT_INSN_NCLASSES];
	unsigned long long agree[XDT_INSN_NCLASSES];
	unsigned long long pair[XDT_INSN_NCLASSES][XDT_INSN_NCLASSES];
};

static void hexbytes(char *out, size_t outsz, const unsigned char *p,
		     int n)
{
	size_t k = 0;

	out[0] = 0;
	for (int i = 0; i < n && k + 3 < outsz; i++)
		k += (size_t)snprintf(out + k, outsz - k, "%02x", p[i]);
}

int main(int argc, char **argv)
{
	static struct stats st;
	const char **only;
	int nonly = 0, summary = 0, noref = 0, hex = 0, i, fd;
	enum isa isa = ISA_NONE;
	const char *path = NULL;
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shnum, nfuncs = 0, k, na;
	struct func *funcs = NULL;
	size_t afuncs = 0;
	struct sec { unsigned long long addr, size; int exec;
		     const unsigned char *bytes; } *secs;

	only = calloc((size_t)argc, sizeof(*only));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-x"))
			hex = 1;
		else if (!strcmp(argv[i], "-s"))
			summary = 1;
		else if (!strcmp(argv[i], "-n"))
			noref = 1;
		else if (!strcmp(argv[i], "-a"))
			all = 1;
		else if (!strcmp(argv[i], "-f") && i + 1 < argc)
			only[nonly++] = argv[++i];
		else if (!strcmp(argv[i], "--isa") && i + 1 < argc) {
			const char *n = argv[++i];

			for (int j = ISA_X86; j <= ISA_PPC; j++)
				if (!strcmp(n, isa_names[j]))
					isa = (enum isa)j;
			if (isa == ISA_NONE)
				die(usage, n);
		} else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			die(usage, argv[i]);
	}
	if (hex)
		return hex_mode(isa == ISA_NONE ? ISA_X86 : isa);
	if (!path)
		die(usage, "(no file)");
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	if (elf_version(EV_CURRENT) == EV_NONE)
		die(elf_errmsg(-1), "libelf");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(strerror(errno), path);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		die("not an ELF64 little-endian file", path);
	{
		enum isa m = eh.e_machine == EM_X86_64 ? ISA_X86 :
			     eh.e_machine == EM_AARCH64 ? ISA_A64 :
			     eh.e_machine == EM_RISCV ? ISA_RV :
			     eh.e_machine == EM_PPC64 ? ISA_PPC : ISA_NONE;

		if (isa == ISA_NONE)
			isa = m;
		if (isa == ISA_NONE || isa != m)
			die("ELF machine does not match --isa", path);
	}
	if (elf_getshdrnum(elf, &shnum))
		die(elf_errmsg(-1), path);
	secs = calloc(shnum ? shnum : 1, sizeof(*secs));
	if (!secs)
		die("out of memory", path);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		size_t idx = elf_ndxscn(scn);
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || idx >= shnum)
			continue;
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR)) {
			d = elf_getdata(scn, NULL);
			if (d && d->d_buf && d->d_size == sh.sh_size) {
				secs[idx].addr = sh.sh_addr;
				secs[idx].size = sh.sh_size;
				secs[idx].bytes = d->d_buf;
				secs[idx].exec = 1;
			}
		}
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t nsyms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		nsyms = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < nsyms; k++) {
			GElf_Sym s;
			const struct sec *sc;
			const char *name;

			if (!gelf_getsym(d, (int)k, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= shnum)
				continue;
			sc = &secs[s.st_shndx];
			if (!sc->exec || s.st_value < sc->addr ||
			    s.st_value + s.st_size > sc->addr + sc->size)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name)
				continue;
			if (nfuncs == afuncs) {
				afuncs = afuncs ? 2 * afuncs : 4096;
				funcs = realloc(funcs, afuncs * sizeof(*funcs));
				if (!funcs)
					die("out of memory", path);
			}
			funcs[nfuncs].name = name;
			funcs[nfuncs].addr = s.st_value;
			funcs[nfuncs].size = s.st_size;
			funcs[nfuncs].bytes = sc->bytes + (s.st_value - sc->addr);
			funcs[nfuncs].sec_end = sc->bytes + sc->size;
			nfuncs++;
		}
	}
	if (!nfuncs)
		die("no function symbols in executable sections", path);
	qsort(funcs, nfuncs, sizeof(*funcs), cmp_func);

	if (!noref) {
		if (uses_objdump(isa)) {
			if (nonly) {
				/* objdump only the named functions */
				for (k = 0; k < nfuncs; k++) {
					char range[128];
					int j, hit = 0;

					for (j = 0; j < nonly && !hit; j++)
						hit = !strcmp(only[j],
							      funcs[k].name);
					if (!hit)
						continue;
					snprintf(range, sizeof(range),
						 "--start-address=%#llx "
						 "--stop-address=%#llx",
						 funcs[k].addr,
						 funcs[k].addr + funcs[k].size);
					objdump_load(isa, path, range);
				}
			} else {
				objdump_load(isa, path, "");
			}
		} else {
			cs_open_isa(isa);
		}
	}
	printf("# isa %s\n# reference %s\n", isa_names[isa],
	       noref ? "none" : uses_objdump(isa) ? "objdump" : "capstone");

	for (k = 0; k < nfuncs; k = na) {
		const struct func *f = &funcs[k];
		unsigned long long off = 0;
		size_t a;

		for (na = k + 1; na < nfuncs && funcs[na].addr == f->addr &&
		     funcs[na].size == f->size; na++)
			;
		if (nonly) {
			int j, hit = 0;

			for (a = k; a < na && !hit; a++)
				for (j = 0; j < nonly && !hit; j++)
					hit = !strcmp(only[j], funcs[a].name);
			if (!hit)
				continue;
		}
		st.nfunc++;
		if (!summary) {
			printf("@ %s %llx %llu", f->name, f->addr, f->size);
			for (a = k + 1; a < na; a++)
				printf(" %s", funcs[a].name);
			printf("\n");
		}
		while (off < f->size) {
			unsigned long long left = f->size - off;
			unsigned long long addr = f->addr + off;
			const unsigned char *p = f->bytes + off;
			size_t maxlen = isa == ISA_X86 ? XDT_X86_MAX_INSN_LEN : 4;
			size_t avail = left > maxlen ? maxlen : (size_t)left;
			struct view x, r;
			char bytes[64];
			int step;

			xdt_view(isa, p, avail, addr, &x);
			if (!summary)
				printf("%s %llu %d %s\n", f->name, off, x.len,
				       xdt_insn_class_name(x.cls));
			step = x.len ? x.len :
			       isa == ISA_A64 || isa == ISA_PPC ? 4 : 0;
			if (x.len)
				st.ninsn++;
			else
				st.nbad++;
			st.count[x.cls]++;
			if (!x.len && isa == ISA_X86 && left < maxlen &&
			    (size_t)(f->sec_end - p) >= maxlen) {
				struct view y;

				xdt_view(isa, p, maxlen, addr, &y);
				if (y.len)
					st.noverrun++;
			}
			if (noref) {
				if (!step)
					break;
				off += (unsigned long long)step;
				continue;
			}
			if (uses_objdump(isa))
				od_view(isa, addr, &r);
			else
				cs_view(isa, p, avail, addr, &r);
			hexbytes(bytes, sizeof(bytes), p,
				 x.len ? x.len : r.len ? r.len :
				 (int)(avail < 4 ? avail : 4));
			/* A64: every word is 4 bytes whatever it means. */
			if (isa == ISA_A64 ? 0 : x.len != r.len) {
				if (st.nbound++ < MAX_LISTED)
					printf("# boundary %s+%#llx %s xdt=%d "
					       "ref=%d %s\n", f->name, off,
					       bytes, x.len, r.len, r.mnem);
			}
			if (x.cls == r.cls) {
				st.agree[x.cls]++;
				if (x.has_target && r.has_target &&
				    x.target != r.target &&
				    st.ntarget++ < MAX_LISTED)
					printf("# target %s+%#llx %s xdt=%llx "
					       "ref=%llx\n", f->name, off, bytes,
					       x.target, r.target);
			} else if (st.pair[x.cls][r.cls]++ < MAX_PER_PAIR) {
				printf("# disagree %s+%#llx %s xdt=%s ref=%s:%s\n",
				       f->name, off, bytes,
				       xdt_insn_class_name(x.cls),
				       xdt_insn_class_name(r.cls), r.mnem);
			}
			if (!step)
				break;
			off += (unsigned long long)step;
		}
	}
	printf("# functions %llu\n# instructions %llu\n# bad %llu\n"
	       "# overrun %llu\n", st.nfunc, st.ninsn, st.nbad, st.noverrun);
	if (!noref) {
		printf("# boundary-mismatches %llu\n# target-mismatches %llu\n",
		       st.nbound, st.ntarget);
		for (i = 0; i < XDT_INSN_NCLASSES; i++)
			for (int j = 0; j < XDT_INSN_NCLASSES; j++)
				if (st.pair[i][j])
					printf("# pair %s %s %llu\n",
					       xdt_insn_class_name(i),
					       xdt_insn_class_name(j),
					       st.pair[i][j]);
	}
	for (i = 0; i < XDT_INSN_NCLASSES; i++) {
		if (noref)
			printf("# class %s xdt=%llu\n",
			       xdt_insn_class_name(i), st.count[i]);
		else
			printf("# class %s xdt=%llu agree=%llu disagree=%llu\n",
			       xdt_insn_class_name(i), st.count[i],
			       st.agree[i], st.count[i] - st.agree[i]);
	}
	if (csi)
		cs_free(csi, 1);
	if (!noref && !uses_objdump(isa))
		cs_close(&cs);
	elf_end(elf);
	close(fd);
	free(od);
	free(mnems);
	free(secs);
	free(funcs);
	free(only);
	return 0;
}
