/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - the D front end's inside: the parser (parse.c, the grammar)
 * and the lowering of a clause's statements to clauses, actions and DIF
 * (lower.c).  Nothing outside the front end includes it.
 */
#ifndef XDT_PARSE_H
#define XDT_PARSE_H

#include "dt_tree.h"
#include "dt_printf.h"

struct parser {
	struct lexer lx;
	struct prog *p;
	const struct dt_env *env;
	int in_pred;		/* a '/' followed by '{' ends the predicate */
	int cl;			/* clause (piece) being filled, or -1 */
	int in_typename;	/* parsing a cast's or sizeof's type */
	int maxmacro;		/* the highest $N referenced (D_MACRO_UNUSED) */
};

#define TOK(ps) ((ps)->lx.tok)

/* ---- statements: what the parser hands the lowering ---------------------- */
enum skind { S_EXPR, S_IF, S_BLOCK, S_ACTION, S_AGG, S_EMPTY };

struct stmt {
	enum skind k;
	struct token tok;	/* action or aggregation name, if */
	struct node *e;		/* S_EXPR, S_IF condition */
	struct stmt *body, *els, *next;
	struct node **args;  int nargs;		/* S_ACTION, S_AGG: function args */
	struct node **keys;  int nkeys;		/* S_AGG */
	struct token ftok;			/* S_AGG: the function's name */
};

/* ---- the lowering of one clause (lower.c) ------------------------------- */
struct lower {
	struct parser *ps;
	const char *desc;	/* the probe description */
	int line, col, src;
	int pred;		/* the clause's predicate difo, -1 */
	struct dvar *guard;	/* this-> variable the current pieces need, or
				   NULL: the clause predicate (if any) alone */
	int first;		/* index of the first piece */
	int npieces;
	struct node **pend;	/* expression statements not yet emitted */
	int npend;
	unsigned cflags;	/* CF_*: what the clause did so far (speculation rules) */
};

static inline struct clause *CL(struct parser *ps)
{
	return &ps->p->clauses[ps->cl];
}

/* parse.c */
int new_clause(struct parser *ps, const char *d, int line, int col, int src);
struct node **printf_args(struct parser *ps, int *n);

/* lower.c */
void new_piece(struct lower *L);
void flush_exprs(struct lower *L);
void lower_list(struct lower *L, struct stmt *s);
int is_action(const char *s);

#endif
