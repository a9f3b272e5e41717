/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_lex.h - D's tokens and lexer (lex.c), raising a compile error at a
 * place in the source (diag.c), and the #pragma lines the lexer hands on
 * (pragma.c).
 */
#ifndef XDT_DT_LEX_H
#define XDT_DT_LEX_H

#include "dt_program.h"

enum tok {
	T_EOF = 0, T_INT, T_STR, T_IDENT, T_AGG,	/* @name */
	/* punctuation, each its own token */
	T_LPAR, T_RPAR, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_COMMA,
	T_SEMI, T_QUEST, T_COLON, T_ASSIGN,
	T_OROR, T_ANDAND, T_OR, T_XOR, T_AND, T_EQ, T_NE, T_LT, T_LE, T_GT,
	T_GE, T_SHL, T_SHR, T_PLUS, T_MINUS, T_STAR, T_DIV, T_MOD, T_NOT,
	T_TILDE, T_INC, T_DEC, T_ARROW, T_DOT, T_ELLIPSIS,
	/* compound assignments, in the order of the operators they apply */
	T_ADDEQ, T_SUBEQ, T_MULEQ, T_DIVEQ, T_MODEQ, T_ANDEQ, T_OREQ, T_XOREQ,
	T_SHLEQ, T_SHREQ,
};

struct token {
	enum tok t;
	int line, col;
	long long ival;
	int isuns, islong;	/* T_INT: u and l suffixes (islong: 1 l, 2 ll) */
	int radix;		/* T_INT: 8, 10, 16 (C's typing differs) */
	char *s;		/* identifier, string literal (unescaped) */
	size_t len;		/* string literal length */
	const char *start;	/* in the source, for "near" messages */
	size_t srclen;
};

struct lexer {
	const char *name;	/* file name for messages, or <cmdline> */
	const char *fname;	/* the name line markers (# N "file") give */
	int lineoff;		/* line markers: reported line - physical line */
	struct prog *prog;	/* names #pragma D attributes may apply to */
	int library;		/* a D library file (#pragma D depends_on) */
	const char *src;
	size_t pos;
	int line, col;
	struct token tok;	/* current */
};

void lex_init(struct lexer *lx, const char *name, const char *src);
void lex_next(struct lexer *lx);
struct token lex_peek(struct lexer *lx);
int lex_probedesc(struct lexer *lx, char *out, size_t cap, int *line, int *col);
void lex_skipspace(struct lexer *lx);

_Noreturn void dt_cerr(struct lexer *lx, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
_Noreturn void dt_cerrt(struct lexer *lx, int tag, int line, int col,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * A "#pragma" control line, @p just after the word: D's own pragmas are
 * checked as DTrace checks them (options are applied by libxdt's option
 * pass, before compiling); others are ignored.  Returns 1 (read), or
 * raises the compile error.
 */
int dt_pragma(struct lexer *lx, const char *p);

#endif
