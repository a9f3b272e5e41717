// SPDX-License-Identifier: GPL-2.0
/*
 * cg.c - DIF code generation.  Registers are handed out like a stack
 * (lowest free of %r1..%r(iregs-1), freed in reverse), which is all a tree
 * walk needs.  iregs is DTrace's: the kernel's DIF_NREGS (8, %r0 reads as
 * 0) unless -x iregs says otherwise; a tree with more live values than
 * that is D_NOREG, and DIF from a larger -x iregs is the kernel
 * verifier's to refuse, as in DTrace.
 * Branches only go forward (the verifier insists), which && || ?: need
 * and nothing else here does.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "dt_tree.h"

struct cg {
	struct prog *p;
	struct lexer *lx;
	struct difo *d;
	unsigned live;		/* bit n: %rn in use */
};


static int ralloc(struct cg *g, struct node *n)
{
	for (int r = 1; r < (int)g->p->iregs && r < 32; r++) {
		if (!(g->live & (1u << r))) {
			g->live |= 1u << r;
			return r;
		}
	}
	dt_cerrt(g->lx, DT_D_NOREG, n->line, n->col,
		 "Insufficient registers to generate code");
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

static int expr(struct cg *g, struct node *n);

static int setx(struct cg *g, struct node *n, __u64 v)
{
	int r = ralloc(g, n);

	emit(g, DIF_INSN_I(DIF_OP_SETX, intconst(g, n, v), r));
	return r;
}

/* r op= constant */
static void op_const(struct cg *g, struct node *n, enum dif_op op, int r, __u64 v)
{
	int k = setx(g, n, v);

	emit(g, DIF_INSN_R(op, r, k, r));
	rfree(g, k);
}

static int is_signed(const struct dtype *t)
{
	return type_is_int(t) && t->real->sgn;
}

/*
 * Convert the value in @r from type @from to @to, for a cast or a store:
 * narrowing or a change of sign shifts up and back down (sign- or
 * zero-extending from the new width), as DTrace's dt_cg_typecast does;
 * arithmetic between them leaves all 64 bits (binary()).
 */
static void convert(struct cg *g, struct node *n, int r, struct dtype *from,
		    struct dtype *to)
{
	unsigned ts = to->real->size, fs = from->real->size;
	int sh;

	if (!type_is_int(to) || !type_is_scalar(from))
		return;
	/* widening keeps the value unless a signed one becomes unsigned */
	if (ts >= 8 || (ts > fs && type_is_int(from) && (!is_signed(from) || is_signed(to))) ||
	    (ts == fs && type_is_int(from) && is_signed(from) == is_signed(to)))
		return;
	sh = setx(g, n, (__u64)(64 - 8 * (int)ts));
	emit(g, DIF_INSN_R(DIF_OP_SLL, r, sh, r));
	emit(g, DIF_INSN_R(is_signed(to) ? DIF_OP_SRA : DIF_OP_SRL, r, sh, r));
	rfree(g, sh);
}

/* A load of a value of type @t from the address in @r (into @r). */
static void load(struct cg *g, int r, const struct dtype *t)
{
	static const enum dif_op ld[2][9] = {
		[0] = { [1] = DIF_OP_LDUB, [2] = DIF_OP_LDUH,
			[4] = DIF_OP_LDUW, [8] = DIF_OP_LDX },
		[1] = { [1] = DIF_OP_LDSB, [2] = DIF_OP_LDSH,
			[4] = DIF_OP_LDSW, [8] = DIF_OP_LDX },
	};
	unsigned size = t->real->size;

	if (type_is_byref(t))
		return;		/* the address is the value */
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	emit(g, DIF_INSN_R(ld[is_signed(t)][size], r, 0, r));
}

static void store(struct cg *g, int addr, int val, const struct dtype *t)
{
	static const enum dif_op st[9] = { [1] = DIF_OP_STB, [2] = DIF_OP_STH,
					   [4] = DIF_OP_STW, [8] = DIF_OP_STX };
	unsigned size = t->real->size;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	emit(g, DIF_INSN_R(st[size], val, 0, addr));
}

static enum dif_op var_op(const struct dvar *v, int st)
{
	if (v->array)
		return v->scope == XDT_VAR_THREAD ? (st ? DIF_OP_STTAA : DIF_OP_LDTAA) :
		       (st ? DIF_OP_STGAA : DIF_OP_LDGAA);
	switch (v->scope) {
	case XDT_VAR_THREAD: return st ? DIF_OP_STTS : DIF_OP_LDTS;
	case XDT_VAR_LOCAL: return st ? DIF_OP_STLS : DIF_OP_LDLS;
	default: return st ? DIF_OP_STGS : DIF_OP_LDGS;
	}
}

/*
 * An array element's key: every key is evaluated into a register first,
 * then all are pushed, so a key that itself reads an array (which uses
 * and empties the tuple stack) cannot interleave with this one.
 */
static void push_tuple(struct cg *g, struct node **args, int n)
{
	int regs[DT_MAXKEYS];

	for (int i = 0; i < n; i++)
		regs[i] = expr(g, args[i]);
	for (int i = 0; i < n; i++) {
		emit(g, DIF_INSN_R(args[i]->type == XDT_TYPE_STRING ? DIF_OP_PUSHTS :
				   args[i]->type == DT_TYPE_MEM ? DIF_OP_PUSHTR :
				   DIF_OP_PUSHTV, regs[i], 0, 0));
	}
	for (int i = n - 1; i >= 0; i--)
		rfree(g, regs[i]);
}

/*
 * The address of a memory lvalue (or of by-reference variable storage).
 * @alloc: it is about to be written (a[k].m = v, self->s.m = v): a struct
 * in a dynamic variable that does not exist yet is made, zeroed, by the
 * load -- DTrace's convention, a non-zero destination register before
 * LDGAA/LDTAA/LDTS asks for allocation -- where reading it must not.
 */
static int address(struct cg *g, struct node *n, int alloc)
{
	int r;

	switch (n->k) {
	case N_DEREF:
		return expr(g, n->a);
	case N_MEMBER:
		r = n->op == T_ARROW ? expr(g, n->a) : address(g, n->a, alloc);
		if (n->mem->off)
			op_const(g, n, DIF_OP_ADD, r, n->mem->off);
		return r;
	case N_INDEX:
	case N_SELF:
		if (alloc && n->dv && type_is_byref(n->t) &&
		    (n->k == N_INDEX || n->dv->scope == XDT_VAR_THREAD)) {
			if (n->k == N_INDEX)
				push_tuple(g, n->args, n->nargs);
			r = setx(g, n, 1);
			emit(g, DIF_INSN_I(var_op(n->dv, 0), n->dv->id, r));
			return r;
		}
		return expr(g, n);
	default:
		/* by-reference variables and values: the value is the address */
		return expr(g, n);
	}
}

/*
 * Bit-field member @n's unit is one aligned load or store: 1, 2, 4 or 8
 * bytes at an offset of that alignment, in a struct whose alignment and
 * size keep it so in every instance (an array's elements too).  A kernel
 * struct's units are (btf.c).  A D declaration's are the field's own
 * bytes, DTrace's layout: a 40-bit field is 5 bytes at an offset that is a
 * multiple of 5, which DIF's loads and stores (aligned, as DTrace's) cannot
 * take at once; those go byte by byte.
 */
static int bf_unit(const struct node *n)
{
	const struct dmember *m = n->mem;
	const struct dtype *c = n->op == T_ARROW ? n->a->t->real->base->real :
				n->a->t->real;
	unsigned u = m->usize;

	return (u == 1 || u == 2 || u == 4 || u == 8) && m->off % u == 0 &&
	       c->align % u == 0 && c->size % u == 0;
}

/* Load bit-field @n's unit from the address in @r into @r. */
static void bf_load(struct cg *g, struct node *n, int r)
{
	int v, t;

	if (bf_unit(n)) {
		load(g, r, type_int(n->mem->usize, 0));
		return;
	}
	/* little-endian: from the last byte down, shifting up */
	v = ralloc(g, n);
	t = ralloc(g, n);
	emit(g, DIF_INSN_R(DIF_OP_MOV, 0, 0, v));
	for (int i = (int)n->mem->usize - 1; i >= 0; i--) {
		emit(g, DIF_INSN_R(DIF_OP_MOV, r, 0, t));
		if (i)
			op_const(g, n, DIF_OP_ADD, t, (__u64)i);
		load(g, t, dt_uchar);
		op_const(g, n, DIF_OP_SLL, v, 8);
		emit(g, DIF_INSN_R(DIF_OP_OR, v, t, v));
	}
	emit(g, DIF_INSN_R(DIF_OP_MOV, v, 0, r));
	rfree(g, t);
	rfree(g, v);
}

/* Store @val, bit-field @n's whole unit, at the address in @a (both spent). */
static void bf_store(struct cg *g, struct node *n, int a, int val)
{
	if (bf_unit(n)) {
		store(g, a, val, type_int(n->mem->usize, 0));
		return;
	}
	for (unsigned i = 0; i < n->mem->usize; i++) {
		if (i) {
			op_const(g, n, DIF_OP_SRL, val, 8);
			op_const(g, n, DIF_OP_ADD, a, 1);
		}
		emit(g, DIF_INSN_R(DIF_OP_STB, val, 0, a));
	}
}

/* A bit-field's value from the unit loaded in @r. */
static void bitfield(struct cg *g, struct node *n, int r)
{
	const struct dmember *m = n->mem;
	int up = 64 - (int)(m->bitoff + m->bits);

	/* bits [bitoff, bitoff+bits) of the little-endian unit */
	op_const(g, n, DIF_OP_SLL, r, (__u64)up);
	op_const(g, n, is_signed(m->t) ? DIF_OP_SRA : DIF_OP_SRL, r,
		 (__u64)(64 - m->bits));
}

static enum dif_op arith_op(struct node *n, enum tok op)
{
	int sgn = is_signed(n->t);

	switch (op) {
	case T_PLUS: case T_ADDEQ: case T_INC: return DIF_OP_ADD;
	case T_MINUS: case T_SUBEQ: case T_DEC: return DIF_OP_SUB;
	case T_STAR: case T_MULEQ: return DIF_OP_MUL;
	case T_DIV: case T_DIVEQ: return sgn ? DIF_OP_SDIV : DIF_OP_UDIV;
	case T_MOD: case T_MODEQ: return sgn ? DIF_OP_SREM : DIF_OP_UREM;
	case T_AND: case T_ANDEQ: return DIF_OP_AND;
	case T_OR: case T_OREQ: return DIF_OP_OR;
	case T_XOR: case T_XOREQ: return DIF_OP_XOR;
	case T_SHL: case T_SHLEQ: return DIF_OP_SLL;
	case T_SHR: case T_SHREQ: return sgn ? DIF_OP_SRA : DIF_OP_SRL;
	default: return DIF_OP_NOP;
	}
}

/* pointer +/- integer: scale the integer in @ri by the element size */
static void scale(struct cg *g, struct node *n, int ri, const struct dtype *pt)
{
	const struct dtype *e = pt->real->base;
	unsigned sz = e && e->real->size ? e->real->size : 1;

	if (sz != 1)
		op_const(g, n, DIF_OP_MUL, ri, sz);
}

static int binary(struct cg *g, struct node *n)
{
	int r = expr(g, n->a), r2 = expr(g, n->b);
	const struct dtype *ta = n->a->t->real, *tb = n->b->t->real;
	int pa = ta->k == TK_PTR || ta->k == TK_ARRAY;
	int pb = tb->k == TK_PTR || tb->k == TK_ARRAY;

	switch (n->op) {
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE: {
		int x = r, y = r2, uns = !is_signed(n->ct);
		enum dif_op op;

		/*
		 * DTrace's comparison: signed or unsigned as the promoted type
		 * is, of the 64-bit values as they are (no conversion of the
		 * operands: -1 == 0xffffffffU is false in D, unlike C).
		 */
		if (n->ct->real->k == TK_STRING) {
			/* strings compare through scmp's sign, against %r0 */
			emit(g, DIF_INSN_R(DIF_OP_SCMP, r, r2, r));
			y = 0;
			uns = 0;
		}
		op = n->op == T_EQ ? DIF_OP_SEQ : n->op == T_NE ? DIF_OP_SNE :
		     (n->op == T_LT || n->op == T_GT) ? (uns ? DIF_OP_SLTU : DIF_OP_SLT) :
		     (uns ? DIF_OP_SLEU : DIF_OP_SLE);
		if (n->op == T_GT || n->op == T_GE)
			emit(g, DIF_INSN_R(op, y, x, r));
		else
			emit(g, DIF_INSN_R(op, x, y, r));
		break;
	}
	case T_PLUS:
	case T_MINUS:
		if (pa && pb) {
			/* pointer difference in elements */
			unsigned sz = ta->base->real->size ? ta->base->real->size : 1;

			emit(g, DIF_INSN_R(DIF_OP_SUB, r, r2, r));
			if (sz != 1)
				op_const(g, n, DIF_OP_SDIV, r, sz);
			break;
		}
		if (pa)
			scale(g, n, r2, ta->k == TK_ARRAY ? type_ptr(ta->base) : ta);
		else if (pb)
			scale(g, n, r, tb->k == TK_ARRAY ? type_ptr(tb->base) : tb);
		/* fall through */
	default:
		/*
		 * DTrace's arithmetic (dt_cg_arithmetic_op): 64-bit registers,
		 * the operation signed or unsigned as the result's type is
		 * (sdiv/udiv, srem/urem, sra/srl), and nothing narrowed in
		 * between: an int expression that overflows 32 bits keeps the
		 * bits, and a store, a cast or the record's width (printf of
		 * an int prints 32 bits) is where it becomes an int again.
		 * C would wrap each step; the suite's arithmetic/tst.basics.d
		 * shows DTrace does not.
		 */
		emit(g, DIF_INSN_R(arith_op(n, n->op), r, r2, r));
		break;
	}
	rfree(g, r2);
	return r;
}

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

/* Load an lvalue's current value into a new register. */
static int lv_load(struct cg *g, struct node *lv)
{
	int r;

	switch (lv->k) {
	case N_DVAR: case N_SELF: case N_THIS:
		r = ralloc(g, lv);
		emit(g, DIF_INSN_I(var_op(lv->dv, 0), lv->dv->id, r));
		return r;
	case N_INDEX:
		push_tuple(g, lv->args, lv->nargs);
		r = ralloc(g, lv);
		emit(g, DIF_INSN_I(var_op(lv->dv, 0), lv->dv->id, r));
		return r;
	default:
		return expr(g, lv);
	}
}

/* Store @val (already converted to the lvalue's type) into @lv. */
static void lv_store(struct cg *g, struct node *lv, int val)
{
	int a, u;

	switch (lv->k) {
	case N_DVAR: case N_SELF: case N_THIS:
		emit(g, DIF_INSN_I(var_op(lv->dv, 1), lv->dv->id, val));
		return;
	case N_INDEX:
		push_tuple(g, lv->args, lv->nargs);
		emit(g, DIF_INSN_I(var_op(lv->dv, 1), lv->dv->id, val));
		return;
	default:
		break;
	}
	a = address(g, lv, 1);
	if (type_is_byref(lv->t)) {
		/* copy the whole value */
		int sz = setx(g, lv, lv->t->real->size);

		emit(g, DIF_INSN_R(lv->t->real->k == TK_STRING ? DIF_OP_COPYSTR :
				   DIF_OP_COPYS, val, sz, a));
		rfree(g, sz);
	} else if (lv->k == N_MEMBER && lv->mem->bits) {
		/* read-modify-write the unit */
		const struct dmember *m = lv->mem;
		__u64 mask = (m->bits == 64 ? ~0ULL : ((1ULL << m->bits) - 1)) << m->bitoff;
		int old = ralloc(g, lv), v2;

		emit(g, DIF_INSN_R(DIF_OP_MOV, a, 0, old));
		bf_load(g, lv, old);	/* before v2: a byte-wise load takes 3 */
		op_const(g, lv, DIF_OP_AND, old, ~mask);
		v2 = ralloc(g, lv);
		emit(g, DIF_INSN_R(DIF_OP_MOV, val, 0, v2));
		op_const(g, lv, DIF_OP_SLL, v2, m->bitoff);
		op_const(g, lv, DIF_OP_AND, v2, mask);
		emit(g, DIF_INSN_R(DIF_OP_OR, old, v2, old));
		bf_store(g, lv, a, old);
		rfree(g, v2);
		rfree(g, old);
	} else {
		store(g, a, val, lv->t);
	}
	rfree(g, a);
	(void)u;
}

static int assign(struct cg *g, struct node *n)
{
	struct node *lv = n->a;
	int r;

	if (n->op == T_ASSIGN) {
		r = expr(g, n->b);
		convert(g, n, r, n->b->t, lv->t);
	} else {
		int r2;

		r = lv_load(g, lv);	/* a bit-field comes back extracted */
		r2 = expr(g, n->b);
		if (lv->t->real->k == TK_PTR)
			scale(g, n, r2, lv->t);
		{
			/* the operation happens in the promoted types' common type */
			struct node tmp = *n;

			tmp.t = type_arith(lv->t->real->k == TK_PTR ? dt_ulong : lv->t,
					   n->b->t);
			if (n->op == T_SHLEQ || n->op == T_SHREQ)
				tmp.t = type_promote(lv->t->real->k == TK_PTR ? dt_ulong : lv->t);
			emit(g, DIF_INSN_R(arith_op(&tmp, n->op), r, r2, r));
		}
		rfree(g, r2);
		convert(g, n, r, type_arith(lv->t->real->k == TK_PTR ? dt_ulong : lv->t,
					    n->b->t), lv->t);
	}
	lv_store(g, lv, r);
	return r;
}

static int incdec(struct cg *g, struct node *n)
{
	struct node *lv = n->a;
	int r = lv_load(g, lv), nv;
	unsigned step = 1;

	if (lv->t->real->k == TK_PTR && lv->t->real->base->real->size)
		step = lv->t->real->base->real->size;
	nv = ralloc(g, n);
	emit(g, DIF_INSN_R(DIF_OP_MOV, r, 0, nv));
	op_const(g, n, n->op == T_INC ? DIF_OP_ADD : DIF_OP_SUB, nv, step);
	convert(g, n, nv, type_promote(lv->t), lv->t);
	lv_store(g, lv, nv);
	if (n->post) {
		rfree(g, nv);
		return r;
	}
	emit(g, DIF_INSN_R(DIF_OP_MOV, nv, 0, r));
	rfree(g, nv);
	return r;
}

static int expr(struct cg *g, struct node *n)
{
	int r, r2, br, ba;
	long long c;

	switch (n->k) {
	case N_INT:
		return setx(g, n, (__u64)n->ival);
	case N_STR:
		r = ralloc(g, n);
		emit(g, DIF_INSN_I(DIF_OP_SETS, strconst(g, n), r));
		return r;
	case N_VAR:
		r = ralloc(g, n);
		emit(g, DIF_INSN_I(DIF_OP_LDV, n->var, r));
		return r;
	case N_UREGS:
		r = expr(g, n->a);
		emit(g, DIF_INSN_R(DIF_OP_LDUREG, r, 0, r));
		return r;
	case N_ARGS:
		if (sema_constval(n->a, &c) && c >= 0 && c < 10) {
			r = ralloc(g, n);
			emit(g, DIF_INSN_I(DIF_OP_LDV, DIF_VAR_ARG0 + (int)c, r));
			return r;
		}
		r = expr(g, n->a);
		emit(g, DIF_INSN_R(DIF_OP_LDARG, r, 0, r));
		return r;
	case N_DVAR: case N_SELF: case N_THIS: case N_INDEX:
		return lv_load(g, n);
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
	case N_CAST:
		r = expr(g, n->a);
		convert(g, n, r, n->a->t, n->ct);
		return r;
	case N_DEREF:
		r = expr(g, n->a);
		load(g, r, n->t);
		return r;
	case N_MEMBER:
		r = address(g, n, 0);
		if (n->mem->bits) {
			bf_load(g, n, r);
			bitfield(g, n, r);
		} else {
			load(g, r, n->t);
		}
		return r;
	case N_ADDR:
		return address(g, n->a, 0);
	case N_BIN: {
		long long c;

		/* an integer constant expression is one value (as dt_cook) */
		if (type_is_int(n->t) && sema_constval(n, &c))
			return setx(g, n, (__u64)c);
		return binary(g, n);
	}
	case N_ASSIGN:
		return assign(g, n);
	case N_INCDEC:
		return incdec(g, n);
	case N_CALL:
		if (n->var < 0) {	/* alloca */
			r = expr(g, n->args[0]);
			emit(g, DIF_INSN_R(DIF_OP_ALLOCS, r, 0, r));
			return r;
		}
		push_tuple(g, n->args, n->nargs);
		r = ralloc(g, n);
		emit(g, DIF_INSN_I(DIF_OP_CALL, n->var, r));
		return r;
	case N_STRINGOF:
		return expr(g, n->a);
	case N_COMMA:
		rfree(g, expr(g, n->a));	/* for its effects only */
		return expr(g, n->b);
	case N_XLATE: {
		/*
		 * A whole translated struct: in zeroed scratch, each member the
		 * translator defines stored at its offset.
		 */
		const struct dtype *o = n->ct->real->k == TK_PTR ?
			n->ct->real->base->real : n->ct->real;

		r = setx(g, n, o->size);
		emit(g, DIF_INSN_R(DIF_OP_ALLOCS, r, 0, r));
		for (int i = 0; i < n->nargs; i++) {
			const struct dmember *m = type_member(o, n->xl->mnames[i]);
			int v = expr(g, n->args[i]), a = ralloc(g, n);

			emit(g, DIF_INSN_R(DIF_OP_MOV, r, 0, a));
			if (m->off)
				op_const(g, n, DIF_OP_ADD, a, m->off);
			if (type_is_byref(m->t)) {
				int sz = setx(g, n, m->t->real->size);

				emit(g, DIF_INSN_R(m->t->real->k == TK_STRING ?
						   DIF_OP_COPYSTR : DIF_OP_COPYS,
						   v, sz, a));
				rfree(g, sz);
			} else {
				convert(g, n, v, n->args[i]->t, m->t);
				store(g, a, v, m->t);
			}
			rfree(g, a);
			rfree(g, v);
		}
		return r;
	}
	default:
		dt_cerrt(g->lx, DT_D_CG_EXPR, n->line, n->col,
			 "expression cannot be compiled");
	}
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

int cg_difo_effects(struct prog *p, struct lexer *lx, struct node **es, int n)
{
	struct cg g = { .p = p, .lx = lx };

	p->difos = xrealloc(p->difos, (p->ndifos + 1) * sizeof(*p->difos));
	g.d = &p->difos[p->ndifos];
	memset(g.d, 0, sizeof(*g.d));
	g.d->rtype = XDT_TYPE_INT;
	for (int i = 0; i < n; i++)
		rfree(&g, expr(&g, es[i]));
	emit(&g, DIF_INSN_R(DIF_OP_RET, 0, 0, 0));
	return p->ndifos++;
}

int prog_add_action(struct prog *p, __u32 kind, int difo, __u32 arg0, __u32 arg1)
{
	p->acts = xrealloc(p->acts, (p->nacts + 1) * sizeof(*p->acts));
	p->acts[p->nacts] = (struct xdt_action){ kind, difo, arg0, arg1 };
	return p->nacts++;
}

/*
 * -x temporal (illumos' option): the consumer prints the CPUs' records in
 * time order, so every record that is written carries its firing's
 * timestamp first (the kernel's fixed-per-firing `timestamp`).  Each
 * clause that records gets one more kernel action, a RECORD of
 * `timestamp`, as its first data action (after speculate(), which must
 * come before any data), numbered as no D statement (dact 0); it is not
 * one of the clause's values (recs[]), so printing, JSON and the
 * structured API see the same values as without the option; only the
 * layout moves by 8 (prog_layout) and the consumer reads it at the
 * record's first value slot.  Trade-off: 8 bytes and one DIF run per
 * record, paid only with the option; records stay in per-CPU buffers
 * (no cross-CPU ordering in probe context).  Clauses that write no
 * record (aggregations only) get nothing.  Done after each compile for
 * the clauses it added.
 */
void prog_temporal(struct prog *p)
{
	struct xdt_action *acts, tsact = { XDT_ACT_RECORD, -1, 0, 0 };
	int n = 0, need = 0;

	if (!p->temporal)
		return;
	for (int i = 0; i < p->nclauses; i++)
		need += !p->clauses[i].ts;
	if (!need)
		return;
	/* ldv timestamp, %r1; ret %r1 */
	p->difos = xrealloc(p->difos, (p->ndifos + 1) * sizeof(*p->difos));
	memset(&p->difos[p->ndifos], 0, sizeof(p->difos[0]));
	p->difos[p->ndifos].insns = xzalloc(2 * sizeof(__u32));
	p->difos[p->ndifos].insns[0] = DIF_INSN_I(DIF_OP_LDV, DIF_VAR_TIMESTAMP, 1);
	p->difos[p->ndifos].insns[1] = DIF_INSN_R(DIF_OP_RET, 0, 0, 1);
	p->difos[p->ndifos].ninsns = 2;
	p->difos[p->ndifos].rtype = XDT_TYPE_INT;
	tsact.difo = p->ndifos++;
	acts = xzalloc((p->nacts + p->nclauses) * sizeof(*acts));
	for (int i = 0; i < p->nclauses; i++) {
		struct clause *c = &p->clauses[i];
		int add = 0, at = 0, a0 = n, *dact;

		if (!c->ts) {
			c->ts = c->nrecs || c->record ? 1 : -1;
			add = c->ts > 0;
		}
		for (int k = 0; add && c->spec && k < c->nactions; k++)
			if (p->acts[c->action0 + k].kind == XDT_ACT_SPECULATE)
				at = k + 1;
		for (int k = 0; k <= c->nactions; k++) {
			if (add && k == at)
				acts[n++] = tsact;
			if (k < c->nactions)
				acts[n++] = p->acts[c->action0 + k];
		}
		c->action0 = a0;
		if (!add)
			continue;
		/* a fresh dact: "a, b { }"'s clauses share theirs */
		dact = xzalloc((c->nactions + 1) * sizeof(*dact));
		for (int k = 0, j = 0; k <= c->nactions; k++)
			dact[k] = k == at ? 0 : c->dact[j++];
		c->dact = dact;
		c->nactions++;
	}
	xfree(p->acts);
	p->acts = acts;
	p->nacts = n;
}

/*
 * Where each recorded value lands: 8-aligned after the header, in order,
 * as the kernel lays them out (core/portable/load.c): an integer 8 bytes, a
 * string its slot (strsize, or less: rec_strslot), a stack 8 per frame.
 */
void prog_layout(struct prog *p)
{
	for (int i = 0; i < p->nclauses; i++) {
		struct clause *c = &p->clauses[i];
		/* -x temporal's timestamp is first, before every value */
		unsigned off = sizeof(struct xdt_rechdr) + (c->ts > 0 ? 8 : 0);

		for (int k = 0; k < c->nrecs; k++) {
			off = (off + 7) & ~7u;
			c->recs[k].off = off;
			off += c->recs[k].type == XDT_TYPE_STRING ?
			       rec_strslot(p, &c->recs[k]) :
			       DT_IS_STACK(c->recs[k].type) ? 8 * c->recs[k].nframes :
			       c->recs[k].type == DT_TYPE_MEM ? c->recs[k].nframes : 8;
		}
		c->recsize = off;
	}
}
