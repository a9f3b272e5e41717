/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt_tp.h - tracepoint helpers (core/tracepoint.c), for the providers
 * that fire from tracepoints (rawtp, syscall, stable) and the core's own
 * hook (vars_reclaim.c: sched_process_exit).
 */
#ifndef XDT_TP_H
#define XDT_TP_H

struct tracepoint;

/* A provider's quiesce op: rcuidle tracepoints call their probes under SRCU. */
void xdt_tracepoint_quiesce(void);
/* The tracepoint's iterator function, left out of stack() (or 0, 0). */
void xdt_tracepoint_iterator(struct tracepoint *tp, unsigned long *lo,
			     unsigned long *hi);
/* A vmlinux tracepoint by name, or NULL. */
struct tracepoint *xdt_tracepoint_find(const char *name);

#endif
