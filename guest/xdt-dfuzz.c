// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-dfuzz: random D programs, as source text, through libxdt exactly as
 * dtrace(1) drives it (compile, enable and go, work until done, stop,
 * print the aggregations, status, close), all in this one process so that
 * 10^5 programs fit in a TCG guest (no fork/exec per program).  It is the
 * D-level complement of xdt-fuzz (raw program objects through the ioctl):
 * here the compiler is under test too, and what reaches the verifier is
 * what the compiler really emits.
 *
 *   xdt-dfuzz [-n COUNT] [-s SEED] [-i INDEX] [-V] [-B] [-p] [-v] [-E]
 *             [-I ITERS] [-w SECONDS] [-b BATCH] [-f FILE]
 *
 *   -n  programs to run (default 1000); -s the seed (default 1)
 *   -i  run only program INDEX of the seed (a failure names it)
 *   -V  run in libxdt's host VM (-x hostvm): dtrace:::BEGIN/END/ERROR only
 *   -B  in a kernel, only dtrace, tick-N and profile-N probes
 *   -e  compile only (the kernel's programs on a host: with -x vmlinux's
 *       types there, see XDT_VMLINUX below)
 *   -p  print each program; -v also its output and its verdict
 *   -E  keep libxdt's stderr (default: /dev/null, it is chatter)
 *   -I  work() calls a program that exits must end within (default 3000)
 *   -w  watchdog: a program's seconds before it counts as hung (120)
 *   -f  the program text from FILE, not the generator: a finding kept
 *       as a file replays on every ISA through the same harness (the
 *       generator's probes differ by ISA, so a seed's program does);
 *       the settings still vary with -s/-i; it counts as right and not
 *       bound to exit
 *   -b  programs per child process (1000; 0: all in this one).  Not a
 *       fork per program: a batch's programs share the process as a
 *       long-lived libxdt user's would (each xdt_close() frees what
 *       its program's compile allocated: the memory stays flat)
 *
 * The generator is a small typed grammar of D: every expression is built
 * to a type (integer or string), every variable, associative array and
 * aggregation keeps the type and key signature it was first given, so a
 * program meant to be right is right by construction.  A program meant to
 * be wrong (about one in six) gets exactly one defect of a known kind
 * (syntax, unknown identifier, type mismatch, argument out of range,
 * aggregation redefinition, speculation rule, bad pragma...); the compiler
 * must refuse it with a tagged message and never crash.  Programs are
 * small and the recursion is bounded by depth, so each is a few lines.
 *
 * Every program is generated from its own PRNG state, seeded from the run
 * seed and its index: program I of seed S is the same text whatever ran
 * before it, so `-s S -i I -p` shows it again.  (libxdt keeps a process's
 * type table across handles, so a bug may need the programs before it too:
 * `-s S -n I+1` replays them.)
 *
 * XDT_VMLINUX=PATH sets -x vmlinux=PATH (kernel types of a lab kernel, for
 * -e on a host).
 *
 * Outcomes: compiled (the rest were refused by the compiler, counted by
 * tag), refused at enable (xdt_go: the kernel's verifier or libxdt's own
 * checks; there must be a reason), ran (go..close), faults (programs that
 * ran with at least one dtrace:::ERROR: fine).  Failures: a crash, a hang
 * (the watchdog, or a program that must exit and did not within -I work
 * calls), an exit() inside libxdt, a compile error with no message or tag,
 * a refusal with no reason, a file descriptor left open, a libxdt call
 * failing that must not, and a right program the compiler or the verifier
 * refused (a bug on one side or the other: printed with the program).
 * The last line is
 *   xdt-dfuzz: programs N compiled C refused R ran G faults F failures X
 * and the exit status is 1 if X > 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libxdt.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

/* ---- random numbers: one stream per program ------------------------------ */
static unsigned long long rs;

static unsigned long long rnd(void)
{
	/* splitmix64: any seed, even 0, gives a full-period stream */
	unsigned long long z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned below(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

static int chance(unsigned pct)
{
	return below(100) < pct;
}

#define PICK(a) ((a)[below(sizeof(a) / sizeof((a)[0]))])

/* ---- the program text ---------------------------------------------------- */
static char *src;
static size_t slen, scap;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(src + slen, scap - slen, fmt, ap);
		va_end(ap);
		if (n >= 0 && slen + (size_t)n < scap)
			break;
		scap = scap * 2 + (size_t)n + 256;
		src = realloc(src, scap);
		if (!src) {
			perror("xdt-dfuzz");
			exit(2);
		}
	}
	slen += (size_t)n;
}

/* ---- what the program has declared --------------------------------------- */
enum ty { TI, TS };		/* the two value types the grammar builds */
enum scope { SG, SSELF, STHIS };
#define MAXKEYS 3
#define MAXVARS 24
#define MAXAGGS 8

struct var {
	char name[32];		/* as written: g3, self->t1, this->l0 */
	enum scope sc;
	enum ty ty;
	int nkeys;		/* associative array: its key signature */
	enum ty kty[MAXKEYS];
	int known;		/* its type is fixed (declared or assigned) */
};

/* The aggregating functions, and what each one's values print with. */
enum afn { A_COUNT, A_SUM, A_AVG, A_MIN, A_MAX, A_STDDEV, A_QUANT, A_LQUANT,
	   A_LLQUANT, A_NFN };
static const char *const afname[] = { "count", "sum", "avg", "min", "max",
	"stddev", "quantize", "lquantize", "llquantize" };

struct agg {
	char name[16];		/* "" for @ */
	enum afn fn;
	int nkeys;
	enum ty kty[MAXKEYS];
	char params[64];	/* lquantize/llquantize's, the same at every use */
};

/* The defects a wrong program gets one of. */
enum wrong { W_NONE, W_SYNTAX, W_UNDEF, W_TYPE, W_ARGS, W_AGGREDEF,
	     W_SPEC, W_PRAGMA, W_DECL, W_PRINTF, W_NWRONG };
static const char *const wrongname[] = { "none", "syntax", "undef", "type",
	"args", "aggredef", "spec", "pragma", "decl", "printf" };

/* Why a right program may still be refused at enable, on purpose. */
enum badrun { R_NONE, R_DYNVARSIZE, R_NSPEC, R_DESTR, R_NOPROBE, R_BUFSIZE,
	      R_AGGSIZE, R_NBADRUN };

static struct {
	struct var v[MAXVARS];
	int nv;
	struct agg a[MAXAGGS];
	int na;
	enum wrong wrong;	/* the defect planned, and whether it is in */
	int wrong_done;
	enum badrun badrun;
	int must_exit;		/* a clause that surely calls exit() */
	int kernel;		/* probes beyond dtrace's */
	int allprobes;		/* syscall, fbt, kinst, rawtp too */
	int probekind;		/* the current clause's: 0 dtrace, 1 ERROR, 2 other */
	int nstmt;		/* statements left in the program */
	int spec;		/* speculations used: nspec wanted */
	int dyn;		/* 'f': fbt probes, 'k': kinst probes, 0: neither yet */
} P;

/* ---- expressions ----------------------------------------------------------- */
static void gen_int(int d);
static void gen_str(int d);

static void gen(enum ty t, int d)
{
	if (t == TI)
		gen_int(d);
	else
		gen_str(d);
}

/* A variable of type @t that may be read now (known), or NULL. */
static struct var *pick_var(enum ty t, int assoc)
{
	struct var *c[MAXVARS];
	int n = 0;

	for (int i = 0; i < P.nv; i++)
		if (P.v[i].known && P.v[i].ty == t && (P.v[i].nkeys > 0) == assoc)
			c[n++] = &P.v[i];
	return n ? c[below(n)] : NULL;
}

static void gen_keys(const enum ty *kty, int nkeys, int d)
{
	for (int k = 0; k < nkeys; k++) {
		if (k)
			emit(", ");
		gen(kty[k], d);
	}
}

static void emit_var(struct var *v, int d)
{
	emit("%s", v->name);
	if (v->nkeys) {
		emit("[");
		gen_keys(v->kty, v->nkeys, d);
		emit("]");
	}
}

static const char *const strlits[] = {
	"\"\"", "\"a\"", "\"hello\"", "\"xdt\"", "\"/usr/lib/../bin//dtrace\"",
	"\"a,b,,c\"", "\"Hello World\"", "\"%d %s\"", "\"tab\\there\"",
	"\"nl\\n\"", "\"quote\\\"q\"", "\"0x1f\"", "\"-42\"", "\"12345678901234567890\"",
	"\"/\"", "\"..\"", "\"{\\\"a\\\":{\\\"b\\\":[1,2]}}\"", "\"back\\\\slash\"",
	"\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
};

static const char *const intlits[] = {
	"0", "1", "2", "3", "7", "8", "10", "16", "31", "32", "63", "64", "100",
	"255", "256", "1000", "4096", "65535", "0x7fffffff", "0x80000000",
	"0xffffffff", "0x100000000", "0x7fffffffffffffff", "0xffffffffffffffff",
	"0777", "0x1F", "'a'", "'\\n'", "'\\0'", "1U", "2L", "3UL", "4LL", "5ULL",
	"2147483647", "4294967295U", "9223372036854775807LL",
};

static const char *const inttypes[] = {
	"char", "signed char", "unsigned char", "short", "unsigned short", "int",
	"unsigned", "unsigned int", "long", "unsigned long", "long long",
	"unsigned long long", "int8_t", "uint8_t", "int16_t", "uint16_t",
	"int32_t", "uint32_t", "int64_t", "uint64_t", "size_t", "ssize_t",
	"uintptr_t", "pid_t", "uid_t",
};

static const char *const binops[] = {
	"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "^^",
	"==", "!=", "<", "<=", ">", ">=",
};

static void gen_int_leaf(void)
{
	struct var *v;
	static const char *const builtins[] = {
		"arg0", "arg1", "arg2", "arg3", "arg9", "pid", "tid", "uid",
		"cpu", "timestamp", "vtimestamp", "walltimestamp", "epid", "id",
		"errno", "$pid", "$ppid", "$uid", "$gid",
	};

	switch (below(10)) {
	case 0: case 1: case 2:
		emit("%s", PICK(intlits));
		return;
	case 3:
		emit("%u", below(1000));
		return;
	case 4: case 5:
		emit("%s", PICK(builtins));
		return;
	case 6:
		emit("sizeof (%s)", PICK(inttypes));
		return;
	default:
		if ((v = pick_var(TI, 0))) {
			emit("%s", v->name);
			return;
		}
		emit("%u", below(50));
	}
}

static void gen_int(int d)
{
	struct var *v;

	if (d <= 0 || chance(25)) {
		gen_int_leaf();
		return;
	}
	switch (below(22)) {
	case 0: case 1: case 2: case 3:
		emit("(");
		gen_int(d - 1);
		emit(" %s ", PICK(binops));
		gen_int(d - 1);
		emit(")");
		return;
	case 4:
		emit("%s", PICK(((const char *const[]){ "-", "~", "!", "+" })));
		emit("(");
		gen_int(d - 1);
		emit(")");
		return;
	case 5:
		emit("(");
		gen_int(d - 1);
		emit(" ? ");
		gen_int(d - 1);
		emit(" : ");
		gen_int(d - 1);
		emit(")");
		return;
	case 6:
		emit("((%s)", PICK(inttypes));
		gen_int(d - 1);
		emit(")");
		return;
	case 7:
		/* string comparisons: every relational operator */
		emit("(");
		gen_str(d - 1);
		emit(" %s ", PICK(((const char *const[]){ "==", "!=", "<", "<=", ">", ">=" })));
		gen_str(d - 1);
		emit(")");
		return;
	case 8:
		emit("strlen(");
		gen_str(d - 1);
		emit(")");
		return;
	case 9:
		emit("%s(", chance(50) ? "index" : "rindex");
		gen_str(d - 1);
		emit(", ");
		gen_str(d - 1);
		if (chance(40)) {
			emit(", ");
			gen_int(d - 1);
		}
		emit(")");
		return;
	case 10:
		emit("strtoll(");
		gen_str(d - 1);
		if (chance(40))
			emit(", %s", PICK(((const char *const[]){ "0", "2", "8", "10", "16", "36", "1", "37" })));
		emit(")");
		return;
	case 11:
		emit("%s(", PICK(((const char *const[]){ "htons", "htonl", "htonll",
			"ntohs", "ntohl", "ntohll", "getmajor", "getminor" })));
		gen_int(d - 1);
		emit(")");
		return;
	case 12:
		emit("rand()");
		return;
	case 13:
		if ((v = pick_var(TI, 1))) {
			emit_var(v, d - 1);
			return;
		}
		gen_int_leaf();
		return;
	case 14:
		/* a load through a pointer: faults unless it is scratch */
		if (chance(50)) {
			emit("*(%s *)", PICK(((const char *const[]){ "char", "int", "uint64_t", "short" })));
			emit("%s", PICK(((const char *const[]){ "0", "8", "alloca(16)", "arg0",
				"((char *)alloca(8) + 4)", "0xffffffffffff0000" })));
		} else {
			emit("((char *)alloca(8))[%u]", below(12));
		}
		return;
	case 15:
		/* ++, --, compound assignment as expressions */
		if ((v = pick_var(TI, 0))) {
			switch (below(3)) {
			case 0: emit("%s++", v->name); break;
			case 1: emit("--%s", v->name); break;
			default:
				emit("(%s %s ", v->name, PICK(((const char *const[]){
					"+=", "-=", "*=", "|=", "&=", "^=", "<<=", ">>=" })));
				gen_int(d - 1);
				emit(")");
			}
			return;
		}
		gen_int_leaf();
		return;
	case 16:
		if (P.spec) {
			emit("speculation()");
			return;
		}
		emit("(%s)", PICK(intlits));
		return;
	case 17:
		emit("(int)sizeof (%s)", PICK(inttypes));
		return;
	case 18:
		if (P.kernel && chance(50)) {
			emit("progenyof(%s)", PICK(((const char *const[]){ "1", "pid", "0", "$pid" })));
			return;
		}
		emit("(%s ", PICK(intlits));
		emit("%s ", PICK(binops));
		gen_int(d - 1);
		emit(")");
		return;
	case 19:
		if (P.kernel && chance(50)) {
			/* the lock subroutines: any address, faulting or not */
			emit("%s(%s)", PICK(((const char *const[]){ "mutex_owned",
				"mutex_type_adaptive", "mutex_type_spin", "rw_read_held",
				"rw_write_held", "rw_iswriter" })),
				PICK(((const char *const[]){ "0", "arg0", "(void *)curthread",
				"alloca(16)", "0xffffffffffff0000", "(void *)&curthread->comm" })));
			return;
		}
		if (P.kernel) {
			emit("(curthread != 0)");
			return;
		}
		gen_int_leaf();
		return;
	default:
		gen_int_leaf();
	}
}

static void gen_str_leaf(void)
{
	struct var *v;
	static const char *const builtins[] = {
		"execname", "probeprov", "probemod", "probefunc", "probename", "$$1",
	};

	switch (below(6)) {
	case 0: case 1: case 2:
		emit("%s", PICK(strlits));
		return;
	case 3:
		emit("%s", PICK(builtins));
		return;
	default:
		if ((v = pick_var(TS, 0))) {
			emit("%s", v->name);
			return;
		}
		emit("%s", PICK(strlits));
	}
}

static void gen_str(int d)
{
	struct var *v;

	if (d <= 0 || chance(30)) {
		gen_str_leaf();
		return;
	}
	switch (below(16)) {
	case 0: case 1:
		emit("strjoin(");
		gen_str(d - 1);
		emit(", ");
		gen_str(d - 1);
		emit(")");
		return;
	case 2:
		emit("substr(");
		gen_str(d - 1);
		emit(", ");
		gen_int(d - 1);
		if (chance(60)) {
			emit(", ");
			gen_int(d - 1);
		}
		emit(")");
		return;
	case 3:
		emit("%s(", chance(50) ? "strchr" : "strrchr");
		gen_str(d - 1);
		emit(", ");
		emit("%s", PICK(((const char *const[]){ "'a'", "'/'", "','", "'l'", "0" })));
		emit(")");
		return;
	case 4:
		emit("strstr(");
		gen_str(d - 1);
		emit(", ");
		gen_str(d - 1);
		emit(")");
		return;
	case 5:
		emit("strtok(");
		if (chance(30))
			emit("NULL");
		else
			gen_str(d - 1);
		emit(", %s)", PICK(((const char *const[]){ "\",\"", "\"/\"", "\" \"", "\"\"" })));
		return;
	case 6:
		emit("%s(", PICK(((const char *const[]){ "basename", "dirname", "cleanpath",
			"toupper", "tolower" })));
		gen_str(d - 1);
		emit(")");
		return;
	case 7:
		emit("lltostr(");
		gen_int(d - 1);
		if (chance(40))
			emit(", %s", PICK(((const char *const[]){ "2", "8", "10", "16", "36", "1", "0", "99" })));
		emit(")");
		return;
	case 8:
		emit("(");
		gen_int(d - 1);
		emit(" ? ");
		gen_str(d - 1);
		emit(" : ");
		gen_str(d - 1);
		emit(")");
		return;
	case 9:
		emit("json(");
		gen_str(d - 1);
		emit(", %s)", PICK(((const char *const[]){ "\"a\"", "\"a.b\"", "\"a.b[1]\"", "\"x\"" })));
		return;
	case 10:
		emit("%s", PICK(((const char *const[]){ "inet_ntoa((ipaddr_t *)alloca(4))",
			"inet_ntoa6((in6_addr_t *)alloca(16))", "inet_ntop(2, alloca(4))",
			"inet_ntop(10, alloca(16))", "inet_ntop(99, alloca(16))" })));
		return;
	case 11:
		if ((v = pick_var(TS, 1))) {
			emit_var(v, d - 1);
			return;
		}
		gen_str_leaf();
		return;
	case 12:
		/* a user address in a kernel probe faults; 0 everywhere */
		emit("copyinstr(%s)", PICK(((const char *const[]){ "arg0", "arg1", "0" })));
		return;
	case 13:
		emit("stringof(");
		gen_str(d - 1);
		emit(")");
		return;
	default:
		gen_str_leaf();
	}
}

/* ---- declarations and variables ------------------------------------------- */
static struct var *new_var(enum scope sc, enum ty t, int nkeys)
{
	struct var *v;
	static const char *const pre[] = { "g", "self->t", "this->l" };

	if (P.nv == MAXVARS)
		return NULL;
	v = &P.v[P.nv];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s%d", pre[sc], P.nv);
	v->sc = sc;
	v->ty = t;
	v->nkeys = nkeys;
	for (int k = 0; k < nkeys; k++)
		v->kty[k] = chance(60) ? TI : TS;
	P.nv++;
	return v;
}

static void emit_type(enum ty t)
{
	if (t == TS)
		emit("string");
	else
		emit("%s", PICK(((const char *const[]){ "int", "uint64_t", "int64_t",
			"long", "unsigned", "short", "char", "uint32_t" })));
}

/* Top-level declarations: `int g0;`, `self string t1;`, `int g2[int, string];` */
static void gen_decls(void)
{
	for (unsigned n = below(4); n; n--) {
		enum scope sc = (enum scope)below(3);
		int nkeys = sc != STHIS && chance(30) ? 1 + below(MAXKEYS) : 0;
		struct var *v = new_var(sc, chance(70) ? TI : TS, nkeys);

		if (!v)
			return;
		v->known = 1;
		if (sc == SSELF)
			emit("self ");
		else if (sc == STHIS)
			emit("this ");
		emit_type(v->ty);
		emit(" %s", strchr(v->name, '>') ? strchr(v->name, '>') + 1 : v->name);
		if (nkeys) {
			emit("[");
			for (int k = 0; k < nkeys; k++)
				emit("%s%s", k ? ", " : "", v->kty[k] == TI ? "int" : "string");
			emit("]");
		}
		emit(";\n");
	}
}

/* ---- statements ------------------------------------------------------------ */
/* A wrong program's defect goes in at a random statement, once. */
static int defect_now(void)
{
	return P.wrong != W_NONE && !P.wrong_done && chance(30);
}

static void stmt_assign(int d)
{
	struct var *v = NULL;

	/* a new variable now and then, typed by this first assignment */
	if (chance(35) || !(v = pick_var(chance(70) ? TI : TS, chance(30)))) {
		enum scope sc = (enum scope)below(3);

		v = new_var(sc, chance(65) ? TI : TS,
			    sc != STHIS && chance(30) ? 1 + below(MAXKEYS) : 0);
		if (!v)
			v = &P.v[below(P.nv)];
	}
	if (v->nkeys && v->sc == STHIS)
		return;
	emit_var(v, d);
	if (v->ty == TI && v->known && chance(25) && !v->nkeys) {
		emit(" %s ", PICK(((const char *const[]){ "+=", "-=", "*=", "/=",
			"%=", "<<=", ">>=", "&=", "|=", "^=" })));
		gen_int(d);
	} else if (v->ty == TI && v->known && chance(15)) {
		emit("%s", chance(50) ? "++" : "--");
	} else if (v->nkeys && v->ty == TI && chance(10)) {
		emit(" = 0");	/* frees the element */
	} else {
		emit(" = ");
		gen(v->ty, d);
	}
	emit(";\n");
	v->known = 1;
}

static const char *int_conv(char *cast, size_t len)
{
	static const struct { const char *conv, *cast; } c[] = {
		{ "%d", "" }, { "%i", "" }, { "%u", "" }, { "%x", "" }, { "%X", "" },
		{ "%o", "" }, { "%5d", "" }, { "%-8d", "" }, { "%08x", "" },
		{ "%+d", "" }, { "%#x", "" }, { "%c", "(char)" },
		{ "%ld", "(long)" }, { "%lld", "(long long)" },
		{ "%llu", "(unsigned long long)" }, { "%lx", "(long)" },
		{ "%hd", "(short)" }, { "%hu", "(unsigned short)" }, { "%p", "(uintptr_t)" },
		{ "%a", "(uintptr_t)" }, { "%Y", "(int64_t)" }, { "%T", "(int64_t)" },
		{ "%*d", "*" },
	};
	unsigned i = below(sizeof(c) / sizeof(c[0]));

	snprintf(cast, len, "%s", c[i].cast);
	return c[i].conv;
}

static void stmt_printf(int d)
{
	int n = (int)below(5);
	enum ty t[6];
	char cast[6][32];
	int star[6] = { 0 };
	int bad = -1;

	if (P.wrong == W_PRINTF && defect_now()) {
		P.wrong_done = 1;
		bad = (int)below(3);
	}
	emit("printf(\"");
	for (int i = 0; i < n; i++) {
		t[i] = chance(60) ? TI : TS;
		cast[i][0] = 0;
		if (i)
			emit("%s", PICK(((const char *const[]){ " ", ", ", "|", "\\t", "=" })));
		if (t[i] == TI) {
			const char *cv = int_conv(cast[i], sizeof(cast[i]));

			star[i] = !strcmp(cast[i], "*");
			if (star[i])
				cast[i][0] = 0;
			emit("%s", cv);
		} else {
			emit("%s", PICK(((const char *const[]){ "%s", "%20s", "%-12s",
				"%.3s", "%S" })));
		}
	}
	if (bad == 0)
		emit(" %%d");		/* a conversion with no argument */
	if (chance(20))
		emit(" 100%%%%");
	emit("\\n\"");
	for (int i = 0; i < n; i++) {
		emit(", ");
		if (star[i]) {
			emit("%u, ", below(20));
		}
		if (bad == 1 && i == 0) {
			gen(t[i] == TI ? TS : TI, d);	/* the wrong type */
			continue;
		}
		emit("%s", cast[i]);
		if (cast[i][0])
			emit("(");
		gen(t[i], d);
		if (cast[i][0])
			emit(")");
	}
	if (bad == 2 || (bad == 1 && !n))
		emit(", 1, 2");		/* arguments past the conversions */
	emit(");\n");
}

static struct agg *agg_find_or_new(void)
{
	struct agg *a;

	if (P.na && (P.na == MAXAGGS || chance(50)))
		return &P.a[below(P.na)];
	a = &P.a[P.na];
	memset(a, 0, sizeof(*a));
	if (P.na || chance(50))
		snprintf(a->name, sizeof(a->name), "a%d", P.na);
	a->fn = (enum afn)below(A_NFN);
	a->nkeys = chance(30) ? 0 : 1 + (int)below(MAXKEYS);
	for (int k = 0; k < a->nkeys; k++)
		a->kty[k] = chance(55) ? TI : TS;
	if (a->fn == A_LQUANT) {
		int base = (int)below(20) - 10, step = 1 + (int)below(10);
		int limit = base + step * (1 + (int)below(30));

		if (chance(50))
			snprintf(a->params, sizeof(a->params), ", %d, %d", base, limit);
		else
			snprintf(a->params, sizeof(a->params), ", %d, %d, %d", base, limit, step);
	} else if (a->fn == A_LLQUANT) {
		/* factor, low, high, steps: steps divides factor^? (DTrace's rules) */
		static const char *const ok[] = { ", 10, 0, 6, 20", ", 2, 0, 10, 2",
			", 10, 1, 4, 10", ", 4, 0, 5, 16", ", 3, 0, 3, 9" };

		snprintf(a->params, sizeof(a->params), "%s", PICK(ok));
	}
	P.na++;
	return a;
}

static void stmt_agg(int d)
{
	int old = P.na > 0 && chance(50);
	struct agg *a;

	/* a redefinition needs a use before it: another function or arity */
	if (P.wrong == W_AGGREDEF && P.na && defect_now()) {
		enum afn f;

		a = &P.a[below(P.na)];
		P.wrong_done = 1;
		emit("@%s[", a->name);
		gen_keys(a->kty, a->nkeys, d);
		if (chance(50)) {
			emit("%s", a->nkeys ? ", " : "");
			gen_int(d);	/* one key more than before */
			f = a->fn;
		} else {
			f = (enum afn)((a->fn + 1 + below(4)) % A_NFN);
		}
		emit("] = %s(", afname[f]);
		if (f != A_COUNT)
			gen_int(d);
		emit("%s);\n", f == a->fn ? a->params :
		     f == A_LQUANT ? ", 0, 10" : f == A_LLQUANT ? ", 10, 0, 6, 20" : "");
		return;
	}
	a = old ? &P.a[below(P.na)] : agg_find_or_new();
	emit("@%s", a->name);
	if (a->nkeys) {
		emit("[");
		gen_keys(a->kty, a->nkeys, d);
		emit("]");
	}
	emit(" = %s(", afname[a->fn]);
	if (a->fn != A_COUNT)
		gen_int(d);
	emit("%s", a->params);
	/* quantize()'s increment (DTrace's second argument) */
	if (a->fn == A_QUANT && chance(15))
		emit(", %u", below(5));
	emit(");\n");
}

static void stmt_aggact(void)
{
	struct agg *a;

	if (!P.na) {
		emit("trace(%s);\n", PICK(intlits));
		return;
	}
	a = &P.a[below(P.na)];
	switch (below(7)) {
	case 0: case 1:
		if (chance(50) && a->fn <= A_STDDEV) {
			/* a format: the keys' conversions, then the value's */
			emit("printa(\"");
			for (int k = 0; k < a->nkeys; k++)
				emit("%s ", a->kty[k] == TI ? "%d" : "%s");
			emit("%%@%s\\n\", @%s);\n", a->fn == A_COUNT || chance(50) ? "d" : "u",
			     a->name);
		} else if (P.na > 1 && chance(30)) {
			/* joined: the same keys, each %@ the next one's value */
			struct agg *b = NULL;

			for (int i = 0; i < P.na && !b; i++)
				if (&P.a[i] != a && P.a[i].nkeys == a->nkeys &&
				    !memcmp(P.a[i].kty, a->kty, sizeof(a->kty)) &&
				    P.a[i].fn <= A_STDDEV && a->fn <= A_STDDEV)
					b = &P.a[i];
			if (b) {
				emit("printa(\"");
				for (int k = 0; k < a->nkeys; k++)
					emit("%s ", a->kty[k] == TI ? "%d" : "%s");
				emit("%%@d %%@d\\n\", @%s, @%s);\n", a->name, b->name);
			} else
				emit("printa(@%s);\n", a->name);
		} else {
			emit("printa(@%s);\n", a->name);
		}
		return;
	case 2:
		emit("clear(@%s);\n", a->name);
		return;
	case 3:
		if (chance(50))
			emit("trunc(@%s, %d);\n", a->name, (int)below(7) - 3);
		else
			emit("trunc(@%s);\n", a->name);
		return;
	case 4:
		emit("normalize(@%s, %u);\n", a->name, 1 + below(1000));
		return;
	case 5:
		emit("denormalize(@%s);\n", a->name);
		return;
	default:
		emit("setopt(\"%s\");\n", PICK(((const char *const[]){ "aggsortkey",
			"aggsortrev", "aggsortkeypos=1", "aggsortpos=0", "quiet",
			"aggzoom", "aggpack", "agghist", "aggsortkey=no" })));
	}
}

static void stmt_trace(int d)
{
	switch (below(10)) {
	case 0: case 1: case 2:
		emit("trace(");
		gen(chance(60) ? TI : TS, d);
		emit(");\n");
		return;
	case 3:
		emit("print(");
		gen(chance(60) ? TI : TS, d);
		emit(");\n");
		return;
	case 4:
		emit("tracemem(%s, %u", P.kernel && chance(25) ? "&`jiffies_64" :
		     PICK(((const char *const[]){ "alloca(64)", "0", "arg0" })), 1 + below(64));
		if (chance(30))
			emit(", %u", below(70));
		emit(");\n");
		return;
	case 5:
		if (chance(50))
			emit("stack();\n");
		else
			emit("stack(%u);\n", 1 + below(20));
		return;
	case 6:
		emit("trace((%s)", PICK(inttypes));
		gen_int(d);
		emit(");\n");
		return;
	case 7:		/* a kernel address named by the consumer */
		emit("%s(", PICK(((const char *const[]){ "sym", "func", "mod" })));
		gen_int(d);
		emit(");\n");
		return;
	default:
		stmt_printf(d);
	}
}

/* The defect of a wrong program, written as one statement. */
static void stmt_defect(int d)
{
	P.wrong_done = 1;
	switch (P.wrong) {
	case W_SYNTAX:
		switch (below(7)) {
		case 0: emit("x = ;\n"); break;
		case 1: emit("trace(1 +);\n"); break;
		case 2: emit("trace((1);\n"); break;
		case 3: emit("printf(\"unterminated);\n"); break;
		case 4: emit("trace(1) trace(2);\n"); break;
		case 5: emit("@@a = count();\n"); break;
		default: emit("if (1) { trace(1);\n"); break;
		}
		return;
	case W_UNDEF:
		switch (below(4)) {
		case 0: emit("trace(no_such_var%u);\n", below(100)); break;
		case 1: emit("trace(no_such_func(1));\n"); break;
		case 2: emit("trace(self->never + this->nope[1]);\n"); break;
		default: emit("trace(arg0 + undefined_thing->m);\n"); break;
		}
		return;
	case W_TYPE: {
		struct var *v = pick_var(TI, 0);

		switch (below(8)) {
		case 0: emit("trace(\"str\" + 1);\n"); break;
		case 1: emit("trace(strlen(5));\n"); break;
		case 2:
			if (v) {
				emit("%s = ", v->name);
				gen_str(d);
				emit(";\n");
			} else {
				emit("trace(-\"neg\");\n");
			}
			break;
		case 3: emit("trace(arg0.member);\n"); break;	/* not a struct */
		case 4: emit("trace(*%u);\n", below(9)); break;
		case 5:
			emit("trace(");
			gen_str(d);
			emit(" < 1);\n");
			break;
		case 6: emit("trace(substr(1, \"a\"));\n"); break;
		default: emit("trace(1 ? 2 : \"b\");\n"); break;	/* ?: of two types */
		}
		return;
	}
	case W_ARGS:
		switch (below(12)) {
		case 0: emit("@q = lquantize(1, 10, 0, 1);\n"); break;
		case 1: emit("@q = llquantize(1, 1, 0, 4, 10);\n"); break;
		case 2: emit("@q = quantize();\n"); break;
		case 3: emit("stack(-1);\n"); break;
		case 4: emit("stack(100000);\n"); break;
		case 5: emit("trace(substr(\"a\", 1, 2, 3));\n"); break;
		case 6: emit("exit();\n"); break;
		case 7: emit("trace(strjoin(\"a\"));\n"); break;
		case 8: emit("@q = lquantize(1, 0, 10, 0);\n"); break;
		case 9: emit("@q = llquantize(1, 10, 5, 2, 10);\n"); break;
		case 10: emit("tracemem(alloca(8));\n"); break;
		default: emit("@q = count(1);\n"); break;
		}
		return;
	case W_SPEC:
		switch (below(4)) {
		case 0: emit("speculate(1);\n@sp = count();\n"); break;
		case 1: emit("speculate(1);\nexit(0);\n"); break;
		case 2: emit("trace(1);\nspeculate(1);\n"); break;
		default: emit("commit(1);\ntrace(2);\n"); break;
		}
		return;
	case W_DECL:
		switch (below(3)) {
		case 0: emit("this->d[1] = 2;\n"); break;	/* D_ARR_LOCAL */
		case 1: emit("trace(sizeof (struct nope));\n"); break;
		default: emit("trace((no_such_type_t)1);\n"); break;
		}
		return;
	default:
		/* printf, aggredef, pragma: written where they belong */
		P.wrong_done = 0;
		return;
	}
}

static void gen_block(int depth, int *n);

static void gen_stmt(int depth)
{
	int d = 1 + (int)below(3);

	if (defect_now() && P.wrong != W_PRINTF && P.wrong != W_AGGREDEF &&
	    P.wrong != W_PRAGMA) {
		stmt_defect(d);
		return;
	}
	switch (below(20)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		stmt_assign(d);
		return;
	case 6: case 7: case 8:
		stmt_agg(d);
		return;
	case 9: case 10:
		stmt_aggact();
		return;
	case 11: case 12: case 13: case 14:
		stmt_trace(d);
		return;
	case 15:
		if (depth < 2) {
			/* DTrace's sugar: one clause cut into pieces */
			int n = 1 + (int)below(3);

			emit("if (");
			gen_int(d);
			emit(") {\n");
			gen_block(depth + 1, &n);
			emit("}");
			if (chance(50)) {
				n = 1 + (int)below(2);
				emit(" else ");
				if (chance(30) && depth < 1) {
					emit("if (");
					gen_int(d);
					emit(") {\n");
					gen_block(depth + 1, &n);
					emit("}");
				} else {
					emit("{\n");
					gen_block(depth + 1, &n);
					emit("}");
				}
			}
			emit("\n");
			return;
		}
		stmt_trace(d);
		return;
	case 16:
		/* a store through a pointer into scratch (allowed) or not */
		emit("*(%s *)%s = ", PICK(((const char *const[]){ "int", "char", "uint64_t" })),
		     P.kernel && chance(20) ? "&`jiffies_64" :
		     PICK(((const char *const[]){ "alloca(8)", "alloca(16)", "0", "arg0" })));
		gen_int(d);
		emit(";\n");
		return;
	case 17:
		emit("bcopy(%s, alloca(%u), %u);\n",
		     PICK(((const char *const[]){ "alloca(32)", "0", "(void *)arg0" })),
		     8 + below(3) * 8, below(40));
		return;
	default:
		stmt_trace(d);
	}
}

static void gen_block(int depth, int *n)
{
	for (; *n > 0; (*n)--)
		gen_stmt(depth);
}

/* ---- clauses ---------------------------------------------------------------- */
static const char *probe_desc(void)
{
	static const char *const dtrace[] = { "BEGIN", "END", "dtrace:::BEGIN",
		"dtrace:::END", ":::BEGIN" };
	static const char *const timed[] = { "tick-1ms", "tick-100hz", "tick-5ms",
		"profile-997hz", "profile-1ms", "tick-1000", "profile-5ms" };
	static const char *const others[] = { "syscall::getppid:entry",
		"syscall::getppid:return", "syscall::read:entry", "fbt::vfs_read:entry",
		"fbt::vfs_read:return", "kinst::vfs_read:0", "rawtp:sched::sched_switch",
		"rawtp:raw_syscalls::sys_enter", "syscall::getpp*:entry",
		"fbt::vfs_rea?:entry" };

	if (P.kernel && chance(45)) {
		if (P.allprobes && chance(70)) {
			const char *d = PICK(others);

			/*
			 * fbt's entry probe and kinst's offset 0 may be the same
			 * instruction, which one program cannot patch twice
			 * (EBUSY, by design): a program takes one of the two.
			 */
			if (!strncmp(d, "fbt:", 4) || !strncmp(d, "kinst:", 6)) {
				if (!P.dyn)
					P.dyn = d[0];
				if (d[0] != P.dyn)
					d = P.dyn == 'f' ? "fbt::vfs_read:return" : "kinst::vfs_read:0";
			}
			P.probekind = 2;
			return d;
		}
		P.probekind = 2;
		return PICK(timed);
	}
	P.probekind = 0;
	return PICK(dtrace);
}

static void gen_clause(void)
{
	const char *desc = probe_desc();
	int n, spec = 0;

	if (chance(12)) {
		desc = "ERROR";
		P.probekind = 1;
	}
	emit("%s", desc);
	if (P.probekind == 0 && chance(15))
		emit(", %s", chance(50) ? "END" : "BEGIN");
	emit("\n");
	if (chance(40)) {
		emit("/ ");	/* a slash and a star would open a comment */
		if (P.probekind == 2 && chance(50))
			emit("pid == $pid && ");	/* fire for this process only */
		gen_int(1 + (int)below(2));
		emit("/\n");
	}
	emit("{\n");
	/* a speculating clause: speculate() first, then data only */
	if (chance(8) && P.probekind != 1) {
		P.spec = 1;
		spec = 1;
		emit("self->spec = speculation();\n}\n%s\n/self->spec/\n{\nspeculate(self->spec);\n", desc);
		for (n = 1 + (int)below(3); n; n--)
			stmt_trace(1 + (int)below(2));
		emit("}\n%s\n/self->spec/\n{\n%s(self->spec);\n", desc,
		     chance(70) ? "commit" : "discard");
		if (chance(40))
			emit("self->spec = 0;\n");
	}
	n = spec ? 0 : (int)below(6);
	if (n > P.nstmt)
		n = P.nstmt;
	P.nstmt -= n;
	gen_block(0, &n);
	if (chance(10) && !spec)
		emit("exit(%u);\n", below(3));
	emit("}\n\n");
}

static void gen_pragmas(void)
{
	static const char *const ok[] = { "quiet", "strsize=64", "strsize=512",
		"strsize=32", "strsize=8k", "aggsortkey", "aggsortrev", "aggpack", "agghist",
		"aggzoom", "rawbytes", "droptags", "errtags", "encoding=utf8", "temporal",
		"encoding=ascii", "oformat=json", "bufpolicy=fill", "bufpolicy=ring",
		"dynvarsize=64k", "dynvarsize=2k", "nspec=4", "specsize=256",
		"stackframes=5", "cleanrate=101hz", "aggsortkeypos=1", "zdefs",
		"flowindent", "aggrate=1ms", "defaultargs" };

	for (unsigned n = below(3); n; n--)
		emit("#pragma D option %s\n", PICK(ok));
	if (P.wrong == W_PRAGMA) {
		emit("#pragma D option %s\n", PICK(((const char *const[]){ "nosuchoption",
			"strsize=abc", "bufpolicy=never", "quiet=maybe", "bufsize=",
			"switchrate=0", "encoding=ebcdic", "nspec=24 * 44", "strsize=1m" })));
		P.wrong_done = 1;
	}
}

/* Settings right programs may carry that the enable must refuse, with why. */
static void gen_badrun(void)
{
	switch (P.badrun) {
	case R_DYNVARSIZE: emit("#pragma D option dynvarsize=1g\n"); break;
	case R_NSPEC: emit("#pragma D option nspec=100000\n"); break;
	case R_AGGSIZE: emit("#pragma D option aggsize=1g\n"); break;
	case R_BUFSIZE: emit("#pragma D option bufsize=8\n"); break;
	default: break;
	}
}

/*
 * One program: pragmas, declarations, clauses, then (usually) a clause that
 * surely exits, so that a kernel run ends by itself.
 */
static void generate(void)
{
	slen = 0;
	if (src)
		src[0] = 0;
	gen_pragmas();
	gen_badrun();
	gen_decls();
	P.nstmt = 3 + (int)below(12);
	for (unsigned n = 1 + below(4); n; n--)
		gen_clause();
	if (P.wrong != W_NONE && !P.wrong_done) {
		emit("BEGIN\n{\n");
		if (P.wrong == W_PRINTF || P.wrong == W_AGGREDEF) {
			/* these two need context: write the plain form */
			if (P.wrong == W_PRINTF)
				emit("printf(\"%%d %%s\\n\", 1);\n");
			else
				emit("@redef = count();\n@redef = sum(1);\n");
			P.wrong_done = 1;
		} else {
			stmt_defect(1);
		}
		emit("}\n");
	}
	if (P.badrun == R_DESTR)
		emit("BEGIN\n{\nchill(1);\n}\n");
	if (P.badrun == R_NOPROBE)
		emit("fbt::xdt_no_such_function_%u:entry\n{\ntrace(1);\n}\n", below(1000));
	if (chance(85)) {
		P.must_exit = 1;
		if (P.kernel && chance(40))
			emit("%s\n{\nexit(0);\n}\n", PICK(((const char *const[]){
				"tick-1ms", "tick-10ms", "profile-1ms", "tick-500hz" })));
		else
			emit("BEGIN\n{\nexit(%u);\n}\n", below(2));
	}
}

/* ---- running one program ------------------------------------------------------ */
static unsigned long long seed = 1;
static unsigned cur = ~0u;		/* the program running, for the handlers */
static const char *stage = "generating";
static int verbose, printprog, keepstderr, hostvm, timeronly, errfd = -1;
static unsigned maxiter = 3000, watchdog = 120;
static unsigned long long batch = 1000;
static int batch_fork = 1, compile_only;
static const char *progfile;		/* -f */
/* the program a batch's child is on, shared: if it dies, the parent says */
static volatile unsigned *shared_cur;
static FILE *out;			/* what the printers print: /dev/null or stdout */

/*
 * Each program's output budget.  A program may print without bound --
 * printa() of an aggregation keyed by rand() in an ERROR clause that a
 * 1 kHz probe fires prints N lines per firing with N growing every
 * firing, output quadratic in time, in DTrace as here -- and then no
 * watchdog can tell it from a hang (three such programs were the
 * aarch64 debug soak's "hung (watchdog)" findings).  Past the budget the
 * stream's writes fail, as a pipe whose reader is gone does (`dtrace |
 * head`), and libxdt must end the drain and say so (xdt_work() ==
 * XDT_WORK_ERROR with "failed to write output"): counted as cut, a path
 * of its own under test, not a failure.
 */
#define OUT_BUDGET (4ULL << 20)
static unsigned long long out_bytes;
static int out_over;			/* a write was refused: past the budget */
static FILE *out_sink;			/* under the budget: /dev/null or stdout */

static ssize_t budget_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	/* 0, not -1, on error: fopencookie(3) says a negative count must
	   not be returned, and glibc's fwrite() then reads a byte past the
	   caller's buffer (an ASan SEGV in the guest, found by this very
	   budget) */
	if (out_bytes + n > OUT_BUDGET) {
		out_over = 1;
		errno = EFBIG;
		return 0;
	}
	out_bytes += n;
	if (out_sink && fwrite(buf, 1, n, out_sink) != n)
		return 0;
	return (ssize_t)n;
}

static int out_cut(void)
{
	return out_over && ferror(out);
}

/*
 * What the programs came to.  A batch of programs runs in a child process
 * (-b), so that one a crash ends takes its batch with it, not the run.
 * The child hands its counts up through a pipe.
 */
struct counts {
	unsigned long long prog, compiled, refused, ran, faults, fail;
	unsigned long long exited, bound, cut, wrong_accepted, right_cerr;
	unsigned long long right_refused, badrun_ran, constdiv, noreg;
	unsigned long long wrong_seen[W_NWRONG], wrong_acc[W_NWRONG];
	unsigned long long badrun_refused[R_NBADRUN];
	unsigned long long us[16];	/* microseconds by stage (stages[]) */
	/* compile errors by DTrace's tag (libxdt's static names: the same
	   addresses in a forked child and its parent) */
	struct { const char *tag; unsigned long long n; } tags[128];
	int ntags;
};
static struct counts C;

/* Where the time goes, by stage: the soak's rate is what this explains. */
static const char *const stages[] = {
	"generating", "xdt_open", "xdt_setopt", "xdt_compile",
	"xdt_cerror_print", "xdt_dis", "xdt_go", "xdt_work", "xdt_stop",
	"xdt_aggwalk", "xdt_status", "xdt_close", "done",
};

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static void set_stage(const char *s)
{
	static unsigned long long since;
	unsigned long long t = now_us();

	for (unsigned i = 0; i < sizeof(stages) / sizeof(*stages); i++)
		if (!strcmp(stages[i], stage)) {
			C.us[i] += since ? t - since : 0;
			break;
		}
	since = t;
	stage = s;
}

/* Say something to the real stderr (libxdt's may be /dev/null). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	fflush(stdout);
	if (n > 0 && write(errfd >= 0 ? errfd : 2, buf, (size_t)n) < 0)
		return;
}

static void show_program(void)
{
	say("---- program %u (seed %llu) ----\n%s---- end of program %u ----\n",
	    cur, seed, src ? src : "", cur);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	C.fail++;
	say("xdt-dfuzz: FAIL seed %llu program %u (%s; rerun: xdt-dfuzz -s %llu -i %u -p%s): %s\n",
	    seed, cur, stage, seed, cur, hostvm ? " -V" : "", buf);
	show_program();
}

/* A crash, an abort or the watchdog: name the program, then die of it. */
static void on_fatal(int sig)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf),
			 "xdt-dfuzz: FAIL seed %llu program %u (%s): %s\n", seed, cur,
			 stage, sig == SIGALRM ? "hung (watchdog)" : strsignal(sig));

	if (write(errfd >= 0 ? errfd : 2, buf, (size_t)n) < 0)
		_exit(3);
	if (src && write(errfd >= 0 ? errfd : 2, src, slen) < 0)
		_exit(3);
	if (sig == SIGALRM) {
		signal(SIGABRT, SIG_DFL);
		abort();
	}
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(3);
}

#ifdef __SANITIZE_ADDRESS__
static void on_sanitizer_death(void)
{
	on_fatal(SIGABRT);
}
#endif

/* libxdt must never exit() the process: say where it did. */
static void at_exit(void)
{
	if (cur != ~0u && strcmp(stage, "done")) {
		C.fail++;
		say("xdt-dfuzz: FAIL seed %llu program %u (%s): the process exited inside libxdt\n",
		    seed, cur, stage);
		show_program();
		_exit(3);
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

static void count_tag(const char *tag)
{
	int i;

	for (i = 0; i < C.ntags; i++)
		if (!strcmp(C.tags[i].tag, tag))
			break;
	if (i == C.ntags) {
		if (C.ntags == (int)(sizeof(C.tags) / sizeof(C.tags[0])))
			return;
		C.tags[C.ntags++].tag = tag;
	}
	C.tags[i].n++;
}

/* The structured consumer (what the Lua bindings use), for half the runs. */
struct cstate {
	unsigned long long recs, faults, drops;
};

static int cb_record(xdt_hdl_t *h, const struct xdt_record *r, void *arg)
{
	struct cstate *cs = arg;
	struct xdt_value v;
	size_t len;
	char *text;
	int n = xdt_record_nvalues(h, r);

	cs->recs++;
	for (int i = 0; i < n; i++) {
		memset(&v, 0, sizeof(v));
		if (xdt_record_value(h, r, i, &v) < 0)
			break;
		if (v.kind == XDT_VAL_STRING && v.len && !v.s)
			fail("record value %d: a string of %zu bytes at NULL", i, v.len);
	}
	text = xdt_record_consume(h, r, &len);
	if (text) {
		/* counted against the budget, printed only under -v */
		fwrite(text, 1, len, out);
		free(text);
	}
	return ferror(out) != 0;	/* past the budget: stop (libxdt says why) */
}

static int cb_fault(xdt_hdl_t *h, const struct xdt_fault *f, void *arg)
{
	struct cstate *cs = arg;

	(void)h;
	cs->faults++;
	if (!f->what || !*f->what)
		fail("an ERROR record with no fault name (kind %llu)",
		     (unsigned long long)f->kind);
	if (verbose)
		fprintf(out, "fault: %s at pc %llu\n", f->what ? f->what : "?",
			(unsigned long long)f->pc);
	return 0;
}

static void cb_drop(xdt_hdl_t *h, enum xdt_dropkind kind, int cpu, __u64 n, void *arg)
{
	struct cstate *cs = arg;

	(void)h, (void)kind, (void)cpu;
	cs->drops += n;
}

static int cb_agg(const struct xdt_aggentry *e, void *arg)
{
	unsigned long long *n = arg;

	(*n)++;
	if (!e->func || e->nkeys < 0 || e->nkeys > XDT_AGG_MAXKEYS ||
	    (e->nbuckets && !e->buckets))
		fail("aggregation entry %d malformed (func %s, %d keys, %d buckets)",
		     e->aggid, e->func ? e->func : "NULL", e->nkeys, e->nbuckets);
	return 0;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* What a kernel probe needs to fire: a getppid() and a read() of ours. */
static void poke(void)
{
	char b[16];
	int fd = open("/proc/version", O_RDONLY | O_CLOEXEC);

	if (getppid() < 0)
		return;
	if (fd >= 0) {
		if (read(fd, b, sizeof(b)) < 0)
			b[0] = 0;
		close(fd);
	}
}

/* What program @idx will be: the first draws of its stream */
static void plan(unsigned idx)
{
	(void)idx;
	memset(&P, 0, sizeof(P));
	P.kernel = !hostvm;
	P.allprobes = P.kernel && !timeronly;
	/* a sixth are wrong, each in one known way */
	P.wrong = chance(17) ? (enum wrong)(1 + below(W_NWRONG - 1)) : W_NONE;
	/* a right program now and then carries a setting the enable refuses */
	P.badrun = P.wrong == W_NONE && chance(4) ? (enum badrun)(1 + below(R_NBADRUN - 1))
						  : R_NONE;
	if (P.badrun == R_NOPROBE && !P.kernel)
		P.badrun = R_DYNVARSIZE;	/* the host VM matches dtrace:: only */
}

static void run_one(unsigned idx, int fds0)
{
	struct xdt_cerror err;
	struct xdt_status st;
	struct cstate cs = { 0, 0, 0 };
	struct xdt_consumer con = { cb_record, cb_fault, cb_drop, &cs };
	const struct xdt_consumer *c = NULL;
	xdt_hdl_t *h;
	unsigned it;
	int r, done = 0, cut = 0, fds;

	cur = idx;
	if (shared_cur)
		*shared_cur = idx;
	fflush(out);
	clearerr(out);
	out_bytes = 0;
	out_over = 0;
	set_stage("generating");
	rs = seed * 0x100000001b3ULL ^ (idx + 1) * 0x9e3779b97f4a7c15ULL;
	plan(idx);
	generate();
	if (progfile) {
		FILE *f = fopen(progfile, "r");

		if (!f) {
			fail("-f %s: %s", progfile, strerror(errno));
			return;
		}
		if (scap < 65536) {
			scap = 65536;
			src = realloc(src, scap);
			if (!src) {
				perror("xdt-dfuzz: realloc");
				_exit(2);
			}
		}
		slen = fread(src, 1, scap - 1, f);
		src[slen] = 0;
		if (!feof(f))
			fail("-f %s: longer than %zu bytes", progfile, scap - 1);
		fclose(f);
		P.wrong = W_NONE;
		P.badrun = R_NONE;
		P.must_exit = 0;
	}
	C.prog++;
	if (P.wrong)
		C.wrong_seen[P.wrong]++;
	if (printprog)
		show_program();
	alarm(watchdog);

	set_stage("xdt_open");
	h = xdt_open();
	if (!h) {
		fail("xdt_open() returned NULL");
		return;
	}
	/* dtrace(1)'s settings, some of them varied */
	set_stage("xdt_setopt");
	if ((hostvm && xdt_setopt(h, "hostvm", NULL) < 0) ||
	    xdt_setopt(h, "bufsize", chance(70) ? "64k" : "1m") < 0 ||
	    xdt_setopt(h, "switchrate", "1ms") < 0 ||
	    xdt_setopt(h, "statusrate", "1ms") < 0 ||
	    (chance(50) && xdt_setopt(h, "aggrate", "1ms") < 0) ||
	    (chance(30) && xdt_setopt(h, "quiet", NULL) < 0) ||
	    (chance(30) && xdt_setopt(h, "errtags", NULL) < 0)) {
		fail("xdt_setopt: %s", xdt_errmsg(h));
		xdt_close(h);
		return;
	}
	if (getenv("XDT_VMLINUX") && xdt_setopt(h, "vmlinux", getenv("XDT_VMLINUX")) < 0) {
		fail("xdt_setopt vmlinux: %s", xdt_errmsg(h));
		xdt_close(h);
		return;
	}
	{
		static char *macros[] = { "fuzz", "arg1" };

		/*
		 * Every program gets the same two arguments and uses $$1 at
		 * most: -x argref, or DTrace's D_MACRO_UNUSED refuses it.
		 */
		xdt_set_macros(h, macros, 2);
		if (xdt_setopt(h, "argref", NULL) < 0) {
			fail("xdt_setopt argref: %s", xdt_errmsg(h));
			xdt_close(h);
			return;
		}
	}
	xdt_set_output(h, out);

	set_stage("xdt_compile");
	memset(&err, 0, sizeof(err));
	r = xdt_compile(h, src, "<dfuzz>", 0, &err);
	if (r < 0) {
		count_tag(err.tagname ? err.tagname : "(none)");
		if (!err.msg[0] || !err.tagname || err.tag < 0)
			fail("a compile error with no message or tag (tag %d)", err.tag);
		set_stage("xdt_cerror_print");
		xdt_cerror_print(h, &err, verbose ? stdout : out);
		/*
		 * A constant division by zero is DTrace's compile error
		 * (D_DIV_ZERO); the grammar does not track constness, so that
		 * one is the program's fault, not the compiler's.
		 */
		if (P.wrong == W_NONE && err.tagname && !strcmp(err.tagname, "D_DIV_ZERO")) {
			C.constdiv++;
		} else if (P.wrong == W_NONE && err.tagname &&
			   !strcmp(err.tagname, "D_NOREG")) {
			/*
			 * DIF has DTrace's 8 registers: a deep enough right
			 * expression needs more, in DTrace too (D_NOREG).
			 */
			C.noreg++;
		} else if (P.wrong == W_NONE) {
			/* the grammar builds right programs: one side is wrong */
			C.right_cerr++;
			fail("a right program did not compile: [%s] %d:%d: %s",
			     err.tagname ? err.tagname : "?", err.line, err.col, err.msg);
		}
		goto close;
	}
	C.compiled++;
	if (P.wrong) {
		C.wrong_accepted++;
		C.wrong_acc[P.wrong]++;
		if (verbose)
			say("xdt-dfuzz: program %u: wrong (%s) but compiled\n", idx,
			    wrongname[P.wrong]);
	}
	if (chance(5)) {
		set_stage("xdt_dis");
		xdt_dis(h, out);
	}
	c = chance(50) ? &con : NULL;
	if (compile_only)
		goto close;

	set_stage("xdt_go");
	if (xdt_go(h) < 0) {
		const char *m = xdt_errmsg(h), *colon = strrchr(m, ':');

		if (!hostvm && !strncmp(m, "failed to open /dev/xdt", 23)) {
			/* no kernel to fuzz: say so once, not per program */
			say("xdt-dfuzz: %s (-V runs in the host VM)\n", m);
			set_stage("done");
			_exit(2);
		}
		C.refused++;
		if (P.badrun)
			C.badrun_refused[P.badrun]++;
		if (!*m || (colon && !colon[1 + strspn(colon + 1, " ")]))
			fail("enable refused with no reason: \"%s\"", m);
		else if (verbose)
			say("xdt-dfuzz: program %u: refused: %s\n", idx, m);
		if (!P.badrun && !P.wrong) {
			C.right_refused++;
			fail("a right program was refused at enable: %s", m);
		}
		goto close;
	}
	if (P.badrun)
		C.badrun_ran++;

	set_stage("xdt_work");
	for (it = 0; it < maxiter; it++) {
		if (!hostvm) {
			sleep_us(xdt_switchrate_us(h));
			poke();
		}
		r = xdt_work(h, c);
		if (r == XDT_WORK_ERROR && out_cut() &&
		    strstr(xdt_errmsg(h), "failed to write output")) {
			cut = 1;
			break;
		}
		if (r == XDT_WORK_ERROR) {
			fail("xdt_work: %s", xdt_errmsg(h));
			break;
		}
		if (r == XDT_WORK_DONE && out_cut()) {
			/* the callback stopped it: libxdt must have said why */
			fail("xdt_work: output past the budget ended as done, not as an error");
			cut = 1;
			break;
		}
		if (r == XDT_WORK_DONE) {
			done = 1;
			break;
		}
		/* no exit() to wait for: a few rounds of firing are enough */
		if (!P.must_exit && it >= 20)
			break;
	}
	if (done)
		C.exited++;
	else if (cut)
		C.cut++;
	else
		C.bound++;

	set_stage("xdt_stop");
	if (xdt_stop(h, c) < 0)
		fail("xdt_stop: %s", xdt_errmsg(h));
	set_stage("xdt_aggwalk");
	if (c) {
		unsigned long long ents = 0;

		if (xdt_aggsnapshot(h, cb_agg, &ents) < 0)
			fail("xdt_aggsnapshot: %s", xdt_errmsg(h));
	} else if (xdt_aggwalk(h, NULL, NULL) < 0) {
		fail("xdt_aggwalk: %s", xdt_errmsg(h));
	}
	set_stage("xdt_status");
	if (xdt_status(h, &st) < 0) {
		fail("xdt_status: %s", xdt_errmsg(h));
	} else {
		xdt_report_drops(h, &st);
		if (st.errors || cs.faults)
			C.faults++;
		/*
		 * The exit() it surely calls may be behind an action that
		 * faults every time (a clause ends at its first fault):
		 * only a program that never faulted had to exit.
		 */
		else if (!done && !cut && P.must_exit && it == maxiter)
			fail("it must exit but did not within %u work() calls", maxiter);
	}
	(void)xdt_exit_status(h);
	C.ran++;
close:
	set_stage("xdt_close");
	xdt_close(h);
	alarm(0);
	fflush(out);
	fds = count_fds();
	if (fds0 >= 0 && fds != fds0)
		fail("%d file descriptors open after the program, %d before", fds, fds0);
	if (verbose)
		say("xdt-dfuzz: program %u: done\n", idx);
	set_stage("done");
}

static void add_counts(const struct counts *b)
{
	const unsigned long long *from = &b->prog;
	unsigned long long *to = &C.prog;

	/* every field up to the tags is a counter */
	for (size_t i = 0; i < offsetof(struct counts, tags) / sizeof(*to); i++)
		to[i] += from[i];
	for (int t = 0; t < b->ntags; t++)
		for (unsigned long long n = b->tags[t].n; n; n--)
			count_tag(b->tags[t].tag);
}

/*
 * Programs @first.. (@n of them) in a child process, which hands its counts
 * up; one that dies (a crash, the watchdog) has said which program it was
 * on, and counts as a failure.  With -b 0, all in this process.
 */
static void run_batch(unsigned long long first, unsigned long long n)
{
	struct counts b;
	int pfd[2], status;
	pid_t pid;
	ssize_t got = 0, r;

	if (!batch_fork) {
		int fds0 = count_fds();

		for (unsigned long long i = first; i < first + n; i++)
			run_one((unsigned)i, fds0);
		return;
	}
	fflush(stdout);
	fflush(out);
	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		perror("xdt-dfuzz: fork");
		exit(2);
	}
	if (pid == 0) {
		int fds0;

		close(pfd[0]);
		memset(&C, 0, sizeof(C));
		fds0 = count_fds();
		for (unsigned long long i = first; i < first + n; i++)
			run_one((unsigned)i, fds0);
		cur = ~0u;
		fflush(out);
		fflush(stdout);
		if (write(pfd[1], &C, sizeof(C)) != (ssize_t)sizeof(C))
			_exit(4);
		_exit(0);
	}
	close(pfd[1]);
	while (got < (ssize_t)sizeof(b) &&
	       (r = read(pfd[0], (char *)&b + got, sizeof(b) - (size_t)got)) > 0)
		got += r;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof(b) && WIFEXITED(status) && !WEXITSTATUS(status)) {
		add_counts(&b);
		return;
	}
	C.prog += n;	/* some ran; the rest are lost with the child */
	C.fail++;
	/*
	 * A sanitizer's exit runs no handler of ours: name the program here,
	 * and print it again (its text depends on the seed and index only).
	 */
	cur = *shared_cur;
	say("xdt-dfuzz: FAIL seed %llu program %u (rerun: xdt-dfuzz -s %llu -i %u -p%s%s%s): "
	    "the batch of programs %llu..%llu %s %d on it\n", seed, cur, seed, cur,
	    hostvm ? " -V" : "", progfile ? " -f " : "", progfile ? progfile : "",
	    first, first + n - 1,
	    WIFSIGNALED(status) ? "died of signal" : "exited",
	    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	rs = seed * 0x100000001b3ULL ^ (cur + 1) * 0x9e3779b97f4a7c15ULL;
	plan(cur);
	generate();
	if (!progfile)	/* -f's text is the file's */
		show_program();
	cur = ~0u;
}

static void usage(void)
{
	fprintf(stderr, "usage: xdt-dfuzz [-n COUNT] [-s SEED] [-i INDEX] [-V] [-B] "
		"[-p] [-v] [-E] [-e] [-I ITERS] [-w SECONDS] [-b BATCH] [-f FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long count = 1000;
	long long only = -1;
	struct sigaction sa;
	struct timespec t0, t1;
	int c;

	while ((c = getopt(argc, argv, "n:s:i:VBpvEI:w:b:ef:")) != -1) {
		switch (c) {
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'i': only = strtoll(optarg, NULL, 0); break;
		case 'f': progfile = optarg; break;
		case 'V': hostvm = 1; break;
		case 'B': timeronly = 1; break;
		case 'p': printprog = 1; break;
		case 'e': compile_only = 1; break;
		case 'v': verbose = printprog = 1; break;
		case 'E': keepstderr = 1; break;
		case 'I': maxiter = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'w': watchdog = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'b':
			batch = strtoull(optarg, NULL, 0);
			batch_fork = batch > 0;
			if (!batch)
				batch = ~0ULL;
			break;
		default: usage();
		}
	}
	errfd = dup(2);
	if (errfd < 0) {
		perror("xdt-dfuzz: dup");
		return 2;
	}
	fcntl(errfd, F_SETFD, FD_CLOEXEC);
	if (!keepstderr) {
		/* libxdt's notices and DTrace's error lines: chatter, by the 10^5 */
		int nul = open("/dev/null", O_WRONLY);

		if (nul < 0 || dup2(nul, 2) < 0) {
			perror("xdt-dfuzz: /dev/null");
			return 2;
		}
		close(nul);
	}
	out_sink = verbose ? stdout : NULL;
	out = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = budget_write });
	if (!out) {
		perror("xdt-dfuzz: fopencookie");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigaction(SIGALRM, &sa, NULL);
#ifdef __SANITIZE_ADDRESS__
	/* ASan reports SEGV itself; name the program when it dies */
	__sanitizer_set_death_callback(on_sanitizer_death);
#else
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
#endif
	signal(SIGPIPE, SIG_IGN);
	atexit(at_exit);
	shared_cur = mmap(NULL, sizeof(*shared_cur), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared_cur == MAP_FAILED) {
		perror("xdt-dfuzz: mmap");
		return 2;
	}

	say("xdt-dfuzz: seed %llu, %llu programs%s\n", seed, only >= 0 ? 1 : count,
	    hostvm ? " in the host VM" : "");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (only >= 0) {
		run_one((unsigned)only, count_fds());
	} else {
		for (unsigned long long i = 0; i < count; i += batch)
			run_batch(i, count - i < batch ? count - i : batch);
	}
	cur = ~0u;
	clock_gettime(CLOCK_MONOTONIC, &t1);

	{
		double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

		fflush(out);
		printf("xdt-dfuzz: %.1f programs/s (%.1f s); exited %llu, stopped at the bound %llu, "
		       "output cut at %llu MiB %llu\n",
		       secs > 0 ? (double)C.prog / secs : 0.0, secs, C.exited, C.bound,
		       OUT_BUDGET >> 20, C.cut);
		printf("xdt-dfuzz: compile errors by tag:");
		for (int i = 0; i < C.ntags; i++)
			printf(" %s %llu", C.tags[i].tag, C.tags[i].n);
		printf("\nxdt-dfuzz: wrong programs by defect (made/compiled anyway):");
		for (int w = 1; w < W_NWRONG; w++)
			printf(" %s %llu/%llu", wrongname[w], C.wrong_seen[w], C.wrong_acc[w]);
		printf("\nxdt-dfuzz: refused on purpose: dynvarsize %llu nspec %llu destructive %llu "
		       "noprobe %llu bufsize %llu aggsize %llu; ran anyway %llu\n",
		       C.badrun_refused[R_DYNVARSIZE], C.badrun_refused[R_NSPEC],
		       C.badrun_refused[R_DESTR], C.badrun_refused[R_NOPROBE],
		       C.badrun_refused[R_BUFSIZE], C.badrun_refused[R_AGGSIZE], C.badrun_ran);
		printf("xdt-dfuzz: seconds in");
		for (unsigned i = 0; i < sizeof(stages) / sizeof(*stages); i++)
			if (C.us[i] >= 50000)
				printf(" %s %.1f", stages[i], C.us[i] / 1e6);
		printf("\n");
		printf("xdt-dfuzz: right programs refused: by the compiler %llu, at enable %llu "
		       "(constant divisions by zero %llu, past DIF's 8 registers %llu)\n",
		       C.right_cerr, C.right_refused, C.constdiv, C.noreg);
		printf("xdt-dfuzz: programs %llu compiled %llu refused %llu ran %llu faults %llu "
		       "failures %llu\n", C.prog, C.compiled, C.refused, C.ran, C.faults, C.fail);
		fflush(stdout);
	}
	return C.fail ? 1 : 0;
}
