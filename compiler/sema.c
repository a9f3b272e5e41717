// SPDX-License-Identifier: GPL-2.0
/*
 * sema.c - the semantic pass between parsing and code generation: resolve
 * every name (built-in variables, D variables of the three scopes, enum
 * constants, inlines, subroutines), give every expression its D type with
 * C's promotions and conversions, declare variables on first assignment,
 * and refuse what DTrace refuses, with its diagnostic tags.  What it
 * leaves for cg.c is a typed tree in which every operator's signedness,
 * every member's offset and every variable's id are known.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "dt_tree.h"

static const char *const varnames[] = {
#define DIF_VNAME(name, str, slot) str,
	DIF_VARS(DIF_VNAME)
#undef DIF_VNAME
};

static const struct { const char *name; const char *rtype; const char *args; int fl; } subrs[] = {
#define DIF_SUB(name, idx, str, rt, args, fl) [idx] = { str, rt, args, fl },
	DIF_SUBRS(DIF_SUB)
#undef DIF_SUB
};

/* The D type a subroutine row names ("string", "void *", "uint32_t"). */
static struct dtype *subr_type(const char *name)
{
	size_t n = strlen(name);
	char base[32];

	if (!strcmp(name, "string"))
		return dt_string;
	if (n > 2 && n < sizeof(base) && !strcmp(name + n - 2, " *")) {
		memcpy(base, name, n - 2);
		base[n - 2] = '\0';
		return type_ptr(subr_type(base));
	}
	if (!strcmp(name, "void"))
		return dt_void;
	if (!strncmp(name, "struct ", 7)) {
		/* the kernel's (mutex_owner's task), void where no BTF has it */
		struct dtype *t = type_tagged(TK_STRUCT, name + 7, 0);

		return t ? t : dt_void;
	}
	return type_named(name);
}

static struct dtype *builtin_type(int v)
{
	switch (v) {
	case DIF_VAR_ARG0 ... DIF_VAR_ARG9:
		return dt_int64;
	case DIF_VAR_PROBEPROV: case DIF_VAR_PROBEMOD: case DIF_VAR_PROBEFUNC:
	case DIF_VAR_PROBENAME: case DIF_VAR_EXECNAME:
		return dt_string;
	case DIF_VAR_PID: case DIF_VAR_PPID: return type_named("pid_t");
	case DIF_VAR_TID: return type_named("id_t");
	case DIF_VAR_UID: return type_named("uid_t");
	case DIF_VAR_GID: return type_named("gid_t");
	case DIF_VAR_CPU: return type_named("processorid_t");
	case DIF_VAR_TIMESTAMP: case DIF_VAR_VTIMESTAMP:
		return dt_uint64;
	case DIF_VAR_WALLTIMESTAMP: return dt_int64;
	case DIF_VAR_ERRNO: return dt_int;
	case DIF_VAR_EPID: case DIF_VAR_ID: return dt_uint;
	case DIF_VAR_CALLER: return type_named("uintptr_t");
	case DIF_VAR_UCALLER: return dt_uint64;
	case DIF_VAR_STACKDEPTH: case DIF_VAR_USTACKDEPTH: case DIF_VAR_IPL:
		return dt_uint;
	case DIF_VAR_CURTHREAD: {
		/* the kernel's task, typed when its BTF is there */
		struct dtype *t = type_tagged(TK_STRUCT, "task_struct", 0);

		return type_ptr(t ? t : dt_void);
	}
	default: return dt_int64;
	}
}

const char *sema_tokstr(enum tok t)
{
	static const char *const s[] = {
		[T_OROR] = "||", [T_ANDAND] = "&&", [T_OR] = "|", [T_XOR] = "^",
		[T_AND] = "&", [T_EQ] = "==", [T_NE] = "!=", [T_LT] = "<",
		[T_LE] = "<=", [T_GT] = ">", [T_GE] = ">=", [T_SHL] = "<<",
		[T_SHR] = ">>", [T_PLUS] = "+", [T_MINUS] = "-", [T_STAR] = "*",
		[T_DIV] = "/", [T_MOD] = "%", [T_NOT] = "!", [T_TILDE] = "~",
		[T_INC] = "++", [T_DEC] = "--", [T_ASSIGN] = "=", [T_ADDEQ] = "+=",
		[T_SUBEQ] = "-=", [T_MULEQ] = "*=", [T_DIVEQ] = "/=",
		[T_MODEQ] = "%=", [T_ANDEQ] = "&=", [T_OREQ] = "|=",
		[T_XOREQ] = "^=", [T_SHLEQ] = "<<=", [T_SHREQ] = ">>=",
		[T_DOT] = ".", [T_ARROW] = "->",
	};
	return t < sizeof(s) / sizeof(s[0]) && s[t] ? s[t] : "?";
}

/* ---- variables ------------------------------------------------------------ */
struct dvar *var_lookup(struct prog *p, int scope, const char *name)
{
	for (int i = 0; i < p->nvars; i++)
		if (p->vars[i]->scope == scope && !strcmp(p->vars[i]->name, name))
			return p->vars[i];
	return NULL;
}

/*
 * A name D itself gives a meaning (a built-in variable, subroutine or
 * action): never a type, so the parser asks the kernel's BTF only about
 * other names (DTrace resolves its identifiers before types, too), and a
 * script made of these alone never reads the BTF.
 */
int sema_is_d_ident(const char *name)
{
	for (int f = XDT_AGG_COUNT; f < XDT_NAGGFUNCS; f++)
		if (!strcmp(aggfunc_name(f), name))
			return 1;
	return sema_reserved(name) || !strcmp(name, "args") ||
	       !strcmp(name, "self") || !strcmp(name, "this");
}

/* An action's call used as a value: DTrace's tag depends on where. */
static void act_check(struct lexer *lx, const struct node *n, int tag)
{
	if (n && n->k == N_CALL && n->var == -2)
		dt_cerrt(lx, tag, n->line, n->col,
			 "tracing function %s( ) may not be called from a D expression (D program context required)",
			 n->s);
}

static int is_builtin(const char *name)
{
	for (int i = 0; i < DIF_NVARS; i++)
		if (!strcmp(varnames[i], name))
			return 1;
	return !strcmp(name, "args") || !strcmp(name, "uregs");
}

int sema_reserved(const char *name)
{
	if (is_builtin(name) || d_action(name) || !strcmp(name, "alloca"))
		return 1;
	for (int s = 0; s < DIF_NSUBRS; s++)
		if (subrs[s].name && !strcmp(subrs[s].name, name))
			return 1;
	return 0;
}

struct dvar *var_declare(struct prog *p, struct lexer *lx, int scope,
			 const char *name, struct dtype *t, int nkeys,
			 struct dtype **keyt, int line, int col)
{
	struct dvar *v;
	long long ev;

	if (var_lookup(p, scope, name) ||
	    (scope == XDT_VAR_GLOBAL && (is_builtin(name) ||
					 type_enumconst(name, &ev))))
		dt_cerrt(lx, DT_D_DECL_IDRED, line, col,
			 "identifier redeclared: %s%s", scope == XDT_VAR_THREAD ?
			 "self->" : scope == XDT_VAR_LOCAL ? "this->" : "", name);
	if (p->nvars == 0xffff)
		dt_cerrt(lx, DT_D_NOREG, line, col, "too many variables");
	v = xzalloc(sizeof(*v));
	v->name = xstrdup(name);
	v->scope = scope;
	v->array = nkeys > 0;
	v->t = t;
	v->nkeys = nkeys;
	for (int i = 0; i < nkeys; i++)
		v->keyt[i] = keyt[i];
	v->id = p->nvars;
	v->line = line;
	v->col = col;
	v->attr = dt_attr_def;
	if (scope == XDT_VAR_GLOBAL)
		dt_attr_pending(p, name, &v->attr);
	p->vars = xrealloc(p->vars, (p->nvars + 1) * sizeof(*p->vars));
	p->vars[p->nvars++] = v;
	return v;
}

static const char *scope_prefix(int scope)
{
	return scope == XDT_VAR_THREAD ? "self->" : scope == XDT_VAR_LOCAL ? "this->" : "";
}

/* ---- constants -------------------------------------------------------------- */
/* @a op @b, both of the operation's type; 0 if not a constant. */
static int binval(enum tok op, int uns, long long a, long long b, long long *v)
{
	switch (op) {
	case T_PLUS: *v = (long long)((unsigned long long)a + (unsigned long long)b); return 1;
	case T_MINUS: *v = (long long)((unsigned long long)a - (unsigned long long)b); return 1;
	case T_STAR: *v = (long long)((unsigned long long)a * (unsigned long long)b); return 1;
	case T_DIV: case T_MOD:
		if (!b || (!uns && a == INT64_MIN && b == -1))
			return 0;
		if (uns)
			*v = (long long)(op == T_DIV ?
				(unsigned long long)a / (unsigned long long)b :
				(unsigned long long)a % (unsigned long long)b);
		else
			*v = op == T_DIV ? a / b : a % b;
		return 1;
	case T_SHL: *v = (long long)((unsigned long long)a << (b & 63)); return 1;
	case T_SHR:
		*v = uns ? (long long)((unsigned long long)a >> (b & 63)) : a >> (b & 63);
		return 1;
	case T_AND: *v = a & b; return 1;
	case T_OR: *v = a | b; return 1;
	case T_XOR: *v = a ^ b; return 1;
	case T_EQ: *v = a == b; return 1;
	case T_NE: *v = a != b; return 1;
	case T_LT: *v = uns ? (unsigned long long)a < (unsigned long long)b : a < b; return 1;
	case T_LE: *v = uns ? (unsigned long long)a <= (unsigned long long)b : a <= b; return 1;
	case T_GT: *v = uns ? (unsigned long long)a > (unsigned long long)b : a > b; return 1;
	case T_GE: *v = uns ? (unsigned long long)a >= (unsigned long long)b : a >= b; return 1;
	default: return 0;
	}
}

int sema_constval(struct node *n, long long *v)
{
	long long a, b;

	switch (n->k) {
	case N_INT:
		*v = n->ival;
		return 1;
	case N_CAST:
		if (!type_is_int(n->ct) || !sema_constval(n->a, &a))
			return 0;
		if (n->ct->real->size < 8) {
			int sh = 64 - 8 * (int)n->ct->real->size;

			a = (long long)((unsigned long long)a << sh);
			a = n->ct->real->sgn ? a >> sh :
			    (long long)((unsigned long long)a >> sh);
		}
		*v = a;
		return 1;
	case N_UN:
		if (!sema_constval(n->a, &a))
			return 0;
		*v = n->op == T_MINUS ? (long long)(0ULL - (unsigned long long)a) :
		     n->op == T_TILDE ? ~a : n->op == T_PLUS ? a : !a;
		return 1;
	case N_TERN:
		if (!sema_constval(n->a, &a))
			return 0;
		return sema_constval(a ? n->b : n->c, v);
	case N_BIN: {
		/*
		 * As DIF computes it (cg.c): in 64 bits, signed or unsigned as
		 * the operation's type is, nothing narrowed on the way.
		 */
		struct dtype *ot = n->op == T_EQ || n->op == T_NE || n->op == T_LT ||
			n->op == T_LE || n->op == T_GT || n->op == T_GE ? n->ct : n->t;

		if (!n->a->t || !type_is_int(n->a->t) || !type_is_int(n->b->t) ||
		    !ot || !type_is_int(ot) ||
		    !sema_constval(n->a, &a) || !sema_constval(n->b, &b))
			return 0;
		return binval(n->op, !ot->real->sgn, a, b, v);
	}
	case N_AND: case N_OR:
		if (!sema_constval(n->a, &a) || !sema_constval(n->b, &b))
			return 0;
		*v = n->k == N_AND ? (a && b) : (a || b);
		return 1;
	default:
		return 0;
	}
}

/* ---- expressions ---------------------------------------------------------- */
static struct node *sem(struct prog *p, struct lexer *lx, struct node *n);

/* A translator's parameter, bound to its input while its members are typed. */
static struct { const char *name; struct node *val; } binds[8];
static int nbinds;

/* an error unwinds past the pops: a compile starts with nothing bound */
void sema_reset(void)
{
	nbinds = 0;
}

struct node *node_clone(const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = xzalloc(sizeof(*c));
	*c = *n;
	c->a = node_clone(n->a);
	c->b = node_clone(n->b);
	c->c = node_clone(n->c);
	if (n->nargs) {
		c->args = xzalloc(n->nargs * sizeof(*c->args));
		for (int i = 0; i < n->nargs; i++)
			c->args[i] = node_clone(n->args[i]);
	}
	return c;
}

static struct dxlator *xlator_find(struct prog *p, struct dtype *out, struct dtype *in)
{
	for (int i = 0; i < p->nxlators; i++) {
		struct dxlator *x = p->xlators[i];

		if (x->out->real == out->real && (!in || type_compat(x->in, in) ||
		    (x->in->real->k == TK_PTR && in->real->k == TK_PTR &&
		     x->in->real->base->real == in->real->base->real) ||
		    (type_is_int(x->in) && type_is_int(in))))
			return x;
	}
	return NULL;
}

/* Member @i of @x over the input @in (already typed): a typed tree. */
static struct node *xlate_member(struct prog *p, struct lexer *lx, struct dxlator *x,
				 int i, struct node *in)
{
	struct node *e;

	if (nbinds == 8)
		dt_cerrt(lx, DT_D_XLATE_NONE, in->line, in->col, "translators nest too deeply");
	binds[nbinds].name = x->param;
	binds[nbinds++].val = in;
	e = sem(p, lx, node_clone(x->mexprs[i]));
	nbinds--;
	return e;
}

struct node *sema_inline_body(struct prog *p, struct lexer *lx,
			      const struct dinline *in, struct node **args)
{
	int base = nbinds;
	struct node *e;

	if (nbinds + in->nparams > (int)(sizeof(binds) / sizeof(binds[0])))
		dt_cerrt(lx, DT_D_IDENT_UNDEF, in->body->line, in->body->col,
			 "inlines nest too deeply: %s", in->name);
	for (int i = 0; i < in->nparams; i++) {
		struct node *v = args ? args[i] : NULL;

		if (!in->pnames[i])
			continue;
		if (!v) {
			/*
			 * A stand-in: typed, never constant (an N_INT would
			 * fold `10 / x` to a division by zero), never run.
			 */
			v = node_new(N_VAR, in->body->line, in->body->col);
			v->t = in->ptypes[i];
		}
		binds[nbinds].name = in->pnames[i];
		binds[nbinds++].val = v;
	}
	e = sem(p, lx, node_clone(in->body));
	nbinds = base;
	return e;
}

/*
 * name[args] of an inline associative array: its body, typed over the
 * arguments, each checked against its parameter as a key is against its
 * array's prototype (dt_idcook_sign's messages).
 */
static struct node *inline_index(struct prog *p, struct lexer *lx, struct node *n,
				 const struct dinline *in)
{
	struct node *e, *c;

	if (n->nargs != in->nparams)
		dt_cerrt(lx, DT_D_PROTO_LEN, n->line, n->col,
			 "%s[ ] prototype mismatch: %d arg%s passed, %d expected",
			 in->name, n->nargs, n->nargs == 1 ? "" : "s", in->nparams);
	for (int i = 0; i < n->nargs; i++) {
		struct node *a = n->args[i] = sem(p, lx, n->args[i]);
		struct dtype *pt = in->ptypes[i];

		act_check(lx, a, DT_D_ACT_SPEC);
		if (!(type_is_scalar(pt) && type_is_scalar(a->t)) &&
		    !(type_is_strlike(pt) && type_is_strlike(a->t)) &&
		    !type_compat(pt, a->t))
			dt_cerrt(lx, DT_D_PROTO_ARG, a->line, a->col,
				 "%s[ ] argument #%d is incompatible with prototype:\n"
				 "\tprototype: %s\n\t argument: %s", in->name, i + 1,
				 type_str(pt), type_str(a->t));
		if (type_is_int(pt) && !type_compat(pt, a->t)) {
			/* the argument as its parameter's type, as a call */
			c = node_new(N_CAST, a->line, a->col);
			c->ct = c->t = pt;
			c->a = a;
			n->args[i] = c;
		}
	}
	e = sema_inline_body(p, lx, in, n->args);
	if (type_compat(in->t, e->t) || !type_is_int(in->t))
		return e;
	c = node_new(N_CAST, n->line, n->col);
	c->ct = c->t = in->t;
	c->a = e;
	return c;
}

void sema_xlator_check(struct prog *p, struct lexer *lx, struct dxlator *x)
{
	struct dtype *o = x->out->real;
	struct node *ph;

	if (o->k != TK_STRUCT && o->k != TK_UNION)
		dt_cerrt(lx, DT_D_XLATE_SOU, x->line, x->col,
			 "translator output type must be a struct or union: %s",
			 type_str(x->out));
	if (!type_defined(o))
		dt_cerrt(lx, DT_D_XLATE_SOU, x->line, x->col,
			 "translator output type %s is incomplete", type_str(x->out));
	for (int i = 0; i < p->nxlators; i++)
		if (p->xlators[i]->out->real == o && type_compat(p->xlators[i]->in, x->in))
			dt_cerrt(lx, DT_D_XLATE_REDECL, x->line, x->col,
				 "translator from %s to %s has already been declared",
				 type_str(x->in), type_str(x->out));
	for (int i = 0; i < x->nmems; i++) {
		const struct dmember *m = type_member(o, x->mnames[i]);

		if (!m)
			dt_cerrt(lx, DT_D_XLATE_MEMB, x->mexprs[i]->line, x->mexprs[i]->col,
				 "translator member %s is not a member of %s",
				 x->mnames[i], type_str(x->out));
		for (int k = 0; k < i; k++)
			if (!strcmp(x->mnames[k], x->mnames[i]))
				dt_cerrt(lx, DT_D_XLATE_MEMB, x->mexprs[i]->line, x->mexprs[i]->col,
					 "translator member %s is defined twice", x->mnames[i]);
	}
	/* type each member now, over a stand-in of the input type */
	ph = node_new(N_INT, x->line, x->col);
	ph->t = x->in;
	for (int i = 0; i < x->nmems; i++) {
		const struct dmember *m = type_member(o, x->mnames[i]);
		struct node *e = xlate_member(p, lx, x, i, ph);

		if (!(type_is_scalar(m->t) && type_is_scalar(e->t)) &&
		    !(type_is_strlike(m->t) && type_is_strlike(e->t)) &&
		    !type_compat(m->t, e->t))
			dt_cerrt(lx, DT_D_XLATE_INCOMPAT, x->mexprs[i]->line, x->mexprs[i]->col,
				 "translator member %s = %s is incompatible with %s",
				 x->mnames[i], type_str(e->t), type_str(m->t));
	}
}

/* The type a variable gets from the value first assigned to it. */
static struct dtype *decl_type(struct lexer *lx, struct node *rv)
{
	struct dtype *t = rv->t;

	if (type_is_strlike(t) && t->real->k != TK_PTR)
		return dt_string;
	if (t->real->k == TK_VOID)
		dt_cerrt(lx, DT_D_DECL_VOIDOBJ, rv->line, rv->col,
			 "cannot have void object");
	if (t->real->k == TK_ARRAY)
		return type_ptr(t->real->base);		/* arrays decay */
	if (t->real->k == TK_FLOAT)
		dt_cerrt(lx, DT_D_OP_INCOMPAT, rv->line, rv->col,
			 "floating-point values are not supported");
	return t;
}

/*
 * A key copied by its bytes is at most XDT_KEYMEM_MAX of them (the
 * kernel's key buffer holds 8 keys of that size); DTrace's bound is its
 * dynamic variable chunk's, met at run time as a drop.
 */
void key_size_check(struct lexer *lx, const struct node *k, int i)
{
	if (type_is_keybytes(k->t) && k->t->real->size > XDT_KEYMEM_MAX)
		dt_cerrt(lx, DT_D_KEY_TYPE, k->line, k->col,
			 "key #%d (%s) is %u bytes: a key holds at most %u",
			 i + 1, type_str(k->t), k->t->real->size, XDT_KEYMEM_MAX);
}

static void check_keys(struct prog *p, struct lexer *lx, struct node *n, struct dvar *v)
{
	if (n->nargs != v->nkeys)
		dt_cerrt(lx, DT_D_PROTO_LEN, n->line, n->col,
			 "%s%s[ ] has %d key%s, %d given", scope_prefix(v->scope),
			 v->name, v->nkeys, v->nkeys == 1 ? "" : "s", n->nargs);
	for (int i = 0; i < n->nargs; i++) {
		struct node *k = n->args[i] = sem(p, lx, n->args[i]);
		int want_str;

		act_check(lx, k, DT_D_ACT_SPEC);
		if (type_is_keybytes(v->keyt[i])) {
			/* a struct, union or array: by its bytes, of one type */
			if (!type_compat(k->t, v->keyt[i]))
				dt_cerrt(lx, DT_D_PROTO_ARG, k->line, k->col,
					 "%s%s[ ] key #%d is incompatible with its prototype: %s expected, %s given",
					 scope_prefix(v->scope), v->name, i + 1,
					 type_str(v->keyt[i]), type_str(k->t));
			k->type = DT_TYPE_MEM;
			continue;
		}
		want_str = v->keyt[i]->real->k == TK_STRING;

		if (want_str ? !type_is_strlike(k->t) :
		    (!type_is_scalar(k->t) || type_is_strlike(k->t) ?
		     !(type_is_scalar(k->t) && k->t->real->k != TK_STRING) : 0))
			dt_cerrt(lx, DT_D_PROTO_ARG, k->line, k->col,
				 "%s%s[ ] key #%d is incompatible with its prototype: %s expected, %s given",
				 scope_prefix(v->scope), v->name, i + 1,
				 type_str(v->keyt[i]), type_str(k->t));
		k->type = want_str ? XDT_TYPE_STRING : XDT_TYPE_INT;
	}
}

/* An associative array element a[...] or self->a[...], or NULL. */
static struct dvar *array_of(struct prog *p, struct node *base)
{
	if (base->k == N_IDENT)
		return var_lookup(p, XDT_VAR_GLOBAL, base->s);
	if (base->k == N_SELF)
		return var_lookup(p, XDT_VAR_THREAD, base->s);
	return NULL;
}

/*
 * this->x[...]: clause-locals are never associative arrays, but one that
 * holds a pointer or an array is indexed like any other (this->p[1]).
 */
static void no_local_array(struct prog *p, struct lexer *lx, const struct node *n)
{
	struct dvar *v;

	if (n->a->k == N_THIS && (v = var_lookup(p, XDT_VAR_LOCAL, n->a->s)) &&
	    (v->t->real->k == TK_PTR || v->t->real->k == TK_ARRAY))
		return;
	if (n->a->k == N_THIS)
		dt_cerrt(lx, DT_D_ARR_LOCAL, n->line, n->col,
			 "local variables may not be used as associative arrays: this->%s",
			 n->a->s);
}

static int is_memory_lvalue(struct node *n)
{
	return n->k == N_DEREF || (n->k == N_MEMBER && n->op == T_ARROW) ||
	       (n->k == N_MEMBER && is_memory_lvalue(n->a));
}

/* an lvalue rooted in D variable storage (writable): x.m, x[i].m, ... */
static int is_dvar_storage(struct node *n)
{
	if (n->k == N_DVAR || n->k == N_THIS)
		return type_is_byref(n->t);
	if (n->k == N_MEMBER && n->op == T_DOT)
		return is_dvar_storage(n->a);
	if (n->k == N_DEREF && n->a->k == N_BIN && n->a->ival == 1)
		return is_dvar_storage(n->a->a);	/* array element */
	return 0;
}

static struct node *int_node(struct node *at, long long v, struct dtype *t)
{
	struct node *n = node_new(N_INT, at->line, at->col);

	n->ival = v;
	n->t = t;
	return n;
}

/*
 * A struct or union known only by its tag ("struct f;", or a kernel
 * type the BTF lacks): no operator that needs its layout applies, at
 * compile time (DTrace's D_OP_INCOMPLETE), rather than a load of an
 * unknown size failing the enabling.
 */
static _Noreturn void incomplete(struct lexer *lx, const struct node *n,
				 const char *op, const struct dtype *t)
{
	dt_cerrt(lx, DT_D_OP_INCOMPLETE, n->line, n->col,
		 "operator %s cannot be applied to a forward declaration: "
		 "no %s definition is available", op, t->name);
}

/* p[i] for a pointer or array p: *(p + i) */
static struct node *subscript(struct prog *p, struct lexer *lx, struct node *n)
{
	struct node *b = sem(p, lx, n->a), *i, *add, *d;

	if (b->t->real->k != TK_PTR && b->t->real->k != TK_ARRAY)
		dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
			 "operator [ ] may not be applied to operand of type \"%s\"",
			 type_str(b->t));
	if (n->nargs != 1)
		dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
			 "operator [ ] takes one subscript here");
	i = sem(p, lx, n->args[0]);
	if (!type_is_int(i->t))
		dt_cerrt(lx, DT_D_OP_INT, i->line, i->col,
			 "operator [ ] requires an integer subscript");
	if (b->t->real->k == TK_ARRAY) {
		long long c;

		/* one past the end is an address C allows (&a[n]) */
		if (sema_constval(i, &c) && (c < 0 || c > (long long)b->t->real->nelem))
			dt_cerrt(lx, DT_D_ARR_BADREF, i->line, i->col,
				 "index %lld is out of range for array of %u elements",
				 c, b->t->real->nelem);
	}
	add = node_new(N_BIN, n->line, n->col);
	add->op = T_PLUS;
	add->a = b;
	add->b = i;
	add->ival = 1;		/* a subscript: the array stays an lvalue */
	add->t = type_ptr(b->t->real->base);
	d = node_new(N_DEREF, n->line, n->col);
	d->a = add;
	d->t = b->t->real->base;
	if (d->t->real->k == TK_VOID)
		dt_cerrt(lx, DT_D_DEREF_VOID, n->line, n->col,
			 "cannot dereference a pointer to void");
	/* E1[E2] is *(E1 + E2) to DTrace, so its message names '*' */
	if ((d->t->real->k == TK_STRUCT || d->t->real->k == TK_UNION) &&
	    !type_defined(d->t->real))
		incomplete(lx, n, "*", d->t->real);
	return d;
}

static struct node *member(struct prog *p, struct lexer *lx, struct node *n)
{
	struct node *b = sem(p, lx, n->a);
	struct dtype *st = b->t->real;
	const struct dmember *m;

	/* xlate<T>(e).m, xlate<T *>(e)->m: just the member's translation */
	if (b->k == N_XLATE && (n->op == T_DOT) == (b->ct->real->k != TK_PTR)) {
		struct dtype *o = b->ct->real->k == TK_PTR ? b->ct->real->base : b->ct;

		for (int i = 0; i < b->xl->nmems; i++)
			if (!strcmp(b->xl->mnames[i], n->s)) {
				struct node *e = b->args[i];
				const struct dmember *om = type_member(o, n->s);

				if (type_is_int(om->t) && type_is_int(e->t) &&
				    !type_compat(om->t, e->t)) {
					struct node *c = node_new(N_CAST, n->line, n->col);

					c->ct = om->t;
					c->a = e;
					c->t = om->t;
					return c;
				}
				return e;
			}
		if (type_member(o, n->s))
			dt_cerrt(lx, DT_D_XLATE_NOCONV, n->line, n->col,
				 "translator does not define conversion for member: %s", n->s);
	}
	if (n->op == T_ARROW) {
		if (st->k != TK_PTR)
			dt_cerrt(lx, DT_D_OP_PTR, n->line, n->col,
				 "operator -> must be applied to a pointer");
		st = st->base->real;
	}
	if (st->k != TK_STRUCT && st->k != TK_UNION)
		dt_cerrt(lx, DT_D_OP_SOU, n->line, n->col,
			 "operator %s cannot be applied to a%s \"%s\"", sema_tokstr(n->op),
			 n->op == T_ARROW ? " pointer to a non-struct/union" : " non-struct/union",
			 type_str(n->op == T_ARROW ? b->t->real->base : b->t));
	if (!type_defined(st))
		incomplete(lx, n, sema_tokstr(n->op), st);
	m = type_member(st, n->s);
	if (!m)
		dt_cerrt(lx, DT_D_TYPE_MEMBER, n->line, n->col,
			 "%s is not a member of %s", n->s, st->name);
	n->a = b;
	n->mem = m;
	n->t = m->t;
	return n;
}

/*
 * Subroutines whose argument points to a kernel struct (DTrace's
 * prototypes say kmutex_t *, krwlock_t *; Oracle's d_path a struct
 * path *): a pointer to another struct or union is refused, as DTrace
 * refuses one that does not match; an integer or a void * (arg0, a cast
 * address) is the address it holds.
 */
static const struct {
	int subr;
	const char *tag;
} subr_structs[] = {
	{ DIF_SUBR_D_PATH, "path" },
	{ DIF_SUBR_MUTEX_OWNED, "mutex" },
	{ DIF_SUBR_MUTEX_OWNER, "mutex" },
	{ DIF_SUBR_MUTEX_TYPE_ADAPTIVE, "mutex" },
	{ DIF_SUBR_MUTEX_TYPE_SPIN, "mutex" },
	{ DIF_SUBR_RW_READ_HELD, "rw_semaphore" },
	{ DIF_SUBR_RW_WRITE_HELD, "rw_semaphore" },
	{ DIF_SUBR_RW_ISWRITER, "rw_semaphore" },
};

static void subr_struct_arg(struct lexer *lx, const struct node *n, int s)
{
	const struct node *a = n->args[0];
	const struct dtype *b;

	if (a->t->real->k != TK_PTR)
		return;
	b = a->t->real->base->real;
	if (b->k != TK_STRUCT && b->k != TK_UNION)
		return;
	for (size_t i = 0; i < sizeof(subr_structs) / sizeof(subr_structs[0]); i++)
		if (subr_structs[i].subr == s &&
		    (b->k != TK_STRUCT || !b->tag || strcmp(b->tag, subr_structs[i].tag)))
			dt_cerrt(lx, DT_D_PROTO_ARG, a->line, a->col,
				 "%s( ) argument #1 is incompatible with prototype: struct %s * expected, %s given",
				 n->s, subr_structs[i].tag, type_str(a->t));
}

static struct node *call(struct prog *p, struct lexer *lx, struct node *n)
{
	int i, s;

	if (d_action(n->s) && d_action(n->s)->lower) {
		const struct d_action *a = d_action(n->s);

		if (n->nargs < a->min || n->nargs > a->max)
			dt_cerrt(lx, DT_D_PROTO_LEN, n->line, n->col,
				 "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
				 n->s, n->nargs, n->nargs == 1 ? "" : "s",
				 a->min == a->max ? "" :
				 n->nargs < a->min ? "at least " : "at most ",
				 n->nargs < a->min ? a->min : a->max);
		n->var = -2;
		n->t = dt_void;
		return n;
	}
	if (!strcmp(n->s, "alloca")) {
		/* scratch memory: the ALLOCS op, not a subroutine call */
		if (n->nargs != 1)
			dt_cerrt(lx, DT_D_PROTO_LEN, n->line, n->col,
				 "alloca( ) prototype mismatch: %d args passed, 1 expected",
				 n->nargs);
		n->args[0] = sem(p, lx, n->args[0]);
		if (!type_is_int(n->args[0]->t))
			dt_cerrt(lx, DT_D_PROTO_ARG, n->args[0]->line, n->args[0]->col,
				 "alloca( ) argument #1 is incompatible with prototype: integer expected");
		n->var = -1;
		n->t = type_ptr(dt_void);
		return n;
	}
	for (s = 0; s < DIF_NSUBRS; s++)
		if (subrs[s].name && !strcmp(subrs[s].name, n->s))
			break;
	if (s == DIF_NSUBRS) {
		if (!strcmp(n->s, "stack"))
			dt_cerrt(lx, DT_D_ACT_SPEC, n->line, n->col,
				 "tracing function stack( ) may not be called from a D expression (D program context required)");
		dt_cerrt(lx, DT_D_FUNC_UNDEF, n->line, n->col,
			 "%s( ) is not a supported function here", n->s);
	}
	{
		const char *args = subrs[s].args, *bar = strchr(args, '|');
		int min = bar ? (int)(bar - args) : (int)strlen(args);
		int max = (int)strlen(args) - (bar ? 1 : 0);

		if (n->nargs < min || n->nargs > max)
			dt_cerrt(lx, DT_D_PROTO_LEN, n->line, n->col,
				 "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
				 n->s, n->nargs, n->nargs == 1 ? "" : "s",
				 n->nargs < min ? (min < max ? "at least " : "") :
				 (min < max ? "at most " : ""), n->nargs < min ? min : max);
		for (i = 0; i < n->nargs; i++) {
			struct node *a = n->args[i] = sem(p, lx, n->args[i]);
			char k = args[i + (bar && args + i >= bar)];
			long long z;
			int str = k == 's' ||
				  (k == 'S' && !(type_is_int(a->t) && sema_constval(a, &z) && !z));

			act_check(lx, a, DT_D_ACT_SPEC);
			if (str ? !type_is_strlike(a->t) : !type_is_scalar(a->t))
				dt_cerrt(lx, DT_D_PROTO_ARG, a->line, a->col,
					 "%s( ) argument #%d is incompatible with prototype: %s expected, %s given",
					 n->s, i + 1, str ? "string" : "integer", type_str(a->t));
			a->type = str ? XDT_TYPE_STRING : XDT_TYPE_INT;
		}
	}
	if (n->nargs)
		subr_struct_arg(lx, n, s);
	if (subrs[s].fl & DIF_SF_DESTR)
		p->destructive = 1;	/* refused unless -w */
	if (s == DIF_SUBR_SPECULATION)
		p->speculates = 1;	/* the kernel gives it nspec buffers */
	n->var = s;
	n->t = subr_type(subrs[s].rtype);
	return n;
}

/* both operands of a comparison: their common type (n->ct), or an error */
static void compare(struct lexer *lx, struct node *n)
{
	struct dtype *a = n->a->t, *b = n->b->t;
	long long z;

	if (type_is_int(a) && type_is_int(b)) {
		n->ct = type_arith(a, b);
	} else if (type_is_strlike(a) && type_is_strlike(b) &&
		   (a->real->k == TK_STRING || b->real->k == TK_STRING)) {
		n->ct = dt_string;
	} else if (a->real->k == TK_PTR && b->real->k == TK_PTR && type_compat(a, b)) {
		n->ct = dt_ulong;
	} else if (((a->real->k == TK_PTR || a->real->k == TK_STRING) && type_is_int(b) &&
		    sema_constval(n->b, &z) && !z) ||
		   ((b->real->k == TK_PTR || b->real->k == TK_STRING) && type_is_int(a) &&
		    sema_constval(n->a, &z) && !z)) {
		/* a pointer, or a string (strstr's, strtok's result), against NULL */
		n->ct = dt_ulong;
	} else if ((a->real->k == TK_PTR && type_is_int(b)) ||
		   (b->real->k == TK_PTR && type_is_int(a))) {
		n->ct = dt_ulong;	/* D compares pointers with integers freely */
	} else {
		dt_cerrt(lx, DT_D_OP_INCOMPAT, n->line, n->col,
			 "operands have incompatible types: \"%s\" %s \"%s\"",
			 type_str(a), sema_tokstr(n->op), type_str(b));
	}
	n->t = dt_int;
}

static struct node *binop(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *a, *b;

	n->a = sem(p, lx, n->a);
	n->b = sem(p, lx, n->b);
	act_check(lx, n->a, DT_D_OP_ARITH);
	act_check(lx, n->b, DT_D_OP_ARITH);
	a = n->a->t;
	b = n->b->t;
	switch (n->op) {
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE:
		compare(lx, n);
		return n;
	case T_PLUS:
	case T_MINUS: {
		int pa = a->real->k == TK_PTR || a->real->k == TK_ARRAY;
		int pb = b->real->k == TK_PTR || b->real->k == TK_ARRAY;

		if ((pa && a->real->base->real->k == TK_VOID) ||
		    (pb && b->real->base->real->k == TK_VOID))
			dt_cerrt(lx, DT_D_OP_INCOMPAT, n->line, n->col,
				 "operator %s cannot be applied to a void pointer",
				 sema_tokstr(n->op));
		if (pa && type_is_int(b)) {
			n->t = a->real->k == TK_ARRAY ? type_ptr(a->real->base) : a;
			return n;
		}
		if (pb && type_is_int(a) && n->op == T_PLUS) {
			n->t = b->real->k == TK_ARRAY ? type_ptr(b->real->base) : b;
			return n;
		}
		if (pa && pb && n->op == T_MINUS) {
			if (!type_compat(a->real->k == TK_ARRAY ? type_ptr(a->real->base) : a,
					 b->real->k == TK_ARRAY ? type_ptr(b->real->base) : b))
				dt_cerrt(lx, DT_D_OP_INCOMPAT, n->line, n->col,
					 "operands have incompatible types: \"%s\" - \"%s\"",
					 type_str(a), type_str(b));
			n->t = dt_long;
			n->ival = 2;	/* pointer difference: divide by the size */
			return n;
		}
	}
		/* fall through */
	default:
		if (!type_is_int(a) || !type_is_int(b))
			dt_cerrt(lx, n->op == T_PLUS || n->op == T_MINUS ||
				 n->op == T_STAR || n->op == T_DIV ? DT_D_OP_ARITH : DT_D_OP_INT,
				 n->line, n->col,
				 "operator %s requires operands of %s type",
				 sema_tokstr(n->op), n->op == T_PLUS || n->op == T_MINUS ||
				 n->op == T_STAR || n->op == T_DIV ? "arithmetic" : "integral");
		if (n->op == T_SHL || n->op == T_SHR)
			n->t = type_promote(a);
		else
			n->t = type_arith(a, b);
		if ((n->op == T_DIV || n->op == T_MOD)) {
			long long z;

			if (sema_constval(n->b, &z) && z == 0)
				dt_cerrt(lx, DT_D_DIV_ZERO, n->b->line, n->b->col,
					 "expression contains division by zero");
		}
		return n;
	}
}

static void assign_check(struct lexer *lx, struct node *n, struct dtype *lt,
			 struct node *r)
{
	struct dtype *rt = r->t;
	long long z;

	if (type_is_int(lt) && type_is_int(rt))
		return;
	if (lt->real->k == TK_PTR && rt->real->k == TK_PTR && type_compat(lt, rt))
		return;
	if (lt->real->k == TK_PTR && (type_is_int(rt) || rt->real->k == TK_ARRAY))
		return;		/* D lets integers (addresses) become pointers */
	if (type_is_int(lt) && rt->real->k == TK_PTR)
		return;
	if (lt->real->k == TK_STRING && type_is_strlike(rt))
		return;
	if (type_is_strlike(lt) && lt->real->k == TK_PTR && rt->real->k == TK_STRING)
		return;		/* a char * to a string's storage */
	if ((lt->real->k == TK_STRUCT || lt->real->k == TK_UNION) && lt->real == rt->real)
		return;
	if (lt->real->k == TK_STRING && type_is_int(rt) && sema_constval(r, &z) && !z)
		return;
	dt_cerrt(lx, DT_D_OP_INCOMPAT, n->line, n->col,
		 "operands have incompatible types: \"%s\" %s \"%s\"",
		 type_str(lt), sema_tokstr(n->op), type_str(rt));
}

struct node *sema_lvalue(struct prog *p, struct lexer *lx, struct node *n,
			 struct dtype *rt, int declare)
{
	struct dvar *v;
	int scope;

	switch (n->k) {
	case N_IDENT:
	case N_SELF:
	case N_THIS:
		scope = n->k == N_SELF ? XDT_VAR_THREAD : n->k == N_THIS ?
			XDT_VAR_LOCAL : XDT_VAR_GLOBAL;
		if (scope == XDT_VAR_GLOBAL && is_builtin(n->s))
			dt_cerrt(lx, DT_D_OP_WRITE, n->line, n->col,
				 "operator = cannot be applied to built-in variable %s", n->s);
		v = var_lookup(p, scope, n->s);
		if (!v) {
			long long ev;

			if (scope == XDT_VAR_GLOBAL && type_enumconst(n->s, &ev))
				dt_cerrt(lx, DT_D_OP_LVAL, n->line, n->col,
					 "operator = requires modifiable lvalue as an operand");
			for (int i = 0; i < p->ninlines; i++)
				if (!strcmp(p->inlines[i]->name, n->s))
					dt_cerrt(lx, DT_D_OP_LVAL, n->line, n->col,
						 "operator = requires modifiable lvalue as an operand");
			if (!declare || !rt)
				dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
					 "failed to resolve %s%s: Unknown variable name",
					 scope_prefix(scope), n->s);
			v = var_declare(p, lx, scope, n->s, rt, 0, NULL, n->line, n->col);
		}
		if (v->array)
			dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
				 "%s%s is an associative array: use %s%s[key]",
				 scope_prefix(scope), n->s, scope_prefix(scope), n->s);
		if (v->t->real->k == TK_ARRAY)
			dt_cerrt(lx, DT_D_OP_ARRFUN, n->line, n->col,
				 "operator = requires modifiable lvalue as an operand: %s is an array",
				 n->s);
		if (n->k == N_IDENT)
			n->k = N_DVAR;
		n->dv = v;
		n->t = v->t;
		return n;
	case N_INDEX:
		no_local_array(p, lx, n);
		if (n->a->k == N_IDENT || n->a->k == N_SELF) {
			scope = n->a->k == N_SELF ? XDT_VAR_THREAD : XDT_VAR_GLOBAL;
			if (n->a->k == N_IDENT && (!strcmp(n->a->s, "args") ||
						   !strcmp(n->a->s, "uregs")))
				dt_cerrt(lx, DT_D_OP_WRITE, n->line, n->col,
					 "operator = cannot be applied to built-in variable %s",
					 n->a->s);
			v = array_of(p, n->a);
			if (!v && declare && rt) {
				struct dtype *kt[DT_MAXKEYS];

				if (n->nargs > DT_MAXKEYS)
					dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
						 "too many keys");
				for (int i = 0; i < n->nargs; i++) {
					n->args[i] = sem(p, lx, n->args[i]);
					if (type_is_strlike(n->args[i]->t) &&
					    n->args[i]->t->real->k != TK_PTR)
						kt[i] = dt_string;
					else if (type_is_scalar(n->args[i]->t) ||
						 type_is_keybytes(n->args[i]->t))
						kt[i] = n->args[i]->t;
					else
						dt_cerrt(lx, DT_D_KEY_TYPE, n->args[i]->line,
							 n->args[i]->col,
							 "%s expression may not be used as associative array index: key #%d",
							 type_str(n->args[i]->t), i + 1);
				}
				for (int i = 0; i < n->nargs; i++)
					key_size_check(lx, n->args[i], i);
				v = var_declare(p, lx, scope, n->a->s, rt, n->nargs, kt,
						n->line, n->col);
			}
			if (v && v->array) {
				check_keys(p, lx, n, v);
				n->dv = v;
				n->t = v->t;
				return n;
			}
			if (!v)
				dt_cerrt(lx, DT_D_IDENT_UNDEF, n->a->line, n->a->col,
					 "failed to resolve %s%s: Unknown variable name",
					 scope_prefix(scope), n->a->s);
		}
		/*
		 * Stores through pointers compile, as in DTrace: the kernel
		 * lets them land only in the program's own variables and
		 * scratch, and faults ("invalid address") anywhere else.
		 */
		return subscript(p, lx, n);
	case N_MEMBER:
		return member(p, lx, n);
	case N_DEREF:
		return sem(p, lx, n);
	default:
		dt_cerrt(lx, DT_D_OP_LVAL, n->line, n->col,
			 "operator = requires modifiable lvalue as an operand");
	}
}

/*
 * `name, vmlinux`name: a kernel variable, as the lvalue *(T *)&name -- its
 * type from the build's table (btf_kvar), its address the running
 * kernel's.  Reads are DIF loads, each checked like any kernel load.
 */
static struct node *kernel_var(struct prog *p, struct lexer *lx, struct node *n)
{
	const char *bq = strchr(n->s, '`'), *name = bq + 1;
	char tstr[512];
	struct dtype *t;
	struct node *a, *d;
	__u64 addr;
	int k;

	if (bq != n->s && (bq - n->s != 7 || strncmp(n->s, "vmlinux", 7)))
		dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
			 "failed to resolve %s: only vmlinux's variables are known "
			 "(module variables are not)", n->s);
	k = btf_kvar(name, tstr, sizeof(tstr), &addr);
	if (k < 0)
		dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
			 "failed to resolve %s: no table of kernel variables "
			 "(vmlinux.vars, made by the build)", n->s);
	if (!k)
		dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
			 "failed to resolve %s: Unknown symbol name", n->s);
	t = dt_typestr(p, tstr);
	if (!t)
		dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
			 "failed to resolve %s: its type %s is not in the kernel's BTF",
			 n->s, tstr);
	a = node_new(N_INT, n->line, n->col);
	a->ival = (long long)addr;
	a->t = type_ptr(t);
	d = node_new(N_DEREF, n->line, n->col);
	d->a = a;
	d = sem(p, lx, d);
	d->akind = AK_SYM;	/* DTrace's symbols are Private/Private/Unknown */
	d->aname = xstrdup(name);
	return d;
}

static struct node *resolve_ident(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dvar *v;
	long long ev;
	struct dtype *et;

	for (int i = nbinds - 1; i >= 0; i--)
		if (!strcmp(binds[i].name, n->s))
			return binds[i].val;

	for (int i = 0; i < DIF_NVARS; i++) {
		if (!strcmp(n->s, varnames[i])) {
			n->k = N_VAR;
			n->var = i;
			n->t = builtin_type(i);
			return n;
		}
	}
	if ((v = var_lookup(p, XDT_VAR_GLOBAL, n->s))) {
		if (v->array)
			dt_cerrt(lx, DT_D_IDENT_BADREF, n->line, n->col,
				 "%s is an associative array: use %s[key]", n->s, n->s);
		n->k = N_DVAR;
		n->dv = v;
		n->t = v->t;
		return n;
	}
	if ((et = type_enumconst(n->s, &ev)))
		return int_node(n, ev, et);
	for (int i = 0; i < p->ninlines; i++) {
		if (!strcmp(p->inlines[i]->name, n->s)) {
			struct dinline *in = p->inlines[i];
			struct node *c;

			if (in->nparams)
				dt_cerrt(lx, DT_D_IDENT_BADREF, n->line, n->col,
					 "%s is an inline associative array: use %s[key]",
					 n->s, n->s);

			/* an inline's attributes are its own, not its body's */
			if (type_compat(in->t, in->e->t) || !type_is_int(in->t)) {
				in->e->akind = AK_INLINE;
				in->e->ainl = in;
				in->e->aname = in->name;
				return in->e;
			}
			c = node_new(N_CAST, n->line, n->col);
			c->ct = in->t;
			c->a = in->e;
			c->t = in->t;
			c->akind = AK_INLINE;
			c->ainl = in;
			c->aname = in->name;
			return c;
		}
	}
	if (!strcmp(n->s, "args"))
		dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
			 "args[ ] must be subscripted");
	if (!strcmp(n->s, "NULL"))	/* DTrace's D library: inline int NULL = 0 */
		return int_node(n, 0, dt_int);
	if (strchr(n->s, '`'))
		return kernel_var(p, lx, n);
	dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
		 "failed to resolve %s: Unknown variable name", n->s);
}

/*
 * A stable probe's args[i]: the native argument, cast to its native type,
 * translated to the probe's translated type (xlate<psinfo_t *>(...)), as
 * DTrace's sdt arguments are; a kernel char * translated to string is
 * read as one (stringof).
 */
static struct node *stable_arg(struct prog *p, struct lexer *lx,
			       struct node *n, struct dtype *nt,
			       struct dtype *xt)
{
	struct node *cast = node_new(N_CAST, n->line, n->col), *x;

	cast->ct = nt;
	cast->a = n;
	cast->t = nt;
	x = node_new(xt->real->k == TK_STRING ? N_STRINGOF : N_XLATE, n->line,
		     n->col);
	x->ct = xt;
	x->a = cast;
	return sem(p, lx, x);
}

static struct node *sem_int(struct prog *p, struct lexer *lx, struct node *n)
{
	(void)p;
	(void)lx;
	if (!n->t)
		n->t = n->ival == (int)n->ival ? dt_int : dt_long;
	return n;
}

static struct node *sem_str(struct prog *p, struct lexer *lx, struct node *n)
{
	(void)p;
	(void)lx;
	n->t = dt_string;
	return n;
}

static struct node *sem_tvar(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dvar *v;

	v = var_lookup(p, n->k == N_SELF ? XDT_VAR_THREAD : XDT_VAR_LOCAL, n->s);
	if (!v)
		dt_cerrt(lx, DT_D_IDENT_UNDEF, n->line, n->col,
			 "failed to resolve %s%s: Unknown variable name",
			 n->k == N_SELF ? "self->" : "this->", n->s);
	if (v->array)
		dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
			 "%s%s is an associative array: use %s%s[key]",
			 scope_prefix(v->scope), n->s, scope_prefix(v->scope), n->s);
	n->dv = v;
	n->t = v->t;
	return n;
}

/* args[i]: the probe's argument, typed by its prototype when i is constant */
static struct node *sem_args(struct prog *p, struct lexer *lx, struct node *n)
{
	long long c;
	struct node *cast;
	struct dtype *at;
	int k;

	if (n->nargs != 1)
		dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
			 "args[ ] takes one subscript");
	if (!p->argdesc)
		dt_cerrt(lx, DT_D_ARGS_NONE, n->line, n->col,
			 "args[ ] may not be referenced outside of a probe clause");
	n->k = N_ARGS;
	n->a = sem(p, lx, n->args[0]);
	if (!type_is_int(n->a->t))
		dt_cerrt(lx, DT_D_OP_INT, n->a->line, n->a->col,
			 "args[ ] subscript must be an integer");
	n->t = dt_int64;
	k = sema_constval(n->a, &c);
	if (k && (c < 0 || c >= 10))
		dt_cerrt(lx, DT_D_ARR_BADREF, n->a->line, n->a->col,
			 "index %lld is out of range for args[ ]", c);
	if (k && p->argdesc)
		dt_argtypes(p, lx, n->a->line, n->a->col);
	if (!k || !p->argdesc || p->nargt < 0)
		return n;	/* untyped: int64_t */
	if (c >= p->nargt)
		dt_cerrt(lx, DT_D_ARGS_IDX, n->a->line, n->a->col,
			 "index %lld is out of range for %s args[ ]",
			 c, p->argdesc);
	/*
	 * The prototype's type: a cast of the 64-bit argument, so narrower
	 * ones are narrowed (the ABIs leave their upper bits undefined).  A
	 * struct passed by value stays int64_t.
	 */
	at = p->argt[c];
	if (p->argn[c])
		cast = stable_arg(p, lx, n, p->argn[c], at);
	else if (!type_is_scalar(at))
		return n;
	else {
		cast = node_new(N_CAST, n->line, n->col);
		cast->ct = at;
		cast->a = n;
		cast->t = at;
	}
	/* args[i]'s attributes are its provider's, whatever its type */
	cast->akind = AK_ARGS;
	return cast;
}

static struct node *sem_index(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dvar *v;
	long long idx;

	no_local_array(p, lx, n);
	if (n->a->k == N_IDENT && !strcmp(n->a->s, "args"))
		return sem_args(p, lx, n);
	if (n->a->k == N_IDENT && !strcmp(n->a->s, "uregs")) {
		/*
		 * uregs[R_PC]: the firing thread's user registers, by the
		 * ISA's numbering (the R_ names: /usr/lib/xdt/regs.d); an
		 * index the ISA does not have faults at run time (ERROR).
		 */
		if (n->nargs != 1)
			dt_cerrt(lx, DT_D_ARR_BADREF, n->line, n->col,
				 "uregs[ ] takes one subscript");
		n->k = N_UREGS;
		n->a = sem(p, lx, n->args[0]);
		if (!type_is_int(n->a->t))
			dt_cerrt(lx, DT_D_OP_INT, n->a->line, n->a->col,
				 "uregs[ ] subscript must be an integer");
		/* a negative constant, as DTrace: a large one faults at run time */
		if (sema_constval(n->a, &idx) && idx < 0 && n->a->t->real->sgn)
			dt_cerrt(lx, DT_D_REGS_IDX, n->a->line, n->a->col,
				 "index %lld is out of range for array uregs", idx);
		n->t = dt_uint64;
		return n;
	}
	if (n->a->k == N_IDENT && !var_lookup(p, XDT_VAR_GLOBAL, n->a->s))
		for (int i = 0; i < p->ninlines; i++)
			if (p->inlines[i]->nparams &&
			    !strcmp(p->inlines[i]->name, n->a->s))
				return inline_index(p, lx, n, p->inlines[i]);
	if (n->a->k == N_IDENT || n->a->k == N_SELF) {
		v = array_of(p, n->a);
		if (v && v->array) {
			check_keys(p, lx, n, v);
			n->dv = v;
			n->t = v->t;
			return n;
		}
		if (!v && n->a->k == N_SELF)
			dt_cerrt(lx, DT_D_IDENT_UNDEF, n->a->line, n->a->col,
				 "failed to resolve self->%s: Unknown variable name",
				 n->a->s);
		if (!v && n->a->k == N_IDENT &&
		    !type_enumconst(n->a->s, &(long long){0}) &&
		    !var_lookup(p, XDT_VAR_GLOBAL, n->a->s)) {
			int inl = 0;

			for (int i = 0; i < p->ninlines; i++)
				inl |= !strcmp(p->inlines[i]->name, n->a->s);
			if (!inl)
				dt_cerrt(lx, DT_D_IDENT_UNDEF, n->a->line, n->a->col,
					 "failed to resolve %s: Unknown variable name",
					 n->a->s);
		}
	}
	return subscript(p, lx, n);
}

static struct node *sem_unary(struct prog *p, struct lexer *lx, struct node *n)
{
	n->a = sem(p, lx, n->a);
	act_check(lx, n->a, DT_D_OP_ARITH);
	if (n->op == T_NOT) {
		if (!type_is_scalar(n->a->t))
			dt_cerrt(lx, DT_D_OP_SCALAR, n->line, n->col,
				 "operator ! requires an operand of scalar type");
		n->t = dt_int;
		return n;
	}
	if (!type_is_int(n->a->t))
		dt_cerrt(lx, n->op == T_TILDE ? DT_D_OP_INT : DT_D_OP_ARITH,
			 n->line, n->col, "operator %s requires an operand of %s type",
			 sema_tokstr(n->op), n->op == T_TILDE ? "integral" : "arithmetic");
	n->t = type_promote(n->a->t);
	if (n->op == T_PLUS)
		return n->a;
	return n;
}

static struct node *sem_logical(struct prog *p, struct lexer *lx, struct node *n)
{
	n->a = sem(p, lx, n->a);
	n->b = sem(p, lx, n->b);
	act_check(lx, n->a, DT_D_OP_ARITH);
	act_check(lx, n->b, DT_D_OP_ARITH);
	if (!type_is_scalar(n->a->t) || !type_is_scalar(n->b->t))
		dt_cerrt(lx, DT_D_OP_SCALAR, n->line, n->col,
			 "operator %s requires operands of scalar type",
			 n->k == N_AND ? "&&" : "||");
	n->t = dt_int;
	return n;
}

/*
 * A name DTrace types as dynamic (its DT_DYN type): an array, args[] or
 * uregs[] without a subscript.  It has no value; what refuses it, and
 * with which tag, depends on where it is (sem_ternary, lower_trace).
 */
int sema_is_dynamic(struct prog *p, const struct node *n)
{
	struct dvar *v = NULL;

	if (n->k == N_IDENT && (!strcmp(n->s, "args") || !strcmp(n->s, "uregs")))
		return 1;
	if (n->k == N_IDENT)
		v = var_lookup(p, XDT_VAR_GLOBAL, n->s);
	else if (n->k == N_SELF || n->k == N_THIS)
		v = var_lookup(p, n->k == N_SELF ? XDT_VAR_THREAD : XDT_VAR_LOCAL, n->s);
	return v && v->array;
}

static struct node *sem_ternary(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *a, *b;

	if (sema_is_dynamic(p, n->b) || sema_is_dynamic(p, n->c))
		dt_cerrt(lx, DT_D_OP_DYN, n->line, n->col,
			 "operator ?: operands cannot be of dynamic type");
	n->a = sem(p, lx, n->a);
	n->b = sem(p, lx, n->b);
	n->c = sem(p, lx, n->c);
	act_check(lx, n->a, DT_D_OP_ACT);
	act_check(lx, n->b, DT_D_OP_ACT);
	act_check(lx, n->c, DT_D_OP_ACT);
	if (!type_is_scalar(n->a->t) && !type_is_strlike(n->a->t))
		dt_cerrt(lx, DT_D_OP_SCALAR, n->line, n->col,
			 "operator ?: requires a scalar condition");
	a = n->b->t;
	b = n->c->t;
	if (type_is_int(a) && type_is_int(b))
		n->t = type_arith(a, b);
	else if (type_is_strlike(a) && type_is_strlike(b))
		n->t = a->real->k == TK_STRING ? a : b->real->k == TK_STRING ? b : a;
	else if (type_compat(a, b))
		n->t = a;
	else if (a->real->k == TK_PTR && type_is_int(b))
		n->t = a;
	else if (b->real->k == TK_PTR && type_is_int(a))
		n->t = b;
	else
		dt_cerrt(lx, DT_D_OP_INCOMPAT, n->line, n->col,
			 "operator ?: operands must have compatible types");
	return n;
}

static struct node *sem_cast(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *to = n->ct, *from;

	n->a = sem(p, lx, n->a);
	from = n->a->t;
	if (to->real->k == TK_VOID ||
	    (type_is_scalar(to) && (type_is_scalar(from) || from->real->k == TK_ARRAY)) ||
	    (to->real->k == TK_STRING && (type_is_strlike(from) || type_is_scalar(from))) ||
	    type_compat(to, from)) {
		n->t = to;
		return n;
	}
	dt_cerrt(lx, DT_D_CAST_INVAL, n->line, n->col,
		 "invalid cast expression: \"%s\" to \"%s\"",
		 type_str(from), type_str(to));
}

static struct node *sem_deref(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *to;

	n->a = sem(p, lx, n->a);
	if (n->a->t->real->k != TK_PTR && n->a->t->real->k != TK_ARRAY)
		dt_cerrt(lx, DT_D_DEREF_NONPTR, n->line, n->col,
			 "operator * requires a pointer operand, e.g. *(int *)addr");
	n->t = n->a->t->real->base;
	to = n->t->real;
	if (to->k == TK_VOID)
		dt_cerrt(lx, DT_D_DEREF_VOID, n->line, n->col,
			 "cannot dereference a pointer to void");
	if (to->k == TK_FUNC)
		dt_cerrt(lx, DT_D_DEREF_FUNC, n->line, n->col,
			 "cannot dereference pointer to function");
	/* nothing to load: the size is unknown, so is every member */
	if ((to->k == TK_STRUCT || to->k == TK_UNION) && !type_defined(to))
		incomplete(lx, n, "*", to);
	return n;
}

static struct node *sem_addr(struct prog *p, struct lexer *lx, struct node *n)
{
	n->a = sem(p, lx, n->a);
	if (n->a->k == N_MEMBER && n->a->mem->bits)
		dt_cerrt(lx, DT_D_ADDROF_BITFIELD, n->line, n->col,
			 "cannot take address of bit-field");
	if (n->a->k == N_DVAR || n->a->k == N_SELF || n->a->k == N_THIS ||
	    n->a->k == N_INDEX || n->a->k == N_VAR || n->a->k == N_ARGS ||
	    n->a->k == N_UREGS) {
		if (!(n->a->k == N_DVAR && type_is_byref(n->a->t)))
			dt_cerrt(lx, DT_D_ADDROF_VAR, n->line, n->col,
				 "cannot take address of dynamic variable");
	} else if (!is_memory_lvalue(n->a) && !is_dvar_storage(n->a)) {
		dt_cerrt(lx, DT_D_ADDROF_LVAL, n->line, n->col,
			 "unacceptable operand for unary & operator");
	}
	n->t = type_ptr(n->a->t);
	return n;
}

static struct node *sem_assign(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *lt;

	/*
	 * x op= e reads x first: DTrace resolves it before the value,
	 * so an undeclared x is D_VAR_UNDEF whatever e is.
	 */
	if (n->op != T_ASSIGN && n->a->k == N_IDENT &&
	    !var_lookup(p, XDT_VAR_GLOBAL, n->a->s) && !is_builtin(n->a->s) &&
	    !type_enumconst(n->a->s, &(long long){ 0 }))
		dt_cerrt(lx, DT_D_VAR_UNDEF, n->a->line, n->a->col,
			 "failed to resolve %s: Unknown variable name", n->a->s);
	n->b = sem(p, lx, n->b);
	act_check(lx, n->b, DT_D_ACT_SPEC);
	if (n->op != T_ASSIGN && (n->op == T_ADDEQ || n->op == T_SUBEQ) &&
	    n->b->t->real->k == TK_PTR && n->b->t->real->base->real->k == TK_VOID)
		dt_cerrt(lx, DT_D_OP_VFPTR, n->line, n->col,
			 "operator %s requires pointer to non-void type",
			 sema_tokstr(n->op));
	if (n->op == T_ASSIGN) {
		struct dtype *dt = NULL;

		/* an undeclared variable is declared by its first value */
		if (n->a->k == N_IDENT || n->a->k == N_SELF || n->a->k == N_THIS ||
		    n->a->k == N_INDEX)
			dt = decl_type(lx, n->b);
		n->a = sema_lvalue(p, lx, n->a, dt, 1);
	} else {
		/* x op= e on a new variable declares it an int, as ++ does */
		n->a = sema_lvalue(p, lx, n->a, dt_int, 1);
	}
	lt = n->a->t;
	if (n->op == T_ASSIGN) {
		assign_check(lx, n, lt, n->b);
	} else if (!(type_is_int(lt) && type_is_int(n->b->t)) &&
		   !(lt->real->k == TK_PTR && type_is_int(n->b->t) &&
		     (n->op == T_ADDEQ || n->op == T_SUBEQ))) {
		dt_cerrt(lx, type_is_int(lt) || lt->real->k == TK_PTR ?
			 DT_D_OP_INCOMPAT : DT_D_OP_ARITH, n->line, n->col,
			 "operator %s requires operands of arithmetic type",
			 sema_tokstr(n->op));
	}
	if (n->a->k == N_MEMBER && n->a->mem->bits && type_is_byref(lt))
		dt_cerrt(lx, DT_D_OP_BFIELD, n->line, n->col, "invalid bit-field");
	n->t = lt;
	return n;
}

static struct node *sem_incdec(struct prog *p, struct lexer *lx, struct node *n)
{
	/* DTrace declares an unknown variable int64_t on first ++ / --
	   (dt_cook_op1) */
	n->a = sema_lvalue(p, lx, n->a, dt_int64, 1);
	if (!type_is_scalar(n->a->t))
		dt_cerrt(lx, DT_D_OP_SCALAR, n->line, n->col,
			 "operator %s requires an operand of scalar type",
			 sema_tokstr(n->op));
	n->t = n->a->t;
	return n;
}

static struct node *sem_sizeof(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *t = n->ct;

	if (!t) {
		n->a = sem(p, lx, n->a);
		if (n->a->k == N_MEMBER && n->a->mem->bits)
			dt_cerrt(lx, DT_D_SIZEOF_BITFIELD, n->line, n->col,
				 "cannot apply sizeof to a bit-field");
		t = n->a->t;
	}
	if (t->real->k == TK_VOID || t->real->k == TK_FUNC ||
	    ((t->real->k == TK_STRUCT || t->real->k == TK_UNION) && !type_defined(t->real)))
		dt_cerrt(lx, DT_D_SIZEOF_TYPE, n->line, n->col,
			 "cannot apply sizeof to an expression of type %s", type_str(t));
	return int_node(n, t->real->size, type_named("size_t"));
}

static struct node *sem_offsetof(struct prog *p, struct lexer *lx, struct node *n)
{
	(void)p;
	struct dtype *t = n->ct->real;
	const struct dmember *m;

	if ((t->k != TK_STRUCT && t->k != TK_UNION) || !type_defined(t))
		dt_cerrt(lx, DT_D_OFFSETOF_TYPE, n->line, n->col,
			 "offsetof( ) first argument must be a struct or union type");
	m = type_member(t, n->s);
	if (!m)
		dt_cerrt(lx, DT_D_TYPE_MEMBER, n->line, n->col,
			 "%s is not a member of %s", n->s, t->name);
	if (m->bits)
		dt_cerrt(lx, DT_D_OFFSETOF_BITFIELD, n->line, n->col,
			 "offsetof( ) cannot be applied to a bit-field member");
	return int_node(n, m->off, type_named("size_t"));
}

static struct node *sem_xlate(struct prog *p, struct lexer *lx, struct node *n)
{
	struct dtype *o = n->ct->real->k == TK_PTR ? n->ct->real->base : n->ct;
	struct dtype *in;
	long long zero;
	int null;

	n->a = sem(p, lx, n->a);
	in = n->a->t;
	n->xl = xlator_find(p, o, in);
	/*
	 * DTrace's last resort (dt_xlator_lookup's argument-compatible pass):
	 * the integer constant 0 -- NULL -- goes with any pointer type, so
	 * xlate<fileinfo_t *>(NULL) takes the first translator to the type
	 * whose input is a pointer.  That input, or a void * given to a
	 * translator of a typed pointer, is cast to the translator's input
	 * type, which its members are typed over.
	 */
	null = type_is_int(in) && sema_constval(n->a, &zero) && !zero;
	for (int i = 0; i < p->nxlators && !n->xl && null; i++)
		if (p->xlators[i]->out->real == o->real &&
		    p->xlators[i]->in->real->k == TK_PTR)
			n->xl = p->xlators[i];
	if (n->xl && n->xl->in->real->k == TK_PTR && (null ||
	    (in->real->k == TK_PTR && in->real->base->real->k == TK_VOID))) {
		struct node *c = node_new(N_CAST, n->line, n->col);

		c->ct = c->t = n->xl->in;
		c->a = n->a;
		n->a = c;
	}
	if (!n->xl)
		dt_cerrt(lx, DT_D_XLATE_NONE, n->line, n->col,
			 "translator does not exist: %s -> %s", type_str(in), type_str(o));
	n->nargs = n->xl->nmems;
	n->args = xzalloc((n->nargs ? n->nargs : 1) * sizeof(*n->args));
	for (int i = 0; i < n->nargs; i++)
		n->args[i] = xlate_member(p, lx, n->xl, i, n->a);
	n->t = n->ct;
	return n;
}

static struct node *sem_stringof(struct prog *p, struct lexer *lx, struct node *n)
{
	n->a = sem(p, lx, n->a);
	if (!type_is_scalar(n->a->t) && !type_is_strlike(n->a->t))
		dt_cerrt(lx, DT_D_STRINGOF_TYPE, n->line, n->col,
			 "stringof( ) operand must be a pointer, integer or string");
	n->t = dt_string;
	return n;
}

/*
 * a, b: a for its effects, then b, whose type and value it has (K&R
 * A7.18).  An action is no operand (DTrace's D_OP_ACT), nor is it
 * constant: dt_cook_op2 folds no comma.
 */
static struct node *sem_comma(struct prog *p, struct lexer *lx, struct node *n)
{
	n->a = sem(p, lx, n->a);
	n->b = sem(p, lx, n->b);
	if ((n->a->k == N_CALL && n->a->var == -2) ||
	    (n->b->k == N_CALL && n->b->var == -2))
		dt_cerrt(lx, DT_D_OP_ACT, n->line, n->col,
			 "operator , operands cannot be actions");
	n->t = n->b->t;
	return n;
}

/* The semantic pass over one node kind: its type, its rewrites, its errors. */
static struct node *(*const sem_kind[])(struct prog *, struct lexer *,
					 struct node *) = {
	[N_INT] = sem_int,
	[N_STR] = sem_str,
	[N_IDENT] = resolve_ident,
	[N_SELF] = sem_tvar,
	[N_THIS] = sem_tvar,
	[N_INDEX] = sem_index,
	[N_UN] = sem_unary,
	[N_BIN] = binop,
	[N_AND] = sem_logical,
	[N_OR] = sem_logical,
	[N_TERN] = sem_ternary,
	[N_CAST] = sem_cast,
	[N_DEREF] = sem_deref,
	[N_ADDR] = sem_addr,
	[N_MEMBER] = member,
	[N_ASSIGN] = sem_assign,
	[N_INCDEC] = sem_incdec,
	[N_CALL] = call,
	[N_SIZEOF] = sem_sizeof,
	[N_OFFSETOF] = sem_offsetof,
	[N_XLATE] = sem_xlate,
	[N_STRINGOF] = sem_stringof,
	[N_COMMA] = sem_comma,
};

static struct node *sem(struct prog *p, struct lexer *lx, struct node *n)
{
	if (n->t && n->k != N_INT)
		return n;	/* typed already (an inline's body, a rewrite) */
	if ((size_t)n->k >= sizeof(sem_kind) / sizeof(sem_kind[0]) ||
	    !sem_kind[n->k])
		dt_cerrt(lx, DT_D_SYNTAX, n->line, n->col, "unsupported expression");
	return sem_kind[n->k](p, lx, n);
}

struct node *sema_expr(struct prog *p, struct lexer *lx, struct node *n)
{
	char *text = n->text;

	n = sem(p, lx, n);
	if (!n->text)
		n->text = text;	/* a rewritten argument keeps its name */
	act_check(lx, n, DT_D_ACT_SPEC);
	n->type = type_is_strlike(n->t) ? XDT_TYPE_STRING : XDT_TYPE_INT;
	dt_attr_expr(p, lx, n);
	return n;
}
