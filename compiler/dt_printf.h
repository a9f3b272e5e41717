/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_printf.h - printf-style formats (printf.c): parsed once at compile
 * time, each conversion checked against its argument's type, and the
 * parsed format kept in the program for the consumer, which formats
 * values with it (pf_format(), dt_program.h).  One table row per
 * conversion holds both its check and its printer.
 */
#ifndef XDT_DT_PRINTF_H
#define XDT_DT_PRINTF_H

#include "dt_lex.h"

enum {
	PF_ALT = 1, PF_ZPAD = 2, PF_LEFT = 4, PF_SPOS = 8, PF_GROUP = 16,
	PF_SPACE = 32, PF_DYNWIDTH = 64, PF_DYNPREC = 128, PF_AGG = 256,
	PF_SIGNED = 512,	/* %d of a signed type (else printed as %u) */
};

/* An argument as the checks see it: a typed value, or what has no type. */
enum { PFA_VALUE, PFA_STACK, PFA_AGG, PFA_VOID };
struct pfarg {
	int kind;
	struct dtype *t;	/* PFA_VALUE */
	int line, col;
};

struct pfcheck {
	int target;		/* a process (-p/-c): %A takes integers */
	struct dtype *aggt;	/* printa(): an aggregation value's type */
};

struct pfdesc;
struct pfval;
struct pfconv {
	const char *name;	/* as written: size prefix and letter */
	const char *cconv;	/* the C conversion it prints with */
	const char *types;	/* what it takes, for messages (or the type) */
	int (*check)(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a);
	void (*print)(FILE *fp, char *cfmt, const struct pfdesc *d,
		      const struct pfval *v);
};

/* One conversion of a format, with the literal text before it. */
struct pfdesc {
	const char *prefix;	/* into struct pformat's text */
	size_t preflen;
	const struct pfconv *conv;	/* NULL: text after the last one */
	unsigned flags;		/* PF_* */
	int width, prec;	/* as written (? is 16); 0 = none */
	char cconv[4];		/* C conversion, as the argument's type decided */
	int rwidth;		/* while printing: the width in effect */
};

struct pformat {
	char *text;
	struct pfdesc *d;  int nd;
	int nvals;		/* values consumed, '*' arguments included */
};

struct pformat *pf_create(struct lexer *lx, int line, int col, const char *fmt);
void pf_validate(struct lexer *lx, struct pformat *pf, const struct pfcheck *c,
		 const char *func, int foff, const struct pfarg *av, int ac,
		 int exact, int line, int col);
#endif
