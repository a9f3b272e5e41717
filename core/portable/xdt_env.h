/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the portable core needs of where it runs.
 *
 * The portable core is this directory: the DIF verifier and machine
 * (dif.c), D variables (vars.c), subroutines (subr.c), firing (firing.c),
 * buffers and aggregations (buf.c), speculations (spec.c), program
 * loading (load.c), the probe table and its matching (probes.c), the
 * enabling state machine (enable.c) and the device's ioctls (device.c).
 * It runs in two places: in the kernel, in xdt.ko, and in user space, in
 * libxdt's host VM (`dtrace -x hostvm`, the host tests).  Everything it
 * calls that is not its own is declared here, and each of the two
 * environments defines all of it:
 *
 *   kernel   core/kmem.c (memory, built-in variables, destructive actions),
 *            core/trap.c (xdt_stack), core/sites.c,
 *            core/xol.c and core/fentry.c (patch sites),
 *            core/vars_reclaim.c (the background cleaners),
 *            providers/dtrace.c (the BEGIN, END and ERROR probes)
 *   host     core/host/machine.c, all of it
 *
 * Besides these, the core uses the kernel's own small API for time
 * (ktime_get_ns), CPU ids (smp_processor_id, num_possible_cpus), per-CPU
 * data, locks, lists, allocation, module references, grace periods and
 * the current task -- the kernel provides it,
 * and core/host/kernel.h reimplements it for one thread in user space.
 * Nothing else may be called: test_host_tools.py builds this directory for
 * the host and fails on any symbol neither declared here nor in that list
 * of C library functions.
 *
 * The calls below up to "enablings" may be made in probe context, with
 * interrupts off: none may sleep, none may fault (a bad address is a
 * return value).
 */
#ifndef XDT_ENV_H
#define XDT_ENV_H

struct xdt_mstate;
struct xdt_probe;
struct xdt_ctx;
struct xdt_vars;
struct xdt_site;
struct xdt_state;

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
/*
 * d_path(): where the VFS keeps what a path walk reads, as offsets (the
 * portable core reads every field through xdt_read, so the privilege and
 * fault checks hold); NULL where there is no VFS (the host VM).  @root:
 * the address of the current task's root (a struct path), 0 if none.
 */
struct xdt_vfs_layout {
	u32 path_mnt, path_dentry;		/* struct path */
	u32 dentry_parent, dentry_name_len, dentry_name; /* struct dentry */
	u32 vfsmount_root;			/* struct vfsmount: mnt_root */
	u32 mount_mnt, mount_parent, mount_mountpoint;	/* fs/mount.h's */
};
const struct xdt_vfs_layout *xdt_vfs_layout(u64 *root);
/*
 * mutex_owned() & co., rw_read_held() & co.: where struct mutex keeps its
 * owner word and struct rw_semaphore its count (subr.c decodes them), or
 * NULL where the kernel's locks are not those (PREEMPT_RT's are rtmutexes).
 */
struct xdt_lock_layout {
	u32 mutex_owner;	/* struct mutex: atomic_long_t owner */
	u32 rwsem_count;	/* struct rw_semaphore: atomic_long_t count */
};
const struct xdt_lock_layout *xdt_lock_layout(void);
/* stack(): up to @max return addresses of the firing's kernel stack. */
unsigned int xdt_stack(struct xdt_ctx *ctx, u64 *pcs, unsigned int max);
/*
 * ustack(): @max words: XDT_USTACK_TAG | the process's pid, then up to
 * @max - 1 addresses of the firing thread's user stack, innermost first
 * (its PC first), from the user registers by frame pointers, every load
 * fault-safe.  Returns the words written (1 for a kernel thread).
 */
unsigned int xdt_ustack(struct xdt_ctx *ctx, u64 *pcs, unsigned int max);
/*
 * uregs[@i]: the firing thread's user register number @i (the ISA's
 * numbering, arch/<isa>/user_isa.c), 0 in a kernel thread; -EINVAL for
 * an index the ISA does not have.
 */
int xdt_ureg(struct xdt_ctx *ctx, u64 i, u64 *v);

/* ---- destructive actions and subroutines (only under dtrace -w) -------- */
int xdt_copyout_nofault(unsigned long uaddr, const void *src, size_t n);
int xdt_raise(u64 sig);	/* 1.._NSIG-1, else -EINVAL */
int xdt_chill(u64 ns);
int xdt_breakpoint(void);
void xdt_panic(const struct xdt_probe *p);

/* ---- enablings: GO and STOP (enable.c), in process context ---------------- */
/*
 * Patch sites: kernel text a GO patches and a STOP restores, and kinst's
 * out-of-line slots.  Providers report their sites (xdt_provider_ops);
 * the host VM's only provider has none, so it is only ever asked for 0.
 * choose_begin() opens a GO's choice of how fbt entry sites are reached.
 */
void xdt_fentry_choose_begin(void);
int xdt_xol_prepare(struct xdt_site **sites, unsigned int n);
void xdt_xol_release(struct xdt_site **sites, unsigned int n);
int xdt_sites_patch(struct xdt_site **sites, unsigned int n, bool on);
/*
 * Work in the background while a consumer runs: the cleaner of @v's
 * dynamic variables (start at GO; unhook at STOP before the grace period,
 * so no firing can queue more of it; stop after it) and the cleaner of
 * speculations, every @period jiffies.  The kernel's are workqueue items;
 * the host VM has none (a run there is BEGIN and END only, and its
 * consumer's reads clean speculations).
 */
int xdt_vars_start(struct xdt_vars *v);
void xdt_vars_unhook(struct xdt_vars *v);
void xdt_vars_stop(struct xdt_vars *v);
void xdt_spec_start(struct xdt_state *st, unsigned long period);
void xdt_spec_stop(struct xdt_state *st);
/* The dtrace provider's probes the core fires: BEGIN at GO, END at STOP,
 * ERROR on a fault. */
extern struct xdt_probe *xdt_probe_begin, *xdt_probe_end, *xdt_probe_error;

#endif
