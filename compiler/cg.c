// SPDX-License-Identifier: GPL-2.0
/*
 * cg.c - DIF code generation.  Registers are handed out like a stack
 * (lowest free of %r1..%r15, freed in reverse), which is all a tree walk
 * needs; a tree deeper than 15 live values is "expression too complex".
 * Branches only go forward (the verifier insists), which && || ?: need
 * and nothing else here does.
 */
#define _GNU_SOURCE
#include <string.h>
#include "dt.h"

struct cg {
	struct prog *p;
	struct lexer *lx;
	struct difo *d;
	unsigned live;		/* bit n: %rn in use */
};

struct node *node_new(enum nkind k, int line, int col)
{
	struct node *n = xzalloc(sizeof(*n));

	n->k = k;
	n->line = line;
	n->col = col;
	n->type = XDT_TYPE_INT;
	return n;
}

static int ralloc(struct cg *g, struct node *n)
{
	for (int r = 1; r < DIF_NREGS; r++) {
		if (!(g->live & (1u << r))) {
			g->live |= 1u << r;
			return r;
		}
	}
	dt_cerr(g->lx, n->line, n->col, "expression too complex");
}

static void rfree(struct cg *g, int r)
{
	g->live &= ~(1u << r);
}

static int emit(struct cg *g, __u32 insn)
{
	struct difo *d = g->d;

	d->insns = xrealloc(d->insns, (d->ninsns + 1) * sizeof(__u32));
	d->insns[d->ninsns] = insn;
	return d->ninsns++;
}

/* Fill in a forward branch's target: the next instruction to be emitted. */
static void patch(struct cg *g, int at)
{
	g->d->insns[at] = (g->d->insns[at] & ~0xffffu) | (__u32)g->d->ninsns;
}

static int intconst(struct cg *g, struct node *n, __u64 v)
{
	struct difo *d = g->d;
	int i;

	for (i = 0; i < d->nints; i++)
		if (d->ints[i] == v)
			return i;
	if (d->nints == 0xffff)
		dt_cerr(g->lx, n->line, n->col, "too many integer constants");
	d->ints = xrealloc(d->ints, (d->nints + 1) * sizeof(__u64));
	d->ints[d->nints] = v;
	return d->nints++;
}

static int strconst(struct cg *g, struct node *n)
{
	struct difo *d = g->d;
	int off;

	/* reuse an identical string already in this difo's table */
	for (off = 0; off < d->strlen; off += (int)strlen(d->strtab + off) + 1)
		if (!strcmp(d->strtab + off, n->s))
			return off;
	off = d->strlen;
	if (off + n->slen + 1 > 0xffff)
		dt_cerr(g->lx, n->line, n->col, "string table too large");
	d->strtab = xrealloc(d->strtab, off + n->slen + 1);
	memcpy(d->strtab + off, n->s, n->slen + 1);
	d->strlen += (int)n->slen + 1;
	return off;
}

static enum dif_op binop(enum tok t)
{
	switch (t) {
	case T_PLUS: return DIF_OP_ADD;
	case T_MINUS: return DIF_OP_SUB;
	case T_STAR: return DIF_OP_MUL;
	case T_DIV: return DIF_OP_SDIV;
	case T_MOD: return DIF_OP_SREM;
	case T_AND: return DIF_OP_AND;
	case T_OR: return DIF_OP_OR;
	case T_XOR: return DIF_OP_XOR;
	case T_SHL: return DIF_OP_SLL;
	case T_SHR: return DIF_OP_SRA;
	case T_EQ: return DIF_OP_SEQ;
	case T_NE: return DIF_OP_SNE;
	case T_LT: case T_GT: return DIF_OP_SLT;
	case T_LE: case T_GE: return DIF_OP_SLE;
	default: return DIF_OP_NOP;
	}
}

static int expr(struct cg *g, struct node *n);

/* a && b, a || b: 0 or 1 in the result register */
static int logical(struct cg *g, struct node *n)
{
	int r = expr(g, n->a), r2, br, ba;

	br = emit(g, DIF_INSN_B(n->k == N_AND ? DIF_OP_BZ : DIF_OP_BNZ, r, 0));
	r2 = expr(g, n->b);
	emit(g, DIF_INSN_R(DIF_OP_SNE, r2, 0, r));
	rfree(g, r2);
	ba = emit(g, DIF_INSN_B(DIF_OP_BA, 0, 0));
	patch(g, br);
	if (n->k == N_AND) {
		emit(g, DIF_INSN_R(DIF_OP_MOV, 0, 0, r));
	} else {
		emit(g, DIF_INSN_I(DIF_OP_SETX, intconst(g, n, 1), r));
	}
	patch(g, ba);
	return r;
}

static int expr(struct cg *g, struct node *n)
{
	int r, r2, br, ba;
	enum dif_op op;

	switch (n->k) {
	case N_INT:
		r = ralloc(g, n);
		emit(g, DIF_INSN_I(DIF_OP_SETX, intconst(g, n, (__u64)n->ival), r));
		return r;
	case N_STR:
		r = ralloc(g, n);
		emit(g, DIF_INSN_I(DIF_OP_SETS, strconst(g, n), r));
		return r;
	case N_VAR:
		r = ralloc(g, n);
		emit(g, DIF_INSN_I(DIF_OP_LDV, n->var, r));
		return r;
	case N_UN:
		r = expr(g, n->a);
		if (n->op == T_MINUS)
			emit(g, DIF_INSN_R(DIF_OP_NEG, r, 0, r));
		else if (n->op == T_TILDE)
			emit(g, DIF_INSN_R(DIF_OP_NOT, r, 0, r));
		else	/* ! */
			emit(g, DIF_INSN_R(DIF_OP_SEQ, r, 0, r));
		return r;
	case N_AND:
	case N_OR:
		return logical(g, n);
	case N_TERN:
		r = expr(g, n->a);
		br = emit(g, DIF_INSN_B(DIF_OP_BZ, r, 0));
		r2 = expr(g, n->b);
		emit(g, DIF_INSN_R(DIF_OP_MOV, r2, 0, r));
		rfree(g, r2);
		ba = emit(g, DIF_INSN_B(DIF_OP_BA, 0, 0));
		patch(g, br);
		r2 = expr(g, n->c);
		emit(g, DIF_INSN_R(DIF_OP_MOV, r2, 0, r));
		rfree(g, r2);
		patch(g, ba);
		return r;
	case N_LOAD: {
		static const enum dif_op ld[2][9] = {
			[0] = { [1] = DIF_OP_LDUB, [2] = DIF_OP_LDUH,
				[4] = DIF_OP_LDUW, [8] = DIF_OP_LDX },
			[1] = { [1] = DIF_OP_LDSB, [2] = DIF_OP_LDSH,
				[4] = DIF_OP_LDSW, [8] = DIF_OP_LDX },
		};
		r = expr(g, n->a);
		emit(g, DIF_INSN_R(ld[!!n->sgn][n->size], r, 0, r));
		return r;
	}
	case N_CAST:
		r = expr(g, n->a);
		if (n->size < 8) {
			/* truncate to the type: shift up, then back with its sign */
			int sh = 64 - 8 * n->size;

			r2 = ralloc(g, n);
			emit(g, DIF_INSN_I(DIF_OP_SETX, intconst(g, n, (__u64)sh), r2));
			emit(g, DIF_INSN_R(DIF_OP_SLL, r, r2, r));
			emit(g, DIF_INSN_R(n->sgn ? DIF_OP_SRA : DIF_OP_SRL, r, r2, r));
			rfree(g, r2);
		}
		return r;
	case N_BIN:
		r = expr(g, n->a);
		r2 = expr(g, n->b);
		op = binop(n->op);
		{
			int x = r, y = r2;

			if (n->a->type == XDT_TYPE_STRING) {
				/* strings compare through scmp's sign, against %r0 */
				emit(g, DIF_INSN_R(DIF_OP_SCMP, r, r2, r));
				y = 0;
			}
			if (n->op == T_GT || n->op == T_GE)
				emit(g, DIF_INSN_R(op, y, x, r));
			else
				emit(g, DIF_INSN_R(op, x, y, r));
		}
		rfree(g, r2);
		return r;
	}
	return 0;
}

int cg_difo(struct prog *p, struct lexer *lx, struct node *e)
{
	struct cg g = { .p = p, .lx = lx };
	int r;

	p->difos = xrealloc(p->difos, (p->ndifos + 1) * sizeof(*p->difos));
	g.d = &p->difos[p->ndifos];
	memset(g.d, 0, sizeof(*g.d));
	g.d->rtype = e->type;
	r = expr(&g, e);
	emit(&g, DIF_INSN_R(DIF_OP_RET, 0, 0, r));
	return p->ndifos++;
}

int prog_add_action(struct prog *p, __u32 kind, int difo, __u32 arg0, __u32 arg1)
{
	p->acts = xrealloc(p->acts, (p->nacts + 1) * sizeof(*p->acts));
	p->acts[p->nacts] = (struct xdt_action){ kind, difo, arg0, arg1 };
	return p->nacts++;
}

/*
 * Where each recorded value lands: 8-aligned after the header, in order,
 * as the kernel lays them out (core/enable.c): an integer 8 bytes, a
 * string strsize, a stack 8 per frame.
 */
void prog_layout(struct prog *p)
{
	for (int i = 0; i < p->nclauses; i++) {
		struct clause *c = &p->clauses[i];
		unsigned off = sizeof(struct xdt_rechdr);

		for (int k = 0; k < c->nrecs; k++) {
			off = (off + 7) & ~7u;
			c->recs[k].off = off;
			off += c->recs[k].type == XDT_TYPE_STRING ? p->strsize :
			       c->recs[k].type == DT_TYPE_STACK ? 8 * c->recs[k].nframes : 8;
		}
		c->recsize = off;
	}
}
