/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the portable core needs of where it runs.
 *
 * The portable core is this directory: the DIF verifier and machine
 * (dif.c), D variables (vars.c), subroutines (subr.c), firing (firing.c),
 * buffers and aggregations (buf.c), speculations (spec.c) and program
 * loading (load.c).  It runs in two places: in the kernel, in xdt.ko, and
 * in user space, in libxdt's host VM (`dtrace -x hostvm`, the host tests).
 * Everything it calls that is not its own is declared here, and each of
 * the two environments defines all of it:
 *
 *   kernel   core/kmem.c (memory, built-in variables, destructive actions),
 *            core/trap.c (xdt_stack), core/vars_reclaim.c (xdt_vars_stop),
 *            providers/dtrace.c (the END and ERROR probes)
 *   host     core/host/machine.c, all of it
 *
 * Besides these, the core uses the kernel's own small API for time
 * (ktime_get_ns), CPU ids (smp_processor_id, num_possible_cpus), per-CPU
 * data, locks, allocation and the current task -- the kernel provides it,
 * and core/host/kernel.h reimplements it for one thread in user space.
 * Nothing else may be called: test_host_tools.py builds this directory for
 * the host and fails on any symbol neither declared here nor in that list
 * of C library functions.
 *
 * The calls below may be made in probe context, with interrupts off: none
 * may sleep, none may fault (a bad address is a return value).
 */
#ifndef XDT_ENV_H
#define XDT_ENV_H

struct xdt_mstate;
struct xdt_probe;
struct xdt_ctx;
struct xdt_vars;

/* ---- memory: loads that fault safely ------------------------------------ */
/*
 * Kernel memory.  The core calls these two only through xdt_read and
 * xdt_readstr (xdt_impl.h), so that the privilege check there covers every
 * read: 0 / the string's length, or a negative errno.
 */
long xdt_strcpy_nofault(char *dst, unsigned long src, u32 max);
int xdt_copy_nofault(void *dst, unsigned long src, size_t n);
/* User memory of the current task, never sleeping: 0 / length, or -EFAULT. */
int xdt_copyin_nofault(void *dst, unsigned long uaddr, size_t n);
long xdt_ustrcpy_nofault(char *dst, unsigned long uaddr, u32 max);

/* ---- built-in variables and what the process-level subroutines ask ---- */
/* The value of built-in variable @v (DIF_VAR_*) for the firing in @m. */
u64 xdt_dif_var(u32 v, struct xdt_mstate *m);
/* progenyof(): is the current task @pid or a descendant of it? */
int xdt_progenyof(s64 pid);
/* execargs(): the current process's arguments, space-separated, at @dst. */
long xdt_execargs(char *dst, u32 max);
/* stack(): up to @max return addresses of the firing's kernel stack. */
unsigned int xdt_stack(struct xdt_ctx *ctx, u64 *pcs, unsigned int max);

/* ---- destructive actions and subroutines (only under dtrace -w) -------- */
int xdt_copyout_nofault(unsigned long uaddr, const void *src, size_t n);
int xdt_raise(u64 sig);	/* 1.._NSIG-1, else -EINVAL */
int xdt_chill(u64 ns);
int xdt_breakpoint(void);
void xdt_panic(const struct xdt_probe *p);

/* ---- lifetimes ------------------------------------------------------------ */
/*
 * After STOP nothing fires any more: the environment stops what it runs
 * for @v's variables in the background (the kernel's cleaner of dynamic
 * variables; the host VM has none).
 */
void xdt_vars_stop(struct xdt_vars *v);
/* The dtrace provider's probes the core fires: END at STOP, ERROR on a fault. */
extern struct xdt_probe *xdt_probe_end, *xdt_probe_error;

#endif
