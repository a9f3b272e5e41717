// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - recursive descent over the D subset; types are checked as the
 * tree is built, and each statement is handed to cg.c at once, so the
 * program object grows clause by clause in source order.
 *
 *   program   := clause*
 *   clause    := desc (',' desc)* ['/' expr '/'] ['{' stmt (';' stmt)* [';'] '}']
 *   stmt      := trace(expr) | printf("fmt", expr...) | exit(expr)
 *              | stack([const]) | @name ['[' key (',' key)* ']'] = aggfunc([expr])
 *   key       := expr | stack([const])
 *   expr      := C expressions over integers and strings: ?: || && | ^ &
 *                == != < <= > >= << >> + - * / % ! ~ - unary, casts,
 *                *(type *)expr loads, built-in variables, $macros.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "dt.h"

struct parser {
	struct lexer lx;
	struct prog *p;
	const struct dt_env *env;
	int in_pred;		/* a '/' followed by '{' ends the predicate */
	int cl;			/* clause being filled */
};

static const char *const varnames[] = {
#define DIF_VNAME(name, str) str,
	DIF_VARS(DIF_VNAME)
#undef DIF_VNAME
};

static int var_type(int v)
{
	return (v >= DIF_VAR_PROBEPROV && v <= DIF_VAR_EXECNAME) ?
		XDT_TYPE_STRING : XDT_TYPE_INT;
}

#define TOK(ps) ((ps)->lx.tok)

static _Noreturn void syntax(struct parser *ps)
{
	struct token *t = &TOK(ps);

	if (t->t == T_EOF)
		dt_cerr(&ps->lx, t->line, t->col, "syntax error near end of input");
	dt_cerr(&ps->lx, t->line, t->col, "syntax error near \"%.*s\"",
		(int)t->srclen, t->start);
}

static void expect(struct parser *ps, enum tok t)
{
	if (TOK(ps).t != t)
		syntax(ps);
	lex_next(&ps->lx);
}

static const char *type_name(int t)
{
	return t == XDT_TYPE_STRING ? "string" : t == DT_TYPE_STACK ? "stack" : "int";
}

/* The actions: statements only, never values. */
static int is_action(const char *s)
{
	return !strcmp(s, "stack") || !strcmp(s, "trace") ||
	       !strcmp(s, "printf") || !strcmp(s, "exit");
}

/* ---- expressions -------------------------------------------------------- */
static struct node *expr(struct parser *ps);
static struct node *unary(struct parser *ps);

static const char *macro(struct parser *ps, const char *name)
{
	int n = atoi(name);

	if (n < 1 || n > ps->env->nmacros)
		dt_cerr(&ps->lx, TOK(ps).line, TOK(ps).col,
			"macro argument %s is not defined", TOK(ps).s);
	return ps->env->macros[n - 1];
}

static struct node *ident(struct parser *ps)
{
	struct token t = TOK(ps);
	struct node *n;
	int i;

	if (t.s[0] == '$') {
		const char *m = t.s + 1;
		char *end;

		if (m[0] == '$' && isdigit((unsigned char)m[1])) {
			n = node_new(N_STR, t.line, t.col);
			n->s = xstrdup(macro(ps, m + 1));
			n->slen = strlen(n->s);
			n->type = XDT_TYPE_STRING;
		} else {
			n = node_new(N_INT, t.line, t.col);
			if (!strcmp(m, "pid")) {
				n->ival = ps->env->pid;
			} else if (!strcmp(m, "target")) {
				if (ps->env->target < 0)
					dt_cerr(&ps->lx, t.line, t.col,
						"$target is only valid with -c or -p");
				n->ival = ps->env->target;
			} else if (isdigit((unsigned char)m[0])) {
				const char *v = macro(ps, m);

				n->ival = strtoll(v, &end, 0);
				if (!*v || *end)
					dt_cerr(&ps->lx, t.line, t.col,
						"macro argument %s is not an integer (\"%s\"); use $%s for a string",
						t.s, v, t.s);
			} else {
				dt_cerr(&ps->lx, t.line, t.col,
					"failed to resolve %s: Unknown macro variable", t.s);
			}
		}
		lex_next(&ps->lx);
		return n;
	}
	for (i = 0; i < DIF_NVARS; i++) {
		if (!strcmp(t.s, varnames[i])) {
			n = node_new(N_VAR, t.line, t.col);
			n->var = i;
			n->type = var_type(i);
			lex_next(&ps->lx);
			return n;
		}
	}
	if (lex_peek(&ps->lx).t == T_LPAR && is_action(t.s))
		dt_cerr(&ps->lx, t.line, t.col,
			"tracing function %s( ) may not be called from a D expression (D program context required)",
			t.s);
	if (lex_peek(&ps->lx).t == T_LPAR)
		dt_cerr(&ps->lx, t.line, t.col, "%s( ) is not a supported function here", t.s);
	dt_cerr(&ps->lx, t.line, t.col, "failed to resolve %s: Unknown variable name", t.s);
}

/* Integer type names a cast may use: size in bytes and signedness. */
static int type_word(const char *s, int *size, int *sgn)
{
	static const struct { const char *n; int size, sgn; } tw[] = {
		{ "char", 1, 1 }, { "short", 2, 1 }, { "int", 4, 1 }, { "long", 8, 1 },
		{ "int8_t", 1, 1 }, { "int16_t", 2, 1 }, { "int32_t", 4, 1 },
		{ "int64_t", 8, 1 }, { "uint8_t", 1, 0 }, { "uint16_t", 2, 0 },
		{ "uint32_t", 4, 0 }, { "uint64_t", 8, 0 }, { "uintptr_t", 8, 0 },
		{ "intptr_t", 8, 1 }, { "size_t", 8, 0 }, { "ssize_t", 8, 1 },
		{ "unsigned", 4, 0 }, { "signed", 4, 1 }, { "void", 1, 0 },
	};
	for (size_t i = 0; i < sizeof(tw) / sizeof(tw[0]); i++) {
		if (!strcmp(s, tw[i].n)) {
			*size = tw[i].size;
			*sgn = tw[i].sgn;
			return 1;
		}
	}
	return 0;
}

/* '(' already seen and the next token is a type word: (type [*...]) expr */
static struct node *cast(struct parser *ps, int line, int col)
{
	int size = 4, sgn = 1, s, g, ptr = 0, words = 0, uns = -1;
	struct node *n;

	while (TOK(ps).t == T_IDENT && type_word(TOK(ps).s, &s, &g)) {
		if (!strcmp(TOK(ps).s, "unsigned") || !strcmp(TOK(ps).s, "signed")) {
			uns = !g;
		} else if (!strcmp(TOK(ps).s, "long") && words && size == 8) {
			/* long long */
		} else {
			size = s;
			sgn = g;
		}
		words++;
		lex_next(&ps->lx);
	}
	if (uns >= 0)
		sgn = !uns;
	while (TOK(ps).t == T_STAR) {
		ptr++;
		lex_next(&ps->lx);
	}
	expect(ps, T_RPAR);
	n = node_new(N_CAST, line, col);
	n->a = unary(ps);
	if (n->a->type != XDT_TYPE_INT)
		dt_cerr(&ps->lx, line, col, "invalid cast: operand is a string");
	n->size = ptr ? 8 : size;
	n->sgn = ptr ? 0 : sgn;
	n->var = ptr;		/* pointer depth */
	n->ival = ptr > 1 ? 8 : size;	/* size of what a load would read */
	n->slen = ptr > 1 ? 0 : (size_t)sgn;
	n->type = XDT_TYPE_INT;
	return n;
}

static struct node *primary(struct parser *ps)
{
	struct token t = TOK(ps);
	struct node *n;

	switch (t.t) {
	case T_INT:
		n = node_new(N_INT, t.line, t.col);
		n->ival = t.ival;
		lex_next(&ps->lx);
		return n;
	case T_STR:
		n = node_new(N_STR, t.line, t.col);
		n->s = t.s;
		n->slen = t.len;
		n->type = XDT_TYPE_STRING;
		lex_next(&ps->lx);
		return n;
	case T_IDENT:
		return ident(ps);
	case T_LPAR: {
		int in_pred = ps->in_pred, s, g;
		struct token nt = lex_peek(&ps->lx);

		lex_next(&ps->lx);
		if (nt.t == T_IDENT && type_word(nt.s, &s, &g))
			return cast(ps, t.line, t.col);
		ps->in_pred = 0;	/* a '/' inside ( ) always divides */
		n = expr(ps);
		ps->in_pred = in_pred;
		expect(ps, T_RPAR);
		return n;
	}
	default:
		syntax(ps);
	}
}

static struct node *unary(struct parser *ps)
{
	struct token t = TOK(ps);
	struct node *n, *a;

	switch (t.t) {
	case T_MINUS: case T_NOT: case T_TILDE: case T_PLUS:
		lex_next(&ps->lx);
		a = unary(ps);
		if (a->type != XDT_TYPE_INT)
			dt_cerr(&ps->lx, t.line, t.col,
				"operator %.*s requires an integer operand",
				(int)t.srclen, t.start);
		if (t.t == T_PLUS)
			return a;
		n = node_new(N_UN, t.line, t.col);
		n->op = t.t;
		n->a = a;
		return n;
	case T_STAR:
		lex_next(&ps->lx);
		a = unary(ps);
		if (a->k != N_CAST || !a->var)
			dt_cerr(&ps->lx, t.line, t.col,
				"operator * requires a pointer operand, e.g. *(int *)addr");
		n = node_new(N_LOAD, t.line, t.col);
		n->a = a->a;		/* the address; the cast only typed it */
		n->size = (int)a->ival;
		n->sgn = (int)a->slen;
		return n;
	default:
		return primary(ps);
	}
}

/* Binary operators by precedence, loosest first. */
static int prec(enum tok t)
{
	switch (t) {
	case T_OROR: return 1;
	case T_ANDAND: return 2;
	case T_OR: return 3;
	case T_XOR: return 4;
	case T_AND: return 5;
	case T_EQ: case T_NE: return 6;
	case T_LT: case T_LE: case T_GT: case T_GE: return 7;
	case T_SHL: case T_SHR: return 8;
	case T_PLUS: case T_MINUS: return 9;
	case T_STAR: case T_DIV: case T_MOD: return 10;
	default: return 0;
	}
}

static struct node *binary(struct parser *ps, int minprec)
{
	struct node *l = unary(ps);

	for (;;) {
		struct token t = TOK(ps);
		int pr = prec(t.t);
		struct node *r, *n;

		if (!pr || pr < minprec)
			return l;
		if (t.t == T_DIV && ps->in_pred) {
			enum tok nx = lex_peek(&ps->lx).t;

			if (nx == T_LBRACE || nx == T_EOF)
				return l;	/* the predicate's closing slash */
		}
		lex_next(&ps->lx);
		r = binary(ps, pr + 1);
		if (t.t == T_OROR || t.t == T_ANDAND) {
			n = node_new(t.t == T_OROR ? N_OR : N_AND, t.line, t.col);
		} else {
			n = node_new(N_BIN, t.line, t.col);
			n->op = t.t;
		}
		n->a = l;
		n->b = r;
		if (pr == 6 || pr == 7) {
			if (l->type != r->type)
				dt_cerr(&ps->lx, t.line, t.col,
					"operands have incompatible types: \"%s\" %.*s \"%s\"",
					type_name(l->type), (int)t.srclen, t.start,
					type_name(r->type));
		} else if (l->type != XDT_TYPE_INT || r->type != XDT_TYPE_INT) {
			dt_cerr(&ps->lx, t.line, t.col,
				"operator %.*s requires integer operands",
				(int)t.srclen, t.start);
		}
		l = n;
	}
}

static struct node *expr(struct parser *ps)
{
	struct node *c = binary(ps, 1), *n;
	struct token t = TOK(ps);

	if (t.t != T_QUEST)
		return c;
	lex_next(&ps->lx);
	if (c->type != XDT_TYPE_INT)
		dt_cerr(&ps->lx, t.line, t.col, "operator ?: requires an integer condition");
	n = node_new(N_TERN, t.line, t.col);
	n->a = c;
	n->b = expr(ps);
	expect(ps, T_COLON);
	n->c = expr(ps);
	if (n->b->type != n->c->type)
		dt_cerr(&ps->lx, t.line, t.col,
			"operator ?: operands must have compatible types");
	n->type = n->b->type;
	return n;
}

/* ---- statements --------------------------------------------------------- */
static struct clause *CL(struct parser *ps)
{
	return &ps->p->clauses[ps->cl];
}

static void add_act(struct parser *ps, __u32 kind, int difo, __u32 a0, __u32 a1)
{
	prog_add_action(ps->p, kind, difo, a0, a1);
	CL(ps)->nactions++;
}

static void add_out(struct parser *ps, enum outkind k, char *fmt, int nargs)
{
	struct clause *c = CL(ps);

	c->outs = xrealloc(c->outs, (c->nouts + 1) * sizeof(*c->outs));
	c->outs[c->nouts] = (struct outst){ k, fmt, nargs, c->nrecs };
	c->nouts++;
}

/* A value the clause records: its action, and its slot in the record. */
static void add_rec(struct parser *ps, struct node *e, int exit)
{
	struct clause *c = CL(ps);
	int d = cg_difo(ps->p, &ps->lx, e);

	add_act(ps, exit ? XDT_ACT_EXIT :
		e->type == XDT_TYPE_STRING ? XDT_ACT_STRING : XDT_ACT_RECORD, d, 0, 0);
	c->recs = xrealloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
	c->recs[c->nrecs].type = e->type;
	c->recs[c->nrecs].off = 0;
	c->recs[c->nrecs].nframes = 0;
	c->nrecs++;
}

/* An integer constant expression's value; 0 if @n is not one. */
static int constval(struct node *n, long long *v)
{
	long long a, b;

	switch (n->k) {
	case N_INT:
		*v = n->ival;
		return 1;
	case N_UN:
		if (!constval(n->a, &a))
			return 0;
		*v = n->op == T_MINUS ? (long long)(0ULL - (unsigned long long)a) :
		     n->op == T_TILDE ? ~a : !a;
		return 1;
	case N_BIN:
		if (n->a->type != XDT_TYPE_INT || !constval(n->a, &a) ||
		    !constval(n->b, &b))
			return 0;
		switch (n->op) {
		case T_PLUS: *v = (long long)((unsigned long long)a + (unsigned long long)b); return 1;
		case T_MINUS: *v = (long long)((unsigned long long)a - (unsigned long long)b); return 1;
		case T_STAR: *v = (long long)((unsigned long long)a * (unsigned long long)b); return 1;
		case T_DIV: case T_MOD:
			if (!b || (a == INT64_MIN && b == -1))
				return 0;
			*v = n->op == T_DIV ? a / b : a % b;
			return 1;
		case T_SHL: *v = (long long)((unsigned long long)a << (b & 63)); return 1;
		case T_SHR: *v = a >> (b & 63); return 1;
		case T_AND: *v = a & b; return 1;
		case T_OR: *v = a | b; return 1;
		case T_XOR: *v = a ^ b; return 1;
		default: return 0;
		}
	default:
		return 0;
	}
}

/*
 * stack([n]) from its '(': the number of frames, DT_STACKFRAMES if none;
 * n must be an integer constant expression, 1..XDT_MAXSTACK.
 */
static unsigned stack_frames(struct parser *ps)
{
	struct node *e;
	long long n;

	expect(ps, T_LPAR);
	if (TOK(ps).t == T_RPAR) {
		lex_next(&ps->lx);
		return DT_STACKFRAMES;
	}
	e = expr(ps);
	if (TOK(ps).t == T_COMMA) {
		lex_next(&ps->lx);
		dt_cerr(&ps->lx, TOK(ps).line, TOK(ps).col,
			"stack( ) prototype mismatch: too many arguments");
	}
	expect(ps, T_RPAR);
	if (e->type != XDT_TYPE_INT || !constval(e, &n) || n <= 0)
		dt_cerr(&ps->lx, e->line, e->col,
			"stack( ) size must be a non-zero positive integral constant expression");
	if (n > XDT_MAXSTACK)
		dt_cerr(&ps->lx, e->line, e->col,
			"stack( ) size %lld exceeds the maximum of %d frames", n,
			XDT_MAXSTACK);
	return (unsigned)n;
}

static int args(struct parser *ps, struct node **av, int max)
{
	int n = 0;

	expect(ps, T_LPAR);
	if (TOK(ps).t != T_RPAR) {
		for (;;) {
			if (n == max)
				dt_cerr(&ps->lx, TOK(ps).line, TOK(ps).col,
					"too many arguments");
			av[n++] = expr(ps);
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
	}
	expect(ps, T_RPAR);
	return n;
}

/*
 * Check printf() conversions against the argument types, as DTrace does
 * at compile time, so the consumer can trust the record layout.
 */
static void check_format(struct parser *ps, struct node *ft, struct node **av, int n)
{
	const char *f = ft->s;
	int conv = 0;

	for (; *f; f++) {
		int want;

		if (*f != '%')
			continue;
		f++;
		if (*f == '%')
			continue;
		while (*f && strchr("-+ #0", *f))
			f++;
		while (isdigit((unsigned char)*f))
			f++;
		if (*f == '.')
			for (f++; isdigit((unsigned char)*f); f++)
				;
		while (*f && strchr("hlLqjzt", *f))
			f++;
		if (!*f || !strchr("diuxXocsp", *f))
			dt_cerr(&ps->lx, ft->line, ft->col,
				"printf( ) format conversion #%d is undefined: %%%c",
				conv + 1, *f ? *f : ' ');
		want = *f == 's' ? XDT_TYPE_STRING : XDT_TYPE_INT;
		if (conv >= n - 1)
			dt_cerr(&ps->lx, ft->line, ft->col,
				"printf( ) prototype mismatch: conversion #%d (%%%c) has no argument",
				conv + 1, *f);
		if (av[conv + 1]->type != want)
			dt_cerr(&ps->lx, av[conv + 1]->line, av[conv + 1]->col,
				"printf( ) argument #%d is incompatible with conversion #%d prototype: %%%c requires %s, argument is %s",
				conv + 2, conv + 1, *f, type_name(want),
				type_name(av[conv + 1]->type));
		conv++;
	}
	if (conv != n - 1)
		dt_cerr(&ps->lx, av[conv + 1]->line, av[conv + 1]->col,
			"printf( ) prototype mismatch: %d arguments passed, %d expected",
			n - 1, conv);
}

static const char *const aggfuncs[] = {
	[XDT_AGG_COUNT] = "count", [XDT_AGG_SUM] = "sum", [XDT_AGG_MIN] = "min",
	[XDT_AGG_MAX] = "max", [XDT_AGG_AVG] = "avg",
	[XDT_AGG_QUANTIZE] = "quantize",
};

static void aggstmt(struct parser *ps)
{
	struct token at = TOK(ps), ft;
	struct node *keys[DT_MAXKEYS], *av[2];
	int nkeys = 0, n, f, id, i;
	struct prog *p = ps->p;
	struct agg *ag;

	lex_next(&ps->lx);
	if (TOK(ps).t == T_LBRACK) {
		lex_next(&ps->lx);
		for (;;) {
			if (nkeys == DT_MAXKEYS)
				dt_cerr(&ps->lx, TOK(ps).line, TOK(ps).col,
					"too many aggregation keys");
			if (TOK(ps).t == T_IDENT && !strcmp(TOK(ps).s, "stack") &&
			    lex_peek(&ps->lx).t == T_LPAR) {
				struct token st = TOK(ps);

				/* a stack key: no DIF, the kernel records it */
				keys[nkeys] = node_new(N_INT, st.line, st.col);
				keys[nkeys]->type = DT_TYPE_STACK;
				lex_next(&ps->lx);
				keys[nkeys++]->ival = stack_frames(ps);
				if (TOK(ps).t != T_COMMA && TOK(ps).t != T_RBRACK)
					dt_cerr(&ps->lx, st.line, st.col,
						"tracing function stack( ) may not be called from a D expression (D program context required)");
			} else {
				keys[nkeys++] = expr(ps);
			}
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
		expect(ps, T_RBRACK);
	}
	expect(ps, T_ASSIGN);
	ft = TOK(ps);
	if (ft.t != T_IDENT)
		syntax(ps);
	for (f = XDT_AGG_COUNT; f <= XDT_AGG_QUANTIZE; f++)
		if (!strcmp(ft.s, aggfuncs[f]))
			break;
	if (f > XDT_AGG_QUANTIZE)
		dt_cerr(&ps->lx, ft.line, ft.col,
			"%s( ) is not an aggregating function", ft.s);
	lex_next(&ps->lx);
	n = args(ps, av, 2);
	if (n != (f == XDT_AGG_COUNT ? 0 : 1))
		dt_cerr(&ps->lx, ft.line, ft.col, "%s( ) expects %d argument%s",
			ft.s, f == XDT_AGG_COUNT ? 0 : 1, f == XDT_AGG_COUNT ? "s" : "");
	if (n && av[0]->type != XDT_TYPE_INT)
		dt_cerr(&ps->lx, av[0]->line, av[0]->col,
			"%s( ) argument #1 must be an integer", ft.s);

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
		ag->nkeys = nkeys;
		for (i = 0; i < nkeys; i++) {
			ag->keytype[i] = keys[i]->type;
			if (keys[i]->type == DT_TYPE_STACK)
				ag->keyframes[i] = (unsigned)keys[i]->ival;
		}
	} else {
		ag = &p->aggs[id];
		if (ag->func != f)
			dt_cerr(&ps->lx, ft.line, ft.col,
				"@%s: aggregation redefined: %s( ) used before, %s( ) here",
				at.s, aggfuncs[ag->func], ft.s);
		if (ag->nkeys != nkeys)
			dt_cerr(&ps->lx, at.line, at.col,
				"@%s: key count mismatch: %d before, %d here",
				at.s, ag->nkeys, nkeys);
		for (i = 0; i < nkeys; i++)
			if (ag->keytype[i] != keys[i]->type)
				dt_cerr(&ps->lx, keys[i]->line, keys[i]->col,
					"@%s: key #%d type mismatch: %s before, %s here",
					at.s, i + 1, type_name(ag->keytype[i]),
					type_name(keys[i]->type));
			else if (keys[i]->type == DT_TYPE_STACK &&
				 ag->keyframes[i] != (unsigned)keys[i]->ival)
				dt_cerr(&ps->lx, keys[i]->line, keys[i]->col,
					"@%s: key #%d type mismatch: stack(%u) before, stack(%lld) here",
					at.s, i + 1, ag->keyframes[i], keys[i]->ival);
	}
	for (i = 0; i < nkeys; i++) {
		if (keys[i]->type == DT_TYPE_STACK)
			add_act(ps, XDT_ACT_AGGKEY, -1, XDT_KEY_STACK,
				(__u32)keys[i]->ival);
		else
			add_act(ps, XDT_ACT_AGGKEY, cg_difo(p, &ps->lx, keys[i]),
				keys[i]->type == XDT_TYPE_STRING ?
				XDT_KEY_STRING : XDT_KEY_INT, 0);
	}
	add_act(ps, XDT_ACT_AGG, n ? cg_difo(p, &ps->lx, av[0]) : -1, id, f);
}

static void statement(struct parser *ps)
{
	struct token t = TOK(ps);
	struct node *av[DT_MAXARGS + 1];
	int n, i;

	if (t.t == T_AGG) {
		aggstmt(ps);
		return;
	}
	if (t.t != T_IDENT)
		syntax(ps);
	if (lex_peek(&ps->lx).t != T_LPAR)
		dt_cerr(&ps->lx, t.line, t.col, "statement has no effect");
	lex_next(&ps->lx);
	if (!strcmp(t.s, "trace")) {
		n = args(ps, av, 1);
		if (n != 1)
			dt_cerr(&ps->lx, t.line, t.col, "trace( ) expects 1 argument");
		add_out(ps, OUT_TRACE, NULL, 1);
		add_rec(ps, av[0], 0);
	} else if (!strcmp(t.s, "exit")) {
		n = args(ps, av, 1);
		if (n != 1 || av[0]->type != XDT_TYPE_INT)
			dt_cerr(&ps->lx, t.line, t.col, "exit( ) expects 1 integer argument");
		add_out(ps, OUT_EXIT, NULL, 1);
		add_rec(ps, av[0], 1);
	} else if (!strcmp(t.s, "stack")) {
		struct clause *c;
		unsigned nf = stack_frames(ps);

		add_out(ps, OUT_STACK, NULL, 1);
		add_act(ps, XDT_ACT_STACK, -1, nf, 0);
		c = CL(ps);
		c->recs = xrealloc(c->recs, (c->nrecs + 1) * sizeof(*c->recs));
		c->recs[c->nrecs] = (struct recval){ DT_TYPE_STACK, 0, nf };
		c->nrecs++;
	} else if (!strcmp(t.s, "printf")) {
		n = args(ps, av, DT_MAXARGS + 1);
		if (n < 1 || av[0]->k != N_STR)
			dt_cerr(&ps->lx, t.line, t.col,
				"printf( ) argument #1 must be a string literal");
		check_format(ps, av[0], av, n);
		add_out(ps, OUT_PRINTF, av[0]->s, n - 1);
		for (i = 1; i < n; i++)
			add_rec(ps, av[i], 0);
	} else {
		dt_cerr(&ps->lx, t.line, t.col, "%s( ) is not a supported action", t.s);
	}
}

/* ---- clauses ------------------------------------------------------------ */
/* Replace $target, $pid, $N inside a probe description. */
static void desc_macros(struct parser *ps, char *d, size_t cap, int line, int col)
{
	char out[512], num[32];
	size_t o = 0;

	for (const char *s = d; *s; ) {
		const char *rep = NULL;
		size_t skip = 1;

		if (*s == '$') {
			if (!strncmp(s, "$target", 7)) {
				if (ps->env->target < 0)
					dt_cerr(&ps->lx, line, col,
						"$target is only valid with -c or -p");
				snprintf(num, sizeof(num), "%lld", ps->env->target);
				rep = num, skip = 7;
			} else if (!strncmp(s, "$pid", 4)) {
				snprintf(num, sizeof(num), "%lld", ps->env->pid);
				rep = num, skip = 4;
			} else if (isdigit((unsigned char)s[1])) {
				int n = s[1] - '0';

				if (n < 1 || n > ps->env->nmacros)
					dt_cerr(&ps->lx, line, col,
						"macro argument $%d is not defined", n);
				rep = ps->env->macros[n - 1], skip = 2;
			}
		}
		if (!rep) {
			num[0] = *s;
			num[1] = 0;
			rep = num;
		}
		for (; *rep && o + 1 < sizeof(out); rep++)
			out[o++] = *rep;
		s += skip;
	}
	out[o] = 0;
	if (o >= cap)
		dt_cerr(&ps->lx, line, col, "probe description too long");
	memcpy(d, out, o + 1);
}

/* "a:b:c:d"; fewer fields are right-aligned ("BEGIN" is the name). */
static void desc_split(struct parser *ps, const char *d, struct xdt_probedesc *pd,
		       int line, int col)
{
	char *f[4] = { pd->prov, pd->mod, pd->func, pd->name };
	size_t sz[4] = { sizeof(pd->prov), sizeof(pd->mod), sizeof(pd->func),
			 sizeof(pd->name) };
	const char *parts[4];
	size_t lens[4];
	int n = 0, i;

	memset(pd, 0, sizeof(*pd));
	for (const char *s = d;;) {
		const char *c = strchr(s, ':');

		if (n == 4)
			dt_cerr(&ps->lx, line, col,
				"invalid probe description \"%s\": too many fields", d);
		parts[n] = s;
		lens[n++] = c ? (size_t)(c - s) : strlen(s);
		if (!c)
			break;
		s = c + 1;
	}
	for (i = 0; i < n; i++) {
		int k = 4 - n + i;

		if (lens[i] >= sz[k])
			dt_cerr(&ps->lx, line, col,
				"invalid probe description \"%s\": field too long", d);
		memcpy(f[k], parts[i], lens[i]);
	}
}

static int new_clause(struct parser *ps, const char *d, int line, int col, int src)
{
	struct prog *p = ps->p;
	struct clause *c;

	if (p->nclauses == DT_MAXCLAUSES)
		dt_cerr(&ps->lx, line, col, "too many clauses");
	p->clauses = xrealloc(p->clauses, (p->nclauses + 1) * sizeof(*c));
	c = &p->clauses[p->nclauses];
	memset(c, 0, sizeof(*c));
	snprintf(c->descstr, sizeof(c->descstr), "%s", d);
	desc_split(ps, d, &c->desc, line, col);
	c->pred = -1;
	c->action0 = p->nacts;
	c->src = src;
	return p->nclauses++;
}

static void clause(struct parser *ps, int src)
{
	char descs[16][256];
	int nd = 0, line, col, i, first;

	for (;;) {
		if (nd == 16)
			dt_cerr(&ps->lx, ps->lx.line, ps->lx.col, "too many probe descriptions");
		if (!lex_probedesc(&ps->lx, descs[nd], sizeof(descs[nd]), &line, &col)) {
			lex_next(&ps->lx);
			syntax(ps);
		}
		desc_macros(ps, descs[nd], sizeof(descs[nd]), line, col);
		nd++;
		lex_skipspace(&ps->lx);
		if (ps->lx.src[ps->lx.pos] != ',')
			break;
		lex_next(&ps->lx);	/* the comma */
	}
	first = ps->cl = new_clause(ps, descs[0], line, col, src);
	lex_next(&ps->lx);
	if (TOK(ps).t == T_DIV) {
		struct node *e;

		lex_next(&ps->lx);
		ps->in_pred = 1;
		e = expr(ps);
		ps->in_pred = 0;
		if (TOK(ps).t != T_DIV)
			syntax(ps);
		if (e->type != XDT_TYPE_INT)
			dt_cerr(&ps->lx, e->line, e->col, "predicate must be an integer expression");
		CL(ps)->pred = cg_difo(ps->p, &ps->lx, e);
		lex_next(&ps->lx);
	}
	if (TOK(ps).t == T_LBRACE) {
		lex_next(&ps->lx);
		while (TOK(ps).t != T_RBRACE) {
			if (TOK(ps).t == T_SEMI) {
				lex_next(&ps->lx);
				continue;
			}
			statement(ps);
			if (TOK(ps).t != T_SEMI && TOK(ps).t != T_RBRACE)
				syntax(ps);
		}
	} else if (TOK(ps).t != T_EOF) {
		syntax(ps);
	}
	/* The next clause's description is read raw, from here. */

	/* "a, b { ... }": one clause per description, same actions and difos */
	for (i = 1; i < nd; i++) {
		struct clause *c0, *c;
		int k = new_clause(ps, descs[i], line, col, src), a;

		c0 = &ps->p->clauses[first];
		c = &ps->p->clauses[k];
		c->pred = c0->pred;
		for (a = 0; a < c0->nactions; a++) {
			struct xdt_action *x = &ps->p->acts[c0->action0 + a];

			prog_add_action(ps->p, x->kind, x->difo, x->arg0, x->arg1);
		}
		c = &ps->p->clauses[k];
		c0 = &ps->p->clauses[first];
		c->nactions = c0->nactions;
		c->outs = c0->outs, c->nouts = c0->nouts;
		c->recs = c0->recs, c->nrecs = c0->nrecs;
	}
}

void dt_compile(struct prog *p, const struct dt_env *env, const char *name,
		const char *src)
{
	struct parser ps = { .p = p, .env = env };
	const char *e = strpbrk(src, "{/;");
	size_t n = e ? (size_t)(e - src) : strlen(src);
	char *d;

	lex_init(&ps.lx, name, src);
	p->strsize = env->strsize;
	d = xzalloc(n + 1);
	memcpy(d, src, n);
	p->srcdesc = xrealloc(p->srcdesc, (p->nsrc + 1) * sizeof(char *));
	p->srcdesc[p->nsrc] = d;
	p->srctext = xrealloc(p->srctext, (p->nsrc + 1) * sizeof(char *));
	p->srctext[p->nsrc] = xstrdup(src);
	p->srcfile = xrealloc(p->srcfile, (p->nsrc + 1) * sizeof(int));
	p->srcfile[p->nsrc] = 0;
	p->nsrc++;
	for (;;) {
		lex_skipspace(&ps.lx);
		if (!ps.lx.src[ps.lx.pos])
			break;
		clause(&ps, p->nsrc - 1);
		if (ps.lx.tok.t == T_EOF)
			break;
		/* tok is '}' of the clause just read; its end is our position */
	}
	if (!p->nclauses)
		dt_cerr(&ps.lx, ps.lx.line, ps.lx.col, "no probe description");
}
