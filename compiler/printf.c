// SPDX-License-Identifier: GPL-2.0
/*
 * printf.c - D's printf-style formats, as DTrace (libdtrace's dt_printf.c)
 * defines them: a format is parsed once, when the program is compiled,
 * into descriptors (pf_create), each checked against the type of the value
 * it will consume (pf_validate); the consumer then formats recorded values
 * through those descriptors (pf_format).  printf() uses it now; printa(),
 * freopen() and system() take the same formats and reuse all three.
 *
 * A conversion is a row of one table: its name (with any size prefix), the
 * C conversion it becomes, the types it accepts (for messages), a check of
 * the argument's D type, and a printer.  Like DTrace, the printers end in
 * the C library's printf with a format rebuilt from the parsed flags,
 * width and precision, so padding and flags are the C library's.  Where
 * glibc and Solaris libc differ for a flag the C standard leaves undefined
 * (e.g. '0' or '#' with %s), xdt prints what glibc prints.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dt_printf.h"
#include "dt_types.h"

/* ---- argument checks (compile time) -------------------------------------- */
static int is_int(const struct pfarg *a)
{
	return a->kind == PFA_VALUE && type_is_int(a->t);
}

/* DTrace's dt_node_is_pointer: pointers and arrays, but not strings */
static int is_ptr(const struct pfarg *a)
{
	return a->kind == PFA_VALUE && !type_is_strlike(a->t) &&
	       (a->t->real->k == TK_PTR || a->t->real->k == TK_ARRAY);
}

static unsigned asize(const struct pfarg *a)
{
	return a->t->real->size;
}

static int ck_addr(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return is_ptr(a) || is_int(a);
}

/* %A: user addresses are only integers when there is a process (-p/-c) */
static int ck_uaddr(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)d;
	return c->target && (is_ptr(a) || is_int(a));
}

static int ck_stack(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return a->kind == PFA_STACK;
}

/* %Y %T: a 64-bit integer of nanoseconds since the epoch */
static int ck_time(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return is_int(a) && asize(a) == 8;
}

/* string, or an array of char; a char * needs stringof(), as in DTrace */
static int ck_str(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return a->kind == PFA_VALUE && (a->t->real->k == TK_STRING ||
	       (a->t->real->k == TK_ARRAY && type_is_strlike(a->t)));
}

/* wchar_t []: an array of 32-bit integers */
static int ck_wstr(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return a->kind == PFA_VALUE && a->t->real->k == TK_ARRAY &&
	       a->t->real->base->real->k == TK_INT && a->t->real->base->real->size == 4;
}

/* char, short or int */
static int ck_csi(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return is_int(a) && asize(a) <= 4;
}

static int ck_fp(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return a->kind == PFA_VALUE && a->t->real->k == TK_FLOAT;
}

static int ck_xint(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c, (void)d;
	return is_int(a);
}

/* %d: signed for a signed type, unsigned (as %u) for an unsigned one */
static int ck_dint(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	(void)c;
	if (!is_int(a))
		return 0;
	if (a->t->real->sgn)
		d->flags |= PF_SIGNED;
	else
		d->cconv[strlen(d->cconv) - 1] = 'u';
	return 1;
}

/* the resolved type is one of @names (DTrace compares the type's name) */
static int named(const struct pfarg *a, const char *const *names)
{
	if (a->kind != PFA_VALUE || a->t->real->k != TK_INT)
		return 0;
	for (; *names; names++)
		if (!strcmp(a->t->real->name, *names))
			return 1;
	return 0;
}

static int ck_xshort(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	static const char *const n[] = { "short", "signed short", "unsigned short", NULL };

	(void)c, (void)d;
	return named(a, n);
}

static int ck_xlong(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	static const char *const n[] = { "long", "signed long", "unsigned long", NULL };

	(void)c, (void)d;
	return named(a, n);
}

/* long long, or (as DTrace allows for %llx) an [u]int64_t of any name */
static int ck_xlonglong(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	static const char *const n[] = { "long long", "signed long long",
					 "unsigned long long", NULL };

	(void)c, (void)d;
	return named(a, n) || (a->kind == PFA_VALUE &&
	       (!strcmp(a->t->name, "int64_t") || !strcmp(a->t->name, "uint64_t")));
}

/*
 * The conversion names an exact C type (%hd: short, %lu: unsigned long):
 * the argument's type must be compatible with it, which for CTF's integers
 * and floats means the same kind, size and signedness (so %ld takes any
 * signed 64-bit integer, not an unsigned one or an enum).
 */
static int ck_type(const struct pfcheck *c, struct pfdesc *d, const struct pfarg *a)
{
	const struct dtype *w = type_named(d->conv->types), *t;

	(void)c;
	if (a->kind != PFA_VALUE || !w)
		return 0;
	t = a->t->real, w = w->real;
	return t->k == w->k && t->size == w->size &&
	       (t->k != TK_INT || t->sgn == w->sgn);
}

/* ---- printers (run time) -------------------------------------------------- */
/*
 * A value as wide as its D type (a recorded integer is 8 bytes): DTrace
 * records dtrd_size bytes of the type and reads them back as that size.
 */
static unsigned vsize(const struct pfval *v)
{
	unsigned s = v->t ? v->t->real->size : 8;

	return s == 1 || s == 2 || s == 4 ? s : s == 16 ? 16 : 8;
}

static unsigned long long vbits(const struct pfval *v)
{
	unsigned long long x;

	memcpy(&x, v->p, sizeof(x));
	return x;
}

static long long vsigned(const struct pfval *v)
{
	int sh = 64 - 8 * (int)(vsize(v) > 8 ? 8 : vsize(v));

	return (long long)(vbits(v) << sh) >> sh;
}

static unsigned long long vunsigned(const struct pfval *v)
{
	int sh = 64 - 8 * (int)(vsize(v) > 8 ? 8 : vsize(v));

	return vbits(v) << sh >> sh;
}

/* @f: the C format up to its conversion; append @len and @conv to it */
static const char *cfmt(char *f, const char *len, const char *conv)
{
	strcat(f, len);
	strcat(f, conv);
	return f;
}

/* integers are passed as int below 64 bits, as DTrace's pfprint_sint does */
static void pr_sint(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	if (vsize(v) >= 8)
		fprintf(fp, cfmt(f, "ll", d->cconv), vsigned(v));
	else
		fprintf(fp, cfmt(f, "", d->cconv), (int)vsigned(v));
}

static void pr_uint(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	if (vsize(v) >= 8)
		fprintf(fp, cfmt(f, "ll", d->cconv), vunsigned(v));
	else
		fprintf(fp, cfmt(f, "", d->cconv), (unsigned)vunsigned(v));
}

static void pr_dint(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	(d->flags & PF_SIGNED ? pr_sint : pr_uint)(fp, f, d, v);
}

/*
 * The recorded bits as the float type they are.  xdt records at most 8
 * bytes of a value, so a long double (16 bytes in D) holds only a double's
 * bits; it is printed as that double converted to long double.  D has no
 * floating-point arithmetic: such values only come from variables.
 */
static void pr_fp(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	unsigned long long x = vbits(v);

	if (vsize(v) == 4) {
		unsigned u = (unsigned)x;
		float fl;

		memcpy(&fl, &u, sizeof(fl));
		fprintf(fp, cfmt(f, "", d->cconv), (double)fl);
	} else {
		double db;

		memcpy(&db, &x, sizeof(db));
		if (vsize(v) == 16)
			fprintf(fp, cfmt(f, "L", d->cconv), (long double)db);
		else
			fprintf(fp, cfmt(f, "", d->cconv), db);
	}
}

/* %a: a kernel address as module`symbol+0xoff, as stack() prints frames */
static void pr_addr(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	char sym[1024];

	ksyms_format(vunsigned(v), sym, sizeof(sym));
	fprintf(fp, cfmt(f, "", d->cconv), sym);
}

/*
 * %A: DTrace names a user address from the target process's symbols;
 * xdt has no user symbol tables yet, so it prints the address as DTrace
 * does for one it cannot name: 0x and hex.
 */
static void pr_uaddr(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	char s[32];

	snprintf(s, sizeof(s), "0x%llx", vunsigned(v));
	fprintf(fp, cfmt(f, "", d->cconv), s);
}

/*
 * %k: a stack() value, a newline then a frame a line; DTrace indents the
 * frames by the width when the conversion is left-aligned (%-20k), and
 * otherwise pads each frame's name to the width.
 */
static void pr_stack(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	char sym[1024];
	int indent = (d->flags & PF_LEFT) ? d->rwidth : 0;

	if (d->rwidth < 0)
		indent = -d->rwidth;
	cfmt(f, "", d->cconv);
	fputc('\n', fp);
	/* either kind of stack: a ustack()'s first word names its process */
	for (unsigned i = 0; dt_frame_format(v->p, v->size, i, sym, sizeof(sym));
	     i++) {
		fprintf(fp, "%*s", indent, "");
		fprintf(fp, f, sym);
		fputc('\n', fp);
	}
}

/*
 * %Y: nanoseconds since the epoch in local time, the way DTrace rearranges
 * ctime(3C)'s "Sun Jan  1 00:00:00 2006" into mdb's "2006 Jan  1 00:00:00".
 */
static void pr_strftime(FILE *fp, char *f, const struct pfdesc *d,
			const struct pfval *v, const char *how)
{
	time_t sec = (time_t)(vunsigned(v) / 1000000000ULL);
	char buf[64] = "";
	struct tm tm;

	if (localtime_r(&sec, &tm))
		strftime(buf, sizeof(buf), how, &tm);
	fprintf(fp, cfmt(f, "", d->cconv), buf);
}

static void pr_time(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	pr_strftime(fp, f, d, v, "%Y %b %e %H:%M:%S");
}

/*
 * %T: RFC 822 with DTrace's strftime() format, whose %G is the ISO 8601
 * week-based year: Sunday 1 January 2006 prints as 2005, as in DTrace.
 */
static void pr_time822(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	pr_strftime(fp, f, d, v, "%a, %d %b %G %T %Z");
}

static void pr_cstr(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	char *s = xzalloc(v->size + 1);

	memcpy(s, v->p, v->size);
	fprintf(fp, cfmt(f, "", d->cconv), s);
	xfree(s);
}

/*
 * DTrace's escaping of a string's @n bytes (strchr2esc): C's escapes for
 * the control characters it names, \" and \\, three octal digits for any
 * other byte outside '!'..'~' but space; a NUL is shown as \0 and ends it,
 * so a string shorter than strsize prints with a trailing \0.
 */
static char *escape(const unsigned char *s, size_t n)
{
	static const char named_esc[] = "\0\a\b\f\n\r\t\v\"\\";
	static const char letters[] = "0abfnrtv\"\\";
	char *out = xzalloc(4 * n + 1), *q = out;

	for (size_t i = 0; i < n; i++) {
		const char *e = s[i] ? memchr(named_esc + 1, s[i], sizeof(named_esc) - 2) :
				named_esc;

		if (e) {
			*q++ = '\\';
			*q++ = letters[e - named_esc];
		} else if (s[i] != ' ' && (s[i] < '!' || s[i] > '~')) {
			*q++ = '\\';
			*q++ = (char)('0' + (s[i] >> 6));
			*q++ = (char)('0' + ((s[i] >> 3) & 7));
			*q++ = (char)('0' + (s[i] & 7));
		} else {
			*q++ = (char)s[i];
		}
		if (!s[i])
			break;
	}
	return out;
}

static void pr_estr(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	char *s = escape(v->p, v->size);

	fprintf(fp, cfmt(f, "", d->cconv), s);
	xfree(s);
}

/* %C: one character, escaped as %S escapes */
static void pr_echr(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	unsigned char c = (unsigned char)vbits(v);
	char *s = escape(&c, 1);

	fprintf(fp, cfmt(f, "", d->cconv), s);
	xfree(s);
}

static void pr_pct(FILE *fp, char *f, const struct pfdesc *d, const struct pfval *v)
{
	(void)f, (void)d, (void)v;
	fputc('%', fp);
}

/* ---- the conversion table -------------------------------------------------- */
static const char t_xint[] = "char, short, int, long, or long long";
static const char t_csi[] = "char, short, or int";
static const char t_fp[] = "float, double, or long double";
static const char t_addr[] = "pointer or integer";
static const char t_uaddr[] =
	"pointer or integer (with -p/-c) or _usymaddr (without -p/-c)";
static const char t_cstr[] = "char [] or string (or use stringof)";
static const char t_wstr[] = "wchar_t []";

/*
 * name: as written after the flags (size prefix included); cconv: the C
 * conversion printed (before any "ll"/"L" the value's size adds); types:
 * what the messages say is expected, or the exact type ck_type wants.
 * %ls/%ws take wide strings, which xdt cannot record yet (refused below);
 * %wc is C's %lc (the w prefix is Solaris libc's).
 */
static const struct pfconv convs[] = {
	{ "a", "s", t_addr, ck_addr, pr_addr },
	{ "A", "s", t_uaddr, ck_uaddr, pr_uaddr },
	{ "c", "c", t_csi, ck_csi, pr_sint },
	{ "C", "s", t_csi, ck_csi, pr_echr },
	{ "d", "d", t_xint, ck_dint, pr_dint },
	{ "e", "e", t_fp, ck_fp, pr_fp },
	{ "E", "E", t_fp, ck_fp, pr_fp },
	{ "f", "f", t_fp, ck_fp, pr_fp },
	{ "g", "g", t_fp, ck_fp, pr_fp },
	{ "G", "G", t_fp, ck_fp, pr_fp },
	{ "hd", "d", "short", ck_type, pr_sint },
	{ "hi", "i", "short", ck_type, pr_sint },
	{ "ho", "o", "unsigned short", ck_type, pr_uint },
	{ "hu", "u", "unsigned short", ck_type, pr_uint },
	{ "hx", "x", "short", ck_xshort, pr_uint },
	{ "hX", "X", "short", ck_xshort, pr_uint },
	{ "i", "i", t_xint, ck_xint, pr_sint },
	{ "k", "s", "stack", ck_stack, pr_stack },
	{ "lc", "lc", "int", ck_type, pr_sint },
	{ "ld", "d", "long", ck_type, pr_sint },
	{ "li", "i", "long", ck_type, pr_sint },
	{ "lo", "o", "unsigned long", ck_type, pr_uint },
	{ "lu", "u", "unsigned long", ck_type, pr_uint },
	{ "ls", "ls", t_wstr, ck_wstr, NULL },
	{ "lx", "x", "long", ck_xlong, pr_uint },
	{ "lX", "X", "long", ck_xlong, pr_uint },
	{ "lld", "d", "long long", ck_type, pr_sint },
	{ "lli", "i", "long long", ck_type, pr_sint },
	{ "llo", "o", "unsigned long long", ck_type, pr_uint },
	{ "llu", "u", "unsigned long long", ck_type, pr_uint },
	{ "llx", "x", "long long", ck_xlonglong, pr_uint },
	{ "llX", "X", "long long", ck_xlonglong, pr_uint },
	{ "Le", "e", "long double", ck_type, pr_fp },
	{ "LE", "E", "long double", ck_type, pr_fp },
	{ "Lf", "f", "long double", ck_type, pr_fp },
	{ "Lg", "g", "long double", ck_type, pr_fp },
	{ "LG", "G", "long double", ck_type, pr_fp },
	{ "o", "o", t_xint, ck_xint, pr_uint },
	{ "p", "x", t_addr, ck_addr, pr_uint },
	{ "s", "s", t_cstr, ck_str, pr_cstr },
	{ "S", "s", t_cstr, ck_str, pr_estr },
	{ "T", "s", "int64_t", ck_time, pr_time822 },
	{ "u", "u", t_xint, ck_xint, pr_uint },
	{ "wc", "lc", "int", ck_type, pr_sint },
	{ "ws", "ls", t_wstr, ck_wstr, NULL },
	{ "x", "x", t_xint, ck_xint, pr_uint },
	{ "X", "X", t_xint, ck_xint, pr_uint },
	{ "Y", "s", "int64_t", ck_time, pr_time },
	{ "%", "%", "void", NULL, pr_pct },
};

static const struct pfconv *conv_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(convs) / sizeof(convs[0]); i++)
		if (!strcmp(convs[i].name, name))
			return &convs[i];
	return NULL;
}

/* ---- parsing (compile time) ------------------------------------------------ */
static struct pfdesc *new_desc(struct pformat *pf)
{
	pf->d = xrealloc(pf->d, (pf->nd + 1) * sizeof(*pf->d));
	memset(&pf->d[pf->nd], 0, sizeof(pf->d[0]));
	return &pf->d[pf->nd++];
}

/*
 * Split @fmt into descriptors, one per '%' (each with the text before it)
 * and one for any text after the last: DTrace's grammar, where flags,
 * digits, '.', '*', '?' (a pointer's width, 16 on LP64), '@' and the size
 * letters h l L w may come in any order before the conversion's letter.
 * A bad conversion is D_SYNTAX, the tag of DTrace's yywarn().
 */
struct pformat *pf_create(struct lexer *lx, int line, int col, const char *fmt)
{
	struct pformat *pf = xzalloc(sizeof(*pf));
	const char *p, *q;

	pf->text = xstrdup(fmt);
	for (q = pf->text; (p = strchr(q, '%')) != NULL; q = *p ? p + 1 : p) {
		struct pfdesc *d = new_desc(pf);
		char name[8];
		unsigned namelen = 0;
		int digits = 0, dot = 0, num = pf->nd;

		d->prefix = q;
		d->preflen = (size_t)(p - q);
		for (;;) {
			char c = *++p;
			unsigned bit;

			if (isdigit((unsigned char)c)) {
				int n = 0;

				/* a leading 0 is the flag; other digits a number */
				if (!dot && !digits && c == '0') {
					d->flags = (d->flags | PF_ZPAD) & ~PF_LEFT;
					continue;
				}
				for (; isdigit((unsigned char)*p); p++)
					n = n * 10 + (*p - '0');
				p--;
				*(dot ? &d->prec : &d->width) = n;
				digits++;
				continue;
			}
			switch (c) {
			case '#': d->flags |= PF_ALT; continue;
			case '+': d->flags |= PF_SPOS; continue;
			case '\'': d->flags |= PF_GROUP; continue;
			case ' ': d->flags |= PF_SPACE; continue;
			case '@': d->flags |= PF_AGG; continue;
			case '-': d->flags = (d->flags | PF_LEFT) & ~PF_ZPAD; continue;
			case '?': d->width = 16; continue;	/* LP64 */
			case '*':
				bit = dot ? PF_DYNPREC : PF_DYNWIDTH;
				if (d->flags & bit)
					dt_cerrt(lx, DT_D_SYNTAX, line, col,
						 "format conversion #%d has more than one '*' specified for the output %s",
						 num, dot ? "precision" : "width");
				d->flags |= bit;
				continue;
			case '.':
				if (dot++)
					dt_cerrt(lx, DT_D_SYNTAX, line, col,
						 "format conversion #%d has more than one '.' specified",
						 num);
				digits = 0;
				continue;
			case '$':
				dt_cerrt(lx, DT_D_SYNTAX, line, col,
					 "format conversion #%d uses unsupported positional format (%%n$)",
					 num);
			case '\0':
				dt_cerrt(lx, DT_D_SYNTAX, line, col,
					 "format conversion #%d name expected before end of format string",
					 num);
			case 'h': case 'l': case 'L': case 'w':
				if (namelen < sizeof(name) - 2)
					name[namelen++] = c;
				continue;
			case '%':
				if (p[-1] != '%')
					dt_cerrt(lx, DT_D_SYNTAX, line, col,
						 "format conversion #%d cannot be combined with other format flags: %%%%",
						 num);
				break;
			default:
				break;
			}
			name[namelen++] = c;
			name[namelen] = 0;
			break;
		}
		d->conv = conv_lookup(name);
		if (!d->conv)
			dt_cerrt(lx, DT_D_SYNTAX, line, col,
				 "format conversion #%d is undefined: %%%s", num, name);
	}
	if (*q || !*pf->text) {
		struct pfdesc *d = new_desc(pf);

		d->prefix = q;
		d->preflen = strlen(q);
	}
	return pf;
}

static const char *argname(const struct pfarg *a)
{
	return a->kind == PFA_STACK ? "stack" : a->kind == PFA_AGG ? "aggregation" :
	       a->kind == PFA_VOID ? "void" : type_str(a->t);
}

/*
 * Check each conversion against the argument it consumes (its '*' width
 * and precision first), with DTrace's tags and messages; @func names the
 * action, @foff how many of its arguments precede the values (1: the
 * format).  @c->aggt is the type of an aggregation's value, for printa()'s
 * %@ conversions; NULL elsewhere.  Sets each conversion's C conversion.
 */
void pf_validate(struct lexer *lx, struct pformat *pf, const struct pfcheck *c,
		 const char *func, int foff, const struct pfarg *av, int ac, int exact,
		 int line, int col)
{
	int i, j = 0;

	/* freopen("") is DTrace's way back to the original output */
	if (!pf->text[0] && strcmp(func, "freopen"))
		dt_cerrt(lx, DT_D_PRINTF_FMT_EMPTY, line, col,
			 "%s( ) format string is empty", func);
	pf->nvals = 0;
	for (i = 0; i < pf->nd; i++) {
		struct pfdesc *d = &pf->d[i];
		const struct pfconv *cv = d->conv;
		const char *dyns[2];
		int dync = 0;
		struct pfarg agg, va;
		const struct pfarg *v;
		char vname[64];

		if (!cv)
			continue;
		strcpy(d->cconv, cv->cconv);
		if (cv->print == pr_pct)
			continue;
		/* the precision's argument comes after the width's */
		if (d->flags & PF_DYNPREC)
			dyns[dync++] = ".*";
		if (d->flags & PF_DYNWIDTH)
			dyns[dync++] = "*";
		for (; dync; dync--, j++) {
			if (j >= ac)
				dt_cerrt(lx, DT_D_PRINTF_DYN_PROTO, line, col,
					 "%s( ) prototype mismatch: conversion #%d (%%%s) is missing a corresponding \"%s\" argument",
					 func, i + 1, cv->name, dyns[dync - 1]);
			if (!is_int(&av[j]))
				dt_cerrt(lx, DT_D_PRINTF_DYN_TYPE, av[j].line, av[j].col,
					 "%s( ) argument #%d is incompatible with conversion #%d prototype:\n"
					 "\tconversion: %% %s %s\n\t prototype: int\n\t  argument: %s",
					 func, j + foff + 1, i + 1, dyns[dync - 1], cv->name,
					 argname(&av[j]));
		}
		if (d->flags & PF_AGG) {
			if (!c->aggt)
				dt_cerrt(lx, DT_D_PRINTF_AGG_CONV, line, col,
					 "%%@ conversion requires an aggregation and is not for use with %s( )",
					 func);
			agg = (struct pfarg){ PFA_VALUE, c->aggt, line, col };
			v = &agg;
			snprintf(vname, sizeof(vname), "aggregating action");
		} else {
			if (j >= ac)
				dt_cerrt(lx, DT_D_PRINTF_ARG_PROTO, line, col,
					 "%s( ) prototype mismatch: conversion #%d (%%%s) is missing a corresponding value argument",
					 func, i + 1, cv->name);
			snprintf(vname, sizeof(vname), "argument #%d", j + foff + 1);
			va = av[j++];
			v = &va;
		}
		if (!cv->check(c, d, v))
			dt_cerrt(lx, DT_D_PRINTF_ARG_TYPE, v->line, v->col,
				 "%s( ) %s is incompatible with conversion #%d prototype:\n"
				 "\tconversion: %%%s\n\t prototype: %s\n\t  argument: %s",
				 func, vname, i + 1, cv->name, cv->types, argname(v));
		if (!cv->print)
			dt_cerrt(lx, DT_D_PRINTF_ARG_TYPE, v->line, v->col,
				 "%s( ) conversion #%d (%%%s): wide strings are not supported yet",
				 func, i + 1, cv->name);
	}
	if (exact && j < ac)
		dt_cerrt(lx, DT_D_PRINTF_ARG_EXTRA, av[j].line, av[j].col,
			 "%s( ) prototype mismatch: only %d arguments required by this format string",
			 func, j);
	pf->nvals = j;
}

/* ---- formatting (run time) -------------------------------------------------- */
/* DTrace reads a '*' argument as an int of the recorded value's size */
static int getint(const struct pfval *v)
{
	return (int)vsigned(v);
}

/*
 * Print @nv values through @pf's descriptors to @fp; returns how many
 * values it consumed, or -1 if there were too few (the compiler checked
 * the count: belt and braces).  @a holds the aggregation values %@
 * conversions print (printa()), else NULL: with one aggregation every %@
 * prints it, with several each takes the next.
 */
int pf_format(FILE *fp, const struct pformat *pf, const struct pfval *v, int nv,
	      const struct pfaggs *a)
{
	int k = 0, ka = 0;

	for (int i = 0; i < pf->nd; i++) {
		struct pfdesc d = pf->d[i];
		const struct pfval *val;
		char f[64];
		int width = d.width, prec = d.prec;

		fwrite(d.prefix, 1, d.preflen, fp);
		if (!d.conv)
			continue;
		if (d.conv->print == pr_pct) {
			fputc('%', fp);
			continue;
		}
		if (d.flags & PF_DYNWIDTH) {
			if (k >= nv)
				return -1;
			width = getint(&v[k++]);
		}
		if (d.flags & PF_DYNPREC) {
			if (k >= nv)
				return -1;
			prec = getint(&v[k++]);
		}
		if (d.flags & PF_AGG) {
			int j = a && a->n > 1 ? ka++ : 0;

			if (!a || j >= a->n)
				return -1;
			if (a->dist && a->dist(fp, j, a->ctx))
				continue;	/* a distribution, drawn */
			val = &a->v[j];
		} else {
			if (k >= nv)
				return -1;
			val = &v[k++];
		}
		d.rwidth = width;
		/* the flags in DTrace's order, then width and precision */
		strcpy(f, "%");
		if (d.flags & PF_ALT)
			strcat(f, "#");
		if (d.flags & PF_ZPAD)
			strcat(f, "0");
		if (d.flags & PF_LEFT)
			strcat(f, "-");
		if (d.flags & PF_SPOS)
			strcat(f, "+");
		if (d.flags & PF_GROUP)
			strcat(f, "'");
		if (d.flags & PF_SPACE)
			strcat(f, " ");
		/* a left-aligned %k indents by its width instead */
		if (d.conv->print == pr_stack && (d.flags & PF_LEFT))
			width = 0;
		if (width)
			snprintf(f + strlen(f), 16, "%d", width);
		/*
		 * DTrace drops a precision of 0 (%.0f prints as %f, %.0s the
		 * whole string); a negative '*' precision is C's "none".
		 */
		if (prec > 0)
			snprintf(f + strlen(f), 16, ".%d", prec);
		d.conv->print(fp, f, &d, val);
	}
	return k;
}
