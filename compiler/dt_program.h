/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_program.h - what crosses between the D front end (compiler/) and
 * the consumer library (libxdt/), and nothing else.
 *
 * The front end turns D text into a struct prog: DIF objects, kernel
 * actions, and for every clause the record layout (recval) and the
 * consumer-side statements (outst) that say how to print what the kernel
 * records.  The consumer serializes that object for /dev/xdt (prog.c),
 * loads it, and reads it back to decode and print each record and
 * aggregation.  So crossing are:
 *
 *   - the compiled program (struct prog and its parts: clauses, record
 *     layouts, aggregations, DIF, the D variables' table), built by the
 *     front end, read by the consumer (which sets only prog.flags and, while
 *     tracing, agg.normal / agg.printed);
 *   - the D types its records carry (struct dtype, read-only to the
 *     consumer), since print() and the typed values of libxdt.h print by
 *     type, and the few type queries the printers ask;
 *   - printf formats: parsed and checked once by the front end
 *     (compiler/printf.c), kept in the program (outst.pf, opaque here),
 *     formatted by the consumer through pf_format().  A conversion's check
 *     and its printer are one table row, so the whole format module stays
 *     in one file; the consumer sees only pf_format() and its values.
 *     The printer of %k names addresses with the consumer's symbol table:
 *     ksyms_format() is the one thing the front end takes from libxdt/;
 *   - compile errors as values (dt_error, the longjmp target dt_errjmp
 *     libxdt's compile entry sets) and DTrace's error tags;
 *   - the compile inputs (dt_env) and entry points: dt_compile(),
 *     prog_layout(), dis_prog() (-S), the type table's setup and rollback,
 *     BTF's source, the stable providers' argument table (dtrace -l -v);
 *   - the C preprocessor (cpp.h: dt_cpp(), a contract of its own), which
 *     libxdt runs over a script before compiling it under -C;
 *   - the allocation helpers and dt_fatal() both halves use.
 *
 * Everything else of the front end (tokens, the tree, the semantic pass,
 * code generation) is in its own headers (dt_lex.h, dt_tree.h,
 * dt_types.h, dt_printf.h, parse.h), which nothing in libxdt/ includes;
 * libxdt/ includes this header by its path ("../compiler/dt_program.h")
 * and is built without -Icompiler, so a stray include does not compile.
 */
#ifndef XDT_DT_PROGRAM_H
#define XDT_DT_PROGRAM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "xdt.h"
#include "dif.h"
#include "cpp.h"		/* dt_cpp(): -C, run before compiling */

#define DT_MAXKEYS	8	/* aggregation keys */
/*
 * The compiler's value types: XDT_TYPE_INT and XDT_TYPE_STRING (xdt.h),
 * and a stack() (recorded or an aggregation key), which no expression has.
 */
#define DT_TYPE_STACK	2
#define DT_TYPE_USTACK	4	/* ustack(): nframes words, the first
				   XDT_USTACK_TAG | pid (core/uapi/xdt.h) */
#define DT_TYPE_USYM	5	/* ufunc() & co.: 2 words, XDT_USYM_TAG | form
				   << 32 | pid, then the address */
#define DT_TYPE_KSYM	6	/* sym(), func(), mod(): the same 2 words,
				   a kernel form (XDT_KSYM_*) and no pid */
#define DT_IS_SYM(t)	((t) == DT_TYPE_USYM || (t) == DT_TYPE_KSYM)
/*
 * Words of 8 bytes, nframes of them: a stack of either kind, or a user
 * symbol (printed on one line, as a string is).
 */
#define DT_IS_STACK(t)	((t) == DT_TYPE_STACK || (t) == DT_TYPE_USTACK || \
			 DT_IS_SYM(t))
#define DT_TYPE_MEM	3	/* bytes of memory: tracemem(), structs */

/* ---- helpers both halves use (compiler/diag.c) ------------------------- */
/* Unwinds to the running library call (dt_errjmp) or exits: diag.c. */
_Noreturn void dt_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xzalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void xfree(void *p);		/* free() that keeps a zone's account */
/*
 * A zone owns what x*alloc() returns while it is current, and frees it all
 * at once (a handle's compiled trees: diag.c).  dt_zone_enter() makes @z
 * current (NULL: none, for process-wide caches) and returns the one that
 * was.
 */
struct dt_zone;
extern struct dt_zone *dt_zone_cur;
struct dt_zone *dt_zone_new(void);
struct dt_zone *dt_zone_enter(struct dt_zone *z);
void dt_zone_free(struct dt_zone *z);
size_t dt_zone_blocks(const struct dt_zone *z);

/* ---- compile errors (compiler/diag.c) ---------------------------------- */
/*
 * DTrace's diagnostic tags (-x errtags prints them): the ones xdt raises,
 * with the conditions of illumos' compiler.  D_SYNTAX is the default.
 */
#define DT_ERRTAGS(X) \
	X(D_SYNTAX) X(D_IDENT_UNDEF) X(D_IDENT_BADREF) X(D_VAR_UNDEF) \
	X(D_DECL_IDRED) X(D_DECL_TYPERED) X(D_DECL_VOIDOBJ) \
	X(D_DECL_ARRSUB) X(D_DECL_ARRNULL) X(D_DECL_ARRBIG) X(D_DECL_CLASS) \
	X(D_DECL_BADCLASS) \
	X(D_DECL_COMBO) X(D_DECL_USELESS) X(D_DECL_BFCONST) X(D_DECL_BFSIZE) \
	X(D_DECL_CHARATTR) \
	X(D_DECL_BFTYPE) X(D_DECL_INCOMPLETE) X(D_DECL_DYNOBJ) \
	X(D_DECL_LOCASSC) X(D_DECL_SCOPE) X(D_DECL_ENCONST) X(D_DECL_ENOFLOW) \
	X(D_DECL_MNAME) X(D_DECL_SIGNINT) X(D_DECL_LONGINT) X(D_DECL_VOIDATTR) \
	X(D_DECL_PROTO_VOID) X(D_DECL_PROTO_TYPE) X(D_DECL_PROTO_NAME) \
	X(D_DECL_PROTO_VARARGS) X(D_DECL_PARMCLASS) \
	X(D_TYPE_ERR) X(D_TYPE_MEMBER) X(D_UNKNOWN) \
	X(D_OP_INCOMPAT) X(D_OP_INT) X(D_OP_ARITH) X(D_OP_SCALAR) X(D_OP_LVAL) \
	X(D_OP_WRITE) X(D_OP_PTR) X(D_OP_SOU) X(D_OP_ARRFUN) X(D_OP_VFPTR) \
	X(D_OP_BFIELD) X(D_OP_DYN) X(D_OP_ACT) X(D_ADDROF_VAR) \
	X(D_ADDROF_LVAL) X(D_ADDROF_BITFIELD) X(D_CAST_INVAL) X(D_SIZEOF_TYPE) \
	X(D_SIZEOF_BITFIELD) X(D_OFFSETOF_TYPE) X(D_OFFSETOF_BITFIELD) \
	X(D_OP_INCOMPLETE) X(D_DEREF_FUNC) \
	X(D_DEREF_NONPTR) X(D_DEREF_VOID) X(D_ARR_BADREF) X(D_ARR_LOCAL) \
	X(D_KEY_TYPE) X(D_PROTO_LEN) X(D_PROTO_ARG) X(D_FUNC_UNDEF) \
	X(D_FUNC_IDENT) X(D_ACT_SPEC) X(D_AGG_FUNC) X(D_AGG_REDEF) \
	X(D_AGG_SCALAR) X(D_AGG_NULL) X(D_PRINTF_ARG_TYPE) \
	X(D_PRINTF_ARG_PROTO) X(D_PRINTF_ARG_EXTRA) X(D_PRINTF_FMT_EMPTY) \
	X(D_PRINTF_DYN_PROTO) X(D_PRINTF_DYN_TYPE) X(D_PRINTF_ARG_FMT) \
	X(D_PRINTF_AGG_CONV) X(D_STACK_SIZE) X(D_USTACK_FRAMES) \
	X(D_USTACK_STRSIZE) X(D_USTACK_PROTO) \
	X(D_STACK_PROTO) X(D_TRACE_VOID) X(D_TRACE_DYN) X(D_TRACE_AGG) \
	X(D_PRINT_DYN) X(D_CG_DYN) \
	X(D_PRINT_AGG) X(D_AGG_MDIM) X(D_CHR_NL) \
	X(D_CHR_NULL) X(D_CHR_OFLOW) X(D_STR_NL) X(D_INT_OFLOW) X(D_INT_DIGIT) \
	X(D_MACRO_UNDEF) X(D_MACRO_UNUSED) X(D_MACRO_OFLOW) X(D_PDESC_ZERO) X(D_PDESC_INVAL) \
	X(D_PRED_SCALAR) \
	X(D_PRAGMA_INVAL) X(D_PRAGMA_UNUSED) X(D_PRAGMA_MALFORM) \
	X(D_PRAGMA_OPTSET) X(D_PRAGMA_DEPEND) X(D_PRAGMA_SCOPE) X(D_ATTR_MIN) X(D_PRAGCTL_INVAL) X(D_PRAGERR) \
	X(D_DIV_ZERO) X(D_XLATE_REDECL) \
	X(D_XLATE_SOU) X(D_XLATE_MEMB) X(D_XLATE_NONE) X(D_XLATE_INCOMPAT) \
	X(D_XLATE_NOCONV) \
	X(D_ARGS_IDX) X(D_ARGS_MULTI) X(D_ARGS_NONE) X(D_REGS_IDX) \
	X(D_EMPTY) X(D_COMM_COMM) X(D_STRINGOF_TYPE) X(D_NOREG) X(D_CG_EXPR) \
	X(D_TRACEMEM_SIZE) X(D_TRACEMEM_ADDR) X(D_TRACEMEM_DYNSIZE) \
	X(D_TRACEMEM_ARGS) \
	X(D_PRINT_VOID) X(D_PRINTM_SIZE) X(D_PRINTM_ADDR) X(D_FREOPEN_INVALID) \
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
	X(D_PRINTA_AGGBAD) X(D_CLEAR_PROTO) X(D_CLEAR_AGGARG) \
	X(D_CLEAR_AGGBAD) X(D_NORMALIZE_PROTO) X(D_NORMALIZE_AGGARG) \
	X(D_NORMALIZE_SCALAR) X(D_NORMALIZE_AGGBAD) X(D_TRUNC_PROTO) \
	X(D_TRUNC_AGGARG) X(D_TRUNC_SCALAR) X(D_TRUNC_AGGBAD) \
	X(D_SPEC_SPEC) X(D_SPEC_COMM) X(D_SPEC_DREC) X(D_AGG_SPEC) \
	X(D_EXIT_SPEC) X(D_COMM_DREC) X(D_DREC_COMM) X(D_AGG_COMM) \
	X(D_PROV_BADNAME) X(D_PROV_PRDUP) X(D_PROV_PRARGLEN) \
	X(D_PROC_NAME) X(D_PROC_GRAB) X(D_PROC_OFF) X(D_PROC_ALIGN) \
	X(D_PROC_CREATEFAIL) X(D_PROC_NODEV) X(D_PROC_FUNC)

enum dt_errtag {
#define DT_TAGENUM(t) DT_##t,
	DT_ERRTAGS(DT_TAGENUM)
#undef DT_TAGENUM
	DT_NERRTAGS
};
const char *dt_errtag_name(int tag);

/* A compile error, as a value: what dt_cerr() reports. */
#define DT_FATAL	(-1)		/* dt_fatal()'s: out of memory, no place */
struct dt_error {
	int tag;			/* enum dt_errtag, or DT_FATAL */
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

/* ---- stability attributes (compiler/attr.c) ----------------------------- */
/*
 * DTrace's interface attributes: a name stability, a data stability and a
 * dependency class, each ordered from least to most stable (illumos'
 * <sys/dtrace.h> numbering).  A provider has five: its provider, module,
 * function and name parts and its arguments (dpattr).
 */
enum dt_stability {
	DT_STAB_INTERNAL, DT_STAB_PRIVATE, DT_STAB_OBSOLETE, DT_STAB_EXTERNAL,
	DT_STAB_UNSTABLE, DT_STAB_EVOLVING, DT_STAB_STABLE, DT_STAB_STANDARD,
};
enum dt_class {
	DT_CLASS_UNKNOWN, DT_CLASS_CPU, DT_CLASS_PLATFORM, DT_CLASS_GROUP,
	DT_CLASS_ISA, DT_CLASS_COMMON,
};
struct dattr {
	unsigned char name, data, cls;
};
struct dpattr {
	struct dattr prov, mod, func, name, args;
};
#define DT_ATTR(n, d, c)	{ DT_STAB_##n, DT_STAB_##d, DT_CLASS_##c }
extern const struct dattr dt_attr_max;		/* Standard/Standard/Common */
extern const struct dattr dt_attr_def;		/* Stable/Stable/Common */
const char *dt_stability_name(int s);
const char *dt_class_name(int c);
struct dattr dt_attr_min(struct dattr a, struct dattr b);
int dt_attr_below(struct dattr a, struct dattr min);	/* any part lower */
char *dt_attr_str(struct dattr a, char *buf, size_t len);	/* "n/d/c" */
int dt_str2attr(const char *s, struct dattr *a);	/* 0, or -1 */
/*
 * A provider's five attributes: the program's own (#pragma D attributes
 * ... provider P part, a USDT provider it defines), else xdt's table;
 * a trailing process ID (pid123, myprov123) is not part of the name.
 * NULL: no provider of that name.
 */
struct prog;
const struct dpattr *dt_provider_attr(const struct prog *p, const char *prov);
/* "\n\t<title>\n\t\tIdentifier Names: ..." as dtrace(1) prints them */
void dt_attr_print(FILE *fp, const char *title, struct dattr a);

/* ---- the D language version: dt_version.h (-V, -C's __SUNW_D_VERSION) --- */
#include "dt_version.h"

/* ---- compiling (compiler/parse.c, cg.c, dis.c) ------------------------- */
/* Macro arguments and knobs the compiler substitutes. */
struct dt_env {
	int nmacros;
	char **macros;		/* $1.. */
	long long pid;		/* $pid */
	long long target;	/* $target, -1 if none */
	long long ids[8];	/* $ppid $uid $gid $euid $egid $pgid $sid */
	const char *name0;	/* $0: the script's name */
	int defaultargs;	/* -x defaultargs: unset $N are 0 / "" */
	int argref;		/* -x argref: the last macro argument may go
				   unreferenced */
	int library;		/* compiling a D library file */
	unsigned dynvarsize, cleanrate, stackframes, ustackframes,
		 jstackframes;
	unsigned strsize;
	unsigned iregs;		/* -x iregs: DIF registers the code may use,
				   0 = DIF_NREGS (DTrace's dtc_difintregs) */
	int eattr;		/* -x amin given: attributes below amin are
				   errors (DTrace's DTRACE_C_EATTR) */
	struct dattr amin;
};

/*
 * Probe description @d with its macro variables ($1, $$1, $pid, $target
 * ...) replaced, as DTrace's dtrace_xstr2desc() takes them, into @out
 * (@cap bytes); the highest $N used raises *@maxmacro.  0, or the error's
 * tag: DT_D_PDESC_INVAL (undefined), DT_D_MACRO_UNDEF ($target without a
 * process), -1 (too long for @cap).
 */
int dt_desc_macros(const struct dt_env *env, const char *d, char *out,
		   size_t cap, int *maxmacro);
struct prog;
void dt_compile(struct prog *p, const struct dt_env *env, const char *name,
		const char *src);
void prog_layout(struct prog *p);	/* record offsets of every clause */
void prog_temporal(struct prog *p);	/* cg.c: -x temporal's timestamps */
void agg_stack_slots(struct prog *p);	/* lower.c: mixed stack keys */
void dis_prog(FILE *fp, const struct prog *p);
const char *aggfunc_name(int f);
/* A stable probe's argument types (uapi/stable.h), ';'-separated, or 0. */
int dt_stable_args(const char *prov, const char *name, const char **source,
		   const char **native, const char **xlated);

/* ---- D types (compiler/types.c, btf.c) --------------------------------- */
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
	unsigned usize;			/* bit-field: the unit's bytes, 1 to 8
					   (a D declaration's: the field's own
					   ceil(width / 8), at any offset) */
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
	unsigned dp;			/* where in @name a declarator goes
					   (types.c, derive); 0: at its end */
	unsigned btfid;			/* a kernel struct/union (btf.c): its
					   BTF id; members come on demand */
	void *btfsrc;			/* ... in which BTF (vmlinux's, a
					   module's) */
	int kernel;			/* imported from the kernel's BTF: its
					   attributes are Private (DTrace's
					   for a module's CTF types) */
	int global;			/* the process's, not a handle's zone's
					   (types.c: what is cached on it is
					   the process's too) */
};

extern struct dtype *dt_void, *dt_int, *dt_uint, *dt_long, *dt_ulong,
	*dt_char, *dt_uchar, *dt_string, *dt_int64, *dt_uint64;
void types_init(unsigned strsize);
int types_ready(void);		/* types_init() has run */
/* The type table as it was, to undo a compilation that failed. */
struct type_mark {
	struct tnode *names;
	struct econst *econsts;
	struct dtype *string;
};
void type_mark(struct type_mark *m);
void type_rollback(const struct type_mark *m);
/* back to the base types alone (a handle's compile is over) */
void types_base_table(void);
const char *type_str(const struct dtype *t);	/* as D writes it */
void type_complete(struct dtype *t);	/* a kernel struct's members, now */
int type_is_int(const struct dtype *t);		/* integer or enum */
int type_is_scalar(const struct dtype *t);	/* int, enum, pointer */
int type_is_byref(const struct dtype *t);	/* string, array, struct, union */
int type_is_keybytes(const struct dtype *t);	/* a key copied by its bytes */
void btf_use(const char *vmlinux);	/* NULL: the running kernel's */
/* A kernel function's prototype: its argument count, or -1. */
int btf_func_proto(const char *func, struct dtype **args, int max,
		   struct dtype **ret);

/* ---- the compiled program (compiler/cg.c, lower.c fill it) ------------- */
/* A D variable: the program's table of them goes to the kernel. */
struct dvar {
	char *name;
	int scope;		/* XDT_VAR_GLOBAL/THREAD/LOCAL */
	int array;		/* associative */
	struct dtype *t;	/* value type */
	int nkeys;
	struct dtype *keyt[DT_MAXKEYS];
	int id;			/* index in the program's table */
	int line, col;		/* where it was declared */
	struct dattr attr;	/* Stable/Stable/Common, or #pragma D
				   attributes' */
};

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
				   DT_TYPE_MEM: bytes; XDT_TYPE_STRING: its
				   slot's bytes, 0 for strsize (rec_strslot) */
	const char *name;	/* the expression recorded, as written (NULL:
				   stack() and tracemem()'s are named by kind) */
};

/* The bytes a string record takes: its own bound (execname), or strsize */
#define rec_strslot(p, r)	((r)->nframes ? (r)->nframes : (p)->strsize)

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
	int line, col;		/* where its description is in that text */
	int record;		/* always record (XDT_CLAUSE_RECORD) */
	int spec;		/* speculates (XDT_CLAUSE_SPEC) */
	int ts;			/* -x temporal: 1 = its record starts with a
				   hidden timestamp (prog_temporal), -1 =
				   looked at, records nothing */
	/* DTrace's statement attributes: of its probe description, and the
	   least of what its predicate and actions use (dtrace -v) */
	struct dattr descattr, stmtattr;
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
	/* a stack position whose uses differ: keyframes is the deepest's */
	unsigned char keymixed[DT_MAXKEYS];
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

/*
 * A USDT provider's definition (provider p { probe q(int, char *); };):
 * nothing in the kernel, it is what dtrace -h writes a header from.
 * @nat are the arguments' native types, the ones the program passes;
 * @xl the translated ones after ':', or NULL.
 */
#define DT_USDT_ARGS	12	/* <sys/sdt.h>'s most (XDT_USDT_ARGS) */
struct dprobe {
	char *name;
	int nargs, nxl;
	struct dtype *nat[DT_USDT_ARGS], *xl[DT_USDT_ARGS];
	int line;
};
struct dprovider {
	char *name;
	struct dprobe *probes;	int nprobes;
	int line;
	struct dpattr attr;	/* #pragma D attributes ... provider P part */
};

struct prog {
	struct clause *clauses;	int nclauses;
	struct xdt_action *acts; int nacts;
	struct difo *difos;	int ndifos;
	struct agg *aggs;	int naggs;
	unsigned strsize;
	unsigned iregs;		/* registers cg may hand out: %r1..%r(iregs-1) */
	unsigned bufsize;	/* -x bufsize, 0 = the kernel's default */
	unsigned aggsize;	/* -x aggsize, 0 = the kernel's default */
	unsigned bufpolicy;	/* -x bufpolicy: XDT_BUFPOLICY_* */
	unsigned fbtmode;	/* -x fbtmode: XDT_FBTMODE_* */
	unsigned onecpu;	/* -x cpu: 1 + the CPU that traces, 0 = all */
	int temporal;		/* -x temporal: records carry a timestamp */
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
	struct dprovider *providers; int nproviders;	/* USDT definitions */
	/*
	 * Stability: -x amin (set by the compiler from dt_env), the
	 * attributes #pragma D attributes gave xdt's own providers, and
	 * pragmas naming what is not declared yet (applied when it is;
	 * D_PRAGMA_UNUSED if it never is).
	 */
	int eattr;
	struct dattr amin;
	struct dpovr {
		char name[XDT_PROVNAMELEN];
		struct dpattr a;
	} *povr;		int npovr;
	struct dpending {
		char *name;
		struct dattr a;
		int line, col;
	} *pending;		int npending;
	struct dattr ctxattr;	/* the clause being compiled: its probe
				   description's attributes */
	const struct dpattr *ctxpattr;	/* ... and its provider's, or NULL */
	struct dattr stmtacc;	/* the least of what the clause uses */
	int inclause;
};

/* ---- printf formats (compiler/printf.c) -------------------------------- */
struct pformat;		/* a parsed, checked format (dt_printf.h) */
/* A value to format: an 8-byte integer (narrowed to @t), string or stack. */
struct pfval {
	const struct dtype *t;	/* integer/float type; NULL: int64 */
	const void *p;
	unsigned size;		/* string: bytes at most; stack: frames */
};

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


/* ---- from the consumer (libxdt/ksyms.c): %k's symbol names ------------- */
void ksyms_format(__u64 pc, char *buf, size_t cap);
/* sym()/func() (@mod_only 0) and mod() names, and their keys' address */
void ksyms_form(__u64 pc, int mod_only, char *buf, size_t cap);
__u64 ksyms_base(__u64 pc, int mod_only);
/*
 * (libxdt/print.c) Frame @i of a stack value of @nwords words at @pcs
 * (unaligned): a kernel stack()'s, or a ustack()'s (XDT_USTACK_TAG | pid
 * first).  Its text at @buf; 0 past the last frame.
 */
int dt_frame_format(const void *pcs, unsigned nwords, unsigned i, char *buf,
		    size_t len);

#endif
