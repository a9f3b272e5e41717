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
#include "hostvm.h"

#define DT_MAXARGS	16	/* printf() arguments */
#define DT_MAXKEYS	8	/* aggregation keys */
#define DT_STACKFRAMES	20	/* stack()'s default depth, DTrace's stackframes */
/*
 * The compiler's value types: XDT_TYPE_INT and XDT_TYPE_STRING (xdt.h),
 * and a stack() (recorded or an aggregation key), which no expression has.
 */
#define DT_TYPE_STACK	2
#define DT_TYPE_MEM	3	/* bytes of memory: tracemem(), structs */

/* ---- lex.c, pragma.c, diag.c -------------------------------------------- */
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
/*
 * A "#pragma" control line, @p just after the word (pragma.c): D's own
 * pragmas are checked as DTrace checks them (options are applied by
 * libxdt's option pass, before compiling); others are ignored.  Returns 1
 * (read), or raises the compile error.
 */
int dt_pragma(struct lexer *lx, const char *p);
/*
 * DTrace's diagnostic tags (-x errtags prints them): the ones xdt raises,
 * with the conditions of illumos' compiler.  D_SYNTAX is the default.
 */
#define DT_ERRTAGS(X) \
	X(D_SYNTAX) X(D_IDENT_UNDEF) X(D_IDENT_BADREF) X(D_VAR_UNDEF) \
	X(D_VAR_UNSUP) X(D_DECL_IDRED) X(D_DECL_TYPERED) X(D_DECL_VOIDOBJ) \
	X(D_DECL_ARRSUB) X(D_DECL_ARRNULL) X(D_DECL_ARRBIG) X(D_DECL_CLASS) \
	X(D_DECL_COMBO) X(D_DECL_USELESS) X(D_DECL_BFCONST) X(D_DECL_BFSIZE) \
	X(D_DECL_BFTYPE) X(D_DECL_INCOMPLETE) X(D_DECL_DYNOBJ) \
	X(D_DECL_LOCASSC) X(D_DECL_SCOPE) X(D_DECL_ENCONST) X(D_DECL_ENOFLOW) \
	X(D_DECL_MNAME) X(D_DECL_SIGNINT) X(D_DECL_LONGINT) X(D_DECL_VOIDATTR) \
	X(D_DECL_PROTO_VOID) X(D_DECL_PROTO_TYPE) X(D_DECL_ARRVA) \
	X(D_DECL_FUNC) X(D_TYPE_ERR) X(D_TYPE_MEMBER) X(D_UNKNOWN) \
	X(D_OP_INCOMPAT) X(D_OP_INT) X(D_OP_ARITH) X(D_OP_SCALAR) X(D_OP_LVAL) \
	X(D_OP_WRITE) X(D_OP_PTR) X(D_OP_SOU) X(D_OP_ARRFUN) X(D_OP_VFPTR) \
	X(D_OP_BFIELD) X(D_OP_DYN) X(D_OP_ACT) X(D_ADDROF_VAR) \
	X(D_ADDROF_LVAL) X(D_ADDROF_BITFIELD) X(D_CAST) X(D_SIZEOF_TYPE) \
	X(D_SIZEOF_BITFIELD) X(D_OFFSETOF_TYPE) X(D_OFFSETOF_BITFIELD) \
	X(D_DEREF_NONPTR) X(D_DEREF_VOID) X(D_ARR_BADREF) X(D_ARR_LOCAL) \
	X(D_KEY_TYPE) X(D_PROTO_LEN) X(D_PROTO_ARG) X(D_FUNC_UNDEF) \
	X(D_FUNC_IDENT) X(D_ACT_SPEC) X(D_AGG_FUNC) X(D_AGG_REDEF) \
	X(D_AGG_SCALAR) X(D_AGG_NULL) X(D_PRINTF_ARG_TYPE) \
	X(D_PRINTF_ARG_PROTO) X(D_PRINTF_ARG_EXTRA) X(D_PRINTF_FMT_EMPTY) \
	X(D_PRINTF_DYN_PROTO) X(D_PRINTF_DYN_TYPE) X(D_PRINTF_ARG_FMT) \
	X(D_PRINTF_AGG_CONV) X(D_STACK_SIZE) \
	X(D_STACK_PROTO) X(D_TRACE_VOID) X(D_TRACE_DYN) X(D_CHR_NL) \
	X(D_CHR_NULL) X(D_CHR_LONG) X(D_STR_NL) X(D_INT_OFLOW) X(D_INT_DIGIT) \
	X(D_MACRO_UNDEF) X(D_MACRO_UNUSED) X(D_PDESC_ZERO) X(D_PDESC_INVAL) \
	X(D_PRAGMA_INVAL) X(D_PRAGMA_UNUSED) X(D_PRAGMA_MALFORM) \
	X(D_PRAGMA_OPTSET) X(D_PRAGMA_DEPEND) X(D_PRAGCTL_INVAL) \
	X(D_LVAL_INVAL) X(D_DIV_ZERO) X(D_XLATE_REDECL) X(D_XLATE_TYPE) \
	X(D_XLATE_SOU) X(D_XLATE_MEMB) X(D_XLATE_NONE) X(D_XLATE_INCOMPAT) \
	X(D_ARGS_IDX) X(D_ARGS_MULTI) \
	X(D_EMPTY) X(D_COMM_COMM) X(D_STRINGOF_TYPE) X(D_NOREG) X(D_CG_EXPR) \
	X(D_TRACEMEM_SIZE) X(D_TRACEMEM_ADDR) X(D_TRACEMEM_DYNSIZE) \
	X(D_PRINT_VOID) X(D_PRINTM_SIZE) X(D_PRINTM_ADDR) \
	X(D_LQUANT_BASETYPE) X(D_LQUANT_BASEVAL) X(D_LQUANT_LIMTYPE) \
	X(D_LQUANT_LIMVAL) X(D_LQUANT_MISMATCH) X(D_LQUANT_STEPTYPE) \
	X(D_LQUANT_STEPVAL) X(D_LQUANT_STEPLARGE) X(D_LQUANT_STEPSMALL) \
	X(D_LQUANT_MATCHBASE) X(D_LQUANT_MATCHLIM) X(D_LQUANT_MATCHSTEP) \
	X(D_LLQUANT_FACTORTYPE) X(D_LLQUANT_FACTORVAL) \
	X(D_LLQUANT_FACTORMATCH) X(D_LLQUANT_LOWTYPE) X(D_LLQUANT_LOWVAL) \
	X(D_LLQUANT_LOWMATCH) X(D_LLQUANT_HIGHTYPE) X(D_LLQUANT_HIGHVAL) \
	X(D_LLQUANT_HIGHMATCH) X(D_LLQUANT_NSTEPTYPE) X(D_LLQUANT_NSTEPVAL) \
	X(D_LLQUANT_NSTEPMATCH) X(D_LLQUANT_MAGRANGE) \
	X(D_LLQUANT_FACTORNSTEPS) X(D_LLQUANT_FACTOREVEN) \
	X(D_LLQUANT_FACTORSMALL) X(D_LLQUANT_MAGTOOBIG) \
	X(D_PRINTA_PROTO) X(D_PRINTA_AGGARG) X(D_PRINTA_AGGKEY) \
	X(D_CLEAR_PROTO) X(D_CLEAR_AGGARG) X(D_NORMALIZE_PROTO) \
	X(D_NORMALIZE_AGGARG) X(D_NORMALIZE_SCALAR) X(D_TRUNC_PROTO) \
	X(D_TRUNC_AGGARG) X(D_TRUNC_SCALAR) \
	X(D_SPEC_SPEC) X(D_SPEC_COMM) X(D_SPEC_DREC) X(D_AGG_SPEC) \
	X(D_EXIT_SPEC) X(D_COMM_DREC) X(D_DREC_COMM) X(D_AGG_COMM)

enum dt_errtag {
#define DT_TAGENUM(t) DT_##t,
	DT_ERRTAGS(DT_TAGENUM)
#undef DT_TAGENUM
	DT_NERRTAGS
};
const char *dt_errtag_name(int tag);

/* A compile error, as a value: what dt_cerr() reports. */
struct dt_error {
	int tag;			/* enum dt_errtag */
	char file[256];
	int line, col;
	char msg[512];
	char srcline[512];		/* the source line, for the caret */
};

/*
 * Compile errors unwind to the compile entry point (libxdt's, or the
 * CLI's) through dt_errjmp, as libdtrace's yyerror does: the parser never
 * exits the process.  A NULL dt_errjmp (no compilation in progress)
 * prints and exits, for the CLI's own fatal errors.
 */
#include <setjmp.h>
extern jmp_buf *dt_errjmp;
extern struct dt_error dt_lasterr;
extern int dt_errtags;			/* -x errtags: tag the message */
void dt_error_print(const struct dt_error *e, FILE *fp);

_Noreturn void dt_cerr(struct lexer *lx, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
_Noreturn void dt_cerrt(struct lexer *lx, int tag, int line, int col,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));
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
	long long ids[8];	/* $ppid $uid $gid $euid $egid $pgid $sid */
	const char *name0;	/* $0: the script's name */
	int defaultargs;	/* -x defaultargs: unset $N are 0 / "" */
	unsigned dynvarsize, cleanrate, stackframes;
	unsigned strsize;
};

struct type_mark {
	struct tnode *names;
	struct econst *econsts;
};
void type_mark(struct type_mark *m);
void type_rollback(const struct type_mark *m);

struct prog;
/* A stable probe's argument types (uapi/stable.h), ';'-separated, or 0. */
int dt_stable_args(const char *prov, const char *name, const char **source,
		   const char **native, const char **xlated);
void dt_compile(struct prog *p, const struct dt_env *env, const char *name,
		const char *src);

/* ---- types.c: the D type table ------------------------------------------- */
enum tkind {
	TK_VOID, TK_INT, TK_FLOAT, TK_PTR, TK_ARRAY, TK_STRING, TK_STRUCT,
	TK_UNION, TK_ENUM, TK_FUNC,
};

struct dtype;
struct dmember {
	char *name;
	struct dtype *t;
	unsigned off;			/* bytes from the start */
	unsigned bits, bitoff;		/* bit-field: width, LSB offset in the
					   unit at off; 0 = not */
	unsigned usize;			/* bit-field: the unit's bytes (1 2 4 8) */
	int alias;			/* a member of an anonymous member, listed
					   to be named directly; print() skips it */
};

struct denum {
	char *name;
	long long v;
};

struct dtype {
	enum tkind k;
	char *name;			/* as D prints it */
	unsigned size, align;
	int sgn;			/* TK_INT, TK_ENUM */
	struct dtype *base;		/* TK_PTR, TK_ARRAY: element */
	unsigned nelem;			/* TK_ARRAY */
	char *tag;			/* struct/union/enum tag, or NULL */
	int defined;			/* struct/union/enum body seen */
	struct dmember *mems;  int nmems;
	struct denum *ecs;     int necs;
	struct dtype *ptr;		/* cached pointer-to-this */
	struct dtype *real;		/* typedef: what it names (else self) */
	unsigned btfid;			/* a kernel struct/union (btf.c): its
					   BTF id; members come on demand */
	void *btfsrc;			/* ... in which BTF (vmlinux's, a
					   module's) */
};

extern struct dtype *dt_void, *dt_int, *dt_uint, *dt_long, *dt_ulong,
	*dt_char, *dt_uchar, *dt_string, *dt_int64, *dt_uint64;
void types_init(unsigned strsize);
int types_ready(void);		/* types_init() has run */
struct dtype *type_named(const char *name);	/* typedefs, base names */
struct dtype *type_tagged(enum tkind k, const char *tag, int create);
/* D's own names only (type_named/type_tagged also ask the kernel's BTF) */
struct dtype *type_named_local(const char *name);
struct dtype *type_tagged_local(enum tkind k, const char *tag);
struct dtype *type_new(enum tkind k, const char *name, unsigned size, int sgn);
void type_complete(struct dtype *t);	/* a kernel struct's members, now */
int type_defined(struct dtype *t);	/* complete (a kernel struct: now) */
struct dtype *type_ptr(struct dtype *t);
struct dtype *type_array(struct dtype *t, unsigned n);
struct dtype *type_typedef(const char *name, struct dtype *t);
struct dtype *type_int(unsigned size, int sgn);
int type_combine(const char **words, int n, struct dtype **out);
const struct dmember *type_member(const struct dtype *t, const char *name);
int type_is_int(const struct dtype *t);		/* integer or enum */
int type_is_scalar(const struct dtype *t);	/* int, enum, pointer */
int type_is_strlike(const struct dtype *t);	/* string, char *, char[] */
int type_is_byref(const struct dtype *t);	/* string, array, struct, union */
int type_compat(const struct dtype *a, const struct dtype *b);
struct dtype *type_promote(struct dtype *t);
struct dtype *type_arith(struct dtype *a, struct dtype *b);
int type_isword(const char *s);			/* a type-starting word */
void type_enumconst_add(const char *name, long long v, struct dtype *t);
struct dtype *type_enumconst(const char *name, long long *v);

/* btf.c: the kernel's types (docs/d-language.md, "Kernel types") */
void btf_use(const char *vmlinux);	/* NULL: the running kernel's */
struct dtype *btf_named(const char *name);
struct dtype *btf_tagged(enum tkind k, const char *tag);
struct dtype *btf_enumconst(const char *name, long long *v);
void btf_complete(struct dtype *t);
int btf_stats(unsigned *ntypes, double *ms);
/* `name: 1 and its C type and address, 0 if unknown, -1 if no table */
int btf_kvar(const char *name, char *type, size_t cap, __u64 *addr);
/* Kernel functions whose names match @glob (fnmatch), vmlinux's first. */
void btf_funcs(const char *glob, void (*cb)(const char *name, void *arg),
	       void *arg);
/* args[]'s types for the clause being compiled, on its first args[] use */
struct lexer;
void dt_argtypes(struct prog *p, struct lexer *lx, int line, int col);
/* A type written as a string ("struct task_struct *"), or NULL. */
struct dtype *dt_typestr(struct prog *p, const char *s);
int btf_func_proto(const char *func, struct dtype **args, int max,
		   struct dtype **ret);

/* ---- AST --------------------------------------------------------------- */
enum nkind {
	N_INT, N_STR, N_IDENT, N_VAR, N_DVAR, N_ARGS, N_BIN, N_UN, N_AND,
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
};

/* A D variable. */
struct dvar {
	char *name;
	int scope;		/* XDT_VAR_GLOBAL/THREAD/LOCAL */
	int array;		/* associative */
	struct dtype *t;	/* value type */
	int nkeys;
	struct dtype *keyt[DT_MAXKEYS];
	int id;			/* index in the program's table */
	int line, col;		/* where it was declared */
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

/* An inline: a named, typed expression substituted where it is used. */
struct dinline {
	char *name;
	struct dtype *t;
	struct node *e;
};

/* parse.c: the tree's constructor */
struct node *node_new(enum nkind k, int line, int col);

/* ---- sema.c: the semantic pass ------------------------------------------- */
struct sema;
struct node *sema_expr(struct prog *p, struct lexer *lx, struct node *n);
/* the lvalue of an assignment: may declare the variable it names */
struct node *sema_lvalue(struct prog *p, struct lexer *lx, struct node *n,
			 struct dtype *rt, int declare);
struct dvar *var_lookup(struct prog *p, int scope, const char *name);
struct dvar *var_declare(struct prog *p, struct lexer *lx, int scope,
			 const char *name, struct dtype *t, int nkeys,
			 struct dtype **keyt, int line, int col);
int sema_constval(struct node *n, long long *v);
void sema_xlator_check(struct prog *p, struct lexer *lx, struct dxlator *x);
int sema_reserved(const char *name);	/* a built-in variable or function */

/*
 * D's actions, one row each in parse.c's d_actions[] (as libdtrace keys
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
const char *type_str(const struct dtype *t);

/* ---- cg.c: code generation ----------------------------------------------- */
/* A DIF object under construction, and in the finished program. */
struct difo {
	__u32 *insns;  int ninsns;
	__u64 *ints;   int nints;
	char *strtab;  int strlen;
	int rtype;
};

/* What the consumer prints for a clause: one entry per trace/printf/exit. */
enum outkind {
	OUT_TRACE, OUT_PRINTF, OUT_EXIT, OUT_STACK, OUT_TRACEMEM, OUT_PRINT,
	OUT_SYSTEM, OUT_FREOPEN, OUT_FTRUNCATE,
	/* on aggregations (aggids[]): the consumer's, like DTrace's */
	OUT_PRINTA, OUT_CLEAR, OUT_TRUNC, OUT_NORMALIZE, OUT_DENORMALIZE,
	OUT_SETOPT,		/* fmt: the option, fmt2: its value or NULL */
};
struct pformat;
struct outst {
	enum outkind k;
	char *fmt;		/* printf */
	int nargs;
	int rec0;		/* index of its first value in clause recs[] */
	struct pformat *pf;	/* printf: its format, parsed (printf.c) */
	char *fmt2;
	int *aggids;		/* printa() and friends: their aggregations */
	int naggids;
};

struct recval {
	int type;		/* XDT_TYPE_INT, XDT_TYPE_STRING, DT_TYPE_STACK,
				   DT_TYPE_MEM */
	struct dtype *t;	/* the D type recorded (NULL: stack, memory) */
	unsigned off;		/* from the record header */
	unsigned nframes;	/* DT_TYPE_STACK: frames (8 bytes each);
				   DT_TYPE_MEM: bytes */
	const char *name;	/* the expression recorded, as written (NULL:
				   stack() and tracemem()'s are named by kind) */
};

struct clause {
	char descstr[XDT_PROVNAMELEN + XDT_MODNAMELEN + XDT_FUNCNAMELEN + XDT_NAMELEN];
	struct xdt_probedesc desc;
	int pred;
	int action0, nactions;
	/*
	 * DTrace's action numbers ("in action #N"): each D statement is one
	 * action (printf one per argument, at least one; tracemem with a
	 * dynamic size two), while xdt's kernel actions differ (keys of an
	 * aggregation are actions, printf() alone is none): dact[i] is the
	 * number of kernel action i.
	 */
	int *dact;
	int dnum, dcur;
	struct outst *outs;  int nouts;
	struct recval *recs; int nrecs;
	unsigned recsize;
	int src;		/* which -n/-s text it came from */
	int record;		/* always record (XDT_CLAUSE_RECORD) */
	int spec;		/* speculates (XDT_CLAUSE_SPEC) */
};

struct agg {
	char *name;		/* without @; "" for @ */
	int func;		/* enum xdt_aggfunc */
	int nkeys;
	int keytype[DT_MAXKEYS];	/* XDT_TYPE_INT/STRING or DT_TYPE_STACK */
	struct dtype *keyt[DT_MAXKEYS];	/* D types, from the first use */
	unsigned keyframes[DT_MAXKEYS];	/* DT_TYPE_STACK: frames; an integer:
					   its size (1, 2, 4, 8), from the
					   first use */
	__u64 arg;		/* lquantize/llquantize parameters (XDT_LQ_ARG) */
	/*
	 * Sized keys: a use whose integer keys' sizes differ from the first
	 * use's (@[(int)1] then @[(uint64_t)2]) is a layout of its own, as
	 * each aggregating statement has its own record layout in DTrace.
	 * Its entries carry one more key, hidden: the layout's index (1..);
	 * the first use's entries carry none (so its key is keylen bytes).
	 */
	int nlayouts;
	struct aglayout {
		unsigned size[DT_MAXKEYS];
		struct dtype *keyt[DT_MAXKEYS];
	} *layouts;		/* [0..nlayouts-1] are layouts 1.. */
	/* the consumer's, while tracing: normalize()'s factor, printa()'d */
	long long normal;
	int printed;
};
#define DT_MAXPRINTA	16	/* aggregations one printa() joins */

struct prog {
	struct clause *clauses;	int nclauses;
	struct xdt_action *acts; int nacts;
	struct difo *difos;	int ndifos;
	struct agg *aggs;	int naggs;
	unsigned strsize;
	unsigned bufsize;	/* -x bufsize, 0 = the kernel's default */
	unsigned aggsize;	/* -x aggsize, 0 = the kernel's default */
	unsigned bufpolicy;	/* -x bufpolicy: XDT_BUFPOLICY_* */
	unsigned fbtmode;	/* -x fbtmode: XDT_FBTMODE_* */
	/* per -n/-s source: its description text, full text, is it a file */
	char **srcdesc;		int nsrc;
	struct dvar **vars;	int nvars;	/* D variables, by id */
	struct dinline **inlines; int ninlines;
	struct dxlator **xlators; int nxlators;
	unsigned dynvarsize, scratchsize, cleanrate;	/* 0: the kernel's */
	int ncond;		/* if/else condition variables made */
	int destructive;	/* uses a destructive action or subroutine */
	int speculates;		/* calls speculation() or speculate/commit/discard */
	/*
	 * args[]'s types in the clause being compiled (from the kernel's
	 * BTF: an fbt function's prototype), nargt of them; nargt < 0:
	 * untyped, every args[i] an int64_t.  argdesc names the probe.
	 */
	struct dtype *argt[10];
	int nargt;
	const char *argdesc;
	/*
	 * A stable probe's native argument types (uapi/stable.h), argn[i]
	 * translated to argt[i] at each args[i]; NULL: argt[i] is native.
	 */
	struct dtype *argn[10];
	/* The D library (dlib/) is compiled into this program. */
	int libloaded;
	unsigned nspec, specsize;	/* -x nspec, specsize; 0: the kernel's */
	unsigned flags;		/* XDT_PROG_*, set by the consumer (-w) */
	char **srctext;
	int *srcfile;
};

int cg_difo(struct prog *p, struct lexer *lx, struct node *e);
/* one DIF object evaluating each of @es for its effects */
int cg_difo_effects(struct prog *p, struct lexer *lx, struct node **es, int n);
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
	int rawbytes;		/* -x rawbytes: every byte range as a hex dump */
	FILE *orig;		/* -o's file, NULL: stdout */
	FILE *out;		/* where records go now (freopen()), NULL: orig */
	int header_done;
	int last_nl;		/* the last character printed was '\n' */
	int exit_status;	/* the value exit() recorded */
	struct dt_aggtab *aggs;	/* the aggregation totals (agg.c) */
	/* setopt(): the consumer sets the option; nonzero if it cannot */
	int (*setopt)(void *ctx, const char *name, const char *val);
	void *ctx;
	struct dt_aggsort {	/* aggsortkey, aggsortrev, aggsortkeypos, aggsortpos;
				   agghist, aggzoom, aggpack (they print, too) */
		int key, rev, keypos, pos;
		int hist, zoom, pack;
		int utf8;	/* -x encoding: 1 utf8, -1 ascii, 0 unset */
	} sort;
	int json;		/* -x oformat=json (docs/json.md) */
};
void print_header(struct dt_print *pr);
/* libxdt.h's structured consumers: a record's values, its consumer-side
   actions and text, the aggregations' entries decoded */
struct xdt_value;
struct xdt_aggentry;
void print_value_of(const struct prog *p, const struct recval *r,
		    const char *data, struct xdt_value *v);
char *print_record_text(struct dt_print *pr, const struct prog *p, int cl,
			const char *data, size_t *len);
int print_aggs_walk(const struct prog *p, const char *buf, size_t size,
		    unsigned count,
		    int (*fn)(const struct xdt_aggentry *, void *), void *arg);
void print_record(struct dt_print *pr, const struct prog *p, int cl,
		  const struct xdt_eprobe *ep, int cpu, const char *data);
void print_printf(const struct pformat *pf, const struct prog *p,
		  const struct clause *c, int rec0, const char *data, FILE *fp);
/* Returns how many entries it printed (each aggregation after a blank line). */
unsigned print_aggs(const struct prog *p, const char *buf, size_t size,
		    unsigned count, FILE *fp);
void print_aggsort(const struct dt_aggsort *o);
void print_aggs_json(const struct prog *p, const char *buf, size_t size,
		     unsigned count, FILE *fp);
void print_printa(const struct prog *p, const struct pformat *pf,
		  const int *ids, int nids, const char *buf, size_t size,
		  unsigned count, FILE *fp);
void agg_order(const struct prog *p, const char *buf, size_t size,
	       unsigned count, unsigned *out);
void print_quantize(const __s64 *b, FILE *fp);
void print_selftest(FILE *fp);
void print_fake_records(const struct prog *p, char **vals, int nvals);
void print_fake_aggs(const struct prog *p, char **ents, int nents);
void print_stack(const __u64 *pcs, unsigned nframes, FILE *fp);
void print_bytes(struct dt_print *pr, const char *c, size_t n, int width,
		 int raw, FILE *fp);

/* ---- json.c: -x oformat=json, one object a line ------------------------ */
struct jw {
	FILE *fp;
	int depth;
	int n[16];		/* members so far, per open level */
};
void jw_strn_raw(FILE *fp, const char *s, size_t n);
void jw_obj(struct jw *w, const char *k);
void jw_arr(struct jw *w, const char *k);
void jw_end(struct jw *w, int arr);
void jw_str(struct jw *w, const char *k, const char *s);
void jw_strn(struct jw *w, const char *k, const char *s, size_t n);
void jw_int(struct jw *w, const char *k, long long v);
void jw_uint(struct jw *w, const char *k, unsigned long long v);

/* ---- agg.c: the consumer's aggregation totals --------------------------- */
struct dt_aggtab;
struct dt_aggtab *aggtab_new(void);
void aggtab_free(struct dt_aggtab *t);
void aggtab_fold(struct dt_aggtab *t, const struct prog *p, const char *buf,
		 size_t size, unsigned count);
char *aggtab_layout(const struct dt_aggtab *t, const char *want, size_t *size,
		    unsigned *count, size_t **pos);
void aggtab_clear(struct dt_aggtab *t, int aggid);
void aggtab_trunc(struct dt_aggtab *t, const struct prog *p, int aggid,
		  long long keep);

/* ---- printf.c: printf-style formats, parsed once, checked, formatted --- */
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

/* A value to format: an 8-byte integer (narrowed to @t), string or stack. */
struct pfval {
	const struct dtype *t;	/* integer/float type; NULL: int64 */
	const void *p;
	unsigned size;		/* string: bytes at most; stack: frames */
};

struct pformat *pf_create(struct lexer *lx, int line, int col, const char *fmt);
void pf_validate(struct lexer *lx, struct pformat *pf, const struct pfcheck *c,
		 const char *func, int foff, const struct pfarg *av, int ac,
		 int exact, int line, int col);
/* printa()'s aggregation values; @dist draws value @j if it is a
   distribution (returns nonzero), for %@ conversions */
struct pfaggs {
	const struct pfval *v;
	int n;
	int (*dist)(FILE *fp, int j, void *ctx);
	void *ctx;
};
int pf_format(FILE *fp, const struct pformat *pf, const struct pfval *v, int nv,
	      const struct pfaggs *a);

/* ---- ksyms.c: kernel addresses -> module`function+0xoff ---------------- */
void ksyms_path(const char *path);	/* default $XDT_KALLSYMS, /proc/kallsyms */
void ksyms_format(__u64 pc, char *buf, size_t cap);

/* ---- consumer.c ------------------------------------------------------- */
struct dt_opts {
	int quiet;
	size_t bufsize;
	long switchrate_us;
	long aggrate_us;	/* -x aggrate: how often xdt_work() snapshots */
	long statusrate_us;	/* -x statusrate: how often it asks for status */
	int droptags;		/* -x droptags: "[DTRACEDROP_*] " before drops */
	int hostvm;		/* -x hostvm: run in the host VM, not /dev/xdt */
	int destructive;	/* -w: destructive actions allowed */
};

/* A whole file, NUL-terminated (malloc'd), or NULL with errno set. */
char *dt_readfile(const char *path);


/* ---- libxdt.c: the handle behind libxdt.h --------------------------------- */
#define DT_NOPTIONS	128
struct xdt_hdl {
	struct prog p;
	struct dt_env env;
	struct dt_opts o;
	int bufsize_set;
	int in_pragma;		/* set_one() called for a #pragma D option */
	int bufresize_manual;	/* -x bufresize=manual */
	int bufsize_toobig;	/* ... and a bufsize past XDT_BUFSIZE_MAX */
	unsigned aggsize;	/* -x aggsize, 0 = the kernel's default */
	char errmsg[1024];
	int cpp;			/* -C */
	char **cppargs;
	int ncpp;
	/* the D library: -L / -x libdir directories, -x syslibdir, -x nolibs */
	char *libdirs[8];
	int nlibdirs;
	char *syslibdir;
	int nolibs;
	char unimplemented[DT_NOPTIONS];	/* options named, not acted on */
	/* running (consumer.c) */
	int fd, ncpus, running, stopped;
	struct xdt_hostvm *vm;		/* -x hostvm, instead of fd */
	struct xdt_eprobe *eps;
	__u32 neps;
	char *buf;
	size_t bufcap;
	size_t aggcap;		/* aggregation snapshot buffer bytes */
	long long lastagg_ns;	/* CLOCK_MONOTONIC of the last snapshot */
	long long lastdrain_ns;	/* ... of GO or of the last buffer read */
	long long laststatus_ns;	/* ... of GO or of the last status */
	struct dt_print pr;
	void *blob;
};

#endif
