/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_types.h - the D type table (types.c) and the kernel's types from BTF
 * (btf.c).  The types themselves, and the queries the consumer's
 * printers make, are in dt_program.h.
 */
#ifndef XDT_DT_TYPES_H
#define XDT_DT_TYPES_H

#include "dt_program.h"

struct dtype *type_named(const char *name);	/* typedefs, base names */
struct dtype *type_tagged(enum tkind k, const char *tag, int create);
/* D's own names only (type_named/type_tagged also ask the kernel's BTF) */
struct dtype *type_tagged_local(enum tkind k, const char *tag);
/* btf.c's: the base types, then the kernel's own table (types.c) */
struct dtype *type_kernel_named(const char *name);
struct dtype *type_kernel_tagged(enum tkind k, const char *tag, int create);
struct dtype *type_kernel_typedef(const char *name, struct dtype *t);
struct dtype *type_new(enum tkind k, const char *name, unsigned size, int sgn);
int type_defined(struct dtype *t);	/* complete (a kernel struct: now) */
struct dtype *type_ptr(struct dtype *t);
struct dtype *type_array(struct dtype *t, unsigned n);
struct dtype *type_func(struct dtype *ret);	/* a function returning ret */
struct dtype *type_typedef(const char *name, struct dtype *t);
struct dtype *type_int(unsigned size, int sgn);
int type_combine(const char **words, int n, struct dtype **out);
const struct dmember *type_member(const struct dtype *t, const char *name);
int type_is_strlike(const struct dtype *t);	/* string, char *, char[] */
int type_compat(const struct dtype *a, const struct dtype *b);
struct dtype *type_promote(struct dtype *t);
struct dtype *type_arith(struct dtype *a, struct dtype *b);
int type_isword(const char *s);			/* a type-starting word */
void type_enumconst_add(const char *name, long long v, struct dtype *t);
struct dtype *type_enumconst(const char *name, long long *v);


/* btf.c: the kernel's types (docs/d-language.md, "Kernel types") */
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

#endif
