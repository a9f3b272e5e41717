// SPDX-License-Identifier: GPL-2.0
/*
 * prog.c - the program object of xdt.h: one blob, laid out by
 * xdt_pobj_layout() (core/uapi/xdt_pobj.h, shared with the guest tools),
 * offsets from the blob's start.  The difos' private insn/int/
 * string arrays are concatenated and each difo records its slices.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "dt_consumer.h"
#include "xdt_pobj.h"

void *prog_blob(const struct prog *p, size_t *size)
{
	struct xdt_prog h = { 0 };
	size_t ninsns = 0, nints = 0, nstr = 0, off;
	struct xdt_clause *cl;
	struct xdt_difo *df;
	__u32 *insns;
	__u64 *ints;
	char *blob, *str;
	int i;

	for (i = 0; i < p->ndifos; i++) {
		ninsns += p->difos[i].ninsns;
		nints += p->difos[i].nints;
		nstr += p->difos[i].strlen;
	}
	h.nclauses = p->nclauses;
	h.nactions = p->nacts;
	h.ndifos = p->ndifos;
	h.ninsns = (__u32)ninsns;
	h.nints = (__u32)nints;
	h.strtab_len = (__u32)nstr;
	h.nvars = (__u32)p->nvars;
	h.naggs = p->naggs;
	h.strsize = p->strsize;
	h.bufsize = p->bufsize;
	h.aggsize = p->aggsize;
	h.bufpolicy = p->bufpolicy;
	h.fbtmode = p->fbtmode;
	h.onecpu = p->onecpu;
	/* speculative buffers only for a program that speculates */
	h.nspec = p->speculates ? (p->nspec ? p->nspec : 1) : 0;
	h.specsize = p->specsize;
	h.dynvarsize = p->dynvarsize;
	h.scratchsize = p->scratchsize;
	h.cleanrate = p->cleanrate;
	h.flags = p->flags;
	off = xdt_pobj_layout(&h);

	blob = xzalloc(off);
	memcpy(blob, &h, sizeof(h));
	cl = (struct xdt_clause *)(blob + h.clauses_off);
	for (i = 0; i < p->nclauses; i++) {
		cl[i].desc = p->clauses[i].desc;
		cl[i].pred = p->clauses[i].pred;
		cl[i].action0 = (__u32)p->clauses[i].action0;
		cl[i].nactions = (__u32)p->clauses[i].nactions;
		cl[i].flags = (p->clauses[i].record ? XDT_CLAUSE_RECORD : 0) |
			      (p->clauses[i].spec ? XDT_CLAUSE_SPEC : 0);
	}
	if (p->nacts)
		memcpy(blob + h.actions_off, p->acts, p->nacts * sizeof(struct xdt_action));
	df = (struct xdt_difo *)(blob + h.difos_off);
	insns = (__u32 *)(blob + h.insns_off);
	ints = (__u64 *)(blob + h.ints_off);
	str = blob + h.strtab_off;
	ninsns = nints = nstr = 0;
	for (i = 0; i < p->ndifos; i++) {
		const struct difo *d = &p->difos[i];

		df[i].insn0 = (__u32)ninsns;
		df[i].ninsns = (__u32)d->ninsns;
		df[i].int0 = (__u32)nints;
		df[i].nints = (__u32)d->nints;
		df[i].str0 = (__u32)nstr;
		df[i].strlen = (__u32)d->strlen;
		df[i].rtype = (__u32)d->rtype;
		memcpy(insns + ninsns, d->insns, d->ninsns * sizeof(__u32));
		if (d->nints)
			memcpy(ints + nints, d->ints, d->nints * sizeof(__u64));
		if (d->strlen)
			memcpy(str + nstr, d->strtab, d->strlen);
		ninsns += d->ninsns;
		nints += d->nints;
		nstr += d->strlen;
	}
	for (i = 0; i < p->nvars; i++) {
		struct xdt_var *v = (struct xdt_var *)(blob + h.vars_off) + i;
		const struct dvar *dv = p->vars[i];
		const struct dtype *t = dv->t->real;

		v->scope = (__u16)dv->scope;
		v->kind = dv->array ? XDT_VAR_ARRAY : XDT_VAR_SCALAR;
		if (t->k == TK_STRING) {
			v->flags = XDT_VF_BYREF | XDT_VF_STRING;
			v->size = p->strsize;
		} else if (type_is_byref(t)) {
			v->flags = XDT_VF_BYREF;
			v->size = (t->size + 7) & ~7u;
		} else {
			v->size = 8;
		}
		v->nkeys = (__u32)dv->nkeys;
		for (int k = 0; k < dv->nkeys; k++)
			if (dv->keyt[k]->real->k == TK_STRING)
				v->keykinds |= 1u << k;
			else if (type_is_keybytes(dv->keyt[k]))
				v->keysize[k] = (__u16)dv->keyt[k]->real->size;
		snprintf(v->name, sizeof(v->name), "%s", dv->name);
	}
	for (i = 0; i < p->naggs; i++) {
		struct xdt_aggdesc *a = (struct xdt_aggdesc *)(blob + h.aggs_off) + i;

		a->func = (__u32)p->aggs[i].func;
		a->arg = p->aggs[i].arg;
		a->nvals = xdt_agg_nvals(a->func, a->arg);
	}
	*size = off;
	return blob;
}
