// SPDX-License-Identifier: GPL-2.0
/*
 * What the DIF machine (dif.c, vars.c) gets from the kernel: memory reads
 * that fault safely and built-in variables.  The portable core calls these
 * and nothing else of the running kernel; libxdt's host VM provides its own
 * (core/host/machine.c).
 */
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs_struct.h>
#include <linux/irq_work.h>
#include <linux/kgdb.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pgtable.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

/*
 * struct mount (a vfsmount's parent and mountpoint) is private to fs/: its
 * header is read from the kernel tree this module is built against, for
 * d_path()'s offsets only.
 */
#include <../fs/mount.h>

#include "xdt_impl.h"

/*
 * Toxic memory (illumos keeps a list, dtrace_toxic_ranges): a load from
 * device memory can have side effects, and on arm64 one that no device
 * answers is a synchronous external abort, which no exception fixup
 * catches -- the fuzzer oopsed aarch64 through an ioremap()ed address.  So
 * DIF reads only pages that are RAM: the linear map, or any other kernel
 * mapping (vmalloc, stacks, modules, the image) whose page frame is memory,
 * found by a walk of the kernel page tables: lock-free, inline, and the
 * tables of a live mapping stay in place (a racing vunmap leaves at worst a
 * stale RAM frame, which the nofault copy reads harmlessly).
 */
static pgd_t *kernel_pgd;		/* init_mm's: not exported */

static int find_init_mm(void *data, const char *name, struct module *mod,
			unsigned long addr)
{
	if (mod || strcmp(name, "init_mm"))
		return 0;
	kernel_pgd = ((struct mm_struct *)addr)->pgd;
	return 1;
}

void xdt_dif_init(void)
{
	kallsyms_on_each_symbol(find_init_mm, NULL);
	if (!kernel_pgd)
		pr_warn("xdt: no init_mm: DIF reads only the linear map\n");
}

static bool __xdt_probe ram_page(unsigned long addr)
{
	pgd_t *pgd;
	p4d_t *p4d, p4;
	pud_t *pud, pu;
	pmd_t *pmd, pm;
	pte_t pt;

	if (!xdt_arch_kaddr_ok(addr))
		return false;
	if (virt_addr_valid((void *)addr))
		return true;
	if (!kernel_pgd)
		return false;
	pgd = pgd_offset_pgd(kernel_pgd, addr);
	if (pgd_none(READ_ONCE(*pgd)) || pgd_bad(READ_ONCE(*pgd)))
		return false;
	p4d = p4d_offset(pgd, addr);
	p4 = READ_ONCE(*p4d);
	if (p4d_none(p4) || p4d_bad(p4))
		return false;
	pud = pud_offset(p4d, addr);
	pu = READ_ONCE(*pud);
	if (pud_none(pu))
		return false;
	if (pud_leaf(pu))
		return pfn_valid(xdt_arch_pud_leaf_pfn(pu) +
				 ((addr & ~PUD_MASK) >> PAGE_SHIFT));
	if (pud_bad(pu))
		return false;
	pmd = pmd_offset(pud, addr);
	pm = READ_ONCE(*pmd);
	if (pmd_none(pm))
		return false;
	if (pmd_leaf(pm))
		return pfn_valid(pmd_pfn(pm) + ((addr & ~PMD_MASK) >> PAGE_SHIFT));
	if (pmd_bad(pm))
		return false;
	pt = READ_ONCE(*pte_offset_kernel(pmd, addr));
	return pte_present(pt) && pfn_valid(pte_pfn(pt));
}

/* copy_from_kernel_nofault, from RAM only: 0 or -EFAULT. */
int __xdt_probe xdt_copy_nofault(void *dst, unsigned long src, size_t n)
{
	unsigned long p, last;

	if (!n)
		return 0;
	if (src + n - 1 < src)
		return -EFAULT;
	last = (src + n - 1) & PAGE_MASK;
	for (p = src & PAGE_MASK; ; p += PAGE_SIZE) {
		if (!ram_page(p))
			return -EFAULT;
		if (p == last)
			break;
	}
	return copy_from_kernel_nofault(dst, (const void *)src, n) ?
	       -EFAULT : 0;
}

/*
 * Copy a string from kernel memory, faulting safely: its bytes up to and
 * including the NUL, or -- DTrace's strsize rule -- its first @max bytes,
 * unterminated, when it is longer (the length returned is then @max).  Reads whole aligned words: an aligned word never
 * straddles a page, so a string that ends just before an unmapped page is
 * read without a false fault.  (6.1 does not export
 * strncpy_from_kernel_nofault to modules.)
 */
long __xdt_probe xdt_strcpy_nofault(char *dst, unsigned long src, u32 max)
{
	unsigned long page = 1;		/* not a page address: none checked */
	u32 n = 0;

	while (n < max) {
		unsigned long a = (src + n) & ~7UL;
		u64 w;
		u32 i = (src + n) & 7;

		if ((a & PAGE_MASK) != page) {
			page = a & PAGE_MASK;
			if (!ram_page(page))
				return -EFAULT;
		}
		if (copy_from_kernel_nofault(&w, (void *)a, 8))
			return -EFAULT;
		for (; i < 8 && n < max; i++, n++) {
			dst[n] = ((char *)&w)[i];
			if (!dst[n])
				return n;
		}
	}
	return max;
}

/*
 * ipl, in Linux's terms: what the CPU was serving when the probe fired,
 * from preempt_count() -- 0 a task (softirqs merely disabled included),
 * 1 a softirq, 2 a hardware interrupt, 3 an NMI.  DTrace's ipl is the
 * interrupt priority level of illumos (0-15), which Linux does not have;
 * the order is kept.  Where the ISA's exception entry counts a
 * kernel-mode breakpoint as an NMI (x86_64: exc_int3 ->
 * irqentry_nmi_enter), a firing from one of xdt's own breakpoints takes
 * that level off again (XDT_TRAP_NMI_ENTRY), so that the breakpoint
 * mechanism reads what ftrace and the trampolines read.
 */
static u64 __xdt_probe xdt_ipl(void)
{
	unsigned long pc = preempt_count();

	if (XDT_TRAP_NMI_ENTRY && this_cpu_read(xdt_cpu.trapdepth) &&
	    (pc & NMI_MASK))
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	if (pc & NMI_MASK)
		return 3;
	if (pc & HARDIRQ_MASK)
		return 2;
	if (pc & SOFTIRQ_OFFSET)
		return 1;
	return 0;
}

/* A built-in variable (DIF_VAR_*) of the firing @m. */
u64 __xdt_probe xdt_dif_var(u32 v, struct xdt_mstate *m)
{
	struct task_struct *t = current;
	struct xdt_probe *p = m->ctx->probe;

	switch (v) {
	case DIF_VAR_ARG0 ... DIF_VAR_ARG9:
		return xdt_arg(m->ctx, v - DIF_VAR_ARG0);
	case DIF_VAR_PROBEPROV:
		return (unsigned long)p->prov->name;
	case DIF_VAR_PROBEMOD:
		return (unsigned long)(p->mod ? p->mod : "");
	case DIF_VAR_PROBEFUNC:
		return (unsigned long)(p->func ? p->func : "");
	case DIF_VAR_PROBENAME:
		return (unsigned long)(p->name ? p->name : "");
	case DIF_VAR_EXECNAME:
		return (unsigned long)t->comm;
	case DIF_VAR_PID:
		return t->tgid;
	case DIF_VAR_TID:
		return t->pid;
	case DIF_VAR_PPID:
		/*
		 * real_parent is RCU-protected (reparenting at the parent's
		 * exit rewrites it) and a firing runs with IRQs off, an RCU
		 * reader: the task read stays valid for the load of its tgid.
		 * Raw: no lockdep check, which does not count IRQs off.
		 */
		return READ_ONCE(rcu_dereference_raw(t->real_parent)->tgid);
	case DIF_VAR_UID:
		return from_kuid(&init_user_ns, task_cred_xxx(t, uid));
	case DIF_VAR_IPL:
		return xdt_ipl();
	case DIF_VAR_GID:
		return from_kgid(&init_user_ns, task_cred_xxx(t, gid));
	case DIF_VAR_CPU:
		return raw_smp_processor_id();
	case DIF_VAR_TIMESTAMP:
		return ktime_get_mono_fast_ns();
	case DIF_VAR_VTIMESTAMP:
		/* Thread CPU time as of its last accounting update. */
		return t->se.sum_exec_runtime;
	case DIF_VAR_WALLTIMESTAMP:
		return ktime_get_real_fast_ns();
	case DIF_VAR_EPID:
		return m->ecb ? m->ecb->epid : 0;
	case DIF_VAR_ID:
		return p->id;
	case DIF_VAR_CURTHREAD:
		return (unsigned long)t;
	case DIF_VAR_ERRNO:
		/* Set by the firer: a syscall return that failed. */
		return m->ctx->err;
	default:
		return 0;
	}
}

/*
 * User memory of the current task.  copy_from_user_nofault() disables
 * page faults: a page that is not resident (never touched, swapped out)
 * is a fault reported through ERROR, never a sleep in probe context.
 */
int __xdt_probe xdt_copyin_nofault(void *dst, unsigned long uaddr, size_t n)
{
	if (!n)
		return 0;
	return copy_from_user_nofault(dst, (const void __user *)uaddr, n) ?
	       -EFAULT : 0;
}

/*
 * A user string of at most @max bytes (NUL included), in aligned words as
 * xdt_strcpy_nofault does, so a string that ends just before an unmapped
 * page is read without a false fault.  (6.1 does not export
 * strncpy_from_user_nofault to modules.)
 */
long __xdt_probe xdt_ustrcpy_nofault(char *dst, unsigned long uaddr, u32 max)
{
	u32 n = 0;

	while (n < max) {
		unsigned long a = (uaddr + n) & ~7UL;
		u32 i = (uaddr + n) & 7;
		u64 w;

		if (copy_from_user_nofault(&w, (const void __user *)a, 8))
			return -EFAULT;
		for (; i < 8 && n < max; i++, n++) {
			dst[n] = ((char *)&w)[i];
			if (!dst[n])
				return n;
		}
	}
	dst[max - 1] = '\0';
	return max - 1;
}

/*
 * The current task's process or one of its ancestors is @pid.  Parents are
 * RCU-protected, and a firing runs with IRQs off (an RCU reader); the
 * depth bound only guards against a torn chain.
 */
int __xdt_probe xdt_progenyof(s64 pid)
{
	struct task_struct *t = current;
	int depth;

	for (depth = 0; t && depth < 4096; depth++) {
		if (t->tgid == pid)
			return 1;
		if (!t->pid)
			break;			/* the idle task: the root */
		t = READ_ONCE(t->real_parent);
	}
	return 0;
}

/*
 * The argument area exec() left in the current process's memory (argv's
 * strings, back to back), NULs turned to spaces; a kernel thread, or a
 * process whose area cannot be read without faulting, gives its comm.
 * mm->arg_start/arg_end are read without mm->arg_lock (a spinlock, not
 * for probe context): they change only at exec and by prctl(PR_SET_MM),
 * and a torn pair is bounded by @max and read fault-safely.
 */
long __xdt_probe xdt_execargs(char *dst, u32 max)
{
	struct mm_struct *mm = current->mm;
	unsigned long lo, hi;
	long n = 0, i;

	if (mm && !(current->flags & PF_KTHREAD)) {
		lo = READ_ONCE(mm->arg_start);
		hi = READ_ONCE(mm->arg_end);
		n = hi > lo ? min_t(unsigned long, hi - lo, max - 1) : 0;
		if (n && xdt_copyin_nofault(dst, lo, n))
			n = 0;
	}
	if (!n) {
		n = strscpy(dst, current->comm, min_t(u32, max, TASK_COMM_LEN));
		return n < 0 ? 0 : n;
	}
	while (n && !dst[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!dst[i])
			dst[i] = ' ';
	dst[n] = '\0';
	return n;
}

/*
 * d_path()'s layout (subr.c walks it).  current->fs changes only by the
 * task itself (exit_fs() clears it before freeing it, unshare), so reading
 * the pointer from the task's own probe is safe; the root's fields are
 * then read fault-safely by the walk.
 */
static const struct xdt_vfs_layout vfs_layout = {
	.path_mnt = offsetof(struct path, mnt),
	.path_dentry = offsetof(struct path, dentry),
	.dentry_parent = offsetof(struct dentry, d_parent),
	.dentry_name_len = offsetof(struct dentry, d_name.len),
	.dentry_name = offsetof(struct dentry, d_name.name),
	.vfsmount_root = offsetof(struct vfsmount, mnt_root),
	.mount_mnt = offsetof(struct mount, mnt),
	.mount_parent = offsetof(struct mount, mnt_parent),
	.mount_mountpoint = offsetof(struct mount, mnt_mountpoint),
};

const struct xdt_vfs_layout *__xdt_probe xdt_vfs_layout(u64 *root)
{
	struct fs_struct *fs = READ_ONCE(current->fs);

	*root = fs ? (unsigned long)&fs->root : 0;
	return &vfs_layout;
}

/*
 * The lock subroutines' layout (subr.c decodes the words).  PREEMPT_RT
 * builds struct mutex and struct rw_semaphore on rtmutexes, whose words
 * mean something else: there the subroutines are illegal operations.
 */
#ifndef CONFIG_PREEMPT_RT
static const struct xdt_lock_layout lock_layout = {
	.mutex_owner = offsetof(struct mutex, owner),
	.rwsem_count = offsetof(struct rw_semaphore, count),
};
#endif

const struct xdt_lock_layout *__xdt_probe xdt_lock_layout(void)
{
#ifndef CONFIG_PREEMPT_RT
	return &lock_layout;
#else
	return NULL;
#endif
}

/* ---- destructive actions (dtrace -w) ------------------------------------- */

/* copyout(), copyoutstr(): into the current task's user memory, never sleeping */
int __xdt_probe xdt_copyout_nofault(unsigned long uaddr, const void *src,
				    size_t n)
{
	if (!n)
		return 0;
	return copy_to_user_nofault((void __user *)uaddr, src, n) ? -EFAULT : 0;
}

/*
 * raise(), stop(): a signal to the current process.  Sending takes the
 * target's siglock, which the code a probe interrupted may hold, so it is
 * sent from an IRQ work item once the firing is over (as bpf_send_signal
 * does with IRQs off).  One pending signal per CPU: a second raise() on a
 * CPU before its first was sent is refused, and the action faults.
 */
struct xdt_raise_work {
	struct irq_work work;
	struct task_struct *task;
	int sig;
};
static DEFINE_PER_CPU(struct xdt_raise_work, xdt_raise_work);

static void xdt_raise_fn(struct irq_work *w)
{
	struct xdt_raise_work *r = container_of(w, struct xdt_raise_work, work);

	send_sig(r->sig, r->task, 1);
	put_task_struct(r->task);
}

int __xdt_probe xdt_raise(u64 sig)
{
	struct xdt_raise_work *r = this_cpu_ptr(&xdt_raise_work);

	/* all 64 bits: raise(0x100000009) is no SIGKILL */
	if (!sig || sig >= _NSIG)
		return -EINVAL;
	if (current->flags & PF_KTHREAD)
		return 0;		/* no process to signal */
	if (irq_work_is_busy(&r->work))
		return -EBUSY;
	r->task = get_task_struct(current);
	r->sig = (int)sig;
	irq_work_queue(&r->work);
	return 0;
}

/*
 * chill(): spin @ns nanoseconds, within DTrace's budget of 500 ms of
 * chill per CPU in any one-second interval (dtrace_chill_max); past it the
 * action faults "illegal operation" instead of stalling the CPU.
 */
#define XDT_CHILL_MAX		(500 * NSEC_PER_MSEC)
#define XDT_CHILL_INTERVAL	NSEC_PER_SEC
struct xdt_chill {
	u64 start, used;
};
static DEFINE_PER_CPU(struct xdt_chill, xdt_chill_budget);

int __xdt_probe xdt_chill(u64 ns)
{
	struct xdt_chill *c = this_cpu_ptr(&xdt_chill_budget);
	u64 now = ktime_get_mono_fast_ns(), end;

	if (now - c->start > XDT_CHILL_INTERVAL) {
		c->start = now;
		c->used = 0;
	}
	if (ns > XDT_CHILL_MAX || c->used + ns > XDT_CHILL_MAX)
		return -EBUSY;
	c->used += ns;
	for (end = now + ns; ktime_get_mono_fast_ns() < end; )
		cpu_relax();
	return 0;
}

/*
 * breakpoint(): enter the kernel debugger.  Only when one is there: with
 * no kgdb I/O driver registered the trap kgdb_breakpoint() raises has no
 * handler and the kernel would die of it, so the action faults instead.
 */
#if IS_ENABLED(CONFIG_KGDB)
static void **kgdb_io_ops_p;		/* &dbg_io_ops: not exported */

static int find_dbg_io_ops(void *data, const char *name, struct module *mod,
			   unsigned long addr)
{
	if (mod || strcmp(name, "dbg_io_ops"))
		return 0;
	kgdb_io_ops_p = (void **)addr;
	return 1;
}

int xdt_breakpoint(void)
{
	if (!kgdb_io_ops_p || !READ_ONCE(*kgdb_io_ops_p))
		return -ENODEV;
	kgdb_breakpoint();
	return 0;
}
#else
int xdt_breakpoint(void)
{
	return -ENODEV;
}
#endif

/* panic(): DTrace's wording */
void xdt_panic(const struct xdt_probe *p)
{
	panic("dtrace: panic action at probe %s:%s:%s:%s", p->prov->name,
	      p->mod, p->func, p->name);
}

void xdt_destructive_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu(xdt_raise_work, cpu).work, xdt_raise_fn);
#if IS_ENABLED(CONFIG_KGDB)
	kallsyms_on_each_symbol(find_dbg_io_ops, NULL);
#endif
}

/* Module exit: no signal still queued to send from freed module text. */
void xdt_destructive_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu(xdt_raise_work, cpu).work);
}
