// SPDX-License-Identifier: GPL-2.0
/*
 * types.c - the D type table: C's integer types of every width (LP64, as
 * every ISA xdt runs on), pointers, arrays, D's string, and the structs,
 * unions, enums and typedefs a script declares.  One namespace for typedef
 * and base names, one per tag kind (struct/union/enum), as in C.
 *
 * A typedef is its own struct dtype (so messages print the name the
 * script used) whose @real points at the type it names; every predicate
 * below looks through it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "dt_types.h"

struct dtype *dt_void, *dt_int, *dt_uint, *dt_long, *dt_ulong, *dt_char,
	*dt_uchar, *dt_string, *dt_int64, *dt_uint64;

struct tnode {
	char *name;
	enum tkind tagk;	/* TK_VOID: a plain name; else a tag of that kind */
	struct dtype *t;
	struct tnode *next;
};
static struct tnode *names;

/* Enum constants share the identifier namespace of D variables. */
struct econst {
	char *name;
	long long v;
	struct dtype *t;
	struct econst *next;
};
static struct econst *econsts;
static struct dtype *typedef_new(const char *name, struct dtype *t);

static struct dtype *tnew(enum tkind k, const char *name, unsigned size, int sgn)
{
	struct dtype *t = xzalloc(sizeof(*t));

	t->k = k;
	t->name = xstrdup(name);
	t->size = size;
	t->align = size ? (size > 8 ? 8 : size) : 1;
	t->sgn = sgn;
	t->real = t;
	t->global = !dt_zone_cur;
	return t;
}

static void bind(const char *name, enum tkind tagk, struct dtype *t)
{
	struct tnode *n = xzalloc(sizeof(*n));

	n->name = xstrdup(name);
	n->tagk = tagk;
	n->t = t;
	n->next = names;
	names = n;
}

static struct dtype *find_in(struct tnode *l, const char *name, enum tkind tagk)
{
	for (struct tnode *n = l; n; n = n->next)
		if (n->tagk == tagk && !strcmp(n->name, name))
			return n->t;
	return NULL;
}

static struct dtype *find(const char *name, enum tkind tagk)
{
	return find_in(names, name, tagk);
}

struct dtype *type_int(unsigned size, int sgn)
{
	switch (size) {
	case 1: return sgn ? dt_char : dt_uchar;
	case 2: return type_named(sgn ? "short" : "unsigned short");
	case 4: return sgn ? dt_int : dt_uint;
	default: return sgn ? dt_long : dt_ulong;
	}
}

/*
 * What inet_ntoa(), inet_ntoa6() and inet_ntop() take, as DTrace's D
 * library (net.d) names it: ipaddr_t, struct in6_addr / in6_addr_t (16
 * bytes, Linux's layout too) and the address families -- Linux's values,
 * since the addresses scripts pass are Linux's (AF_INET6 is 26 on illumos).
 */
static void net_types(void)
{
	struct dtype *in6 = type_tagged(TK_STRUCT, "in6_addr", 1);
	struct dtype *fam = tnew(TK_ENUM, "enum <address families>", 4, 1);

	struct dtype *un = tnew(TK_UNION, "union <in6_addr>", 16, 0);

	type_typedef("ipaddr_t", find("uint32_t", TK_VOID));
	/*
	 * The illumos layout scripts name (ip6->_S6_un._S6_u8[i]), with the
	 * s6_addr of both (illumos' macro for _S6_un._S6_u8, Linux's for
	 * in6_u.u6_addr8) as a member over the same 16 bytes.
	 */
	un->mems = xzalloc(2 * sizeof(*un->mems));
	un->mems[0].name = xstrdup("_S6_u8");
	un->mems[0].t = type_array(find("uint8_t", TK_VOID), 16);
	un->mems[1].name = xstrdup("_S6_u32");
	un->mems[1].t = type_array(find("uint32_t", TK_VOID), 4);
	un->nmems = 2;
	un->align = 4;
	un->defined = 1;
	in6->mems = xzalloc(2 * sizeof(*in6->mems));
	in6->mems[0].name = xstrdup("_S6_un");
	in6->mems[0].t = un;
	in6->mems[1].name = xstrdup("s6_addr");
	in6->mems[1].t = type_array(find("uint8_t", TK_VOID), 16);
	in6->nmems = 2;
	in6->size = 16;
	in6->align = 4;
	in6->defined = 1;
	type_typedef("in6_addr_t", in6);
	fam->defined = 1;
	type_enumconst_add("AF_INET", 2, fam);
	type_enumconst_add("AF_INET6", 10, fam);
}

int types_ready(void)
{
	return names != NULL;
}

/*
 * The base types -- C's, D's library typedefs, the network types -- are
 * the process's, made once with no zone current: the kernel's types
 * converted from BTF (btf.c, cached process-wide too) point at them, so
 * they must outlive every handle.  What a handle adds to the table (its
 * declarations, its string type, whose size is its -x strsize) is its
 * own, in its zone, on top of this mark.
 */
static struct type_mark base;

static void types_base(void)
{
	static const struct { const char *n; unsigned size; int sgn; } ints[] = {
		{ "char", 1, 1 }, { "signed char", 1, 1 }, { "unsigned char", 1, 0 },
		{ "short", 2, 1 }, { "unsigned short", 2, 0 },
		{ "int", 4, 1 }, { "unsigned int", 4, 0 },
		{ "long", 8, 1 }, { "unsigned long", 8, 0 },
		{ "long long", 8, 1 }, { "unsigned long long", 8, 0 },
	};
	/* the typedefs DTrace's D library has on every platform */
	static const struct { const char *n, *of; } tdefs[] = {
		{ "int8_t", "signed char" }, { "int16_t", "short" },
		{ "int32_t", "int" }, { "int64_t", "long long" },
		{ "uint8_t", "unsigned char" }, { "uint16_t", "unsigned short" },
		{ "uint32_t", "unsigned int" }, { "uint64_t", "unsigned long long" },
		{ "intptr_t", "long" }, { "uintptr_t", "unsigned long" },
		{ "ssize_t", "long" }, { "size_t", "unsigned long" },
		{ "ptrdiff_t", "long" }, { "off_t", "long" }, { "off64_t", "long" },
		{ "pid_t", "int" }, { "id_t", "int" }, { "uid_t", "unsigned int" },
		{ "gid_t", "unsigned int" }, { "dev_t", "unsigned long" },
		{ "ino_t", "unsigned long" }, { "mode_t", "unsigned int" },
		{ "time_t", "long" }, { "clock_t", "long" },
		{ "hrtime_t", "long long" }, { "processorid_t", "int" },
		{ "uchar_t", "unsigned char" }, { "ushort_t", "unsigned short" },
		{ "uint_t", "unsigned int" }, { "ulong_t", "unsigned long" },
		{ "u_longlong_t", "unsigned long long" },
		{ "longlong_t", "long long" }, { "boolean_t", "int" },
		{ "zoneid_t", "int" }, { "taskid_t", "int" },
		{ "projid_t", "int" }, { "major_t", "unsigned int" },
		{ "minor_t", "unsigned int" }, { "psetid_t", "int" },
		{ "chipid_t", "int" }, { "lgrp_id_t", "int" },
	};
	struct dtype *t;

	/* (an unwind out of here leaves base unset: the next call starts over) */
	names = NULL;
	econsts = NULL;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		bind(ints[i].n, TK_VOID, tnew(TK_INT, ints[i].n, ints[i].size,
					       ints[i].sgn));
	dt_char = find("char", TK_VOID);
	dt_uchar = find("unsigned char", TK_VOID);
	dt_int = find("int", TK_VOID);
	dt_uint = find("unsigned int", TK_VOID);
	dt_long = find("long", TK_VOID);
	dt_ulong = find("unsigned long", TK_VOID);
	/*
	 * C99's _Bool: one of DTrace's intrinsic types (dt_open.c), a name
	 * and not a keyword there too; an unsigned byte, which a cast
	 * narrows like any other (DTrace's typecast does not make it 0 or 1).
	 */
	bind("_Bool", TK_VOID, tnew(TK_INT, "_Bool", 1, 0));
	dt_void = tnew(TK_VOID, "void", 0, 0);
	bind("void", TK_VOID, dt_void);
	bind("float", TK_VOID, tnew(TK_FLOAT, "float", 4, 1));
	bind("double", TK_VOID, tnew(TK_FLOAT, "double", 8, 1));
	bind("long double", TK_VOID, tnew(TK_FLOAT, "long double", 16, 1));
	for (size_t i = 0; i < sizeof(tdefs) / sizeof(tdefs[0]); i++)
		type_typedef(tdefs[i].n, find(tdefs[i].of, TK_VOID));
	dt_int64 = find("int64_t", TK_VOID);
	dt_uint64 = find("uint64_t", TK_VOID);
	t = type_ptr(dt_char);
	type_typedef("caddr_t", t);
	type_typedef("uintptr_t", dt_ulong);
	net_types();
	dt_string = NULL;
	type_mark(&base);
}

void types_init(unsigned strsize)
{
	/*
	 * A new handle's table starts over from the base, its enumerators
	 * too: kept, a second handle in the process found the first's (its
	 * script's `enum { A }` was "identifier redeclared: A").
	 */
	if (!base.names) {
		struct dt_zone *z = dt_zone_enter(NULL);

		types_base();
		dt_zone_enter(z);
	}
	type_rollback(&base);
	dt_string = tnew(TK_STRING, "string", strsize, 0);
	dt_string->align = 1;
	bind("string", TK_VOID, dt_string);
}

struct dtype *type_tagged_local(enum tkind k, const char *tag)
{
	return find(tag, k);
}

/*
 * The kernel's tags and typedefs as btf.c converts them: a table of their
 * own, the process's, above the base types -- never the handle's, whose
 * declarations a kernel type must not take (a script's `struct foo` is
 * not the kernel's, and the conversion is cached for every handle after).
 */
static struct tnode *knames;

static void kbind(const char *name, enum tkind tagk, struct dtype *t)
{
	struct tnode *save = names;

	names = knames;
	bind(name, tagk, t);
	knames = names;
	names = save;
}

struct dtype *type_kernel_named(const char *name)
{
	struct dtype *t = find_in(base.names, name, TK_VOID);

	return t ? t : find_in(knames, name, TK_VOID);
}

/* A new, incomplete struct, union or enum named @tag (not yet bound) */
static struct dtype *tag_new(enum tkind k, const char *tag)
{
	struct dtype *t;
	char buf[300];

	snprintf(buf, sizeof(buf), "%s %s", k == TK_STRUCT ? "struct" :
		 k == TK_UNION ? "union" : "enum", tag);
	t = tnew(k, buf, k == TK_ENUM ? 4 : 0, 1);
	t->tag = xstrdup(tag);
	return t;
}

struct dtype *type_kernel_tagged(enum tkind k, const char *tag, int create)
{
	struct dtype *t = find_in(base.names, tag, k);

	if (!t)
		t = find_in(knames, tag, k);
	if (t || !create)
		return t;
	t = tag_new(k, tag);
	kbind(tag, k, t);
	return t;
}

struct dtype *type_kernel_typedef(const char *name, struct dtype *t)
{
	struct dtype *d = typedef_new(name, t);

	kbind(name, TK_VOID, d);
	return d;
}

struct dtype *type_new(enum tkind k, const char *name, unsigned size, int sgn)
{
	return tnew(k, name, size, sgn);
}

/* D's names first; then the kernel's typedefs, imported on first use */
struct dtype *type_named(const char *name)
{
	struct dtype *t = find(name, TK_VOID);

	return t ? t : btf_named(name);
}

void type_complete(struct dtype *t)
{
	if (t->real->btfid && !t->real->defined)
		btf_complete(t->real);
}

int type_defined(struct dtype *t)
{
	type_complete(t);
	return t->real->defined;
}

/*
 * A tag: D's, else (a lookup, !create) the kernel's; create makes D's own
 * (a declaration with a body never reaches the kernel's: see parse.c).
 */
struct dtype *type_tagged(enum tkind k, const char *tag, int create)
{
	struct dtype *t = find(tag, k);

	if (!t && !create)
		t = btf_tagged(k, tag);
	if (t || !create)
		return t;
	t = tag_new(k, tag);
	bind(tag, k, t);
	return t;
}

/*
 * C's name of a derived type, as libctf's ctf_type_name writes it (what
 * DTrace prints): the new declarator goes where a name would go in
 * @t's name -- its declarator point, the end of a base or typedef name,
 * else just inside the innermost "(*" -- so a pointer to an array is
 * "int (*)[4]", an array of pointers "int *[4]", an array of arrays
 * "int [2][3]", a function "int ()" and a pointer to one "int (*)()".
 */
static size_t dpoint(const struct dtype *t)
{
	return t->dp ? t->dp : strlen(t->name);
}

static struct dtype *derive(struct dtype *t, enum tkind k, unsigned size,
			    const char *decl)
{
	size_t at = dpoint(t), n;
	const char *rest = t->name + at;
	char prev = at ? t->name[at - 1] : ' ';
	int bare = prev == '*' || prev == '(' || prev == ' ';
	/* a suffix (array, function) binds tighter than '*': parenthesize */
	int paren = k == TK_PTR && t->real == t &&
		    (t->k == TK_ARRAY || t->k == TK_FUNC);
	struct dtype *d;
	char *buf;

	if (*rest == ' ')
		rest++;		/* "int [3]" under "[2]": "int [2][3]" */
	n = at + strlen(decl) + strlen(rest) + 8;
	buf = xzalloc(n);
	snprintf(buf, n, "%.*s%s%s%s%s%s", (int)at, t->name, bare ? "" : " ",
		 paren ? "(" : "", decl, paren ? ")" : "", rest);
	d = tnew(k, buf, size, 0);
	xfree(buf);
	/* the next declarator goes after a '*', before a suffix */
	d->dp = at + (bare ? 0 : 1) + (paren ? 1 : 0) + (k == TK_PTR ? 1 : 0);
	d->base = t;
	return d;
}

struct dtype *type_ptr(struct dtype *t)
{
	struct dt_zone *z;

	if (t->ptr)
		return t->ptr;
	/* cached on @t: as long-lived as @t (a base or kernel type's outlives
	   the handle whose program asked first) */
	z = dt_zone_enter(t->global ? NULL : dt_zone_cur);
	t->ptr = derive(t, TK_PTR, 8, "*");
	dt_zone_enter(z);
	return t->ptr;
}

struct dtype *type_array(struct dtype *t, unsigned n)
{
	char dim[16];
	struct dtype *a;

	snprintf(dim, sizeof(dim), "[%u]", n);
	a = derive(t, TK_ARRAY, t->real->size * n, dim);
	a->align = t->real->align;
	a->nelem = n;
	return a;
}

/*
 * A function returning @ret: D declares them (prototypes, pointers to
 * them) but never calls one, so the parameters are not kept -- as
 * ctf_type_name prints "()" whatever they are.
 */
struct dtype *type_func(struct dtype *ret)
{
	struct dtype *f = derive(ret, TK_FUNC, 0, "()");

	f->align = 1;
	return f;
}

static struct dtype *typedef_new(const char *name, struct dtype *t)
{
	struct dtype *d = xzalloc(sizeof(*d));

	*d = *t->real;
	d->name = xstrdup(name);
	d->dp = 0;
	d->real = t->real;
	d->ptr = NULL;
	d->global = !dt_zone_cur;
	return d;
}

struct dtype *type_typedef(const char *name, struct dtype *t)
{
	struct dtype *d = typedef_new(name, t);

	bind(name, TK_VOID, d);
	return d;
}

static int is_intword(const char *s)
{
	return !strcmp(s, "char") || !strcmp(s, "short") || !strcmp(s, "int") ||
	       !strcmp(s, "long") || !strcmp(s, "signed") ||
	       !strcmp(s, "unsigned") || !strcmp(s, "float") ||
	       !strcmp(s, "double") || !strcmp(s, "void");
}

int type_isword(const char *s)
{
	return is_intword(s) || !strcmp(s, "struct") || !strcmp(s, "union") ||
	       !strcmp(s, "enum") || !strcmp(s, "const") ||
	       !strcmp(s, "volatile") || !strcmp(s, "restrict") ||
	       type_named(s) != NULL;
}

/*
 * C's base type from a run of words ("unsigned long long", "short int",
 * a typedef name).  0 if the words do not make a type; -1 for a
 * combination C refuses ("signed unsigned": D_DECL_COMBO); -6 for "short
 * char" or "long char" (D_DECL_CHARATTR).
 */
int type_combine(const char **w, int n, struct dtype **out)
{
	int sgn = -1, lng = 0, shrt = 0, base = 0;	/* base: 1 char 2 int 3 float 4 double 5 void */
	char buf[64];

	if (n == 1 && !is_intword(w[0])) {
		*out = type_named(w[0]);
		return *out != NULL;
	}
	for (int i = 0; i < n; i++) {
		const char *s = w[i];

		if (!strcmp(s, "signed") || !strcmp(s, "unsigned")) {
			if (sgn >= 0)
				return sgn == !strcmp(s, "signed") ? -5 : -2;
			sgn = !strcmp(s, "signed");
		} else if (!strcmp(s, "long")) {
			if (++lng > 2)
				return -5;	/* repeated: D_DECL_COMBO */
			if (shrt)
				return -1;
		} else if (!strcmp(s, "short")) {
			if (shrt)
				return -5;
			if (lng)
				return -1;
			shrt = 1;
		} else {
			int b = !strcmp(s, "char") ? 1 : !strcmp(s, "int") ? 2 :
				!strcmp(s, "float") ? 3 : !strcmp(s, "double") ? 4 :
				!strcmp(s, "void") ? 5 : 0;

			if (!b)
				return -1;
			if (base)
				return base == b ? -5 : -1;
			base = b;
		}
	}
	if (base == 5 && (lng || shrt || sgn >= 0))
		return -4;	/* "short void": D_DECL_VOIDATTR */
	if (base >= 3 && sgn >= 0)
		return -2;
	if (base == 1 && (lng || shrt))
		return -6;	/* "short char": D_DECL_CHARATTR */
	if ((base >= 3 && shrt) ||
	    (base == 3 && lng) || (base == 4 && lng > 1))
		return -3;
	if (base == 5) {
		*out = dt_void;
		return 1;
	}
	if (base == 3 || base == 4) {
		*out = type_named(base == 3 ? "float" : lng ? "long double" : "double");
		return 1;
	}
	if (base == 1) {
		*out = sgn < 0 ? dt_char : sgn ? type_named("signed char") : dt_uchar;
		return 1;
	}
	snprintf(buf, sizeof(buf), "%s%s", sgn == 0 ? "unsigned " : "",
		 shrt ? "short" : lng == 2 ? "long long" : lng ? "long" : "int");
	*out = type_named(buf);
	return 1;
}

const struct dmember *type_member(const struct dtype *t, const char *name)
{
	type_complete((struct dtype *)t);
	t = t->real;
	for (int i = 0; i < t->nmems; i++)
		if (!strcmp(t->mems[i].name, name))
			return &t->mems[i];
	return NULL;
}

int type_is_int(const struct dtype *t)
{
	return t->real->k == TK_INT || t->real->k == TK_ENUM;
}

int type_is_scalar(const struct dtype *t)
{
	return type_is_int(t) || t->real->k == TK_PTR;
}

int type_is_strlike(const struct dtype *t)
{
	t = t->real;
	return t->k == TK_STRING ||
	       ((t->k == TK_PTR || t->k == TK_ARRAY) && t->base->real->k == TK_INT &&
		t->base->real->size == 1);
}

int type_is_byref(const struct dtype *t)
{
	t = t->real;
	return t->k == TK_STRING || t->k == TK_ARRAY || t->k == TK_STRUCT ||
	       t->k == TK_UNION;
}

/*
 * A key held by its bytes (DTrace's by-reference tuple element): a struct,
 * union or array of known size that is not a string (char[] keys are
 * strings, as D treats them), at most XDT_KEYMEM_MAX bytes.
 */
int type_is_keybytes(const struct dtype *t)
{
	t = t->real;
	return (t->k == TK_STRUCT || t->k == TK_UNION || t->k == TK_ARRAY) &&
	       !type_is_strlike(t) && t->size > 0;
}

/* Same type, looking through typedefs (and pointers to the same type). */
int type_compat(const struct dtype *a, const struct dtype *b)
{
	a = a->real;
	b = b->real;
	if (a == b)
		return 1;
	if (a->k != b->k)
		return 0;
	switch (a->k) {
	case TK_INT:
		return a->size == b->size && a->sgn == b->sgn;
	case TK_PTR:
		return a->base->real->k == TK_VOID || b->base->real->k == TK_VOID ||
		       type_compat(a->base, b->base);
	case TK_ARRAY:
		return a->nelem == b->nelem && type_compat(a->base, b->base);
	case TK_STRING:
	case TK_VOID:
		return 1;
	default:
		return 0;
	}
}

/* C's integer promotion: everything narrower than int becomes int. */
struct dtype *type_promote(struct dtype *t)
{
	if (t->real->k == TK_ENUM)
		return dt_int;
	if (t->real->k == TK_INT && t->real->size < 4)
		return dt_int;
	return t;
}

/* C's usual arithmetic conversions, LP64. */
struct dtype *type_arith(struct dtype *a, struct dtype *b)
{
	struct dtype *x = type_promote(a)->real, *y = type_promote(b)->real;

	if (x->size != y->size) {
		struct dtype *big = x->size > y->size ? x : y;

		/* the wider type holds every value of the narrower */
		return big == x ? type_promote(a) : type_promote(b);
	}
	if (!x->sgn)
		return type_promote(a);
	if (!y->sgn)
		return type_promote(b);
	return type_promote(a);
}

const char *type_str(const struct dtype *t)
{
	return t ? t->name : "?";
}

void type_enumconst_add(const char *name, long long v, struct dtype *t)
{
	struct econst *e = xzalloc(sizeof(*e));

	e->name = xstrdup(name);
	e->v = v;
	e->t = t;
	e->next = econsts;
	econsts = e;
}

struct dtype *type_enumconst(const char *name, long long *v)
{
	for (struct econst *e = econsts; e; e = e->next) {
		if (!strcmp(e->name, name)) {
			*v = e->v;
			return e->t;
		}
	}
	return btf_enumconst(name, v);
}

/*
 * The names a compilation declared, dropped again: libxdt compiles a
 * program a second time after loading the D library (load_libs), and
 * the first attempt's typedefs, tags and enumerators must not make the
 * second's "redeclared".  Both lists only grow at their heads.
 */
void type_mark(struct type_mark *m)
{
	m->names = names;
	m->econsts = econsts;
	m->string = dt_string;
}

void type_rollback(const struct type_mark *m)
{
	names = m->names;
	econsts = m->econsts;
	dt_string = m->string;
}

void types_base_table(void)
{
	if (base.names)
		type_rollback(&base);
}
