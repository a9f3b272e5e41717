// SPDX-License-Identifier: GPL-2.0
/*
 * lower.c - a clause's statements, as the parser read them, to clauses,
 * actions, records and DIF: actions from one table (d_actions[]),
 * aggregations, DTrace's speculation rules, and if/else as DTrace's sugar
 * (parse.c's header says how).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"


/*
 * What a statement is, for DTrace's rules on speculations and commits
 * (dt_cc.c's checks, with its tags and messages): recording data, an
 * aggregation, speculate, commit, exit (records too), destructive, or
 * none of these (discard, assignments and other expressions).
 */
enum { CF_DREC = 1, CF_AGG = 2, CF_SPEC = 4, CF_COMMIT = 8 };

/*
 * DTrace's rules, in dt_cc.c's order: a statement of kind k may not follow
 * one that set any of @after in the clause.
 */
static const struct {
	enum spkind k;
	unsigned after;
	int tag;
	const char *msg;
} sp_rules[] = {
	{ SK_COMMIT, CF_COMMIT, DT_D_COMM_COMM, "commit( ) may not follow commit( )" },
	{ SK_COMMIT, CF_DREC | CF_AGG, DT_D_COMM_DREC,
	  "commit( ) may not follow data-recording action(s)" },
	{ SK_SPEC, CF_SPEC, DT_D_SPEC_SPEC, "speculate( ) may not follow speculate( )" },
	{ SK_SPEC, CF_COMMIT, DT_D_SPEC_COMM, "speculate( ) may not follow commit( )" },
	{ SK_SPEC, CF_DREC | CF_AGG, DT_D_SPEC_DREC,
	  "speculate( ) may not follow data-recording action(s)" },
	{ SK_AGG, CF_COMMIT, DT_D_AGG_COMM, "aggregating actions may not follow commit( )" },
	{ SK_AGG, CF_SPEC, DT_D_AGG_SPEC, "aggregating actions may not follow speculate( )" },
	{ SK_DESTR, CF_SPEC, DT_D_ACT_SPEC,
	  "destructive actions may not follow speculate( )" },
	{ SK_EXIT, CF_SPEC, DT_D_EXIT_SPEC, "exit( ) may not follow speculate( )" },
	/* exit() records its value */
	{ SK_EXIT, CF_COMMIT, DT_D_DREC_COMM,
	  "data-recording actions may not follow commit( )" },
	{ SK_DREC, CF_COMMIT, DT_D_DREC_COMM,
	  "data-recording actions may not follow commit( )" },
};

static void need_piece(struct lower *L);

static void spec_rules(struct lower *L, enum spkind k, int line, int col)
{
	need_piece(L);		/* the rules are the statement's piece's */
	for (size_t i = 0; i < sizeof(sp_rules) / sizeof(sp_rules[0]); i++)
		if (sp_rules[i].k == k && (L->cflags & sp_rules[i].after))
			dt_cerrt(&L->ps->lx, sp_rules[i].tag, line, col, "%s",
				 sp_rules[i].msg);
	/* what the statement makes the clause have done */
	if (k == SK_COMMIT)
		L->cflags |= CF_COMMIT;
	else if (k == SK_SPEC)
		L->cflags |= CF_SPEC;
	else if (k == SK_AGG)
		L->cflags |= CF_AGG;
	else if ((k == SK_EXIT || k == SK_DREC) && !(L->cflags & CF_SPEC))
		L->cflags |= CF_DREC;	/* speculative data does not count */
}



static struct node *var_node(struct dvar *v, int line, int col)
{
	struct node *n = node_new(N_THIS, line, col);

	n->s = v->name;
	return n;
}

/* A predicate difo reading this->guard. */
static int guard_pred(struct lower *L, struct dvar *g)
{
	struct node *n = sema_expr(L->ps->p, &L->ps->lx, var_node(g, L->line, L->col));

	return cg_difo(L->ps->p, &L->ps->lx, n);
}


/* Start a new piece (clause) for the current guard. */
void new_piece(struct lower *L)
{
	struct parser *ps = L->ps;

	flush_exprs(L);
	ps->cl = new_clause(ps, L->desc, L->line, L->col, L->src);
	CL(ps)->pred = L->guard ? guard_pred(L, L->guard) : L->pred;
	L->npieces++;
	/*
	 * DTrace's speculation rules hold per clause, and its sugar makes each
	 * piece a clause of its own (dt_sugar.c, then dt_compile_one_clause):
	 * `printf(); if (c) { speculate(s); ... }` is a recording piece and
	 * a speculative one.
	 */
	L->cflags = 0;
}

static void need_piece(struct lower *L)
{
	if (L->ps->cl < 0)
		new_piece(L);
}

/* A kernel action of the current piece, numbered as DTrace numbers it. */
static void clause_act(struct parser *ps, __u32 kind, int difo, __u32 a0,
		       __u32 a1)
{
	struct clause *c = CL(ps);

	prog_add_action(ps->p, kind, difo, a0, a1);
	c->dact = xrealloc(c->dact, (c->nactions + 1) * sizeof(*c->dact));
	c->dact[c->nactions++] = c->dcur ? c->dcur : ++c->dnum;
}

void flush_exprs(struct lower *L)
{
	struct parser *ps = L->ps;
	int d;

	if (!L->npend)
		return;
	d = cg_difo_effects(ps->p, &ps->lx, L->pend, L->npend);
	CL(ps)->dcur = ++CL(ps)->dnum;
	clause_act(ps, XDT_ACT_DIFEXPR, d, 0, 0);
	L->npend = 0;
}

/* A D statement starts: DTrace's next action number. */
static void begin_dact(struct lower *L)
{
	need_piece(L);
	flush_exprs(L);
	CL(L->ps)->dcur = ++CL(L->ps)->dnum;
}

static void add_act(struct lower *L, __u32 kind, int difo, __u32 a0, __u32 a1)
{
	struct parser *ps = L->ps;

	need_piece(L);
	flush_exprs(L);
	clause_act(ps, kind, difo, a0, a1);
}

static void add_out(struct lower *L, enum outkind k, char *fmt, int nargs)
{
	struct clause *c;

	need_piece(L);
	flush_exprs(L);
	c = CL(L->ps);
	c->outs = xrealloc(c->outs, (c->nouts + 1) * sizeof(*c->outs));
	c->outs[c->nouts] = (struct outst){ .k = k, .fmt = fmt, .nargs = nargs,
					    .rec0 = c->nrecs };
	c->nouts++;
}

static int value_type(struct node *e)
{
	return type_is_strlike(e->t) ? XDT_TYPE_STRING : XDT_TYPE_INT;
}

/*
 * The slot a recorded string needs when its length has a bound below
 * strsize, else 0 (strsize).  Only execname's is known (a task's comm):
 * printf("%s", execname) at strsize 256 made a 272-byte record of which
 * 16 bytes could ever be used, and a tenth as many records fit a buffer
 * (bench/README.md, records/s against bpftrace).
 */
static unsigned str_slot(const struct prog *p, const struct node *e)
{
	if (e->k == N_VAR && e->var == DIF_VAR_EXECNAME &&
	    XDT_EXECNAME_MAX < p->strsize)
		return XDT_EXECNAME_MAX;
	return 0;
}

/* A value the clause records: its action, and its slot in the record. */
static void add_rec(struct lower *L, struct node *e, int exit)
{
	struct parser *ps = L->ps;
	struct clause *c;
	int d, ty = value_type(e);
	unsigned slot = ty == XDT_TYPE_STRING && !exit ? str_slot(ps->p, e) : 0;

	e->type = ty;
	d = cg_difo(ps->p, &ps->lx, e);
	add_act(L, exit ? XDT_ACT_EXIT :
		ty == XDT_TYPE_STRING ? XDT_ACT_STRING : XDT_ACT_RECORD, d,
		slot, 0);
	c = CL(ps);
	c->recs = xrealloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
	c->recs[c->nrecs].type = ty;
	c->recs[c->nrecs].t = e->t;
	c->recs[c->nrecs].off = 0;
	c->recs[c->nrecs].nframes = slot;
	c->recs[c->nrecs].name = e->text;
	c->nrecs++;
}

/* @size bytes at the address @e computes (type @t, or NULL: raw memory) */
static void mem_rec(struct lower *L, struct node *e, struct dtype *t,
		    unsigned size)
{
	struct parser *ps = L->ps;
	struct clause *c;

	e->type = XDT_TYPE_INT;		/* the DIF value is the address */
	add_act(L, XDT_ACT_MEMREF, cg_difo(ps->p, &ps->lx, e), size, 0);
	c = CL(ps);
	c->recs = xrealloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
	c->recs[c->nrecs] = (struct recval){ DT_TYPE_MEM, t, 0, size, e->text };
	c->nrecs++;
}

/*
 * trace()'s and print()'s value, recorded as DTrace records it: a string
 * as a string, a struct, union or array as its bytes (a memory record of
 * its size, read at its address), anything else as an integer of its type.
 */
static void add_val(struct lower *L, struct node *e)
{
	struct parser *ps = L->ps;
	struct dtype *r = e->t->real;
	unsigned size = r->size;

	if (r->k == TK_STRING || !type_is_byref(e->t)) {
		add_rec(L, e, 0);
		return;
	}
	if (!size || size > XDT_MAXMEMREF)
		dt_cerrt(&ps->lx, DT_D_PROTO_ARG, e->line, e->col,
			 "cannot trace %s: %u bytes (1 to %u)", type_str(e->t),
			 size, XDT_MAXMEMREF);
	mem_rec(L, e, e->t, size);
}

/* Values that must be D expressions: not void, not aggregations, typed. */
static struct node *value(struct lower *L, struct node *e)
{
	e = sema_expr(L->ps->p, &L->ps->lx, e);
	if (e->t->real->k == TK_VOID)
		dt_cerrt(&L->ps->lx, DT_D_TRACE_VOID, e->line, e->col,
			 "expression has void type");
	return e;
}

/*
 * ufunc(a), usym(a), umod(a), uaddr(a): @a with the pid whose objects name
 * it, as two recorded (or key) words: XDT_USYM_TAG | form << 32 | pid by
 * DIF the compiler writes, and a's value.  sym(a), func(a), mod(a): the
 * kernel's, the same two words without a pid (DTrace's DTRACEACT_SYM is
 * both sym() and func(), as DTRACEACT_USYM is both usym() and ufunc()).
 */
static int usym_form(const char *name)
{
	return !strcmp(name, "ufunc") ? XDT_USYM_FUNC :
	       !strcmp(name, "usym") ? XDT_USYM_SYM :
	       !strcmp(name, "umod") ? XDT_USYM_MOD :
	       !strcmp(name, "uaddr") ? XDT_USYM_ADDR :
	       !strcmp(name, "mod") ? XDT_KSYM_MOD : XDT_KSYM_SYM;
}

static int sym_type(const char *name)
{
	return XDT_USYM_KERNEL(usym_form(name)) ? DT_TYPE_KSYM : DT_TYPE_USYM;
}

static struct node *usym_word(struct lower *L, const char *name, int line,
			      int col)
{
	struct node *pid, *tag, *or;

	tag = node_new(N_INT, line, col);
	tag->ival = (long long)(XDT_USYM_TAG |
				((unsigned long long)usym_form(name) << 32));
	tag->t = dt_uint64;
	if (XDT_USYM_KERNEL(usym_form(name)))
		return sema_expr(L->ps->p, &L->ps->lx, tag);
	pid = node_new(N_IDENT, line, col);
	pid->s = xstrdup("pid");
	or = node_new(N_BIN, line, col);
	or->op = T_OR;
	or->a = pid;
	or->b = tag;
	or->text = NULL;
	return sema_expr(L->ps->p, &L->ps->lx, or);
}

/*
 * stack([n]): the number of frames, DT_STACKFRAMES if none; n must be an
 * integer constant expression, 1..XDT_MAXSTACK.
 */
static unsigned stack_frames(struct lower *L, struct token t, struct node **av, int n)
{
	struct lexer *lx = &L->ps->lx;
	struct node *e;
	long long v;

	if (n == 0)
		return L->ps->env->stackframes ? L->ps->env->stackframes : DT_STACKFRAMES;
	if (n > 1)
		dt_cerrt(lx, DT_D_STACK_PROTO, av[1]->line, av[1]->col,
			 "stack( ) prototype mismatch: too many arguments");
	(void)t;
	e = sema_expr(L->ps->p, lx, av[0]);
	if (!type_is_int(e->t) || !sema_constval(e, &v) || v <= 0)
		dt_cerrt(lx, DT_D_STACK_SIZE, e->line, e->col,
			 "stack( ) size must be a non-zero positive integral constant expression");
	if (v > XDT_MAXSTACK)
		dt_cerrt(lx, DT_D_STACK_SIZE, e->line, e->col,
			 "stack( ) size %lld exceeds the maximum of %d frames", v,
			 XDT_MAXSTACK);
	return (unsigned)v;
}

/*
 * ustack([n[, strsize]]): the words its record takes, the pid's and n
 * frames (DT_USTACKFRAMES, or -x ustackframes, if none); both arguments
 * integer constant expressions, n 1..XDT_MAXSTACK.  strsize is DTrace's
 * room for a helper's frame strings (jstack): no helper annotates frames
 * here, so it is checked and not used.
 */
static unsigned ustack_words(struct lower *L, struct node **av, int n,
			     int java)
{
	struct lexer *lx = &L->ps->lx;
	struct node *e;
	long long v;

	if (n > 2)
		dt_cerrt(lx, DT_D_USTACK_PROTO, av[2]->line, av[2]->col,
			 "ustack( ) prototype mismatch: too many arguments");
	for (int i = 1; i < n; i++) {
		e = sema_expr(L->ps->p, lx, av[i]);
		if (!type_is_int(e->t) || !sema_constval(e, &v) || v < 0)
			dt_cerrt(lx, DT_D_USTACK_STRSIZE, e->line, e->col,
				 "ustack( ) string size must be a non-negative integral constant expression");
	}
	if (n == 0 && java)
		return 1 + (L->ps->env->jstackframes ? L->ps->env->jstackframes :
			    DT_JSTACKFRAMES);
	if (n == 0)
		return 1 + (L->ps->env->ustackframes ? L->ps->env->ustackframes :
			    DT_USTACKFRAMES);
	e = sema_expr(L->ps->p, lx, av[0]);
	if (!type_is_int(e->t) || !sema_constval(e, &v) || v <= 0)
		dt_cerrt(lx, DT_D_USTACK_FRAMES, e->line, e->col,
			 "ustack( ) frames must be a non-zero positive integral constant expression");
	if (v > XDT_MAXSTACK)
		dt_cerrt(lx, DT_D_USTACK_FRAMES, e->line, e->col,
			 "ustack( ) frames %lld exceeds the maximum of %d frames", v,
			 XDT_MAXSTACK);
	return 1 + (unsigned)v;
}

/*
 * printf(): the format is parsed once here into descriptors (printf.c),
 * checked against the arguments' types as DTrace checks them, and kept
 * with the output statement for the consumer.  Arguments that are not
 * values get DTrace's diagnostics there too: a stack() is a value of its
 * own kind (%k), an aggregation (@a) or a nested action has no type a
 * conversion takes (D_PRINTF_ARG_TYPE, as in DTrace).
 */
static void lower_printf(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct parser *ps = L->ps;
	struct lexer *lx = &ps->lx;
	struct token t = s->tok;
	struct node **av = s->args;
	int n = s->nargs, i;
	struct pfarg *pa = xzalloc((n > 1 ? n : 1) * sizeof(*pa));
	unsigned *nframes = xzalloc((n > 1 ? n : 1) * sizeof(*nframes));
	struct pfcheck chk = { L->ps->env->target > 0, NULL };
	struct pformat *pf;
	struct clause *c;

	(void)a;
	for (i = 1; i < n; i++) {
		struct node *e = av[i];

		pa[i - 1] = (struct pfarg){ PFA_VALUE, NULL, e->line, e->col };
		if (e->k == N_CALL && !strcmp(e->s, "stack")) {
			struct token st = { .line = e->line, .col = e->col };

			pa[i - 1].kind = PFA_STACK;
			nframes[i] = stack_frames(L, st, e->args, e->nargs);
		} else if (e->k == N_CALL && is_action(e->s)) {
			pa[i - 1].kind = PFA_VOID;
		} else if (e->k == N_IDENT && e->s[0] == '@') {
			pa[i - 1].kind = PFA_AGG;	/* printf_args() */
		} else {
			av[i] = value(L, e);
			pa[i - 1].t = av[i]->t;
		}
	}
	/* as DTrace, the arguments are typed before the format is read */
	if (av[0]->k != N_STR) {
		struct node *f = av[0];
		const char *what = f->k == N_CALL && !strcmp(f->s, "stack") ? "stack" :
				   f->k == N_CALL && is_action(f->s) ? "void" :
				   f->k == N_IDENT && f->s[0] == '@' ? "aggregation" :
				   type_str(value(L, f)->t);

		dt_cerrt(lx, DT_D_PRINTF_ARG_FMT, f->line, f->col,
			 "%s( ) argument #1 is incompatible with prototype:\n"
			 "\tprototype: string constant\n\t argument: %s", t.s, what);
	}
	/* DTrace's freopen(".") is its own sentinel for freopen(""): refused */
	if (!strcmp(t.s, "freopen") && !strcmp(av[0]->s, "."))
		dt_cerrt(lx, DT_D_FREOPEN_INVALID, t.line, t.col,
			 "freopen( ) argument #1 cannot be \".\"");
	pf = pf_create(lx, av[0]->line, av[0]->col, av[0]->s);
	pf_validate(lx, pf, &chk, t.s, 1, pa, n - 1, 1, av[0]->line, av[0]->col);
	add_out(L, !strcmp(t.s, "system") ? OUT_SYSTEM :
		!strcmp(t.s, "freopen") ? OUT_FREOPEN : OUT_PRINTF, av[0]->s, n - 1);
	c = CL(ps);
	c->outs[c->nouts - 1].pf = pf;
	c->record = 1;
	for (i = 1; i < n; i++) {
		if (pa[i - 1].kind == PFA_STACK) {
			add_act(L, XDT_ACT_STACK, -1, nframes[i], 0);
			c = CL(ps);
			c->recs = xrealloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
			c->recs[c->nrecs++] = (struct recval){ DT_TYPE_STACK, NULL, 0,
							       nframes[i], av[i]->text };
		} else {
			add_rec(L, av[i], 0);
		}
	}
	xfree(pa);
	xfree(nframes);
}

/* The aggregating functions' D arguments (XDT_AGGFUNCS): fewest, most */
static const int aggfunc_nargs[XDT_NAGGFUNCS][2] = {
#define AGG_NARGS(name, v, dname, nvals, amin, amax) [v] = { amin, amax },
	XDT_AGGFUNCS(AGG_NARGS)
#undef AGG_NARGS
};

/* An integer-constant parameter of lquantize/llquantize, or a tagged error. */
static long long agg_param(struct lower *L, struct node *n, int tag,
			   const char *fmt, int argno, const char *what)
{
	long long v;

	n = sema_expr(L->ps->p, &L->ps->lx, n);
	if (!type_is_int(n->t) || !sema_constval(n, &v))
		dt_cerrt(&L->ps->lx, tag, n->line, n->col, fmt, argno, what);
	return v;
}

/*
 * lquantize(v, base, limit[, step[, incr]]) and llquantize(v, factor, low,
 * high, steps[, incr]): DTrace's checks, in DTrace's order with its tags,
 * and the packed parameters (XDT_LQ_ARG / XDT_LLQ_ARG).  Returns the index
 * of the increment argument (nargs if there is none).
 */
static int quant_params(struct lower *L, struct stmt *s, int f, __u64 *arg)
{
	struct lexer *lx = &L->ps->lx;
	struct token ft = s->ftok;
	struct node **a = s->args;

	if (f == XDT_AGG_LQUANTIZE) {
		long long base, lim, step = 1, levels;

		base = agg_param(L, a[1], DT_D_LQUANT_BASETYPE,
				 "lquantize( ) argument #%d must be an integer constant%s",
				 1, "");
		if (base < INT32_MIN || base > INT32_MAX)
			dt_cerrt(lx, DT_D_LQUANT_BASEVAL, a[1]->line, a[1]->col,
				 "lquantize( ) argument #1 must be a 32-bit quantity");
		lim = agg_param(L, a[2], DT_D_LQUANT_LIMTYPE,
				"lquantize( ) argument #%d must be an integer constant%s",
				2, "");
		if (lim < INT32_MIN || lim > INT32_MAX)
			dt_cerrt(lx, DT_D_LQUANT_LIMVAL, a[2]->line, a[2]->col,
				 "lquantize( ) argument #2 must be a 32-bit quantity");
		if (lim < base)
			dt_cerrt(lx, DT_D_LQUANT_MISMATCH, ft.line, ft.col,
				 "lquantize( ) base (argument #1) must be less than limit (argument #2)");
		if (s->nargs > 3) {
			step = agg_param(L, a[3], DT_D_LQUANT_STEPTYPE,
					 "lquantize( ) argument #%d must be a non-zero positive integer constant%s",
					 3, "");
			if (step <= 0)
				dt_cerrt(lx, DT_D_LQUANT_STEPTYPE, a[3]->line, a[3]->col,
					 "lquantize( ) argument #3 must be a non-zero positive integer constant");
			if (step > UINT16_MAX)
				dt_cerrt(lx, DT_D_LQUANT_STEPVAL, a[3]->line, a[3]->col,
					 "lquantize( ) argument #3 must be a 16-bit quantity");
		}
		levels = (lim - base) / step;
		if (levels == 0)
			dt_cerrt(lx, DT_D_LQUANT_STEPLARGE, ft.line, ft.col,
				 "lquantize( ) step (argument #3) too large: must have at least one quantization level");
		if (levels > UINT16_MAX)
			dt_cerrt(lx, DT_D_LQUANT_STEPSMALL, ft.line, ft.col,
				 "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity");
		*arg = XDT_LQ_ARG(base, step, levels);
		return 4;
	} else {
		static const struct { const char *what; int type, val; } la[4] = {
			{ "factor", DT_D_LLQUANT_FACTORTYPE, DT_D_LLQUANT_FACTORVAL },
			{ "low magnitude", DT_D_LLQUANT_LOWTYPE, DT_D_LLQUANT_LOWVAL },
			{ "high magnitude", DT_D_LLQUANT_HIGHTYPE, DT_D_LLQUANT_HIGHVAL },
			{ "linear steps per magnitude", DT_D_LLQUANT_NSTEPTYPE,
			  DT_D_LLQUANT_NSTEPVAL },
		};
		unsigned long long v[4], o;
		int i;

		for (i = 0; i < 4; i++) {
			v[i] = (unsigned long long)agg_param(L, a[i + 1], la[i].type,
				"llquantize( ) argument #%d (%s) must be an integer constant",
				i + 1, la[i].what);
			if (v[i] > UINT16_MAX)
				dt_cerrt(lx, la[i].val, a[i + 1]->line, a[i + 1]->col,
					 "llquantize( ) argument #%d (%s) must be an unsigned 16-bit quantity",
					 i + 1, la[i].what);
		}
		if (v[0] < 2)
			dt_cerrt(lx, DT_D_LLQUANT_FACTORSMALL, ft.line, ft.col,
				 "llquantize( ) factor (argument #1) must be two or more");
		if (v[1] >= v[2])
			dt_cerrt(lx, DT_D_LLQUANT_MAGRANGE, ft.line, ft.col,
				 "llquantize( ) high magnitude (argument #3) must be greater than low magnitude (argument #2)");
		if (v[3] < v[0])
			dt_cerrt(lx, DT_D_LLQUANT_FACTORNSTEPS, ft.line, ft.col,
				 "llquantize( ) factor (argument #1) must be less than or equal to the number of linear steps per magnitude (argument #4)");
		for (o = v[0]; o < v[3]; o *= v[0])
			;
		if (v[3] % v[0] || o % v[3])
			dt_cerrt(lx, DT_D_LLQUANT_FACTOREVEN, ft.line, ft.col,
				 "llquantize( ) factor (argument #1) must evenly divide the number of steps per magnitude (argument #4), and the number of steps per magnitude must evenly divide a power of the factor");
		for (i = 0, o = 1; i <= (int)v[2] + 1; i++) {
			if (o * v[0] / v[0] != o)
				dt_cerrt(lx, DT_D_LLQUANT_MAGTOOBIG, ft.line, ft.col,
					 "llquantize( ) factor (%llu) raised to power of high magnitude (%llu) plus 1 overflows 64-bits",
					 v[0], v[2]);
			o *= v[0];
		}
		*arg = XDT_LLQ_ARG(v[0], v[1], v[2], v[3]);
		if (!xdt_agg_nvals(XDT_AGG_LLQUANTIZE, *arg))
			dt_cerrt(lx, DT_D_LLQUANT_MAGTOOBIG, ft.line, ft.col,
				 "llquantize( ) has more than %u buckets", XDT_MAXAGGVALS);
		return 5;
	}
}

/* An lquantize/llquantize redeclared with other parameters: DTrace's errors */
static void quant_mismatch(struct lower *L, struct stmt *s, int f, __u64 o,
			   __u64 n)
{
	struct lexer *lx = &L->ps->lx;
	struct token ft = s->ftok;

	if (f == XDT_AGG_LQUANTIZE) {
		int ob = XDT_LQ_BASE(o), nb = XDT_LQ_BASE(n);
		int os = XDT_LQ_STEP(o), ns = XDT_LQ_STEP(n);
		int ol = XDT_LQ_LEVELS(o), nl = XDT_LQ_LEVELS(n);

		if (ob != nb)
			dt_cerrt(lx, DT_D_LQUANT_MATCHBASE, ft.line, ft.col,
				 "lquantize( ) base (argument #1) doesn't match previous declaration: expected %d, found %d",
				 ob, nb);
		if (ol * os != nl * ns)
			dt_cerrt(lx, DT_D_LQUANT_MATCHLIM, ft.line, ft.col,
				 "lquantize( ) limit (argument #2) doesn't match previous declaration: expected %d, found %d",
				 ob + ol * os, nb + nl * ns);
		dt_cerrt(lx, DT_D_LQUANT_MATCHSTEP, ft.line, ft.col,
			 "lquantize( ) step (argument #3) doesn't match previous declaration: expected %d, found %d",
			 os, ns);
	} else {
		static const struct { const char *what; int tag, shift; } la[4] = {
			{ "factor", DT_D_LLQUANT_FACTORMATCH, 48 },
			{ "low magnitude", DT_D_LLQUANT_LOWMATCH, 32 },
			{ "high magnitude", DT_D_LLQUANT_HIGHMATCH, 16 },
			{ "linear steps per magnitude", DT_D_LLQUANT_NSTEPMATCH, 0 },
		};

		for (int i = 0; i < 4; i++) {
			unsigned e = (unsigned)(o >> la[i].shift) & 0xffff;
			unsigned f2 = (unsigned)(n >> la[i].shift) & 0xffff;

			if (e != f2)
				dt_cerrt(lx, la[i].tag, ft.line, ft.col,
					 "llquantize( ) %s (argument #%d) doesn't match previous declaration: expected %u, found %u",
					 la[i].what, i + 1, e, f2);
		}
	}
}

/* stack() and ustack(): words of frames, one kind of key (DTrace's "stack") */
static int is_stackkey(int k)
{
	return k == DT_TYPE_STACK || k == DT_TYPE_USTACK;
}

/*
 * Once a program's texts are all lowered: the stack keys of an
 * aggregation whose uses differ in a position (stack(5) and stack(20),
 * stack() and ustack()) all get the deepest one's slot, zero-padded
 * (XDT_KEY_STACKARG), so that every entry's key has one length.  Run after
 * each text (a later one may deepen a slot); idempotent.  A clause's k-th
 * stack key before an aggregating action is its aggregation's k-th stack
 * position: the types of a position agree across uses (lower_agg()).
 */
void agg_stack_slots(struct prog *p)
{
	for (int c = 0; c < p->nclauses; c++) {
		const struct clause *cl = &p->clauses[c];
		int pend[DT_MAXKEYS * 2], np = 0;

		for (int a = 0; a < cl->nactions; a++) {
			struct xdt_action *x = &p->acts[cl->action0 + a];
			const struct agg *ag;
			int k = 0;

			if (x->kind == XDT_ACT_AGGKEY &&
			    (x->arg0 == XDT_KEY_STACK || x->arg0 == XDT_KEY_USTACK)) {
				if (np < DT_MAXKEYS * 2)
					pend[np++] = cl->action0 + a;
				continue;
			}
			if (x->kind != XDT_ACT_AGG)
				continue;
			ag = &p->aggs[x->arg0];
			for (int i = 0; i < ag->nkeys && k < np; i++) {
				struct xdt_action *y;

				if (!is_stackkey(ag->keytype[i]))
					continue;
				y = &p->acts[pend[k++]];
				y->arg1 = XDT_KEY_STACKARG(XDT_KEY_WORDS(y->arg1),
							   ag->keymixed[i] ?
							   ag->keyframes[i] :
							   XDT_KEY_WORDS(y->arg1));
			}
			np = 0;
		}
	}
}

static const char *keyname(int k)
{
	return k == XDT_TYPE_STRING ? "string" : k == DT_TYPE_STACK ? "stack" :
	       k == DT_TYPE_USTACK ? "ustack" : k == DT_TYPE_USYM ? "usym" :
	       k == DT_TYPE_KSYM ? "sym" : "int";
}

static void agg_layout(struct lower *L, struct agg *ag, struct node **keys,
		       const int *ktype, const unsigned *kframes,
		       struct token at);

static void lower_agg(struct lower *L, struct stmt *s)
{
	struct parser *ps = L->ps;
	struct lexer *lx = &ps->lx;
	struct token at = s->tok, ft = s->ftok;
	struct prog *p = ps->p;
	struct node *keys[DT_MAXKEYS], *v = NULL;
	int ktype[DT_MAXKEYS];
	unsigned kframes[DT_MAXKEYS];
	int f, id, i, nkeys = s->nkeys, amin, amax, iarg = 0;
	struct node *incr = NULL;
	__u64 qarg = 0;
	struct agg *ag;

	for (i = 0; i < nkeys; i++) {
		struct node *k = s->keys[i];

		if (k->k == N_CALL && (k->ival == 1 || k->ival == 2)) {
			struct token st = { .line = k->line, .col = k->col };

			if (k->ival == 2) {
				if (k->nargs != 1)
					dt_cerrt(lx, DT_D_PROTO_LEN, k->line, k->col,
						 "%s( ) prototype mismatch: %d args passed, 1 expected",
						 k->s, k->nargs);
				ktype[i] = sym_type(k->s);
				kframes[i] = 2;
			} else if (k->s[0] == 'u' || k->s[0] == 'j') {
				ktype[i] = DT_TYPE_USTACK;
				kframes[i] = ustack_words(L, k->args, k->nargs,
							  k->s[0] == 'j');
			} else {
				ktype[i] = DT_TYPE_STACK;
				kframes[i] = stack_frames(L, st, k->args, k->nargs);
			}
			keys[i] = k;
		} else {
			/* void too is D_KEY_TYPE here (dt_idcook_assc) */
			keys[i] = sema_expr(p, lx, k);
			if (type_is_keybytes(keys[i]->t)) {
				/* a struct, union or array: its bytes (XDT_KEY_MEM) */
				key_size_check(lx, keys[i], i);
				ktype[i] = DT_TYPE_MEM;
				kframes[i] = keys[i]->t->real->size;
				keys[i]->type = XDT_TYPE_INT;	/* the address */
				continue;
			}
			if (!type_is_scalar(keys[i]->t) && !type_is_strlike(keys[i]->t))
				dt_cerrt(lx, DT_D_KEY_TYPE, k->line, k->col,
					 "%s expression may not be used as aggregation index: key #%d",
					 type_str(keys[i]->t), i + 1);
			ktype[i] = value_type(keys[i]);
			/* an integer key prints and sorts by its type's size */
			kframes[i] = ktype[i] == XDT_TYPE_INT &&
				keys[i]->t->real->size <= 8 ?
				(unsigned)keys[i]->t->real->size : 8;
			keys[i]->type = ktype[i];
		}
	}
	for (f = XDT_AGG_COUNT; f < XDT_NAGGFUNCS; f++)
		if (!strcmp(ft.s, aggfunc_name(f)))
			break;
	/* a subroutine or action is D's, but no aggregating function */
	if (f >= XDT_NAGGFUNCS && sema_is_d_ident(ft.s))
		dt_cerrt(lx, DT_D_AGG_FUNC, s->tok.line, s->tok.col,
			 "@%s must be assigned the result of an aggregating function",
			 s->tok.s);
	if (f >= XDT_NAGGFUNCS)
		dt_cerrt(lx, DT_D_FUNC_UNDEF, ft.line, ft.col,
			 "%s( ) is not an aggregating function", ft.s);
	amin = aggfunc_nargs[f][0];
	amax = aggfunc_nargs[f][1];
	if (s->nargs < amin || s->nargs > amax)
		dt_cerrt(lx, DT_D_PROTO_LEN, ft.line, ft.col,
			 "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
			 ft.s, s->nargs, s->nargs == 1 ? "" : "s",
			 amin == amax ? "" : s->nargs < amin ? "at least " : "at most ",
			 s->nargs < amin ? amin : amax);
	if (s->nargs) {
		v = value(L, s->args[0]);
		if (!type_is_scalar(v->t))
			dt_cerrt(lx, DT_D_AGG_SCALAR, v->line, v->col,
				 "%s( ) argument #1 must be of scalar type", ft.s);
	}
	/* the parameters, then the increment: quantize's 2nd, the others' last */
	if (f == XDT_AGG_LQUANTIZE || f == XDT_AGG_LLQUANTIZE)
		iarg = quant_params(L, s, f, &qarg);
	else if (f == XDT_AGG_QUANTIZE)
		iarg = 1;
	if (iarg && iarg < s->nargs) {
		incr = value(L, s->args[iarg]);
		if (!type_is_scalar(incr->t))
			dt_cerrt(lx, DT_D_PROTO_ARG, incr->line, incr->col,
				 "%s( ) increment value (argument #%d) must be of scalar type",
				 ft.s, amax);
	}

	/* ids in order of first appearance; later uses must agree */
	for (id = 0; id < p->naggs; id++)
		if (!strcmp(p->aggs[id].name, at.s))
			break;
	if (id == p->naggs) {
		p->aggs = xrealloc(p->aggs, (p->naggs + 1) * sizeof(*p->aggs));
		ag = &p->aggs[p->naggs++];
		memset(ag, 0, sizeof(*ag));
		ag->name = xstrdup(at.s);
		ag->func = f;
		ag->arg = qarg;
		ag->nkeys = nkeys;
		for (i = 0; i < nkeys; i++) {
			ag->keytype[i] = ktype[i];
			ag->keyframes[i] = kframes[i];
			ag->keyt[i] = DT_IS_STACK(ktype[i]) ? NULL : keys[i]->t;
		}
	} else {
		ag = &p->aggs[id];
		if (ag->func != f)
			dt_cerrt(lx, DT_D_AGG_REDEF, ft.line, ft.col,
				 "@%s: aggregation redefined: %s( ) used before, %s( ) here",
				 at.s, aggfunc_name(ag->func), ft.s);
		if (ag->arg != qarg)
			quant_mismatch(L, s, f, ag->arg, qarg);
		if (ag->nkeys != nkeys)
			dt_cerrt(lx, DT_D_AGG_REDEF, at.line, at.col,
				 "@%s: key count mismatch: %d before, %d here",
				 at.s, ag->nkeys, nkeys);
		for (i = 0; i < nkeys; i++)
			if (is_stackkey(ag->keytype[i]) && is_stackkey(ktype[i])) {
				/*
				 * stack(n) and ustack(m) of any depths share
				 * a key position (all are DTrace's "stack"
				 * type): the position gets the deepest use's
				 * slot (agg_stack_slots()) and a ustack() in
				 * it makes the consumer ready for user symbols.
				 */
				if (ag->keytype[i] != ktype[i] ||
				    ag->keyframes[i] != kframes[i])
					ag->keymixed[i] = 1;
				if (kframes[i] > ag->keyframes[i])
					ag->keyframes[i] = kframes[i];
				if (ktype[i] == DT_TYPE_USTACK)
					ag->keytype[i] = DT_TYPE_USTACK;
			} else if (ag->keytype[i] != ktype[i] ||
				   (ktype[i] == DT_TYPE_MEM &&
				    !type_compat(ag->keyt[i], keys[i]->t)))
				dt_cerrt(lx, DT_D_AGG_REDEF, keys[i]->line, keys[i]->col,
					 "@%s: key #%d type mismatch: %s before, %s here",
					 at.s, i + 1, ag->keytype[i] == DT_TYPE_MEM ?
					 type_str(ag->keyt[i]) : keyname(ag->keytype[i]),
					 ktype[i] == DT_TYPE_MEM ? type_str(keys[i]->t) :
					 keyname(ktype[i]));
	}
	for (i = 0; i < nkeys; i++) {
		if (DT_IS_SYM(ktype[i])) {
			struct node *w = usym_word(L, keys[i]->s, keys[i]->line,
						   keys[i]->col);
			struct node *addr = value(L, keys[i]->args[0]);

			add_act(L, XDT_ACT_AGGKEY, cg_difo(p, lx, w), XDT_KEY_INT, 0);
			add_act(L, XDT_ACT_AGGKEY, cg_difo(p, lx, addr), XDT_KEY_INT, 0);
		} else if (DT_IS_STACK(ktype[i]))
			add_act(L, XDT_ACT_AGGKEY, -1, ktype[i] == DT_TYPE_USTACK ?
				XDT_KEY_USTACK : XDT_KEY_STACK, kframes[i]);
		else if (ktype[i] == DT_TYPE_MEM)
			add_act(L, XDT_ACT_AGGKEY, cg_difo(p, lx, keys[i]),
				XDT_KEY_MEM, kframes[i]);
		else
			add_act(L, XDT_ACT_AGGKEY, cg_difo(p, lx, keys[i]),
				ktype[i] == XDT_TYPE_STRING ? XDT_KEY_STRING : XDT_KEY_INT, 0);
	}
	agg_layout(L, ag, keys, ktype, kframes, at);
	if (incr)
		add_act(L, XDT_ACT_AGGINCR, cg_difo(p, lx, incr), 0, 0);
	add_act(L, XDT_ACT_AGG, v ? cg_difo(p, lx, v) : -1, id, f);
}

/*
 * A use whose integer keys have other sizes than the first use's gets a
 * layout (struct agg's comment) and the hidden key that names it.
 */
static void agg_layout(struct lower *L, struct agg *ag, struct node **keys,
		       const int *ktype, const unsigned *kframes,
		       struct token at)
{
	struct node *n;
	int i, l;

	for (i = 0; i < ag->nkeys; i++)
		if (ktype[i] == XDT_TYPE_INT && kframes[i] != ag->keyframes[i])
			break;
	if (i == ag->nkeys)
		return;
	for (l = 0; l < ag->nlayouts; l++) {
		for (i = 0; i < ag->nkeys; i++)
			if (ktype[i] == XDT_TYPE_INT &&
			    kframes[i] != ag->layouts[l].size[i])
				break;
		if (i == ag->nkeys)
			break;
	}
	if (l == ag->nlayouts) {
		if (ag->nkeys >= DT_MAXKEYS)
			dt_cerrt(&L->ps->lx, DT_D_AGG_REDEF, at.line, at.col,
				 "@%s: too many keys to tell key sizes apart",
				 ag->name);
		ag->layouts = xrealloc(ag->layouts, (size_t)(l + 1) *
				       sizeof(*ag->layouts));
		for (i = 0; i < ag->nkeys; i++) {
			ag->layouts[l].size[i] = kframes[i];
			ag->layouts[l].keyt[i] = DT_IS_STACK(ktype[i]) ?
						 NULL : keys[i]->t;
		}
		ag->nlayouts++;
	}
	n = node_new(N_INT, at.line, at.col);
	n->ival = l + 1;
	n->t = dt_uint64;
	n->type = XDT_TYPE_INT;
	add_act(L, XDT_ACT_AGGKEY, cg_difo(L->ps->p, &L->ps->lx, n),
		XDT_KEY_INT, 0);
}

static int is_aggfunc(const char *s)
{
	for (int f = XDT_AGG_COUNT; f < XDT_NAGGFUNCS; f++)
		if (!strcmp(s, aggfunc_name(f)))
			return 1;
	return 0;
}

/* @name as an action's argument: the aggregation's id, or -1 */
static int agg_ref(struct prog *p, const struct node *e)
{
	if (e->k != N_IDENT || e->s[0] != '@')
		return -1;
	for (int id = 0; id < p->naggs; id++)
		if (!strcmp(p->aggs[id].name, e->s + 1))
			return id;
	return -2;
}

static const char *argdesc(struct lower *L, struct node *e)
{
	if (e->k == N_IDENT && e->s[0] == '@')
		return "aggregation";
	/* an action's or an aggregating function's call: no value */
	if (e->k == N_CALL && (is_action(e->s) || is_aggfunc(e->s)))
		return "void";
	return type_str(sema_expr(L->ps->p, &L->ps->lx, e)->t);
}

/*
 * printa([format,] @a[, @b ...]): the consumer prints the aggregations
 * when it reaches the record (DTrace's model: a snapshot of the totals,
 * not the values at the firing), with the format's conversions checked
 * against the first aggregation's keys and %@ against its values.
 */
static void lower_printa(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct parser *ps = L->ps;
	struct lexer *lx = &ps->lx;
	struct node **av = s->args;
	int n = s->nargs, f = 0, ids[DT_MAXPRINTA], nids = 0, i;
	struct pformat *pf = NULL;
	struct clause *c;

	(void)a;
	if (av[0]->k == N_STR)
		f = 1;
	if (f && n < 2)
		dt_cerrt(lx, DT_D_PRINTA_PROTO, s->tok.line, s->tok.col,
			 "printa( ) prototype mismatch: 1 arg passed, at least 2 expected");
	for (i = f; i < n; i++) {
		int id = agg_ref(ps->p, av[i]);

		if (id == -2)
			dt_cerrt(lx, DT_D_PRINTA_AGGBAD, av[i]->line, av[i]->col,
				 "undefined aggregation: %s", av[i]->s);
		if (id < 0)
			dt_cerrt(lx, DT_D_PRINTA_AGGARG, av[i]->line, av[i]->col,
				 "printa( ) argument #%d is incompatible with prototype:\n"
				 "\tprototype: aggregation\n\t argument: %s", i + 1,
				 argdesc(L, av[i]));
		if (nids == DT_MAXPRINTA)
			dt_cerrt(lx, DT_D_PRINTA_PROTO, av[i]->line, av[i]->col,
				 "printa( ) joins at most %d aggregations", DT_MAXPRINTA);
		ids[nids++] = id;
	}
	/* joined aggregations have the same keys, as DTrace requires */
	for (i = 1; i < nids; i++) {
		const struct agg *a = &ps->p->aggs[ids[0]], *b = &ps->p->aggs[ids[i]];
		int ok = a->nkeys == b->nkeys;

		for (int k = 0; ok && k < a->nkeys; k++)
			ok = a->keytype[k] == b->keytype[k];
		if (!ok)
			dt_cerrt(lx, DT_D_PRINTA_AGGKEY, av[f + i]->line, av[f + i]->col,
				 "printa( ) argument #%d is incompatible with aggregation #1 prototype:\n"
				 "\tprototype: %d keys\n\t argument: %d keys", f + i + 1,
				 a->nkeys, b->nkeys);
	}
	if (f) {
		const struct agg *a = &ps->p->aggs[ids[0]];
		struct pfarg ka[DT_MAXKEYS];
		struct pfcheck chk = { 0, dt_int64 };

		/*
		 * A sym()/func()/mod() key is, to a conversion, its address
		 * (%a names it, as DTrace's _symaddr key): the word after
		 * its tag (print.c).
		 */
		for (i = 0; i < a->nkeys; i++)
			ka[i] = (struct pfarg){ DT_IS_STACK(a->keytype[i]) &&
						a->keytype[i] != DT_TYPE_KSYM ?
						PFA_STACK : PFA_VALUE,
						a->keytype[i] == XDT_TYPE_STRING ?
						dt_string : a->keytype[i] == DT_TYPE_KSYM ?
						dt_uint64 : a->keyt[i],
						av[0]->line, av[0]->col };
		pf = pf_create(lx, av[0]->line, av[0]->col, av[0]->s);
		pf_validate(lx, pf, &chk, "printa", 1, ka, a->nkeys, 0,
			    av[0]->line, av[0]->col);
	}
	add_out(L, OUT_PRINTA, f ? av[0]->s : NULL, 0);
	c = CL(ps);
	c->outs[c->nouts - 1].pf = pf;
	c->outs[c->nouts - 1].aggids = xzalloc(nids * sizeof(int));
	memcpy(c->outs[c->nouts - 1].aggids, ids, nids * sizeof(int));
	c->outs[c->nouts - 1].naggids = nids;
	c->record = 1;
}

/*
 * clear(@a), denormalize(@a), trunc(@a[, n]), normalize(@a, n): the
 * consumer acts on its totals when it reaches the record; n is recorded.
 */
static void lower_aggact(struct lower *L, struct stmt *s, const struct d_action *a)
{
	/* each one's tags for a wrong first and second argument */
	static const struct { int out, aggarg, aggbad, scalar; } tags[] = {
		{ OUT_CLEAR, DT_D_CLEAR_AGGARG, DT_D_CLEAR_AGGBAD, 0 },
		/* DTrace checks denormalize() as normalize() */
		{ OUT_DENORMALIZE, DT_D_NORMALIZE_AGGARG, DT_D_NORMALIZE_AGGBAD, 0 },
		{ OUT_TRUNC, DT_D_TRUNC_AGGARG, DT_D_TRUNC_AGGBAD,
		  DT_D_TRUNC_SCALAR },
		{ OUT_NORMALIZE, DT_D_NORMALIZE_AGGARG, DT_D_NORMALIZE_AGGBAD,
		  DT_D_NORMALIZE_SCALAR },
	};
	struct parser *ps = L->ps;
	struct lexer *lx = &ps->lx;
	struct node **av = s->args;
	const char *fn = a->name;
	int n = s->nargs, id, k = 0, aggarg, scalar;
	struct clause *c;

	while (tags[k].out != a->aux)
		k++;
	aggarg = tags[k].aggarg;
	scalar = tags[k].scalar;
	id = agg_ref(ps->p, av[0]);
	if (id == -2)
		dt_cerrt(lx, tags[k].aggbad, av[0]->line, av[0]->col,
			 "undefined aggregation: %s", av[0]->s);
	if (id < 0)
		dt_cerrt(lx, aggarg, av[0]->line, av[0]->col,
			 "%s( ) argument #1 is incompatible with prototype:\n"
			 "\tprototype: aggregation\n\t argument: %s", fn,
			 argdesc(L, av[0]));
	if (n == 2) {
		if (av[1]->k == N_IDENT && av[1]->s[0] == '@')
			dt_cerrt(lx, scalar, av[1]->line, av[1]->col,
				 "%s( ) argument #2 must be of scalar type", fn);
		av[1] = value(L, av[1]);
		if (!type_is_scalar(av[1]->t))
			dt_cerrt(lx, scalar, av[1]->line, av[1]->col,
				 "%s( ) argument #2 must be of scalar type", fn);
	}
	add_out(L, a->aux, NULL, n - 1);
	c = CL(ps);
	c->outs[c->nouts - 1].aggids = xzalloc(sizeof(int));
	c->outs[c->nouts - 1].aggids[0] = id;
	c->outs[c->nouts - 1].naggids = 1;
	c->record = 1;
	if (n == 2)
		add_rec(L, av[1], 0);
}

/* The one integer argument of chill, raise, speculate, commit, discard */
static struct node *one_int_arg(struct lower *L, struct token t, struct node **av)
{
	struct node *a = value(L, av[0]);

	if (!type_is_int(a->t))
		dt_cerrt(&L->ps->lx, DT_D_PROTO_ARG, a->line, a->col,
			 "%s( ) argument #1 is incompatible with prototype: integer expected, %s given",
			 t.s, type_str(a->t));
	a->type = XDT_TYPE_INT;
	return a;
}

static void lower_trace(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct lexer *lx = &L->ps->lx;
	struct node **av = s->args;
	const struct node *x;
	int line = av[0]->line, col = av[0]->col;	/* the argument's, not an inline's */

	if (sema_is_dynamic(L->ps->p, av[0]))
		dt_cerrt(lx, DT_D_CG_DYN, av[0]->line, av[0]->col,
			 "expression cannot evaluate to result of dynamic type");
	av[0] = sema_expr(L->ps->p, lx, av[0]);
	if (av[0]->t->real->k == TK_VOID)
		dt_cerrt(lx, a->aux == OUT_PRINT ? DT_D_PRINT_VOID : DT_D_TRACE_VOID,
			 av[0]->line, av[0]->col,
			 "%s( ) may not be applied to a void expression", a->name);
	/* a translated pointer (xlate<T *>, curpsinfo) points at no memory */
	for (x = av[0]; x->k == N_CAST; x = x->a)
		;
	if (x->k == N_XLATE && x->t->real->k == TK_PTR)
		dt_cerrt(lx, a->aux == OUT_PRINT ? DT_D_PRINT_DYN : DT_D_TRACE_DYN,
			 line, col, "%s( ) may not be applied to a translated pointer",
			 a->name);
	if (av[0]->t->real->k == TK_FUNC)
		dt_cerrt(lx, DT_D_PROTO_ARG, av[0]->line, av[0]->col,
			 "%s( ) may not be applied to a function", a->name);
	add_out(L, a->aux, NULL, 1);
	add_val(L, av[0]);
}

static void lower_tracemem(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct lexer *lx = &L->ps->lx;
	struct node **av = s->args;
	int n = s->nargs;
	long long sz;

	(void)a;
	if (n > 3)
		dt_cerrt(lx, DT_D_TRACEMEM_ARGS, av[2]->line, av[2]->col,
			 "tracemem ( ) prototype mismatch: expected at most 3 args");
	av[0] = value(L, av[0]);
	av[1] = sema_expr(L->ps->p, lx, av[1]);
	if (!type_is_int(av[1]->t) || !sema_constval(av[1], &sz) || sz <= 0)
		dt_cerrt(lx, DT_D_TRACEMEM_SIZE, av[1]->line, av[1]->col,
			 "tracemem( ) argument #2 must be a non-zero positive integral constant expression");
	if (sz > XDT_MAXMEMREF)
		dt_cerrt(lx, DT_D_TRACEMEM_SIZE, av[1]->line, av[1]->col,
			 "tracemem( ) size %lld exceeds the maximum of %u bytes",
			 sz, XDT_MAXMEMREF);
	if (!type_is_scalar(av[0]->t) && !type_is_byref(av[0]->t))
		dt_cerrt(lx, DT_D_TRACEMEM_ADDR, av[0]->line, av[0]->col,
			 "tracemem( ) argument #1 is incompatible with prototype: pointer or integer expected, %s given",
			 type_str(av[0]->t));
	add_out(L, OUT_TRACEMEM, NULL, n == 3 ? 2 : 1);
	if (n == 3) {
		av[2] = value(L, av[2]);
		if (!type_is_int(av[2]->t))
			dt_cerrt(lx, DT_D_TRACEMEM_DYNSIZE, av[2]->line, av[2]->col,
				 "tracemem( ) dynamic size (argument #3) must be of integer type");
		add_rec(L, av[2], 0);
	}
	mem_rec(L, av[0], NULL, (unsigned)sz);
}

/*
 * FreeBSD's printm(size, ptr): tracemem(ptr, size) by another name (the
 * same raw dump); ptr must be a pointer.
 */
static void lower_printm(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct lexer *lx = &L->ps->lx;
	struct node **av = s->args;
	long long sz;

	(void)a;
	av[0] = sema_expr(L->ps->p, lx, av[0]);
	if (!type_is_int(av[0]->t) || !sema_constval(av[0], &sz) || sz <= 0 ||
	    sz > XDT_MAXMEMREF)
		dt_cerrt(lx, DT_D_PRINTM_SIZE, av[0]->line, av[0]->col,
			 "printm( ) argument #1 must be a non-zero positive integral constant expression");
	av[1] = value(L, av[1]);
	if (av[1]->t->real->k != TK_PTR)
		dt_cerrt(lx, DT_D_PRINTM_ADDR, av[1]->line, av[1]->col,
			 "printm( ) argument #2 is incompatible with prototype:\n"
			 "\tprototype: pointer\n\t argument: %s", type_str(av[1]->t));
	add_out(L, OUT_TRACEMEM, NULL, 1);
	mem_rec(L, av[1], NULL, (unsigned)sz);
}

/* The kernel's action on one integer (chill, raise, speculate, ...) */
static void lower_int_act(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct node *v = one_int_arg(L, s->tok, s->args);

	/* the current piece's records go to the speculation (new_piece) */
	if (a->kind == SK_SPEC)
		CL(L->ps)->spec = 1;
	if (a->aux == XDT_ACT_SPECULATE || a->aux == XDT_ACT_COMMIT ||
	    a->aux == XDT_ACT_DISCARD)
		L->ps->p->speculates = 1;
	add_act(L, a->aux, cg_difo(L->ps->p, &L->ps->lx, v), 0, 0);
}

/* The kernel's action on nothing (stop, breakpoint, panic) */
static void lower_act0(struct lower *L, struct stmt *s, const struct d_action *a)
{
	(void)s;
	add_act(L, a->aux, -1, 0, 0);
}

/* The consumer's, on nothing (ftruncate: truncate the output file) */
static void lower_out0(struct lower *L, struct stmt *s, const struct d_action *a)
{
	(void)s;
	add_out(L, a->aux, NULL, 0);
	CL(L->ps)->record = 1;
}

static void lower_exit(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct node **av = s->args;

	(void)a;
	av[0] = value(L, av[0]);
	if (!type_is_int(av[0]->t))
		dt_cerrt(&L->ps->lx, DT_D_PROTO_ARG, av[0]->line, av[0]->col,
			 "exit( ) argument #1 is incompatible with prototype:\n"
			 "\tprototype: int\n\t argument: %s", type_str(av[0]->t));
	add_out(L, OUT_EXIT, NULL, 1);
	add_rec(L, av[0], 1);
}

static void lower_usym(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct clause *c;
	struct node *addr = value(L, s->args[0]);

	if (!type_is_int(addr->t) && addr->t->real->k != TK_PTR)
		dt_cerrt(&L->ps->lx, DT_D_PROTO_ARG, addr->line, addr->col,
			 "%s( ) argument #1 is incompatible with prototype:\n"
			 "\tprototype: uint64_t\n\t argument: %s", a->name,
			 type_str(addr->t));
	add_out(L, OUT_STACK, NULL, 1);
	add_rec(L, usym_word(L, a->name, s->tok.line, s->tok.col), 0);
	add_rec(L, addr, 0);
	/* the two records are one value of two words */
	c = CL(L->ps);
	c->nrecs--;
	c->recs[c->nrecs - 1].type = sym_type(a->name);
	c->recs[c->nrecs - 1].nframes = 2;
	c->recs[c->nrecs - 1].t = NULL;
}

static void lower_stack(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct clause *c;
	int user = a->name[0] == 'u' || a->name[0] == 'j';
	unsigned nf = user ? ustack_words(L, s->args, s->nargs,
					  a->name[0] == 'j') :
			     stack_frames(L, s->tok, s->args, s->nargs);

	add_out(L, OUT_STACK, NULL, 1);
	add_act(L, XDT_ACT_STACK, -1, nf, user);
	c = CL(L->ps);
	c->recs = xrealloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
	c->recs[c->nrecs] = (struct recval){ user ? DT_TYPE_USTACK : DT_TYPE_STACK,
					     NULL, 0, nf, NULL };
	c->nrecs++;
}

/* setopt(option[, value]): the consumer's, string constants */
static void lower_setopt(struct lower *L, struct stmt *s, const struct d_action *a)
{
	struct node **av = s->args;

	(void)a;
	for (int i = 0; i < s->nargs; i++)
		if (av[i]->k != N_STR)
			dt_cerrt(&L->ps->lx, DT_D_PROTO_ARG, av[i]->line, av[i]->col,
				 "setopt( ) argument #%d must be a string constant", i + 1);
	add_out(L, OUT_SETOPT, av[0]->s, 0);
	CL(L->ps)->outs[CL(L->ps)->nouts - 1].fmt2 = s->nargs == 2 ? av[1]->s : NULL;
	CL(L->ps)->record = 1;
}

/*
 * The table.  Argument counts are DTrace's prototypes; printf's family
 * takes DT_MAXARGS values after the format, printa DT_MAXPRINTA
 * aggregations.  ustack(), jstack() and pcap() are DTrace's and not xdt's
 * yet: named here so that they are refused as such, not as a syntax error.
 */
static const struct d_action d_actions[] = {
	{ "trace", 1, 1, DT_D_PROTO_LEN, 0, SK_DREC, OUT_TRACE, lower_trace },
	{ "print", 1, 1, DT_D_PROTO_LEN, 0, SK_DREC, OUT_PRINT, lower_trace },
	{ "printf", 1, 1 + DT_MAXARGS, DT_D_PROTO_LEN, 1, SK_DREC, 0, lower_printf },
	{ "printa", 1, 1 + DT_MAXPRINTA, DT_D_PRINTA_PROTO, 1, SK_DREC, 0, lower_printa },
	/* a fourth argument is lower_tracemem's D_TRACEMEM_ARGS, as DTrace's */
	{ "tracemem", 2, INT_MAX, DT_D_PROTO_LEN, 0, SK_DREC, 0, lower_tracemem },
	{ "printm", 2, 2, DT_D_PROTO_LEN, 0, SK_DREC, 0, lower_printm },
	{ "stack", 0, 1, 0, 0, SK_DREC, 0, lower_stack },
	{ "exit", 1, 1, DT_D_PROTO_LEN, 0, SK_EXIT, 0, lower_exit },
	{ "setopt", 1, 2, DT_D_PROTO_LEN, 0, SK_DREC, 0, lower_setopt },
	{ "ftruncate", 0, 0, DT_D_PROTO_LEN, 0, SK_DREC, OUT_FTRUNCATE, lower_out0 },
	{ "speculate", 1, 1, DT_D_PROTO_LEN, 0, SK_SPEC, XDT_ACT_SPECULATE, lower_int_act },
	{ "commit", 1, 1, DT_D_PROTO_LEN, 0, SK_COMMIT, XDT_ACT_COMMIT, lower_int_act },
	{ "discard", 1, 1, DT_D_PROTO_LEN, 0, SK_NONE, XDT_ACT_DISCARD, lower_int_act },
	{ "clear", 1, 1, DT_D_CLEAR_PROTO, 1, SK_DREC, OUT_CLEAR, lower_aggact },
	{ "denormalize", 1, 1, DT_D_CLEAR_PROTO, 1, SK_DREC, OUT_DENORMALIZE, lower_aggact },
	{ "trunc", 1, 2, DT_D_TRUNC_PROTO, 1, SK_DREC, OUT_TRUNC, lower_aggact },
	{ "normalize", 2, 2, DT_D_NORMALIZE_PROTO, 1, SK_DREC, OUT_NORMALIZE, lower_aggact },
	/* destructive: -w */
	{ "chill", 1, 1, DT_D_PROTO_LEN, 0, SK_DESTR, XDT_ACT_CHILL, lower_int_act },
	{ "raise", 1, 1, DT_D_PROTO_LEN, 0, SK_DESTR, XDT_ACT_RAISE, lower_int_act },
	{ "stop", 0, 0, DT_D_PROTO_LEN, 0, SK_DESTR, XDT_ACT_STOP, lower_act0 },
	{ "breakpoint", 0, 0, DT_D_PROTO_LEN, 0, SK_DESTR, XDT_ACT_BREAKPOINT, lower_act0 },
	{ "panic", 0, 0, DT_D_PROTO_LEN, 0, SK_DESTR, XDT_ACT_PANIC, lower_act0 },
	{ "system", 1, 1 + DT_MAXARGS, DT_D_PROTO_LEN, 0, SK_DESTR, 0, lower_printf },
	{ "freopen", 1, 1 + DT_MAXARGS, DT_D_PROTO_LEN, 0, SK_DESTR, 0, lower_printf },
	/* DTrace's, not xdt's yet */
	{ "ustack", 0, 2, 0, 0, SK_DREC, 0, lower_stack },
	{ "ufunc", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	{ "usym", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	{ "umod", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	{ "uaddr", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	/*
	 * jstack(): ustack() with DTrace's 50 frames by default.  No JVM
	 * helper annotates frames here, so a Java process's stack shows the
	 * JVM's native frames, as DTrace's does without a helper.
	 */
	{ "jstack", 0, 2, 0, 0, SK_DREC, 0, lower_stack },
	/* kernel addresses: DTrace's DTRACEACT_SYM (sym, func) and _MOD */
	{ "sym", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	{ "func", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	{ "mod", 1, 1, 0, 0, SK_DREC, 0, lower_usym },
	{ "pcap", 2, 2, 0, 0, SK_DREC, 0, NULL },
};

const struct d_action *d_action(const char *name)
{
	for (size_t i = 0; i < sizeof(d_actions) / sizeof(d_actions[0]); i++)
		if (!strcmp(d_actions[i].name, name))
			return &d_actions[i];
	return NULL;
}

/* An action statement: its row's count, speculation rules, lowering. */
static void lower_action(struct lower *L, struct stmt *s)
{
	const struct d_action *a = d_action(s->tok.s);
	int n = s->nargs;

	if (a->tag && (n < a->min || n > a->max))
		dt_cerrt(&L->ps->lx, a->tag, s->tok.line, s->tok.col,
			 "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
			 a->name, n, n == 1 ? "" : "s", a->min == a->max ? "" :
			 n < a->min ? "at least " : "at most ",
			 n < a->min ? a->min : a->max);
	spec_rules(L, a->kind, s->tok.line, s->tok.col);
	begin_dact(L);
	if (a->kind == SK_DESTR)
		L->ps->p->destructive = 1;
	a->lower(L, s, a);
}

/* A clause-local variable for the sugar: this->%name, an int64. */
static struct dvar *cond_var(struct lower *L, const char *what)
{
	char name[32];
	struct dtype *t = dt_int64;

	snprintf(name, sizeof(name), "%%%s%d", what, ++L->ps->p->ncond);
	return var_declare(L->ps->p, &L->ps->lx, XDT_VAR_LOCAL, name, t, 0, NULL,
			   L->line, L->col);
}

/* this->v = e (a statement of the current piece) */
static void set_var(struct lower *L, struct dvar *v, struct node *e)
{
	struct node *a = node_new(N_ASSIGN, e->line, e->col);

	a->op = T_ASSIGN;
	a->a = var_node(v, e->line, e->col);
	a->b = e;
	need_piece(L);
	L->pend = xrealloc(L->pend, (L->npend + 1) * sizeof(*L->pend));
	L->pend[L->npend++] = sema_expr(L->ps->p, &L->ps->lx, a);
}


static void lower_if(struct lower *L, struct stmt *s)
{
	struct parser *ps = L->ps;
	struct dvar *outer = L->guard, *ct, *ce = NULL;
	struct node *c = sema_expr(ps->p, &ps->lx, s->e), *nz, *neg;

	if (!type_is_scalar(c->t) && !type_is_strlike(c->t))
		dt_cerrt(&ps->lx, DT_D_OP_SCALAR, c->line, c->col,
			 "if condition must be of scalar type");
	if (L->cflags & CF_SPEC)	/* the pieces would not speculate */
		dt_cerrt(&ps->lx, DT_D_ACT_SPEC, s->tok.line, s->tok.col,
			 "if/else after speculate( ) is not supported yet");
	need_piece(L);
	/* the pieces after this if need the current guard as a variable */
	if (!outer && L->pred >= 0) {
		struct node *one = node_new(N_INT, s->tok.line, s->tok.col);

		one->ival = 1;
		one->t = dt_int;
		outer = cond_var(L, "guard");
		set_var(L, outer, one);
		L->guard = outer;
	}
	ct = cond_var(L, "cond");
	nz = node_new(N_UN, c->line, c->col);	/* !!c */
	nz->op = T_NOT;
	nz->a = node_new(N_UN, c->line, c->col);
	nz->a->op = T_NOT;
	nz->a->a = c;
	set_var(L, ct, nz);
	if (s->els) {
		ce = cond_var(L, "else");
		neg = node_new(N_UN, c->line, c->col);
		neg->op = T_NOT;
		neg->a = var_node(ct, c->line, c->col);
		set_var(L, ce, neg);
	}
	flush_exprs(L);
	/* then */
	L->guard = ct;
	ps->cl = -1;
	lower_list(L, s->body->k == S_BLOCK ? s->body->body : s->body);
	flush_exprs(L);
	if (ce) {
		L->guard = ce;
		ps->cl = -1;
		lower_list(L, s->els->k == S_BLOCK ? s->els->body : s->els);
		flush_exprs(L);
	}
	L->guard = outer;
	ps->cl = -1;
}

void lower_list(struct lower *L, struct stmt *s)
{
	for (; s; s = s->next) {
		switch (s->k) {
		case S_EMPTY:
			break;
		case S_BLOCK:
			lower_list(L, s->body);
			break;
		case S_IF:
			lower_if(L, s);
			break;
		case S_AGG:
			spec_rules(L, SK_AGG, s->tok.line, s->tok.col);
			begin_dact(L);
			lower_agg(L, s);
			break;
		case S_ACTION:
			lower_action(L, s);
			break;
		case S_EXPR: {
			/*
			 * Any expression is a statement, as in DTrace: it is
			 * evaluated for its effects and its faults (a load
			 * of NULL fires ERROR) and records nothing.  One that
			 * calls copyout() is destructive.
			 */
			int was = L->ps->p->destructive;
			struct node *e;

			L->ps->p->destructive = 0;
			e = sema_expr(L->ps->p, &L->ps->lx, s->e);
			if (L->ps->p->destructive)
				spec_rules(L, SK_DESTR, s->tok.line, s->tok.col);
			L->ps->p->destructive |= was;

			need_piece(L);
			L->pend = xrealloc(L->pend, (L->npend + 1) * sizeof(*L->pend));
			L->pend[L->npend++] = e;
			flush_exprs(L);		/* its own action, as in DTrace */
			break;
		}
		}
	}
}

