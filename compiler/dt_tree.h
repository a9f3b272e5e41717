/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_tree.h - D's expression tree and what walks it: the tree's nodes,
 * variables, translators and inlines (built by parse.c, which holds the
 * constructor), the semantic pass (sema.c), the table of D's actions,
 * and DIF code generation (cg.c).
 */
#ifndef XDT_DT_TREE_H
#define XDT_DT_TREE_H

#include "dt_lex.h"
#include "dt_types.h"

#define DT_MAXARGS	16	/* printf() arguments */
#define DT_STACKFRAMES	20	/* stack()'s default depth, DTrace's stackframes */
#define DT_USTACKFRAMES	20	/* ustack()'s, DTrace's ustackframes */
#define DT_JSTACKFRAMES	50	/* jstack()'s, DTrace's jstackframes */

enum nkind {
	N_INT, N_STR, N_IDENT, N_VAR, N_DVAR, N_ARGS, N_UREGS, N_BIN, N_UN, N_AND,
	N_OR, N_TERN, N_CAST, N_DEREF, N_ADDR, N_MEMBER, N_INDEX, N_ASSIGN,
	N_INCDEC, N_CALL, N_SIZEOF, N_OFFSETOF, N_SELF, N_THIS, N_STRINGOF,
	N_COMMA, N_LOAD, N_XLATE,
};

struct dvar;
struct node {
	enum nkind k;
	enum tok op;		/* N_BIN, N_UN, N_ASSIGN (= or op=), N_INCDEC,
				   N_MEMBER (. or ->) */
	int type;		/* XDT_TYPE_INT / XDT_TYPE_STRING of the value */
	struct dtype *t;	/* D type, set by the semantic pass */
	long long ival;
	char *s;		/* N_STR text; N_IDENT/N_MEMBER/N_CALL name */
	size_t slen;
	int var;		/* N_VAR: enum dif_var */
	int post;		/* N_INCDEC: postfix */
	int size, sgn;		/* N_LOAD: bytes and signedness */
	struct dvar *dv;	/* N_DVAR, N_SELF, N_THIS, N_INDEX of an array */
	const struct dmember *mem;	/* N_MEMBER */
	struct dtype *ct;	/* N_CAST, N_SIZEOF of a type, N_OFFSETOF */
	struct node *a, *b, *c;
	struct node **args;  int nargs;	/* N_CALL, N_INDEX; N_XLATE: each
					   output member's value, or NULL */
	struct dxlator *xl;	/* N_XLATE */
	int line, col;
	char *text;		/* an action's argument: its source text, which
				   names the value it records (libxdt.h) */
	/*
	 * What the semantic pass rewrote, for its stability attributes
	 * (attr.c): a typed args[i], a kernel symbol (aname), an inline
	 * (ainl, aname) -- each a leaf with its own attributes.
	 */
	enum { AK_NONE, AK_ARGS, AK_SYM, AK_INLINE } akind;
	const char *aname;
	const struct dinline *ainl;
};

/*
 * A translator (DTrace's stable-type mechanism): for each member of the
 * output struct/union it defines, an expression over the input, kept
 * untyped and typed anew at each xlate<>() with the input bound to the
 * parameter's name.
 */
struct dxlator {
	struct dtype *out, *in;
	char *param;
	int nmems;
	char **mnames;
	struct node **mexprs;
	int line, col;
};

/*
 * An inline: a named, typed expression substituted where it is used.
 * An inline associative array (`inline int sq[int x] = x * x;`) keeps
 * its body as parsed too: each use name[args] types a copy of it with
 * each parameter bound to its argument, as a translator's members are.
 */
struct dinline {
	char *name;
	struct dtype *t;
	struct node *e;
	int nparams;
	struct dtype **ptypes;
	char **pnames;		/* a name, or NULL (unnamed: unused) */
	struct node *body;	/* nparams: the untyped body */
	struct dattr attr;	/* Stable/Stable/Common, or #pragma D
				   attributes' */
};

/* parse.c: the constructor; sema.c: a deep copy */
struct node *node_new(enum nkind k, int line, int col);

/* ---- sema.c: the semantic pass ------------------------------------------- */
struct sema;
struct node *sema_expr(struct prog *p, struct lexer *lx, struct node *n);
void sema_reset(void);
/* the lvalue of an assignment: may declare the variable it names */
struct node *sema_lvalue(struct prog *p, struct lexer *lx, struct node *n,
			 struct dtype *rt, int declare);
struct dvar *var_lookup(struct prog *p, int scope, const char *name);
struct dvar *var_declare(struct prog *p, struct lexer *lx, int scope,
			 const char *name, struct dtype *t, int nkeys,
			 struct dtype **keyt, int line, int col);
int sema_constval(struct node *n, long long *v);
int sema_is_dynamic(struct prog *p, const struct node *n);	/* a[] unsubscripted */
void key_size_check(struct lexer *lx, const struct node *k, int i);
void sema_xlator_check(struct prog *p, struct lexer *lx, struct dxlator *x);
/* An inline array's body typed with its parameters bound to @args
   (typed), or to stand-ins of their types (!args: the definition). */
struct node *sema_inline_body(struct prog *p, struct lexer *lx,
			      const struct dinline *in, struct node **args);
int sema_reserved(const char *name);	/* a built-in variable or function */

/*
 * D's actions, one row each in lower.c's d_actions[] (as libdtrace keys
 * dt_compile_fun on DT_ACT_*): the parser, the semantic pass and the
 * lowering all read the row; nothing lists the names again.
 *   kind:  what the statement is to DTrace's speculation rules; SK_DESTR
 *          also makes the program destructive (-w);
 *   tag:   the error tag of a wrong argument count (0: the lowering
 *          checks the count itself, with DTrace's own message);
 *   lower: NULL for an action DTrace has and xdt does not (yet).
 */
enum spkind { SK_NONE, SK_DREC, SK_AGG, SK_SPEC, SK_COMMIT, SK_EXIT, SK_DESTR };
struct lower;
struct stmt;
struct d_action {
	const char *name;
	int min, max;		/* argument count */
	int tag;
	int aggargs;		/* printf_args(): @aggregations are arguments */
	enum spkind kind;
	int aux;		/* the lowering's: XDT_ACT_*, OUT_*, a tag */
	void (*lower)(struct lower *L, struct stmt *s, const struct d_action *a);
};
const struct d_action *d_action(const char *name);	/* or NULL */
int sema_is_d_ident(const char *name);	/* a built-in: never a type */
struct node *node_clone(const struct node *n);

const char *sema_tokstr(enum tok t);	/* an operator as D writes it */

/* ---- attr.c: stability attributes (dt_program.h has the rest) ------------ */
/* A clause's probe description: its attributes, and its provider's for
   probeprov .. args[]; -x amin checks them (D_ATTR_MIN). */
void dt_attr_clause_begin(struct prog *p, struct lexer *lx,
			  const struct xdt_probedesc *d, int line, int col);
/* a typed expression of the clause: its attributes join the clause's */
void dt_attr_expr(struct prog *p, struct lexer *lx, const struct node *n);
/* the clause's pieces p->clauses[first ..] are made */
void dt_attr_clause_end(struct prog *p, int first, int hasacts);
struct dattr dt_attr_desc(const struct prog *p, const struct xdt_probedesc *d);
/* #pragma D attributes naming what is declared later: applied now */
void dt_attr_pending(struct prog *p, const char *name, struct dattr *a);

/* ---- cg.c: code generation ----------------------------------------------- */
int cg_difo(struct prog *p, struct lexer *lx, struct node *e);
/* one DIF object evaluating each of @es for its effects */
int cg_difo_effects(struct prog *p, struct lexer *lx, struct node **es, int n);
int prog_add_action(struct prog *p, __u32 kind, int difo, __u32 arg0, __u32 arg1);

#endif
