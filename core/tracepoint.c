// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint.c - what every firing from a tracepoint needs (the rawtp,
 * syscall and stable providers, and the core's own D-variable hook):
 * finding one, leaving its iterator out of stack(), waiting out its
 * callers.  The interface is xdt_tp.h.
 */
#include <linux/kallsyms.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "xdt_impl.h"
#include "xdt_tp.h"

void xdt_tracepoint_quiesce(void)
{
	/* rcuidle tracepoints call their probes under SRCU. */
	tracepoint_synchronize_unregister();
}

void xdt_tracepoint_iterator(struct tracepoint *tp, unsigned long *lo,
			     unsigned long *hi)
{
	unsigned long size, off;

	*lo = *hi = 0;
	if (tp->iterator &&
	    kallsyms_lookup_size_offset((unsigned long)tp->iterator, &size,
					&off)) {
		*lo = (unsigned long)tp->iterator - off;
		*hi = *lo + size;
	}
}

struct tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void tp_find(struct tracepoint *tp, void *priv)
{
	struct tp_find *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

/* For the core's own hooks (D variables: sched_process_exit). */
struct tracepoint *xdt_tracepoint_find(const char *name)
{
	struct tp_find f = { .name = name };

	for_each_kernel_tracepoint(tp_find, &f);
	return f.tp;
}
