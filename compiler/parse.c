// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - recursive descent over D: declarations (variables with their
 * storage classes, struct/union/enum, typedef, inline) and probe clauses.
 * Each clause's body is parsed whole into statements over untyped
 * expression trees, then lowered in source order (lower.c): the semantic pass
 * (sema.c) types each expression and declares variables on first
 * assignment, and cg.c emits its DIF.
 *
 *   program   := (decl | clause)*
 *   clause    := desc (',' desc)* ['/' expr '/'] ['{' stmt* '}']
 *   stmt      := ';' | '{' stmt* '}' | if '(' expr ')' stmt [else stmt]
 *              | action '(' args ')' | @name ['[' keys ']'] = aggfunc(args)
 *              | expr                          (each followed by ; or })
 *   expr      := C's expressions over D's types, with assignment, ?:,
 *                ++/--, casts, sizeof, offsetof, stringof, self->x,
 *                this->x, arrays a[k, ...], members . and ->.
 *
 * if/else is DTrace's sugar (illumos' dt_sugar.c): a clause with an if is
 * cut into several clauses for the same probes, run in order by the same
 * firing; the condition is computed once into a clause-local variable
 * (this-> values last for the whole firing, across clauses) and each
 * piece's predicate reads it.  No new kernel mechanism, and each piece
 * has a fixed record layout.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include "stable.h"
#include "parse.h"

/* The tree's constructor: every node starts as an untyped int. */
struct node *node_new(enum nkind k, int line, int col)
{
	struct node *n = xzalloc(sizeof(*n));

	n->k = k;
	n->line = line;
	n->col = col;
	n->type = XDT_TYPE_INT;
	return n;
}

static _Noreturn void syntax(struct parser *ps)
{
	struct token *t = &TOK(ps);

	if (t->t == T_EOF)
		dt_cerrt(&ps->lx, DT_D_SYNTAX, t->line, t->col,
			 "syntax error near end of input");
	dt_cerrt(&ps->lx, DT_D_SYNTAX, t->line, t->col,
		 "syntax error near \"%.*s\"", (int)t->srclen, t->start);
}

static void expect(struct parser *ps, enum tok t)
{
	if (TOK(ps).t != t)
		syntax(ps);
	lex_next(&ps->lx);
}

static int is_ident(struct parser *ps, const char *s)
{
	return TOK(ps).t == T_IDENT && !strcmp(TOK(ps).s, s);
}

/* The actions: statements only, never values (the table: d_actions[]). */
int is_action(const char *s)
{
	const struct d_action *a = d_action(s);

	return a && a->lower;
}

/* ---- types in declarations and casts ------------------------------------ */
static struct dtype *specifiers(struct parser *ps, int *storage, int must);
static struct dtype *declarator(struct parser *ps, struct dtype *base,
				char **name, int *line, int *col, int abstract);

/* The storage classes DTrace knows; 0 none, else the keyword's code. */
enum { SC_NONE, SC_SELF, SC_THIS, SC_EXTERN, SC_STATIC, SC_REGISTER,
       SC_TYPEDEF, SC_INLINE };

static int is_baseword(const char *s)
{
	static const char *const w[] = { "char", "short", "int", "long", "signed",
					 "unsigned", "float", "double", "void" };
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(s, w[i]))
			return 1;
	return 0;
}

/* "D`int" and "C`int" name the same type as "int" */
static const char *unscoped(const char *s)
{
	return (s[0] == 'D' || s[0] == 'C') && s[1] == '`' ? s + 2 : s;
}

static int storage_word(const char *s)
{
	if (!strcmp(s, "self")) return SC_SELF;
	if (!strcmp(s, "this")) return SC_THIS;
	if (!strcmp(s, "extern")) return SC_EXTERN;
	if (!strcmp(s, "static")) return SC_STATIC;
	if (!strcmp(s, "register")) return SC_REGISTER;
	if (!strcmp(s, "typedef")) return SC_TYPEDEF;
	if (!strcmp(s, "inline")) return SC_INLINE;
	return SC_NONE;
}

static long long const_expr(struct parser *ps, struct node **out);
static long long const_expr_tag(struct parser *ps, struct node **out, int tag);
static struct node *assign_expr(struct parser *ps);
static struct dtype *dims(struct parser *ps, struct dtype *t);

/* struct/union body: members laid out as C lays them out. */
static void sou_body(struct parser *ps, struct dtype *t)
{
	/* a bit cursor, so bit-fields pack as C compilers pack them */
	unsigned long bit = 0;
	unsigned size = 0, align = 1;
	int has_bits = 0;

	expect(ps, T_LBRACE);
	if (t->defined)
		dt_cerrt(&ps->lx, DT_D_DECL_TYPERED, TOK(ps).line, TOK(ps).col,
			 "type redeclared: %s", t->name);
	while (TOK(ps).t != T_RBRACE) {
		int sc = 0;
		struct dtype *bt = specifiers(ps, &sc, 1);

		for (;;) {
			char *name = NULL;
			int line, col;
			struct dtype *mt;

			if (TOK(ps).t == T_SEMI || TOK(ps).t == T_COMMA)
				dt_cerrt(&ps->lx, DT_D_DECL_MNAME, TOK(ps).line, TOK(ps).col,
					 "member declaration requires a name");
			mt = declarator(ps, bt, &name, &line, &col, 0);
			if (name && strchr(name, '`'))
				dt_cerrt(&ps->lx, DT_D_DECL_SCOPE, line, col,
					 "D scoping operator may not be used in a member name (%s)",
					 name);
			struct dmember m = { name, mt, 0, 0, 0, 0, 0 };
			unsigned msize, malign;

			mt = m.t = dims(ps, mt);
			msize = mt->real->size;
			malign = mt->real->align ? mt->real->align : 1;
			if (mt->real->k == TK_VOID || !msize ||
			    ((mt->real->k == TK_STRUCT || mt->real->k == TK_UNION) &&
			     !type_defined(mt->real)))
				dt_cerrt(&ps->lx, DT_D_DECL_INCOMPLETE, line, col,
					 "declaration of member %s uses incomplete type %s",
					 name ? name : "", mt->name);
			if (name && type_member(t, name))
				dt_cerrt(&ps->lx, DT_D_UNKNOWN, line, col,
					 "failed to define member %s: member already defined in %s",
					 name, t->name);
			if (TOK(ps).t == T_COLON) {
				struct node *e;
				long long bits;
				unsigned long ub = 8ul * msize;

				lex_next(&ps->lx);
				bits = const_expr(ps, &e);
				if (!type_is_int(mt))
					dt_cerrt(&ps->lx, DT_D_DECL_BFTYPE, e->line, e->col,
						 "bit-field %s must be of integral type", name ? name : "");
				if (bits <= 0)
					dt_cerrt(&ps->lx, DT_D_DECL_BFCONST, e->line, e->col,
						 "positive integral constant expression expected as bit-field size");
				if (bits > (long long)ub)
					dt_cerrt(&ps->lx, DT_D_DECL_BFSIZE, e->line, e->col,
						 "bit-field too big for type: %s", name ? name : "");
				/*
				 * DTrace's layout (CTF's ctf_add_member_offset),
				 * not a C compiler's: a bit-field is an integer of
				 * ceil(width / 8) bytes, aligned to that size, so
				 * every field starts on a byte boundary and the
				 * struct ends at its last field (the suite's
				 * bitfields/tst.SizeofBitField.d checks exactly
				 * this).  Kernel structs come from BTF, not from
				 * D declarations.
				 */
				msize = (unsigned)((bits + 7) / 8);
				malign = msize;
				if (t->k == TK_UNION) {
					m.off = 0;
				} else {
					bit = (bit + 8ul * malign - 1) / (8ul * malign) * (8ul * malign);
					m.off = (unsigned)(bit / 8);
					bit += (unsigned long)bits;
				}
				m.bitoff = 0;
				m.bits = (unsigned)bits;
				/* its own bytes: 3, 5, 6, 7 too (cg.c, bf_load) */
				m.usize = msize;
				has_bits = 1;
			} else if (t->k == TK_UNION) {
				m.off = 0;
			} else {
				unsigned long byte = (bit + 7) / 8;

				byte = (byte + malign - 1) / malign * malign;
				m.off = (unsigned)byte;
				bit = (byte + msize) * 8;
			}
			if (t->k != TK_UNION && (unsigned long)(m.off + msize) > (bit + 7) / 8)
				bit = (unsigned long)(m.off + msize) * 8;
			if (malign > align)
				align = malign;
			if (msize > size)
				size = msize;
			if (name) {
				t->mems = xrealloc(t->mems, (t->nmems + 1) * sizeof(*t->mems));
				t->mems[t->nmems++] = m;
			}
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
		expect(ps, T_SEMI);
	}
	lex_next(&ps->lx);
	if (t->k == TK_STRUCT)
		size = (unsigned)((bit + 7) / 8);
	/* with bit-fields, DTrace's struct ends at its last member */
	t->size = has_bits ? size : (size + align - 1) / align * align;
	t->align = align;
	t->defined = 1;
}

static void enum_body(struct parser *ps, struct dtype *t)
{
	long long v = 0;

	expect(ps, T_LBRACE);
	while (TOK(ps).t != T_RBRACE) {
		struct token n = TOK(ps);
		long long old;

		if (n.t != T_IDENT)
			syntax(ps);
		for (int i = 0; i < t->necs; i++)
			if (!strcmp(t->ecs[i].name, n.s))
				dt_cerrt(&ps->lx, DT_D_UNKNOWN, n.line, n.col,
					 "failed to define %s: enumerator already defined in %s",
					 n.s, t->name);
		if (type_enumconst(n.s, &old))
			dt_cerrt(&ps->lx, DT_D_DECL_IDRED, n.line, n.col,
				 "identifier redeclared: %s", n.s);
		lex_next(&ps->lx);
		if (TOK(ps).t == T_ASSIGN) {
			struct node *e;

			lex_next(&ps->lx);
			v = const_expr_tag(ps, &e, DT_D_DECL_ENCONST);
			if (v < INT32_MIN || v > INT32_MAX)
				dt_cerrt(&ps->lx, DT_D_DECL_ENOFLOW, e->line, e->col,
					 "enumerator '%s' overflows its type", n.s);
		}
		if (v > INT32_MAX)
			dt_cerrt(&ps->lx, DT_D_DECL_ENOFLOW, n.line, n.col,
				 "enumerator '%s' overflows its type", n.s);
		type_enumconst_add(n.s, v, t);
		t->ecs = xrealloc(t->ecs, (t->necs + 1) * sizeof(*t->ecs));
		t->ecs[t->necs].name = n.s;
		t->ecs[t->necs++].v = v;
		v++;
		if (TOK(ps).t != T_COMMA)
			break;
		lex_next(&ps->lx);
	}
	expect(ps, T_RBRACE);
	t->defined = 1;
}

/*
 * Declaration specifiers: [storage] qualifiers and type words, or a
 * struct/union/enum specifier (with or without a body), or a typedef
 * name.  @must: a type is required (else NULL if none starts here).
 */
static struct dtype *specifiers(struct parser *ps, int *storage, int must)
{
	const char *words[8];
	int nw = 0, line = TOK(ps).line, col = TOK(ps).col, r;
	struct dtype *t = NULL;

	for (;;) {
		struct token k = TOK(ps);
		int sc;

		if (k.t != T_IDENT)
			break;
		k.s = (char *)unscoped(k.s);
		if ((sc = storage_word(k.s)) != SC_NONE) {
			if (!storage)
				break;
			if (*storage)
				dt_cerrt(&ps->lx, DT_D_DECL_CLASS, k.line, k.col,
					 "more than one storage class specified");
			/* `this` and `self` are only storage classes before a type */
			if ((sc == SC_SELF || sc == SC_THIS) &&
			    lex_peek(&ps->lx).t == T_ARROW)
				break;
			*storage = sc;
			lex_next(&ps->lx);
			continue;
		}
		if (!strcmp(k.s, "const") || !strcmp(k.s, "volatile") ||
		    !strcmp(k.s, "restrict")) {
			lex_next(&ps->lx);
			continue;
		}
		if (!strcmp(k.s, "struct") || !strcmp(k.s, "union") ||
		    !strcmp(k.s, "enum")) {
			enum tkind tk = k.s[0] == 's' ? TK_STRUCT :
					k.s[0] == 'u' ? TK_UNION : TK_ENUM;
			char anon[32];
			const char *tag, *scoped = NULL;

			for (int i = 0; i < nw; i++) {
				if (!strcmp(words[i], "signed") || !strcmp(words[i], "unsigned"))
					dt_cerrt(&ps->lx, DT_D_DECL_SIGNINT, k.line, k.col,
						 "invalid type combination: %s %s", words[i], k.s);
				if (!strcmp(words[i], "long") || !strcmp(words[i], "short"))
					dt_cerrt(&ps->lx, DT_D_DECL_LONGINT, k.line, k.col,
						 "invalid type combination: %s %s", words[i], k.s);
			}
			if (t || nw)
				dt_cerrt(&ps->lx, DT_D_DECL_COMBO, k.line, k.col,
					 "invalid type combination");
			lex_next(&ps->lx);
			if (TOK(ps).t == T_IDENT) {
				tag = TOK(ps).s;
				/* D`tag and C`tag name the same types as tag */
				if ((tag[0] == 'D' || tag[0] == 'C') && tag[1] == '`')
					tag += 2;
				else if (strchr(tag, '`'))	/* mod`tag: the kernel's */
					scoped = tag;
				if (scoped)
					tag = strchr(tag, '`') + 1;
				lex_next(&ps->lx);
				/* a definition cannot be the kernel's */
				if (scoped && TOK(ps).t == T_LBRACE)
					dt_cerrt(&ps->lx, DT_D_SYNTAX, TOK(ps).line, TOK(ps).col,
						 "syntax error near \"{\": %s cannot be defined",
						 scoped);
			} else if (TOK(ps).t == T_LBRACE) {
				static int nanon;

				snprintf(anon, sizeof(anon), "<anon%d>", ++nanon);
				tag = anon;
			} else {
				syntax(ps);
			}
			/* a body defines D's own type, whatever the kernel has */
			t = TOK(ps).t == T_LBRACE ? type_tagged_local(tk, tag) :
			    type_tagged(tk, tag, 0);
			if (t && t->k != tk)
				t = NULL;
			if (!t)
				t = type_tagged(tk, tag, 1);
			if (TOK(ps).t == T_LBRACE) {
				if (tk == TK_ENUM)
					enum_body(ps, t);
				else
					sou_body(ps, t);
			}
			continue;
		}
		if (t)
			break;
		if (is_baseword(k.s)) {
			if (nw == 8)
				dt_cerrt(&ps->lx, DT_D_DECL_COMBO, k.line, k.col,
					 "invalid type combination");
			words[nw++] = k.s;
			lex_next(&ps->lx);
			continue;
		}
		/* a typedef name: the type, unless type words came first (then
		   it is the declarator's name) */
		if (!nw && type_named(k.s)) {
			t = type_named(k.s);
			lex_next(&ps->lx);
			continue;
		}
		break;
	}
	if (t)
		return t;
	if (!nw) {
		if (must)
			syntax(ps);
		return NULL;
	}
	r = type_combine(words, nw, &t);
	if (r == -6 && !ps->in_typename)
		dt_cerrt(&ps->lx, DT_D_DECL_CHARATTR, line, col,
			 "invalid type declaration: short and long may not be used with char type");
	if (r < 0)
		dt_cerrt(&ps->lx, r == -5 ? DT_D_DECL_COMBO :
			 ps->in_typename ? DT_D_UNKNOWN :
			 r == -2 ? DT_D_DECL_SIGNINT : r == -3 ? DT_D_DECL_LONGINT :
			 r == -4 ? DT_D_DECL_VOIDATTR : DT_D_DECL_COMBO, line, col,
			 "invalid type combination");
	if (!r)
		syntax(ps);
	return t;
}

static void prototype(struct parser *ps);

/*
 * Does the '(' at the current token group a declarator -- "(*p)",
 * "(*)[4]", "(name)" -- rather than open a function's parameter list
 * ("int (int)")?  @abstract: 0 a name is required, 1 none may be
 * given, 2 either (a prototype's parameter).
 */
static int declarator_group(struct parser *ps, int abstract)
{
	struct token nx = lex_peek(&ps->lx);

	if (nx.t == T_STAR || nx.t == T_LPAR || nx.t == T_LBRACK)
		return 1;
	if (nx.t != T_IDENT || abstract == 1)
		return 0;
	return abstract == 0 || !type_isword(unscoped(nx.s));
}

/* A declarator's suffixes: "(params)" (a function), then "[n]..." */
static struct dtype *suffixes(struct parser *ps, struct dtype *t)
{
	if (TOK(ps).t == T_LPAR) {
		prototype(ps);
		t = type_func(t);
	}
	return dims(ps, t);
}

/*
 * A declarator over @base (dt_grammar.y's declarator and
 * abstract_declarator): '*'s, then a name (or none, @abstract) or a
 * parenthesized declarator, then its suffixes.  The parentheses bind
 * the inner declarator looser than the suffixes after them: in
 * "int (*fp)(int)" fp is a pointer to what the suffixes make of int, a
 * function; in "int (*p)[4]" a pointer to an array.  So the group is
 * read twice: skipped to find the suffixes and the type they make, then
 * parsed over that type.  At the top (@depth 0) a plain name's suffixes
 * are left to the caller, which tells "[n]" from an associative array's
 * "[type]" and a prototype from a variable.
 */
static struct dtype *declarator_(struct parser *ps, struct dtype *t, char **name,
				 int *line, int *col, int abstract, int depth)
{
	while (TOK(ps).t == T_STAR) {
		t = type_ptr(t);
		lex_next(&ps->lx);
		while (is_ident(ps, "const") || is_ident(ps, "volatile") ||
		       is_ident(ps, "restrict"))
			lex_next(&ps->lx);
	}
	*line = TOK(ps).line;
	*col = TOK(ps).col;
	*name = NULL;
	if (TOK(ps).t == T_LPAR && declarator_group(ps, abstract)) {
		struct lexer group = ps->lx, after;
		int nest = 0;

		if (depth == 16)
			dt_cerrt(&ps->lx, DT_D_SYNTAX, TOK(ps).line, TOK(ps).col,
				 "declarator nested too deeply");
		do {	/* to the matching ')' */
			if (TOK(ps).t == T_EOF)
				syntax(ps);
			nest += TOK(ps).t == T_LPAR || TOK(ps).t == T_LBRACK;
			nest -= TOK(ps).t == T_RPAR || TOK(ps).t == T_RBRACK;
			lex_next(&ps->lx);
		} while (nest);
		t = suffixes(ps, t);
		after = ps->lx;
		ps->lx = group;
		lex_next(&ps->lx);
		t = declarator_(ps, t, name, line, col, abstract, depth + 1);
		expect(ps, T_RPAR);
		ps->lx = after;
		return t;
	}
	if (TOK(ps).t == T_IDENT && abstract != 1 &&
	    (abstract == 0 || !type_isword(unscoped(TOK(ps).s)))) {
		*name = TOK(ps).s;
		lex_next(&ps->lx);
	} else if (!abstract && TOK(ps).t != T_COLON) {
		syntax(ps);
	}
	return depth ? suffixes(ps, t) : t;
}

static struct dtype *declarator(struct parser *ps, struct dtype *base,
				char **name, int *line, int *col, int abstract)
{
	return declarator_(ps, base, name, line, col, abstract, 0);
}

/* "[n]" dimensions after a name, innermost last (C order). */
static struct dtype *dims(struct parser *ps, struct dtype *t)
{
	long long n[8];
	int nd = 0;

	while (TOK(ps).t == T_LBRACK) {
		struct node *e;
		struct token lb = TOK(ps);

		lex_next(&ps->lx);
		if (TOK(ps).t == T_RBRACK)
			dt_cerrt(&ps->lx, DT_D_DECL_ARRNULL, lb.line, lb.col,
				 "array declaration requires array dimension");
		n[nd] = const_expr(ps, &e);
		if (n[nd] <= 0)
			dt_cerrt(&ps->lx, DT_D_DECL_ARRSUB, e->line, e->col,
				 "array dimension must be a positive integer constant");
		if (n[nd] > (1 << 24))
			dt_cerrt(&ps->lx, DT_D_DECL_ARRBIG, e->line, e->col,
				 "array dimension too large");
		nd++;
		expect(ps, T_RBRACK);
		if (nd == 8)
			break;
	}
	while (nd--)
		t = type_array(t, (unsigned)n[nd]);
	return t;
}

/* (type-name) for casts, sizeof, offsetof: specifiers + abstract declarator */
static struct dtype *type_name_(struct parser *ps)
{
	struct dtype *t;
	char *name;
	int line, col;

	/* in a cast, a bad type is an unknown type (DTrace looks it up) */
	ps->in_typename++;
	t = specifiers(ps, NULL, 1);
	ps->in_typename--;
	t = declarator(ps, t, &name, &line, &col, 1);
	return suffixes(ps, t);		/* "int [4]", "int (int)" */
}

/* Does a type name start here (after a '(')? */
static int starts_type(struct parser *ps)
{
	struct token t = TOK(ps);

	if (t.t != T_IDENT)
		return 0;
	if (!strcmp(t.s, "struct") || !strcmp(t.s, "union") || !strcmp(t.s, "enum"))
		return 1;
	return !sema_is_d_ident(t.s) && type_isword(unscoped(t.s)) &&
	       !var_lookup(ps->p, XDT_VAR_GLOBAL, t.s);
}

/* ---- expressions (untyped trees; sema.c types them) -------------------- */
static struct node *expr(struct parser *ps);
static struct node *unary(struct parser *ps);

static const char *macro(struct parser *ps, const char *name)
{
	int n = atoi(name);

	if ((n < 1 || n > ps->env->nmacros) && ps->env->defaultargs)
		return "";
	if (n < 1 || n > ps->env->nmacros)
		dt_cerrt(&ps->lx, DT_D_MACRO_UNDEF, TOK(ps).line, TOK(ps).col,
			 "macro argument %s is not defined", TOK(ps).s);
	if (n > ps->maxmacro)
		ps->maxmacro = n;
	return ps->env->macros[n - 1];
}

static struct node *macro_var(struct parser *ps)
{
	struct token t = TOK(ps);
	const char *m = t.s + 1;
	struct node *n;
	char *end;
	/*
	 * $projid and $taskid (k -1) are 0: Linux has no Solaris projects or
	 * tasks, procfs.d's pr_projid and pr_taskid are 0 for every process,
	 * and FreeBSD's DTrace leaves them 0 too.  There is no $zoneid: no
	 * DTrace has one (zonename and pr_zoneid are the zone's names).
	 */
	static const struct { const char *n; int k; } mv[] = {
		{ "pid", 0 }, { "ppid", 1 }, { "uid", 2 }, { "gid", 3 },
		{ "euid", 4 }, { "egid", 5 }, { "pgid", 6 }, { "sid", 7 },
		{ "target", 8 }, { "0", 9 }, { "projid", -1 }, { "taskid", -1 },
	};

	if (m[0] == '$' && isdigit((unsigned char)m[1])) {
		n = node_new(N_STR, t.line, t.col);
		n->s = xstrdup(macro(ps, m + 1));
		n->slen = strlen(n->s);
		n->type = XDT_TYPE_STRING;
		lex_next(&ps->lx);
		return n;
	}
	if (m[0] == '$' && !strcmp(m + 1, "0")) {
		n = node_new(N_STR, t.line, t.col);
		n->s = xstrdup(ps->env->name0 ? ps->env->name0 : "");
		n->slen = strlen(n->s);
		n->type = XDT_TYPE_STRING;
		lex_next(&ps->lx);
		return n;
	}
	n = node_new(N_INT, t.line, t.col);
	for (size_t i = 0; i < sizeof(mv) / sizeof(mv[0]); i++) {
		if (strcmp(m, mv[i].n))
			continue;
		if (mv[i].k == 8) {
			if (ps->env->target < 0)
				dt_cerrt(&ps->lx, DT_D_MACRO_UNDEF, t.line, t.col,
					 "$target is only valid with -c or -p");
			n->ival = ps->env->target;
		} else if (mv[i].k == 9) {
			n = node_new(N_STR, t.line, t.col);
			n->s = xstrdup(ps->env->name0 ? ps->env->name0 : "");
			n->slen = strlen(n->s);
			n->type = XDT_TYPE_STRING;
		} else if (mv[i].k < 0) {
			n->ival = 0;
		} else {
			n->ival = ps->env->ids[mv[i].k];
		}
		lex_next(&ps->lx);
		return n;
	}
	if (isdigit((unsigned char)m[0])) {
		const char *v = macro(ps, m);
		const char *d = v + (*v == '-' || *v == '+');

		/* DTrace's: a sign, then strtoull() (0 .. 2^64-1) */
		errno = 0;
		n->ival = (long long)strtoull(d, &end, 0);
		if (errno == ERANGE)
			dt_cerrt(&ps->lx, DT_D_MACRO_OFLOW, t.line, t.col,
				 "macro argument %s constant %s results in integer overflow",
				 t.s, d);
		if (*v == '-')
			n->ival = (long long)(0ULL - (unsigned long long)n->ival);
		if ((!*v && !ps->env->defaultargs) || *end ||
		    (*v && !isdigit((unsigned char)*d)))
			dt_cerrt(&ps->lx, DT_D_MACRO_UNDEF, t.line, t.col,
				 "macro argument %s is not an integer (\"%s\"); use $%s for a string",
				 t.s, v, t.s);
		lex_next(&ps->lx);
		return n;
	}
	dt_cerrt(&ps->lx, DT_D_MACRO_UNDEF, t.line, t.col,
		 "failed to resolve %s: Unknown macro variable", t.s);
}

/*
 * An argument's source text, from its first token to the one after it,
 * blanks folded: it names the value the argument records (libxdt.h's
 * xdt_value.name, the Lua bindings' fields by name).
 */
static void arg_text(struct node *a, const char *from, const char *to)
{
	char *t, *o;
	int sp = 0;

	if (!a || !from || !to || to <= from)
		return;
	t = o = xzalloc((size_t)(to - from) + 1);
	for (; from < to; from++) {
		if (isspace((unsigned char)*from)) {
			sp = o != t;
			continue;
		}
		if (sp)
			*o++ = ' ';
		sp = 0;
		*o++ = *from;
	}
	a->text = t;
}

/* One argument of an action, with its text */
static struct node *text_expr(struct parser *ps)
{
	const char *from = TOK(ps).start;
	struct node *a = assign_expr(ps);

	arg_text(a, from, TOK(ps).start);
	return a;
}

static struct node **arglist(struct parser *ps, int *n, enum tok close)
{
	struct node **av = NULL;

	*n = 0;
	if (TOK(ps).t != close) {
		for (;;) {
			av = xrealloc(av, (*n + 1) * sizeof(*av));
			av[(*n)++] = text_expr(ps);
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
	}
	expect(ps, close);
	return av;
}

/*
 * printf()'s arguments: expressions, or an aggregation named alone
 * (@a), kept as an identifier "@a" so the format check can say, as
 * DTrace does, that no conversion takes an aggregation.
 */
struct node **printf_args(struct parser *ps, int *n)
{
	struct node **av = NULL;

	*n = 0;
	if (TOK(ps).t != T_RPAR) {
		for (;;) {
			struct token t = TOK(ps);
			enum tok nx = lex_peek(&ps->lx).t;

			av = xrealloc(av, (*n + 1) * sizeof(*av));
			if (t.t == T_AGG && (nx == T_COMMA || nx == T_RPAR)) {
				struct node *a = node_new(N_IDENT, t.line, t.col);
				size_t len = strlen(t.s);

				a->s = xzalloc(len + 2);
				a->s[0] = '@';
				memcpy(a->s + 1, t.s, len);
				av[(*n)++] = a;
				lex_next(&ps->lx);
			} else {
				av[(*n)++] = text_expr(ps);
			}
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
	}
	expect(ps, T_RPAR);
	return av;
}

static struct node *primary(struct parser *ps)
{
	struct token t = TOK(ps);
	struct node *n;

	switch (t.t) {
	case T_INT:
		n = node_new(N_INT, t.line, t.col);
		n->ival = t.ival;
		n->t = NULL;
		/* C's type of an integer constant: the first that holds it */
		{
			unsigned long long v = (unsigned long long)t.ival;
			int dec = t.radix == 10;

			if (!t.isuns && !t.islong && v <= INT32_MAX)
				n->t = dt_int;
			else if (!t.islong && !dec && v <= UINT32_MAX)
				n->t = t.isuns || v > INT32_MAX ? dt_uint : dt_int;
			else if (t.isuns && !t.islong && v <= UINT32_MAX)
				n->t = dt_uint;
			else if (!t.isuns && v <= INT64_MAX)
				n->t = t.islong == 2 ? type_named("long long") : dt_long;
			else
				n->t = t.islong == 2 ? type_named("unsigned long long") : dt_ulong;
		}
		lex_next(&ps->lx);
		return n;
	case T_STR:
		n = node_new(N_STR, t.line, t.col);
		n->s = t.s;
		n->slen = t.len;
		n->type = XDT_TYPE_STRING;
		lex_next(&ps->lx);
		/* adjacent string literals concatenate, as in C */
		while (TOK(ps).t == T_STR) {
			n->s = xrealloc(n->s, n->slen + TOK(ps).len + 1);
			memcpy(n->s + n->slen, TOK(ps).s, TOK(ps).len + 1);
			n->slen += TOK(ps).len;
			lex_next(&ps->lx);
		}
		return n;
	case T_IDENT:
		if (t.s[0] == '$')
			return macro_var(ps);
		if ((!strcmp(t.s, "self") || !strcmp(t.s, "this")) &&
		    lex_peek(&ps->lx).t == T_ARROW) {
			n = node_new(t.s[0] == 's' ? N_SELF : N_THIS, t.line, t.col);
			lex_next(&ps->lx);
			lex_next(&ps->lx);
			if (TOK(ps).t != T_IDENT)
				syntax(ps);
			n->s = TOK(ps).s;
			lex_next(&ps->lx);
			return n;
		}
		if (!strcmp(t.s, "sizeof")) {
			n = node_new(N_SIZEOF, t.line, t.col);
			lex_next(&ps->lx);
			if (TOK(ps).t == T_LPAR) {
				lex_next(&ps->lx);
				if (starts_type(ps)) {
					n->ct = type_name_(ps);
				} else {
					n->a = expr(ps);
				}
				expect(ps, T_RPAR);
			} else {
				n->a = unary(ps);
			}
			return n;
		}
		if (!strcmp(t.s, "offsetof")) {
			n = node_new(N_OFFSETOF, t.line, t.col);
			lex_next(&ps->lx);
			expect(ps, T_LPAR);
			n->ct = type_name_(ps);
			expect(ps, T_COMMA);
			if (TOK(ps).t != T_IDENT)
				syntax(ps);
			n->s = TOK(ps).s;
			n->line = TOK(ps).line;
			n->col = TOK(ps).col;
			lex_next(&ps->lx);
			expect(ps, T_RPAR);
			return n;
		}
		if (!strcmp(t.s, "xlate") && lex_peek(&ps->lx).t == T_LT) {
			n = node_new(N_XLATE, t.line, t.col);
			lex_next(&ps->lx);
			lex_next(&ps->lx);
			n->ct = type_name_(ps);
			expect(ps, T_GT);
			expect(ps, T_LPAR);
			n->a = expr(ps);
			expect(ps, T_RPAR);
			return n;
		}
		if (!strcmp(t.s, "stringof")) {
			n = node_new(N_STRINGOF, t.line, t.col);
			lex_next(&ps->lx);
			if (TOK(ps).t == T_LPAR) {
				lex_next(&ps->lx);
				n->a = expr(ps);
				expect(ps, T_RPAR);
			} else {
				n->a = unary(ps);
			}
			return n;
		}
		n = node_new(N_IDENT, t.line, t.col);
		n->s = t.s;
		lex_next(&ps->lx);
		if (TOK(ps).t == T_LPAR) {
			n->k = N_CALL;
			lex_next(&ps->lx);
			n->args = arglist(ps, &n->nargs, T_RPAR);
		}
		return n;
	case T_LPAR: {
		int in_pred = ps->in_pred;

		lex_next(&ps->lx);
		if (starts_type(ps)) {
			n = node_new(N_CAST, t.line, t.col);
			n->ct = type_name_(ps);
			expect(ps, T_RPAR);
			n->a = unary(ps);
			return n;
		}
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

static struct node *postfix(struct parser *ps)
{
	struct node *n = primary(ps), *m;

	for (;;) {
		struct token t = TOK(ps);

		switch (t.t) {
		case T_LBRACK:
			m = node_new(N_INDEX, t.line, t.col);
			lex_next(&ps->lx);
			m->a = n;
			m->args = arglist(ps, &m->nargs, T_RBRACK);
			if (!m->nargs)
				syntax(ps);
			n = m;
			break;
		case T_DOT:
		case T_ARROW:
			m = node_new(N_MEMBER, t.line, t.col);
			lex_next(&ps->lx);
			if (TOK(ps).t != T_IDENT)
				syntax(ps);
			m->op = t.t;
			m->a = n;
			m->s = TOK(ps).s;
			lex_next(&ps->lx);
			n = m;
			break;
		case T_INC:
		case T_DEC:
			m = node_new(N_INCDEC, t.line, t.col);
			lex_next(&ps->lx);
			m->op = t.t;
			m->post = 1;
			m->a = n;
			n = m;
			break;
		case T_LPAR:
			/* a call's designator is a name (primary() reads those) */
			dt_cerrt(&ps->lx, DT_D_FUNC_IDENT, n->line, n->col,
				 "function designator is not of function type");
		default:
			return n;
		}
	}
}

static struct node *unary(struct parser *ps)
{
	struct token t = TOK(ps);
	struct node *n;

	switch (t.t) {
	case T_MINUS: case T_NOT: case T_TILDE: case T_PLUS:
		lex_next(&ps->lx);
		n = node_new(N_UN, t.line, t.col);
		n->op = t.t;
		n->a = unary(ps);
		return n;
	case T_STAR:
		lex_next(&ps->lx);
		n = node_new(N_DEREF, t.line, t.col);
		n->a = unary(ps);
		return n;
	case T_AND:
		lex_next(&ps->lx);
		n = node_new(N_ADDR, t.line, t.col);
		n->a = unary(ps);
		return n;
	case T_INC: case T_DEC:
		lex_next(&ps->lx);
		n = node_new(N_INCDEC, t.line, t.col);
		n->op = t.t;
		n->a = unary(ps);
		return n;
	default:
		return postfix(ps);
	}
}

/* Binary operators by precedence, loosest first. */
static int prec(enum tok t)
{
	switch (t) {
	case T_OROR: return 1;
	case T_ANDAND: return 3;
	case T_OR: return 4;
	case T_XOR: return 5;
	case T_AND: return 6;
	case T_EQ: case T_NE: return 7;
	case T_LT: case T_LE: case T_GT: case T_GE: return 8;
	case T_SHL: case T_SHR: return 9;
	case T_PLUS: case T_MINUS: return 10;
	case T_STAR: case T_DIV: case T_MOD: return 11;
	default: return 0;
	}
}

static struct node *binary(struct parser *ps, int minprec)
{
	struct node *l = unary(ps);

	for (;;) {
		struct token t = TOK(ps);
		int pr = prec(t.t), xorxor = 0;
		struct node *r, *n;

		/* D's logical xor ^^ */
		if (t.t == T_XOR && ps->lx.src[ps->lx.pos] == '^') {
			pr = 2;
			xorxor = 1;
		}
		if (!pr || pr < minprec)
			return l;
		if (t.t == T_DIV && ps->in_pred) {
			enum tok nx = lex_peek(&ps->lx).t;

			if (nx == T_LBRACE || nx == T_EOF)
				return l;	/* the predicate's closing slash */
		}
		lex_next(&ps->lx);
		if (xorxor)
			lex_next(&ps->lx);
		r = binary(ps, pr + 1);
		if (t.t == T_OROR || t.t == T_ANDAND) {
			n = node_new(t.t == T_OROR ? N_OR : N_AND, t.line, t.col);
		} else if (xorxor) {
			/* a ^^ b == (!!a) != (!!b) */
			struct node *x = node_new(N_UN, t.line, t.col), *y;

			x->op = T_NOT;
			x->a = node_new(N_UN, t.line, t.col);
			x->a->op = T_NOT;
			x->a->a = l;
			y = node_new(N_UN, t.line, t.col);
			y->op = T_NOT;
			y->a = node_new(N_UN, t.line, t.col);
			y->a->op = T_NOT;
			y->a->a = r;
			n = node_new(N_BIN, t.line, t.col);
			n->op = T_NE;
			n->a = x;
			n->b = y;
			l = n;
			continue;
		} else {
			n = node_new(N_BIN, t.line, t.col);
			n->op = t.t;
		}
		n->a = l;
		n->b = r;
		l = n;
	}
}

static struct node *cond_expr(struct parser *ps)
{
	struct node *c = binary(ps, 1), *n;
	struct token t = TOK(ps);

	if (t.t != T_QUEST)
		return c;
	lex_next(&ps->lx);
	n = node_new(N_TERN, t.line, t.col);
	n->a = c;
	n->b = expr(ps);
	expect(ps, T_COLON);
	n->c = cond_expr(ps);
	return n;
}

static int is_assign(enum tok t)
{
	return t == T_ASSIGN || (t >= T_ADDEQ && t <= T_SHREQ);
}

static struct node *assign_expr(struct parser *ps)
{
	struct node *l = cond_expr(ps), *n;
	struct token t = TOK(ps);

	if (!is_assign(t.t))
		return l;
	lex_next(&ps->lx);
	n = node_new(N_ASSIGN, t.line, t.col);
	n->op = t.t;
	n->a = l;
	n->b = assign_expr(ps);
	return n;
}

/*
 * expression: assignment-expressions joined by C's comma operator, the
 * loosest of all (dt_grammar.y's `expression`).  Argument lists, keys,
 * initializers and inline bodies take one assignment-expression, so a
 * comma there still separates; only a parenthesized one, a statement, a
 * predicate or ?:'s middle operand sees the operator.
 */
static struct node *expr(struct parser *ps)
{
	struct node *e = assign_expr(ps);

	while (TOK(ps).t == T_COMMA) {
		struct token t = TOK(ps);
		struct node *n = node_new(N_COMMA, t.line, t.col);

		lex_next(&ps->lx);
		n->a = e;
		n->b = assign_expr(ps);
		e = n;
	}
	return e;
}

static long long const_expr_tag(struct parser *ps, struct node **out, int tag)
{
	struct node *e = sema_expr(ps->p, &ps->lx, cond_expr(ps));
	long long v;

	*out = e;
	if (!type_is_int(e->t) || !sema_constval(e, &v))
		dt_cerrt(&ps->lx, tag, e->line, e->col,
			 "integer constant expression required");
	return v;
}

static long long const_expr(struct parser *ps, struct node **out)
{
	return const_expr_tag(ps, out, DT_D_DECL_ARRSUB);
}

/* ---- declarations -------------------------------------------------------- */
static int starts_decl(struct parser *ps)
{
	struct token t = TOK(ps);
	const char *after;

	if (t.t != T_IDENT)
		return 0;
	after = t.start + t.srclen;
	/* "BEGIN", "syscall::read:entry", "profile-97" are descriptions */
	if (*after == ':' || *after == '-' || *after == '*' || *after == '?')
		return 0;
	if (storage_word(t.s) != SC_NONE) {
		/* self->x at the top level is not a declaration either */
		return lex_peek(&ps->lx).t != T_ARROW;
	}
	if (!strcmp(t.s, "translator") || !strcmp(t.s, "provider"))
		return 1;
	if (!strcmp(t.s, "struct") || !strcmp(t.s, "union") || !strcmp(t.s, "enum"))
		return 1;
	/* "BEGIN {", "END /p/", "BEGIN, END": a description (no BTF lookup) */
	{
		enum tok nx = lex_peek(&ps->lx).t;

		if (nx == T_LBRACE || nx == T_DIV || nx == T_EOF)
			return 0;
		for (const char *c = after; *c == ' ' || *c == '\t' || *c == '\n'; c++)
			if (c[1] == ',')
				return 0;
		if (*after == ',')
			return 0;
	}
	return !sema_is_d_ident(t.s) && type_isword(t.s);
}

static void inline_decl(struct parser *ps, struct dtype *t)
{
	char *name;
	int line, col;
	struct dinline *in;
	struct node *e;
	struct prog *p = ps->p;

	t = declarator(ps, t, &name, &line, &col, 0);
	in = xzalloc(sizeof(*in));
	if (TOK(ps).t == T_LBRACK) {
		/*
		 * An inline associative array: "[type name, ...]", its
		 * parameters (dt_node_inline's tuple signature); DTrace has
		 * no inline scalar arrays.
		 */
		struct token lb = TOK(ps);
		struct lexer save = ps->lx;

		lex_next(&ps->lx);
		if (TOK(ps).t == T_RBRACK)
			dt_cerrt(&ps->lx, DT_D_DECL_ARRNULL, lb.line, lb.col,
				 "inline declaration requires array tuple signature: %s",
				 name);
		if (!starts_type(ps)) {
			ps->lx = save;
			dt_cerrt(&ps->lx, DT_D_DECL_ARRNULL, lb.line, lb.col,
				 "inline declaration cannot be of scalar array type: %s",
				 name);
		}
		for (;;) {
			struct dtype *pt = specifiers(ps, NULL, 1);
			char *pn;
			int pl, pc;

			if (in->nparams == DT_MAXKEYS)
				dt_cerrt(&ps->lx, DT_D_DECL_ARRSUB, TOK(ps).line, TOK(ps).col,
					 "too many array key types");
			pt = suffixes(ps, declarator(ps, pt, &pn, &pl, &pc, 2));
			in->ptypes = xrealloc(in->ptypes, (in->nparams + 1) * sizeof(*in->ptypes));
			in->pnames = xrealloc(in->pnames, (in->nparams + 1) * sizeof(*in->pnames));
			in->ptypes[in->nparams] = pt;
			in->pnames[in->nparams++] = pn;
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
		expect(ps, T_RBRACK);
	}
	for (int i = 0; i < p->ninlines; i++)
		if (!strcmp(p->inlines[i]->name, name))
			dt_cerrt(&ps->lx, DT_D_DECL_IDRED, line, col,
				 "identifier redeclared: %s", name);
	if (var_lookup(p, XDT_VAR_GLOBAL, name) || sema_reserved(name))
		dt_cerrt(&ps->lx, DT_D_DECL_IDRED, line, col,
			 "identifier redeclared: %s", name);
	expect(ps, T_ASSIGN);
	in->name = name;
	if (in->nparams) {
		in->body = assign_expr(ps);
		e = sema_inline_body(p, &ps->lx, in, NULL);
	} else {
		e = sema_expr(p, &ps->lx, assign_expr(ps));
	}
	if (!(type_is_scalar(t) && type_is_scalar(e->t)) &&
	    !(type_is_strlike(t) && type_is_strlike(e->t)) &&
	    !type_compat(t, e->t))
		dt_cerrt(&ps->lx, DT_D_OP_INCOMPAT, e->line, e->col,
			 "inline %s definition uses incompatible types: \"%s\" = \"%s\"",
			 name, type_str(t), type_str(e->t));
	in->t = t;
	in->e = e;
	p->inlines = xrealloc(p->inlines, (p->ninlines + 1) * sizeof(*p->inlines));
	in->attr = dt_attr_def;
	dt_attr_pending(p, in->name, &in->attr);
	p->inlines[p->ninlines++] = in;
	if (TOK(ps).t != T_SEMI)
		syntax(ps);
}

/*
 * translator OUT < IN name > { member = expr; ... };
 * The member expressions are kept as parsed; sema.c checks them now with
 * the parameter bound to a value of the input type, and types them again
 * at every xlate<>().
 */
static void translator_decl(struct parser *ps)
{
	struct dxlator *x = xzalloc(sizeof(*x));
	struct token t = TOK(ps);
	struct prog *p = ps->p;
	char *name;
	int line, col;

	x->line = t.line;
	x->col = t.col;
	lex_next(&ps->lx);
	x->out = type_name_(ps);
	expect(ps, T_LT);
	x->in = specifiers(ps, NULL, 1);
	x->in = declarator(ps, x->in, &name, &line, &col, 0);
	x->param = name;
	expect(ps, T_GT);
	expect(ps, T_LBRACE);
	while (TOK(ps).t != T_RBRACE) {
		struct token m = TOK(ps);

		if (m.t != T_IDENT)
			syntax(ps);
		lex_next(&ps->lx);
		expect(ps, T_ASSIGN);
		x->mnames = xrealloc(x->mnames, (x->nmems + 1) * sizeof(char *));
		x->mexprs = xrealloc(x->mexprs, (x->nmems + 1) * sizeof(struct node *));
		x->mnames[x->nmems] = m.s;
		x->mexprs[x->nmems] = assign_expr(ps);
		x->nmems++;
		expect(ps, T_SEMI);
	}
	lex_next(&ps->lx);
	if (TOK(ps).t != T_SEMI)
		syntax(ps);
	sema_xlator_check(p, &ps->lx, x);
	p->xlators = xrealloc(p->xlators, (p->nxlators + 1) * sizeof(*p->xlators));
	p->xlators[p->nxlators++] = x;
}

/*
 * One probe's argument types: "(type, type ...)" or "()" or "(void)";
 * each type may be followed by a parameter name, as C's prototypes.
 */
static int probe_types(struct parser *ps, struct dtype **v, const char *pname,
		       const char *kind)
{
	int n = 0;

	expect(ps, T_LPAR);
	if (is_ident(ps, "void")) {
		struct lexer save = ps->lx;

		lex_next(&ps->lx);
		if (TOK(ps).t == T_RPAR) {
			lex_next(&ps->lx);
			return 0;
		}
		ps->lx = save;
	}
	while (TOK(ps).t != T_RPAR) {
		struct token at = TOK(ps);
		struct dtype *t, *r;

		if (at.t == T_ELLIPSIS)
			dt_cerrt(&ps->lx, DT_D_DECL_PROTO_VARARGS, at.line, at.col,
				 "%s prototype may not use a variable-length argument list",
				 kind);
		t = type_name_(ps);
		r = t->real;

		if (TOK(ps).t == T_IDENT)
			lex_next(&ps->lx);	/* a parameter's name */
		if (n == DT_USDT_ARGS)
			dt_cerrt(&ps->lx, DT_D_PROV_PRARGLEN, at.line, at.col,
				 "probe %s declares more than %d arguments",
				 pname, DT_USDT_ARGS);
		if (r->k == TK_STRUCT || r->k == TK_UNION || r->k == TK_VOID ||
		    r->k == TK_FLOAT || (r->k == TK_INT && r->size > 8))
			dt_cerrt(&ps->lx, DT_D_TYPE_ERR, at.line, at.col,
				 "probe %s argument %d: a USDT argument is an "
				 "integer or a pointer, not %s", pname, n + 1,
				 type_str(t));
		v[n++] = t;
		if (TOK(ps).t != T_COMMA)
			break;
		lex_next(&ps->lx);
	}
	expect(ps, T_RPAR);
	return n;
}

/*
 * provider name { probe name(args) [: (translated args)]; ... };
 * A USDT provider's definition, for dtrace -h (libxdt/usdt.c).
 */
static void provider_decl(struct parser *ps)
{
	struct prog *p = ps->p;
	struct dprovider *pv;
	struct token t;

	lex_next(&ps->lx);
	t = TOK(ps);
	if (t.t != T_IDENT)
		syntax(ps);
	if (isdigit((unsigned char)t.s[strlen(t.s) - 1]) || strlen(t.s) + 11 > XDT_PROVNAMELEN)
		dt_cerrt(&ps->lx, DT_D_PROV_BADNAME, t.line, t.col,
			 "provider name %s is too long or ends in a digit "
			 "(the process ID follows it)", t.s);
	for (int i = 0; i < p->nproviders; i++)
		if (!strcmp(p->providers[i].name, t.s))
			dt_cerrt(&ps->lx, DT_D_DECL_IDRED, t.line, t.col,
				 "provider %s redeclared", t.s);
	p->providers = xrealloc(p->providers,
				(p->nproviders + 1) * sizeof(*p->providers));
	pv = &p->providers[p->nproviders++];
	memset(pv, 0, sizeof(*pv));
	pv->attr = *dt_provider_attr(NULL, "usdt");	/* DTrace's default */
	pv->name = t.s;
	pv->line = t.line;
	lex_next(&ps->lx);
	expect(ps, T_LBRACE);
	while (TOK(ps).t != T_RBRACE) {
		struct token n;
		struct dprobe *pr;

		if (!is_ident(ps, "probe"))
			syntax(ps);
		lex_next(&ps->lx);
		n = TOK(ps);
		if (n.t != T_IDENT)
			syntax(ps);
		for (int i = 0; i < pv->nprobes; i++)
			if (!strcmp(pv->probes[i].name, n.s))
				dt_cerrt(&ps->lx, DT_D_PROV_PRDUP, n.line, n.col,
					 "probe %s:%s redeclared", pv->name, n.s);
		lex_next(&ps->lx);
		pv->probes = xrealloc(pv->probes,
				      (pv->nprobes + 1) * sizeof(*pv->probes));
		pr = &pv->probes[pv->nprobes++];
		memset(pr, 0, sizeof(*pr));
		pr->name = n.s;
		pr->line = n.line;
		pr->nargs = probe_types(ps, pr->nat, n.s, "probe input");
		if (TOK(ps).t == T_COLON) {
			lex_next(&ps->lx);
			pr->nxl = probe_types(ps, pr->xl, n.s, "probe output");
			if (pr->nxl > pr->nargs)
				dt_cerrt(&ps->lx, DT_D_PROV_PRARGLEN, n.line, n.col,
					 "probe %s:%s translates %d arguments "
					 "of %d", pv->name, n.s, pr->nxl,
					 pr->nargs);
		}
		expect(ps, T_SEMI);
	}
	lex_next(&ps->lx);
	if (TOK(ps).t != T_SEMI)
		syntax(ps);
}

/* A function prototype's parameter list, from its '(': checked, then dropped. */
static void prototype(struct parser *ps)
{
	int n = 0, sawvoid = 0;

	expect(ps, T_LPAR);
	while (TOK(ps).t != T_RPAR) {
		struct token pt = TOK(ps);
		struct dtype *t;
		char *name;
		int line, col;

		if (TOK(ps).t == T_ELLIPSIS) {
			lex_next(&ps->lx);
			n++;
		} else {
			int sc = 0;

			t = specifiers(ps, &sc, 1);
			/* DTrace's: a parameter may say register, nothing else */
			if (sc && sc != SC_REGISTER)
				dt_cerrt(&ps->lx, DT_D_DECL_PARMCLASS, pt.line, pt.col,
					 "inappropriate storage class for function or associative array parameter");
			t = declarator(ps, t, &name, &line, &col, 2);
			if (name && t->real->k == TK_VOID && t == t->real)
				dt_cerrt(&ps->lx, DT_D_DECL_PROTO_NAME, line, col,
					 "void parameter may not have a name: %s", name);
			if (TOK(ps).t == T_LBRACK) {
				struct lexer save = ps->lx;

				lex_next(&ps->lx);
				if (starts_type(ps))
					dt_cerrt(&ps->lx, DT_D_DECL_PROTO_TYPE, pt.line, pt.col,
						 "prototype parameter %d uses an associative array type", n + 1);
				ps->lx = save;
				t = dims(ps, t);
			}
			if (t->real->k == TK_VOID && t == t->real)
				sawvoid = 1;
			n++;
			if (sawvoid && n > 1)
				dt_cerrt(&ps->lx, DT_D_DECL_PROTO_VOID, pt.line, pt.col,
					 "void must be sole parameter in a prototype");
		}
		if (TOK(ps).t != T_COMMA)
			break;
		lex_next(&ps->lx);
	}
	expect(ps, T_RPAR);
}

static void declaration(struct parser *ps)
{
	int sc = 0;
	struct dtype *bt;
	struct token first = TOK(ps);

	if (is_ident(ps, "translator")) {
		translator_decl(ps);
		return;
	}
	if (is_ident(ps, "provider")) {
		provider_decl(ps);
		return;
	}
	bt = specifiers(ps, &sc, 0);
	if (!bt) {
		if (!sc)
			syntax(ps);
		bt = dt_int;	/* C's implicit int: "self x;" */
	}
	if (sc == SC_INLINE) {
		inline_decl(ps, bt);
		return;
	}
	if (TOK(ps).t == T_SEMI) {
		/* "struct s { ... };" or "enum e { ... };" declares only a type */
		if (bt->real->k != TK_STRUCT && bt->real->k != TK_UNION &&
		    bt->real->k != TK_ENUM)
			dt_cerrt(&ps->lx, DT_D_DECL_USELESS, first.line, first.col,
				 "useless declaration");
		return;		/* the ';' ends it: what follows is read raw */
	}
	for (;;) {
		char *name;
		int line, col, scope;
		struct dtype *t = declarator(ps, bt, &name, &line, &col, 0);
		struct dtype *keyt[DT_MAXKEYS];
		int nkeys = 0;

		if (TOK(ps).t == T_LPAR) {
			/*
			 * A prototype (kernel functions, for documentation in
			 * DTrace's libraries): nothing to allocate or call.
			 */
			prototype(ps);
			if (TOK(ps).t != T_COMMA && TOK(ps).t != T_SEMI)
				syntax(ps);
			if (TOK(ps).t == T_COMMA) {
				lex_next(&ps->lx);
				continue;
			}
			break;
		}
		/* "int (f)(int);", a prototype too (and no object either) */
		if (t->real->k == TK_FUNC && sc != SC_TYPEDEF) {
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
			continue;
		}
		/* "[type, ...]": associative; "[n]": a scalar array */
		if (TOK(ps).t == T_LBRACK) {
			struct lexer save = ps->lx;

			lex_next(&ps->lx);
			if (starts_type(ps)) {
				for (;;) {
					struct token kt = TOK(ps);

					if (nkeys == DT_MAXKEYS)
						dt_cerrt(&ps->lx, DT_D_DECL_ARRSUB, kt.line, kt.col,
							 "too many array key types");
					keyt[nkeys] = type_name_(ps);
					if (!type_is_scalar(keyt[nkeys]) &&
					    keyt[nkeys]->real->k != TK_STRING &&
					    !type_is_keybytes(keyt[nkeys]))
						dt_cerrt(&ps->lx, DT_D_DECL_ARRSUB, kt.line, kt.col,
							 "associative array key type %s is not supported",
							 type_str(keyt[nkeys]));
					if (type_is_keybytes(keyt[nkeys]) &&
					    keyt[nkeys]->real->size > XDT_KEYMEM_MAX)
						dt_cerrt(&ps->lx, DT_D_KEY_TYPE, kt.line, kt.col,
							 "key #%d (%s) is %u bytes: a key holds at most %u",
							 nkeys + 1, type_str(keyt[nkeys]),
							 keyt[nkeys]->real->size, XDT_KEYMEM_MAX);
					nkeys++;
					if (TOK(ps).t != T_COMMA)
						break;
					lex_next(&ps->lx);
				}
				expect(ps, T_RBRACK);
			} else {
				ps->lx = save;
				t = dims(ps, t);
			}
		}
		if (sc != SC_TYPEDEF && strchr(name, '`'))
			dt_cerrt(&ps->lx, DT_D_DECL_SCOPE, line, col,
				 "D scoping operator may not be used in a declaration name (%s)",
				 name);
		if (sc == SC_TYPEDEF) {
			if (type_named(name))
				dt_cerrt(&ps->lx, DT_D_DECL_IDRED, line, col,
					 "identifier redeclared: %s", name);
			type_typedef(name, t);
		} else if (sc == SC_EXTERN) {
			/* a kernel variable: nothing to allocate (kernel types come with BTF) */
		} else {
			scope = sc == SC_SELF ? XDT_VAR_THREAD :
				sc == SC_THIS ? XDT_VAR_LOCAL : XDT_VAR_GLOBAL;
			if (t->real->k == TK_VOID)
				dt_cerrt(&ps->lx, DT_D_DECL_VOIDOBJ, line, col,
					 "cannot have void object: %s", name);
			if ((t->real->k == TK_STRUCT || t->real->k == TK_UNION) &&
			    !type_defined(t->real))
				dt_cerrt(&ps->lx, DT_D_DECL_INCOMPLETE, line, col,
					 "declaration of %s uses incomplete type %s", name, type_str(t));
			if (nkeys && scope == XDT_VAR_LOCAL)
				dt_cerrt(&ps->lx, DT_D_DECL_LOCASSC, line, col,
					 "associative arrays may not be declared as local variables: %s",
					 name);
			if (scope != XDT_VAR_GLOBAL && t->real->k == TK_ARRAY)
				dt_cerrt(&ps->lx, DT_D_DECL_DYNOBJ, line, col,
					 "%s arrays may not be declared as %s variables",
					 name, scope == XDT_VAR_LOCAL ? "local" : "thread-local");
			if (sc == SC_STATIC || sc == SC_REGISTER)
				dt_cerrt(&ps->lx, DT_D_DECL_BADCLASS, first.line, first.col,
					 "specified storage class not appropriate in D");
			var_declare(ps->p, &ps->lx, scope, name, t, nkeys, keyt, line, col);
		}
		if (TOK(ps).t != T_COMMA)
			break;
		lex_next(&ps->lx);
	}
	/* not past the ';': a probe description may follow, read raw */
	if (TOK(ps).t != T_SEMI)
		syntax(ps);
}

/* ---- statements ---------------------------------------------------------- */
static struct stmt *stmt_list(struct parser *ps, enum tok end);
static void translator_decl(struct parser *ps);

static struct stmt *stmt_new(enum skind k, struct token t)
{
	struct stmt *s = xzalloc(sizeof(*s));

	s->k = k;
	s->tok = t;
	return s;
}

/* ufunc(), usym(), umod(), uaddr() and their kernel twins sym(), func(), mod() */
static int sym_name(const char *s)
{
	static const char *const names[] = { "ufunc", "usym", "umod", "uaddr",
					     "sym", "func", "mod" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return 1;
	return 0;
}

/* '@name[keys] = func(args)' (stack() keys are kept as calls) */
static struct stmt *agg_stmt(struct parser *ps)
{
	struct stmt *s = stmt_new(S_AGG, TOK(ps));

	lex_next(&ps->lx);
	if (TOK(ps).t == T_LBRACK) {
		lex_next(&ps->lx);
		for (;;) {
			if (s->nkeys == DT_MAXKEYS)
				dt_cerrt(&ps->lx, DT_D_SYNTAX, TOK(ps).line, TOK(ps).col,
					 "too many aggregation keys");
			s->keys = xrealloc(s->keys, (s->nkeys + 1) * sizeof(*s->keys));
			if ((is_ident(ps, "stack") || is_ident(ps, "ustack") ||
			     is_ident(ps, "jstack") ||
			     (TOK(ps).t == T_IDENT && sym_name(TOK(ps).s))) &&
			    lex_peek(&ps->lx).t == T_LPAR) {
				struct token st = TOK(ps);
				struct node *k = node_new(N_CALL, st.line, st.col);

				k->s = st.s;
				lex_next(&ps->lx);
				lex_next(&ps->lx);
				k->args = arglist(ps, &k->nargs, T_RPAR);
				/* marks a stack() or ustack() key (1), a ufunc()... (2) */
				k->ival = sym_name(st.s) ? 2 : 1;
				if (TOK(ps).t != T_COMMA && TOK(ps).t != T_RBRACK)
					dt_cerrt(&ps->lx, DT_D_ACT_SPEC, st.line, st.col,
						 "tracing function %s( ) may not be called from a D expression (D program context required)",
						 st.s);
				s->keys[s->nkeys++] = k;
			} else if (TOK(ps).t == T_AGG) {
				dt_cerrt(&ps->lx, DT_D_KEY_TYPE, TOK(ps).line, TOK(ps).col,
					 "aggregation key #%d has a type that cannot be a key: aggregation",
					 s->nkeys + 1);
			} else {
				s->keys[s->nkeys++] = assign_expr(ps);
			}
			if (TOK(ps).t != T_COMMA)
				break;
			lex_next(&ps->lx);
		}
		expect(ps, T_RBRACK);
		if (TOK(ps).t == T_LBRACK)
			dt_cerrt(&ps->lx, DT_D_AGG_MDIM, s->tok.line, s->tok.col,
				 "improper attempt to reference @%s as a multi-dimensional array",
				 s->tok.s);
	}
	/* "@a;" names nothing DTrace knows; "@a[1];" has no effect */
	if (TOK(ps).t == T_SEMI || TOK(ps).t == T_RBRACE) {
		if (s->nkeys)
			dt_cerrt(&ps->lx, DT_D_AGG_NULL, s->tok.line, s->tok.col,
				 "expression has null effect: @%s", s->tok.s);
		dt_cerrt(&ps->lx, DT_D_IDENT_UNDEF, s->tok.line, s->tok.col,
			 "failed to resolve @%s: Unknown variable name", s->tok.s);
	}
	expect(ps, T_ASSIGN);
	s->ftok = TOK(ps);
	if (TOK(ps).t != T_IDENT || lex_peek(&ps->lx).t != T_LPAR)
		dt_cerrt(&ps->lx, DT_D_AGG_FUNC, s->tok.line, s->tok.col,
			 "@%s must be assigned the result of an aggregating function",
			 s->tok.s);
	lex_next(&ps->lx);
	expect(ps, T_LPAR);
	/* stack() as the value is a D expression context */
	if (is_ident(ps, "stack") && lex_peek(&ps->lx).t == T_LPAR)
		dt_cerrt(&ps->lx, DT_D_ACT_SPEC, TOK(ps).line, TOK(ps).col,
			 "tracing function stack( ) may not be called from a D expression (D program context required)");
	s->args = arglist(ps, &s->nargs, T_RPAR);
	return s;
}

/*
 * trace() and print() of an aggregation, refused with DTrace's tags: an
 * aggregation is no value (printa() prints one).
 */
static void no_agg_arg(struct parser *ps, const char *action)
{
	static const struct { const char *name; int tag; const char *hint; } acts[] = {
		{ "trace", DT_D_TRACE_AGG, "" },
		{ "print", DT_D_PRINT_AGG, " -- did you mean printa()?" },
	};

	if (TOK(ps).t != T_AGG)
		return;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(action, acts[i].name))
			dt_cerrt(&ps->lx, acts[i].tag, TOK(ps).line, TOK(ps).col,
				 "%s( ) may not be applied to an aggregation%s",
				 action, acts[i].hint);
}

static struct stmt *statement(struct parser *ps)
{
	struct token t = TOK(ps);
	struct stmt *s;

	if (t.t == T_SEMI) {
		lex_next(&ps->lx);
		return stmt_new(S_EMPTY, t);
	}
	if (t.t == T_LBRACE) {
		lex_next(&ps->lx);
		s = stmt_new(S_BLOCK, t);
		s->body = stmt_list(ps, T_RBRACE);
		lex_next(&ps->lx);
		return s;
	}
	if (t.t == T_IDENT && !strcmp(t.s, "if")) {
		lex_next(&ps->lx);
		s = stmt_new(S_IF, t);
		expect(ps, T_LPAR);
		s->e = expr(ps);
		expect(ps, T_RPAR);
		s->body = statement(ps);
		if (is_ident(ps, "else")) {
			lex_next(&ps->lx);
			s->els = statement(ps);
		}
		return s;
	}
	if (t.t == T_AGG) {
		s = agg_stmt(ps);
	} else if (t.t == T_IDENT && lex_peek(&ps->lx).t == T_LPAR &&
		   d_action(t.s)) {
		const struct d_action *a = d_action(t.s);

		if (!a->lower)
			dt_cerrt(&ps->lx, DT_D_SYNTAX, t.line, t.col,
				 "%s( ) is not a supported action", t.s);
		s = stmt_new(S_ACTION, t);
		lex_next(&ps->lx);
		lex_next(&ps->lx);
		no_agg_arg(ps, a->name);
		s->args = a->aggargs ? printf_args(ps, &s->nargs) :
			  arglist(ps, &s->nargs, T_RPAR);
		/* `trace(1), x = 2;`: DTrace parses an expression whose
		   comma has an action for an operand */
		if (TOK(ps).t == T_COMMA)
			dt_cerrt(&ps->lx, DT_D_OP_ACT, TOK(ps).line, TOK(ps).col,
				 "operator , operands cannot be actions");
	} else {
		s = stmt_new(S_EXPR, t);
		s->e = expr(ps);
	}
	if (TOK(ps).t != T_SEMI && TOK(ps).t != T_RBRACE)
		syntax(ps);
	if (TOK(ps).t == T_SEMI)
		lex_next(&ps->lx);
	return s;
}

static struct stmt *stmt_list(struct parser *ps, enum tok end)
{
	struct stmt *head = NULL, **tail = &head;

	while (TOK(ps).t != end) {
		if (TOK(ps).t == T_EOF)
			syntax(ps);
		*tail = statement(ps);
		tail = &(*tail)->next;
	}
	return head;
}

/* ---- clauses ------------------------------------------------------------ */
/*
 * The value of macro variable @v (its name without the '$') in a probe
 * description, into @num when it is a number; NULL: none of that name.
 */
static const char *desc_macro(const struct dt_env *env, const char *v,
			      char *num, size_t cap, int *err)
{
	static const char *const ids[] = {
		"pid", "ppid", "uid", "gid", "euid", "egid", "pgid", "sid",
	};

	if (!strcmp(v, "target")) {
		if (env->target < 0)
			*err = DT_D_MACRO_UNDEF;
		snprintf(num, cap, "%lld", env->target);
		return num;
	}
	if (!strcmp(v, "projid") || !strcmp(v, "taskid"))
		return "0";	/* as in expressions: macro_var() */
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!strcmp(v, ids[i])) {
			snprintf(num, cap, "%lld", env->ids[i]);
			return num;
		}
	return NULL;
}

int dt_desc_macros(const struct dt_env *env, const char *d, char *out,
		   size_t cap, int *maxmacro)
{
	char num[32];
	size_t o = 0;
	const char *s = d;
	int err = 0;

	for (;;) {
		size_t len = strcspn(s, ":");
		const char *v = memchr(s, '$', len), *rep = NULL, *rest = "";
		size_t nrest = 0;

		if (!v)
			v = s + len;
		else {
			const char *name = v + 1, *end = s + len;
			char *w;

			if (*name == '$' && name + 1 < end)
				name++;
			if (isdigit((unsigned char)*name)) {
				long i;

				errno = 0;
				i = strtol(name, &w, 10);
				if (w > end)
					w = (char *)end;
				if (errno || i > env->nmacros)
					return DT_D_PDESC_INVAL;
				if (i == 0)
					rep = env->name0 ? env->name0 : "";
				else {
					rep = env->macros[i - 1];
					if (maxmacro && i > *maxmacro)
						*maxmacro = (int)i;
				}
				rest = w;
				nrest = (size_t)(end - w);
			} else {
				char vname[64];
				size_t n = (size_t)(end - name);

				if (!n || n >= sizeof(vname))
					return DT_D_PDESC_INVAL;
				memcpy(vname, name, n);
				vname[n] = 0;
				rep = desc_macro(env, vname, num, sizeof(num), &err);
				if (!rep)
					return DT_D_PDESC_INVAL;
				if (err)
					return err;
			}
		}
		if (o + (size_t)(v - s) + strlen(rep ? rep : "") + nrest + 2 > cap)
			return -1;	/* too long */
		memcpy(out + o, s, (size_t)(v - s));
		o += (size_t)(v - s);
		if (rep) {
			memcpy(out + o, rep, strlen(rep));
			o += strlen(rep);
			memcpy(out + o, rest, nrest);
			o += nrest;
		}
		if (!s[len])
			break;
		out[o++] = ':';
		s += len + 1;
	}
	out[o] = 0;
	return 0;
}

/* dt_desc_macros() in place, its errors DTrace's */
static void desc_macros(struct parser *ps, char *d, size_t cap, int line, int col)
{
	char out[512];

	switch (dt_desc_macros(ps->env, d, out, cap < sizeof(out) ? cap : sizeof(out),
			       &ps->maxmacro)) {
	case 0:
		memcpy(d, out, strlen(out) + 1);
		return;
	case DT_D_MACRO_UNDEF:
		dt_cerrt(&ps->lx, DT_D_MACRO_UNDEF, line, col,
			 "$target is only valid with -c or -p");
	case DT_D_PDESC_INVAL:
		dt_cerrt(&ps->lx, DT_D_PDESC_INVAL, line, col,
			 "invalid probe description \"%s\": Undefined macro variable in probe description",
			 d);
	default:
		dt_cerrt(&ps->lx, DT_D_PDESC_INVAL, line, col, "probe description too long");
	}
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
			dt_cerrt(&ps->lx, DT_D_PDESC_INVAL, line, col,
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
			dt_cerrt(&ps->lx, DT_D_PDESC_INVAL, line, col,
				 "invalid probe description \"%s\": field too long", d);
		memcpy(f[k], parts[i], lens[i]);
	}
}

int new_clause(struct parser *ps, const char *d, int line, int col, int src)
{
	struct prog *p = ps->p;
	struct clause *c;

	p->clauses = xrealloc(p->clauses, (p->nclauses + 1) * sizeof(*c));
	c = &p->clauses[p->nclauses];
	memset(c, 0, sizeof(*c));
	snprintf(c->descstr, sizeof(c->descstr), "%s", d);
	desc_split(ps, d, &c->desc, line, col);
	c->pred = -1;
	c->action0 = p->nacts;
	c->src = src;
	c->line = line;
	c->col = col;
	return p->nclauses++;
}

/*
 * args[]'s types for a clause over @descs: an fbt function's entry takes
 * its prototype's parameters, its return "int" (the offset) and the
 * return type, as DTrace's fbt does.  Anything else -- another provider,
 * a glob, descriptions whose prototypes differ -- leaves args[] int64_t.
 */
static const struct {
	const char *prov, *name, *source, *native, *xlated;
} stables[] = {
#define XDT_STABLE_ENTRY(p, n, k, src, fn, nt, xt) { p, n, src, nt, xt },
	XDT_STABLE_PROBES(XDT_STABLE_ENTRY)
#undef XDT_STABLE_ENTRY
};

int dt_stable_args(const char *prov, const char *name, const char **source,
		   const char **native, const char **xlated)
{
	for (size_t i = 0; i < sizeof(stables) / sizeof(stables[0]); i++)
		if (!strcmp(stables[i].prov, prov) && !strcmp(stables[i].name, name)) {
			*source = stables[i].source;
			*native = stables[i].native;
			*xlated = stables[i].xlated;
			return 1;
		}
	return 0;
}

/* The type a stable probe's table names, or NULL if it names none known. */
static struct dtype *typestr(struct parser *ps, const char *s, size_t len)
{
	jmp_buf jb, *saved = dt_errjmp;
	struct parser tp = { .p = ps->p, .env = ps->env, .cl = -1 };
	struct dtype *volatile t = NULL;
	char *text = xzalloc(len + 1);

	memcpy(text, s, len);
	if (!setjmp(jb)) {
		dt_errjmp = &jb;
		lex_init(&tp.lx, "<type>", text);
		tp.lx.prog = ps->p;
		lex_next(&tp.lx);
		t = type_name_(&tp);
		if (TOK(&tp).t != T_EOF)
			t = NULL;
	}
	dt_errjmp = saved;
	return t;
}

struct dtype *dt_typestr(struct prog *p, const char *s)
{
	struct parser ps = { .p = p, .cl = -1 };

	return typestr(&ps, s, strlen(s));
}

/*
 * args[] of a stable probe: native and translated types from the table.
 * The translated ones are the D library's (psinfo_t): while the library is
 * not loaded yet, this fails the compilation, and libxdt compiles the
 * library and the program again (compiler/libxdt.c, load_libs).
 */
static int stable_argtypes(struct parser *ps, const struct xdt_probedesc *pd,
			   struct dtype **nt, struct dtype **xt, int line,
			   int col)
{
	const char *src, *ns, *xs;
	int n = 0;

	if (!dt_stable_args(pd->prov, pd->name, &src, &ns, &xs) ||
	    (pd->func[0] && strcmp(pd->func, src)) ||
	    (pd->mod[0] && strcmp(pd->mod, "vmlinux")))
		return -1;
	while (*ns && n < 10) {
		size_t nl = strcspn(ns, ";"), xl = strcspn(xs, ";");

		nt[n] = typestr(ps, ns, nl);
		xt[n] = typestr(ps, xs, xl);
		if (!nt[n] || !xt[n])
			dt_cerrt(&ps->lx, DT_D_TYPE_ERR, line, col,
				 "args[%d] of %s:::%s: no type %.*s%s", n,
				 pd->prov, pd->name,
				 (int)(nt[n] ? xl : nl), nt[n] ? xs : ns,
				 ps->p->libloaded ? " (not in the D library: see -L)" : "");
		if (xt[n] == nt[n])
			nt[n] = NULL;
		n++;
		ns += nl + !!ns[nl];
		xs += xl + !!xs[xl];
	}
	return n;
}

/*
 * args[]'s types are worked out when the clause first uses args[] (sema
 * calls dt_argtypes), not for every clause: typing reads the kernel's BTF,
 * which a clause that never reads args[] should not pay for at start-up.
 */
static struct {
	struct parser *ps;
	char (*descs)[256];
	int nd, line, col;
} pending;

static void clause_argtypes(struct parser *ps, char (*descs)[256], int nd,
			    int line, int col)
{
	ps->p->nargt = -2;	/* not worked out yet */
	ps->p->argdesc = descs[0];
	pending.ps = ps;
	pending.descs = descs;
	pending.nd = nd;
	pending.line = line;
	pending.col = col;
}

struct globproto {
	struct dtype *at[10], *ret;
	int n, nmatch, differ;
};

/* fbt over a glob: every matching function's prototype must agree */
static void glob_proto(const char *func, void *arg)
{
	struct globproto *g = arg;
	struct dtype *at[10], *ret;
	int n = btf_func_proto(func, at, 10, &ret);

	if (n < 0 || g->differ)
		return;
	if (n > 10)
		n = 10;
	if (g->nmatch++ == 0) {
		memcpy(g->at, at, sizeof(at));
		g->ret = ret;
		g->n = n;
		return;
	}
	g->differ = n != g->n || ret != g->ret ||
		    memcmp(at, g->at, (size_t)n * sizeof(at[0]));
}

void dt_argtypes(struct prog *p, struct lexer *lx, int aline, int acol)
{
	struct parser *ps = pending.ps;
	char (*descs)[256] = pending.descs;
	int nd = pending.nd, line = pending.line, col = pending.col;
	struct dtype *at[10], *ret, *nt[10];

	if (p->nargt != -2)
		return;
	p->nargt = -1;
	for (int i = 0; i < nd; i++) {
		struct xdt_probedesc pd;
		int n, ent;

		desc_split(ps, descs[i], &pd, line, col);
		memset(nt, 0, sizeof(nt));
		/* BEGIN, END and ERROR have no args[] (DTrace: D_ARGS_IDX) */
		if ((!strcmp(pd.prov, "dtrace") || !pd.prov[0]) &&
		    (!strcmp(pd.name, "BEGIN") || !strcmp(pd.name, "END") ||
		     !strcmp(pd.name, "ERROR"))) {
			n = 0;
			goto have;
		}
		if (!strpbrk(pd.prov, "*?[\\") && !strpbrk(pd.name, "*?[\\") &&
		    (n = stable_argtypes(ps, &pd, nt, at, line, col)) >= 0)
			goto have;
		ent = !strcmp(pd.name, "entry");
		if (strcmp(pd.prov, "fbt") || !pd.func[0] ||
		    (!ent && strcmp(pd.name, "return")))
			goto untyped;
		if (strpbrk(pd.func, "*?[\\")) {
			/*
			 * DTrace types args[] over a description that matches
			 * several probes when their arguments agree, and
			 * refuses args[] when they do not.  The functions
			 * are BTF's (a superset of those with probes).
			 */
			struct globproto g = { .n = 0 };

			btf_funcs(pd.func, glob_proto, &g);
			if (g.differ)
				dt_cerrt(lx, DT_D_ARGS_MULTI, aline, acol,
					 "args[ ] may not be referenced because probe "
					 "description %s matches an unstable set of probes",
					 descs[i]);
			if (!g.nmatch)
				goto untyped;
			memcpy(at, g.at, sizeof(at));
			ret = g.ret;
			n = g.n;
		} else {
			n = btf_func_proto(pd.func, at, 10, &ret);
		}
		if (n < 0)
			goto untyped;
		if (!ent) {
			at[0] = dt_int;
			at[1] = ret;
			n = ret->real->k == TK_VOID ? 1 : 2;
		}
		if (n > 10)
			n = 10;
have:
		if (i && n != p->nargt)
			goto untyped;
		for (int k = 0; i && k < n; k++)
			if (at[k] != p->argt[k] || nt[k] != p->argn[k])
				goto untyped;
		memcpy(p->argt, at, (size_t)n * sizeof(at[0]));
		memcpy(p->argn, nt, sizeof(nt));
		p->nargt = n;
	}
	return;
untyped:
	p->nargt = -1;
}

/*
 * A clause's probe descriptions, as many as it has (DTrace sets no limit).
 * Kept from clause to clause and never freed: the parser, like `pending`
 * above, is one per process, and a longjmp'd error then leaks nothing.
 * So it is in no handle's zone (an unwind out of xrealloc leaves none).
 */
static char (*descbuf)[256];
static int descap;

static void clause(struct parser *ps, int src)
{
	char (*descs)[256];
	int nd = 0, line, col, i, first, npieces;
	struct node *pred = NULL;
	struct stmt *body = NULL;
	struct lower L;

	for (;;) {
		if (nd == descap) {
			/* the new size once it is there: xrealloc may unwind */
			int cap = descap ? 2 * descap : 16;
			struct dt_zone *z = dt_zone_enter(NULL);

			descbuf = xrealloc(descbuf, cap * sizeof(*descbuf));
			dt_zone_enter(z);
			descap = cap;
		}
		descs = descbuf;
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
	lex_next(&ps->lx);
	if (TOK(ps).t == T_DIV) {
		lex_next(&ps->lx);
		ps->in_pred = 1;
		pred = expr(ps);
		ps->in_pred = 0;
		if (TOK(ps).t != T_DIV)
			syntax(ps);
		lex_next(&ps->lx);
	}
	if (TOK(ps).t == T_LBRACE) {
		lex_next(&ps->lx);
		body = stmt_list(ps, T_RBRACE);
	} else if (TOK(ps).t != T_EOF) {
		syntax(ps);
	}
	/* The next clause's description is read raw, from here. */

	clause_argtypes(ps, descs, nd, line, col);
	{
		struct xdt_probedesc pd;

		desc_split(ps, descs[0], &pd, line, col);
		dt_attr_clause_begin(ps->p, &ps->lx, &pd, line, col);
	}
	memset(&L, 0, sizeof(L));
	L.ps = ps;
	L.desc = descs[0];
	L.line = line;
	L.col = col;
	L.src = src;
	L.pred = -1;
	if (pred) {
		pred = sema_expr(ps->p, &ps->lx, pred);
		if (!type_is_scalar(pred->t) && !type_is_strlike(pred->t))
			dt_cerrt(&ps->lx, DT_D_PRED_SCALAR, pred->line, pred->col,
				 "predicate result must be of scalar type");
		pred->type = XDT_TYPE_INT;
		L.pred = cg_difo(ps->p, &ps->lx, pred);
	}
	ps->cl = -1;
	new_piece(&L);		/* the first piece exists even if empty */
	first = ps->cl;
	/* DTrace's default action: a clause with no statements traces the probe */
	CL(ps)->record = body == NULL;
	lower_list(&L, body);
	flush_exprs(&L);
	dt_attr_clause_end(ps->p, first, body != NULL);
	ps->p->argdesc = NULL;	/* args[] outside a clause is untyped */
	ps->p->nargt = -1;
	npieces = ps->p->nclauses - first;

	/* "a, b { ... }": the same pieces again for each description */
	for (i = 1; i < nd; i++) {
		for (int k = 0; k < npieces; k++) {
			struct clause *c0, *c;
			int n = new_clause(ps, descs[i], line, col, src), a;

			c0 = &ps->p->clauses[first + k];
			for (a = 0; a < c0->nactions; a++) {
				struct xdt_action *x = &ps->p->acts[c0->action0 + a];

				prog_add_action(ps->p, x->kind, x->difo, x->arg0, x->arg1);
			}
			c = &ps->p->clauses[n];
			c0 = &ps->p->clauses[first + k];
			c->pred = c0->pred;
			c->record = c0->record;
			c->spec = c0->spec;
			c->nactions = c0->nactions;
			c->dact = c0->dact, c->dnum = c0->dnum;
			c->outs = c0->outs, c->nouts = c0->nouts;
			c->recs = c0->recs, c->nrecs = c0->nrecs;
			c->stmtattr = c0->stmtattr;
			c->descattr = dt_attr_desc(ps->p, &c->desc);
		}
	}
	ps->cl = -1;
}

void dt_compile(struct prog *p, const struct dt_env *env, const char *name,
		const char *src)
{
	struct parser ps = { .p = p, .env = env, .cl = -1 };
	const char *e = strpbrk(src, "{/;");
	size_t n = e ? (size_t)(e - src) : strlen(src);
	int ndecls = 0;
	/* what the text before this one made (the D library's inlines) */
	const int nc0 = p->nclauses, nv0 = p->nvars, ni0 = p->ninlines,
		  nx0 = p->nxlators;
	char *d;

	sema_reset();
	lex_init(&ps.lx, name, src);
	ps.lx.prog = p;
	p->eattr = env->eattr;
	p->amin = env->amin;
	ps.lx.library = env->library;
	p->iregs = env->iregs ? env->iregs : DIF_NREGS;
	if (!p->strsize) {
		p->strsize = env->strsize;
		types_init(env->strsize);
	}
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
		/* a declaration, or a clause's probe description (read raw) */
		{
			struct lexer save = ps.lx;

			lex_next(&ps.lx);
			if (starts_decl(&ps)) {
				declaration(&ps);
				ndecls++;
				continue;
			}
			if (TOK(&ps).t == T_SEMI) {
				continue;
			}
			ps.lx = save;
		}
		clause(&ps, p->nsrc - 1);
		if (ps.lx.tok.t == T_EOF)
			break;
		/* tok is '}' of the clause just read; its end is our position */
	}
	/*
	 * Declarations alone are a program (a library); nothing at all is not,
	 * whatever texts came before: an empty script compiled again after
	 * the D library (whose inlines are the program's) is still empty.
	 */
	if (p->nclauses == nc0 && p->nvars == nv0 && p->ninlines == ni0 &&
	    p->nxlators == nx0 && !ndecls)
		dt_cerrt(&ps.lx, DT_D_EMPTY, ps.lx.line, ps.lx.col,
			 "empty D program translation unit");
	/* #pragma D attributes for a name nothing declared (DTrace's) */
	if (p->npending) {
		const struct dpending *u = &p->pending[0];

		p->npending = 0;
		dt_cerrt(&ps.lx, DT_D_PRAGMA_UNUSED, u->line, u->col,
			 "unused #pragma attributes");
	}
	/* DTrace checks the last argument only: one given for nothing */
	if (env->nmacros && ps.maxmacro < env->nmacros && !env->argref &&
	    !env->library)
		dt_cerrt(&ps.lx, DT_D_MACRO_UNUSED, ps.lx.line, ps.lx.col,
			 "extraneous argument '%s' ($%d is not referenced)",
			 env->macros[env->nmacros - 1], env->nmacros);
}
