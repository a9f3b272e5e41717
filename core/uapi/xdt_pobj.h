/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt_pobj.h - the program object's layout (xdt.h, struct xdt_prog), once
 * for every user-space builder: the compiler (libxdt/prog.c), the raw
 * program tool, the fuzzer and the BPF bench's xdt rows (guest/).  The
 * kernel's checks (core/portable/load.c) are the contract; this is the one way the
 * builders meet them.
 *
 * The caller fills the header's counts and settings; xdt_pobj_layout()
 * places the sections one after the other in xdt.h's order, each 8-byte
 * aligned (insns need 4, the rest 8; the string table is aligned too, so a
 * section never starts at an odd offset), and sets the offsets, magic,
 * version and size.  xdt_pobj_write() copies the header and the sections
 * into a buffer of that size (zeroed between them), for a builder whose
 * sections are arrays already; one that converts its own structures (the
 * compiler) writes at the offsets itself.
 */
#ifndef XDT_POBJ_H
#define XDT_POBJ_H

#include <string.h>
#include "xdt.h"

struct xdt_pobj_sections {
	const void *clauses;		/* struct xdt_clause[nclauses] */
	const void *actions;		/* struct xdt_action[nactions] */
	const void *difos;		/* struct xdt_difo[ndifos] */
	const void *insns;		/* __u32[ninsns] */
	const void *ints;		/* __u64[nints] */
	const void *strtab;		/* char[strtab_len] */
	const void *vars;		/* struct xdt_var[nvars] */
	const void *aggs;		/* struct xdt_aggdesc[naggs] */
};

static inline __u32 xdt_pobj_align8(__u64 n)
{
	return (__u32)((n + 7) & ~(__u64)7);
}

/* Offsets, magic, version and size of @h from its counts: the size. */
static inline __u32 xdt_pobj_layout(struct xdt_prog *h)
{
	__u64 off = xdt_pobj_align8(sizeof(*h));

#define XDT_POBJ_PLACE(field, n, elem) do {				\
		h->field = (__u32)off;					\
		off = xdt_pobj_align8(off + (__u64)(n) * (elem));	\
	} while (0)
	XDT_POBJ_PLACE(clauses_off, h->nclauses, sizeof(struct xdt_clause));
	XDT_POBJ_PLACE(actions_off, h->nactions, sizeof(struct xdt_action));
	XDT_POBJ_PLACE(difos_off, h->ndifos, sizeof(struct xdt_difo));
	XDT_POBJ_PLACE(insns_off, h->ninsns, sizeof(__u32));
	XDT_POBJ_PLACE(ints_off, h->nints, sizeof(__u64));
	XDT_POBJ_PLACE(strtab_off, h->strtab_len, 1);
	XDT_POBJ_PLACE(vars_off, h->nvars, sizeof(struct xdt_var));
	XDT_POBJ_PLACE(aggs_off, h->naggs, sizeof(struct xdt_aggdesc));
#undef XDT_POBJ_PLACE
	h->magic = XDT_PROG_MAGIC;
	h->version = XDT_ABI_VERSION;
	h->size = (__u32)off;
	return h->size;
}

/* @h (laid out) and @s into @buf, h->size bytes. */
static inline void xdt_pobj_write(void *buf, const struct xdt_prog *h,
				  const struct xdt_pobj_sections *s)
{
	char *b = (char *)buf;

	memset(b, 0, h->size);
	memcpy(b, h, sizeof(*h));
#define XDT_POBJ_COPY(field, src, n, elem) do {				\
		if ((n) && (src))					\
			memcpy(b + h->field, src, (size_t)(n) * (elem));	\
	} while (0)
	XDT_POBJ_COPY(clauses_off, s->clauses, h->nclauses,
		      sizeof(struct xdt_clause));
	XDT_POBJ_COPY(actions_off, s->actions, h->nactions,
		      sizeof(struct xdt_action));
	XDT_POBJ_COPY(difos_off, s->difos, h->ndifos, sizeof(struct xdt_difo));
	XDT_POBJ_COPY(insns_off, s->insns, h->ninsns, sizeof(__u32));
	XDT_POBJ_COPY(ints_off, s->ints, h->nints, sizeof(__u64));
	XDT_POBJ_COPY(strtab_off, s->strtab, h->strtab_len, 1);
	XDT_POBJ_COPY(vars_off, s->vars, h->nvars, sizeof(struct xdt_var));
	XDT_POBJ_COPY(aggs_off, s->aggs, h->naggs, sizeof(struct xdt_aggdesc));
#undef XDT_POBJ_COPY
}

#endif
