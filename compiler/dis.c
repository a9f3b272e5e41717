// SPDX-License-Identifier: GPL-2.0
/*
 * dis.c - DIF disassembly for -S, in DTrace's layout:
 *
 *   DIFO 0x1 returns D type (integer) (size 8)
 *   OFF OPCODE      INSTRUCTION
 *   00: 1e000e01    ldv  DT_VAR(14), %r1          ! DT_VAR(14) = "execname"
 *
 * Mnemonics and forms come from dif.h's DIF_OPS table, so the listing can
 * not disagree with the ISA; only the operand shape of R-form ops (which
 * of rd/r1/r2 an op uses) is decided here, by op class.
 */
#include <string.h>
#include "dt_tree.h"

static const struct { const char *mn; int form; int valid; int use; } ops[256] = {
#define DIF_DIS(name, val, form, mn, use) [val] = { mn, form, 1, use },
	DIF_OPS(DIF_DIS)
#undef DIF_DIS
};

static const char *const vars[] = {
#define DIF_VNAME(name, str, slot) str,
	DIF_VARS(DIF_VNAME)
#undef DIF_VNAME
};

static const char *const actnames[] = {
#define ACT_NAME(name, v, dis, rec, fl) [v] = dis,
	XDT_ACTIONS(ACT_NAME)
#undef ACT_NAME
};

static const char *const subrnames[] = {
#define DIF_SNAME(name, idx, str, rt, args, fl) [idx] = str,
	DIF_SUBRS(DIF_SNAME)
#undef DIF_SNAME
};

static const struct prog *cur_prog;

const char *aggfunc_name(int f)
{
	static const char *const n[XDT_NAGGFUNCS] = {
#define AGG_NAME(name, v, dname, nvals, amin, amax) [v] = dname,
		XDT_AGGFUNCS(AGG_NAME)
#undef AGG_NAME
	};

	return f >= XDT_AGG_COUNT && f < XDT_NAGGFUNCS && n[f] ? n[f] : "?";
}

static void strquote(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", fp);
		else if (*s == '\t')
			fputs("\\t", fp);
		else if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < ' ')
			fprintf(fp, "\\%03o", (unsigned char)*s);
		else
			fputc(*s, fp);
	}
	fputc('"', fp);
}

static void dis_insn(FILE *fp, const struct difo *d, __u32 in)
{
	unsigned op = DIF_OP(in), rd = DIF_RD(in), r1 = DIF_R1(in), r2 = DIF_R2(in);
	unsigned idx = DIF_INDEX(in);
	char buf[64];
	const char *mn = ops[op].valid ? ops[op].mn : "???";

	buf[0] = 0;
	if (!ops[op].valid) {
		snprintf(buf, sizeof(buf), "%-4s", mn);
	} else if (ops[op].form == DIF_F_I && (ops[op].use & DIF_U_VAR)) {
		const struct prog *p = cur_prog;
		const struct dvar *v = p && idx < (unsigned)p->nvars ? p->vars[idx] : NULL;

		if (ops[op].use & DIF_U_WD)
			snprintf(buf, sizeof(buf), "%-4s DT_VAR(%u), %%r%u", mn, idx, rd);
		else
			snprintf(buf, sizeof(buf), "%-4s %%r%u, DT_VAR(%u)", mn, rd, idx);
		fputs(buf, fp);
		if (v)
			fprintf(fp, "%*s! DT_VAR(%u) = \"%s%s\"", 28 - (int)strlen(buf), "",
				idx, v->scope == XDT_VAR_THREAD ? "self->" :
				v->scope == XDT_VAR_LOCAL ? "this->" : "", v->name);
		fputc('\n', fp);
		return;
	} else if (op == DIF_OP_CALL) {
		snprintf(buf, sizeof(buf), "%-4s DIF_SUBR(%u), %%r%u", mn, idx, rd);
		fputs(buf, fp);
		if (idx < DIF_NSUBRS)
			fprintf(fp, "%*s! %s", 28 - (int)strlen(buf), "", subrnames[idx]);
		fputc('\n', fp);
		return;
	} else if (ops[op].form == DIF_F_I) {
		const char *fmt = op == DIF_OP_SETX ? "%-4s DT_INTEGER[%u], %%r%u" :
				  op == DIF_OP_SETS ? "%-4s DT_STRING[%u], %%r%u" :
				  "%-4s DT_VAR(%u), %%r%u";
		snprintf(buf, sizeof(buf), fmt, mn, idx, rd);
	} else if (ops[op].form == DIF_F_B) {
		if (op == DIF_OP_BA)
			snprintf(buf, sizeof(buf), "%-4s %u", mn, DIF_TARGET(in));
		else
			snprintf(buf, sizeof(buf), "%-4s %%r%u, %u", mn, r1, DIF_TARGET(in));
	} else if (op == DIF_OP_NOP) {
		snprintf(buf, sizeof(buf), "%s", mn);
	} else if (op == DIF_OP_RET) {
		snprintf(buf, sizeof(buf), "%-4s %%r%u", mn, rd);
	} else if (op == DIF_OP_MOV || op == DIF_OP_NOT || op == DIF_OP_NEG) {
		snprintf(buf, sizeof(buf), "%-4s %%r%u, %%r%u", mn, r1, rd);
	} else if (op >= DIF_OP_LDSB && op <= DIF_OP_LDX) {
		snprintf(buf, sizeof(buf), "%-4s [%%r%u], %%r%u", mn, r1, rd);
	} else if (op >= DIF_OP_STB && op <= DIF_OP_STX) {
		snprintf(buf, sizeof(buf), "%-4s %%r%u, [%%r%u]", mn, r1, rd);
	} else if (op == DIF_OP_PUSHTV || op == DIF_OP_PUSHTS ||
		   op == DIF_OP_PUSHTR) {
		snprintf(buf, sizeof(buf), "%-4s %%r%u", mn, r1);
	} else if (op == DIF_OP_FLUSHTS) {
		snprintf(buf, sizeof(buf), "%s", mn);
	} else if (op == DIF_OP_ALLOCS || op == DIF_OP_LDARG ||
		   op == DIF_OP_LDUREG) {
		snprintf(buf, sizeof(buf), "%-4s %%r%u, %%r%u", mn, r1, rd);
	} else if (op == DIF_OP_COPYS || op == DIF_OP_COPYSTR) {
		snprintf(buf, sizeof(buf), "%-4s %%r%u, %%r%u, [%%r%u]", mn, r1, r2, rd);
	} else {
		snprintf(buf, sizeof(buf), "%-4s %%r%u, %%r%u, %%r%u", mn, r1, r2, rd);
	}
	fputs(buf, fp);
	if (op == DIF_OP_SETX && idx < (unsigned)d->nints) {
		fprintf(fp, "%*s! 0x%llx", 28 - (int)strlen(buf), "",
			(unsigned long long)d->ints[idx]);
	} else if (op == DIF_OP_SETS && idx < (unsigned)d->strlen) {
		fprintf(fp, "%*s! ", 28 - (int)strlen(buf), "");
		strquote(fp, d->strtab + idx);
	} else if (op == DIF_OP_LDV && idx < DIF_NVARS) {
		fprintf(fp, "%*s! DT_VAR(%u) = \"%s\"", 28 - (int)strlen(buf), "",
			idx, vars[idx]);
	}
	fputc('\n', fp);
}

static void dis_difo(FILE *fp, const struct prog *p, int i)
{
	const struct difo *d = &p->difos[i];

	if (d->rtype == XDT_TYPE_STRING)
		fprintf(fp, "\nDIFO 0x%x returns D type (string) by ref (size %u)\n",
			i, p->strsize);
	else
		fprintf(fp, "\nDIFO 0x%x returns D type (integer) (size 8)\n", i);
	fprintf(fp, "%-3s %-8s    %s\n", "OFF", "OPCODE", "INSTRUCTION");
	for (int k = 0; k < d->ninsns; k++) {
		fprintf(fp, "%02d: %08x    ", k, d->insns[k]);
		dis_insn(fp, d, d->insns[k]);
	}
}

/*
 * Every DIFO, then (not in DTrace, but the rest of the program object is
 * what the tests need to see) the clauses, their actions and the records.
 */
void dis_prog(FILE *fp, const struct prog *p)
{
	int i, a;

	cur_prog = p;
	for (i = 0; i < p->ndifos; i++)
		dis_difo(fp, p, i);
	fprintf(fp, "\n");
	for (i = 0; i < p->nclauses; i++) {
		const struct clause *c = &p->clauses[i];

		fprintf(fp, "CLAUSE %d %s:%s:%s:%s pred %d recsize %u\n", i,
			c->desc.prov, c->desc.mod, c->desc.func, c->desc.name,
			c->pred, c->recsize);
		for (a = 0; a < c->nactions; a++) {
			const struct xdt_action *x = &p->acts[c->action0 + a];

			fprintf(fp, "  ACT %d %-6s difo %d", c->action0 + a,
				x->kind < sizeof(actnames) / sizeof(actnames[0]) &&
				actnames[x->kind] ? actnames[x->kind] : "?", x->difo);
			if (x->kind == XDT_ACT_AGGKEY && x->arg0 == XDT_KEY_STACK)
				fprintf(fp, " stack(%u)", XDT_KEY_WORDS(x->arg1));
			else if (x->kind == XDT_ACT_AGGKEY && x->arg0 == XDT_KEY_USTACK)
				fprintf(fp, " ustack(%u)", XDT_KEY_WORDS(x->arg1) - 1);
			else if (x->kind == XDT_ACT_AGGKEY && x->arg0 == XDT_KEY_MEM)
				fprintf(fp, " %u bytes", x->arg1);
			else if (x->kind == XDT_ACT_AGGKEY)
				fprintf(fp, " %s", x->arg0 == XDT_KEY_STRING ? "string" :
					x->arg0 == XDT_KEY_INT ? "int" : "?");
			if (x->kind == XDT_ACT_AGGKEY && x->arg0 != XDT_KEY_MEM &&
			    x->arg1 >> 16)
				fprintf(fp, " in %u words", XDT_KEY_SLOT(x->arg1));
			if (x->kind == XDT_ACT_STACK)
				fprintf(fp, " %u %s", x->arg0 - x->arg1,
					x->arg1 ? "user frames" : "frames");
			if (x->kind == XDT_ACT_MEMREF)
				fprintf(fp, " %u bytes", x->arg0);
			if (x->kind == XDT_ACT_AGG)
				fprintf(fp, " @%s %s", p->aggs[x->arg0].name,
					aggfunc_name((int)x->arg1));
			fputc('\n', fp);
		}
		for (a = 0; a < c->nrecs; a++) {
			if (DT_IS_SYM(c->recs[a].type))
				fprintf(fp, "  REC %d %s at %u\n", a,
					c->recs[a].type == DT_TYPE_KSYM ?
					"sym" : "usym", c->recs[a].off);
			else if (DT_IS_STACK(c->recs[a].type))
				fprintf(fp, "  REC %d %s(%u) at %u\n", a,
					c->recs[a].type == DT_TYPE_USTACK ?
					"ustack" : "stack",
					c->recs[a].nframes -
					(c->recs[a].type == DT_TYPE_USTACK),
					c->recs[a].off);
			else
				fprintf(fp, "  REC %d %s at %u\n", a,
					c->recs[a].type == XDT_TYPE_STRING ?
					"string" : "int", c->recs[a].off);
		}
	}
}
