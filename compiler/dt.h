/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt.h - the xdt D compiler and dtrace(1) consumer, one header.
 *
 * Pipeline:  source --lex.c--> tokens --parse.c--> AST per statement
 *            --cg.c--> DIF objects + actions + output statements (struct prog)
 *            --prog.c--> the blob of xdt.h  --consumer.c--> /dev/xdt
 *            records/aggregations --print.c--> stdout, DTrace's formats.
 * dis.c prints the DIF (-S) from the DIF_OPS table of dif.h; ksyms.c names
 * the kernel addresses of stack() from /proc/kallsyms.
 *
 * Prototypes are grouped by the file that implements them.
 */
#ifndef XDT_DT_H
#define XDT_DT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "xdt.h"
#include "dif.h"

#define DT_MAXCLAUSES	256
#define DT_MAXARGS	16	/* printf() arguments */
#define DT_MAXKEYS	8	/* aggregation keys */
#define DT_STACKFRAMES	20	/* stack()'s default depth, DTrace's stackframes */
/*
 * The compiler's value types: XDT_TYPE_INT and XDT_TYPE_STRING (xdt.h),
 * and a stack() (recorded or an aggregation key), which no expression has.
 */
#define DT_TYPE_STACK	2

/* ---- lex.c ------------------------------------------------------------ */
enum tok {
	T_EOF = 0, T_INT, T_STR, T_IDENT, T_AGG,	/* @name */
	/* punctuation, each its own token */
	T_LPAR, T_RPAR, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_COMMA,
	T_SEMI, T_QUEST, T_COLON, T_ASSIGN,
	T_OROR, T_ANDAND, T_OR, T_XOR, T_AND, T_EQ, T_NE, T_LT, T_LE, T_GT,
	T_GE, T_SHL, T_SHR, T_PLUS, T_MINUS, T_STAR, T_DIV, T_MOD, T_NOT,
	T_TILDE,
};

struct token {
	enum tok t;
	int line, col;
	long long ival;
	char *s;		/* identifier, string literal (unescaped) */
	size_t len;		/* string literal length */
	const char *start;	/* in the source, for "near" messages */
	size_t srclen;
};

struct lexer {
	const char *name;	/* file name for messages, or <cmdline> */
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
_Noreturn void dt_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xzalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* ---- parse.c ---------------------------------------------------------- */
/* Macro arguments and knobs the compiler substitutes. */
struct dt_env {
	int nmacros;
	char **macros;		/* $1.. */
	long long pid;		/* $pid */
	long long target;	/* $target, -1 if none */
	unsigned strsize;
};

struct prog;
void dt_compile(struct prog *p, const struct dt_env *env, const char *name,
		const char *src);

/* ---- cg.c: AST and code generation ----------------------------------- */
enum nkind { N_INT, N_STR, N_VAR, N_BIN, N_UN, N_AND, N_OR, N_TERN, N_LOAD,
	     N_CAST };

struct node {
	enum nkind k;
	enum tok op;		/* N_BIN, N_UN */
	int type;		/* XDT_TYPE_INT / XDT_TYPE_STRING */
	long long ival;
	char *s;
	size_t slen;
	int var;		/* enum dif_var */
	int size, sgn;		/* N_LOAD, N_CAST: bytes and signedness */
	struct node *a, *b, *c;
	int line, col;
};

/* A DIF object under construction, and in the finished program. */
struct difo {
	__u32 *insns;  int ninsns;
	__u64 *ints;   int nints;
	char *strtab;  int strlen;
	int rtype;
};

/* What the consumer prints for a clause: one entry per trace/printf/exit. */
enum outkind { OUT_TRACE, OUT_PRINTF, OUT_EXIT, OUT_STACK };
struct outst {
	enum outkind k;
	char *fmt;		/* printf */
	int nargs;
	int rec0;		/* index of its first value in clause recs[] */
};

struct recval {
	int type;		/* XDT_TYPE_INT, XDT_TYPE_STRING, DT_TYPE_STACK */
	unsigned off;		/* from the record header */
	unsigned nframes;	/* DT_TYPE_STACK: frames (8 bytes each) */
};

struct clause {
	char descstr[XDT_PROVNAMELEN + XDT_MODNAMELEN + XDT_FUNCNAMELEN + XDT_NAMELEN];
	struct xdt_probedesc desc;
	int pred;
	int action0, nactions;
	struct outst *outs;  int nouts;
	struct recval *recs; int nrecs;
	unsigned recsize;
	int src;		/* which -n/-s text it came from */
};

struct agg {
	char *name;		/* without @; "" for @ */
	int func;		/* enum xdt_aggfunc */
	int nkeys;
	int keytype[DT_MAXKEYS];	/* XDT_TYPE_INT/STRING or DT_TYPE_STACK */
	unsigned keyframes[DT_MAXKEYS];	/* DT_TYPE_STACK: frames */
};

struct prog {
	struct clause *clauses;	int nclauses;
	struct xdt_action *acts; int nacts;
	struct difo *difos;	int ndifos;
	struct agg *aggs;	int naggs;
	unsigned strsize;
	unsigned bufsize;	/* -x bufsize, 0 = the kernel's default */
	/* per -n/-s source: its description text, full text, is it a file */
	char **srcdesc;		int nsrc;
	char **srctext;
	int *srcfile;
};

struct node *node_new(enum nkind k, int line, int col);
int cg_difo(struct prog *p, struct lexer *lx, struct node *e);
int prog_add_action(struct prog *p, __u32 kind, int difo, __u32 arg0, __u32 arg1);
void prog_layout(struct prog *p);	/* record offsets of every clause */

/* ---- prog.c ----------------------------------------------------------- */
void *prog_blob(const struct prog *p, size_t *size);

/* ---- dis.c ------------------------------------------------------------ */
void dis_prog(FILE *fp, const struct prog *p);
const char *aggfunc_name(int f);

/* ---- print.c ---------------------------------------------------------- */
struct dt_print {
	int quiet;
	int header_done;
	int last_nl;		/* the last character printed was '\n' */
};
void print_header(struct dt_print *pr);
void print_record(struct dt_print *pr, const struct prog *p, int cl,
		  const struct xdt_eprobe *ep, int cpu, const char *data);
void print_printf(const char *fmt, const struct prog *p, const struct clause *c,
		  int rec0, const char *data, FILE *fp);
/* Returns how many entries it printed (each aggregation after a blank line). */
unsigned print_aggs(const struct prog *p, const char *buf, size_t size,
		    unsigned count, FILE *fp);
void print_quantize(const __s64 *b, FILE *fp);
void print_selftest(FILE *fp);
void print_fake_records(const struct prog *p, char **vals, int nvals);
void print_fake_aggs(const struct prog *p, char **ents, int nents);
void print_stack(const __u64 *pcs, unsigned nframes, FILE *fp);

/* ---- ksyms.c: kernel addresses -> module`function+0xoff ---------------- */
void ksyms_path(const char *path);	/* default $XDT_KALLSYMS, /proc/kallsyms */
void ksyms_format(__u64 pc, char *buf, size_t cap);

/* ---- consumer.c ------------------------------------------------------- */
struct dt_opts {
	int quiet;
	size_t bufsize;
	long switchrate_us;
	pid_t child;		/* -c */
	pid_t target;		/* -p */
	int child_gate;		/* pipe fd that releases the -c child */
};
int consume(const struct prog *p, const struct dt_opts *o);
int list_probes(const struct xdt_probedesc *m, int verbose);

#endif
