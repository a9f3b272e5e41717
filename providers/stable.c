// SPDX-License-Identifier: GPL-2.0
/*
 * proc, sched and io: DTrace's stable providers, by DTrace's probe names,
 * over Linux's tracepoints (and a kprobe where 6.1 has no tracepoint).  The
 * probes, their hooks and their argument types are one table, shared with
 * the compiler (uapi/stable.h); this file is the hooks and, per probe, the
 * shim that turns the hook's arguments into the probe's native ones.
 *
 * Probes are named provider:vmlinux:<tracepoint or function>:<name>, as
 * Oracle's Linux DTrace names its SDT probes.  A hook is registered when
 * its probe is enabled and removed when it is disabled: an idle stable
 * provider costs nothing (tracepoint static keys off, no kprobe).
 *
 * kprobes and xdt's own fbt sites cannot share an instruction (each would
 * patch the other's breakpoint or NOP), so while a stable probe holds a
 * kprobe on a function's entry, fbt sites there are refused (EBUSY), and
 * the other way round (its claims op, xdt_sites_patch).
 */
#include <linux/blk-mq.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/binfmts.h>
#include <linux/tracepoint.h>

#include "xdt_impl.h"
#include "xdt_tp.h"
#include "providers.h"
#include "uapi/stable.h"

enum { TP, KP, KRP };

struct stable {
	struct xdt_probe *probe;
	const char *prov, *name, *source;
	int kind;
	void *shim;
	struct tracepoint *tp;		/* TP */
	unsigned long addr;		/* KP, KRP: the function */
	unsigned long lo, hi;		/* TP: its iterator, left out of stack() */
	bool on;
	union {
		struct kprobe kp;
		struct kretprobe krp;
	};
};

static struct xdt_provider stable_provs[3] = {
	{ .name = "proc" }, { .name = "sched" }, { .name = "io" },
};

/* ---- probe context ----------------------------------------------------- */
static void __xdt_probe stable_fire(struct stable *s, u64 a0, u64 a1, u64 a2)
{
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	if (xdt_probe_fast(s->probe))
		return;
	xdt_ctx_init(&ctx, s->probe);
	ctx.args[0] = a0;
	ctx.args[1] = a1;
	ctx.args[2] = a2;
	ctx.stack = XDT_STACK_HERE;
	ctx.skip_lo = s->lo;
	ctx.skip_hi = s->hi;
	xdt_probe_fire(&ctx);
}

/* A kprobe's firing: stack() starts at the probed function. */
static void __xdt_probe stable_fire_regs(struct stable *s, struct pt_regs *regs,
					 u64 a0, u64 a1, u64 a2)
{
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	if (xdt_probe_fast(s->probe))
		return;
	xdt_ctx_init(&ctx, s->probe);
	ctx.regs = regs;
	ctx.args[0] = a0;
	ctx.args[1] = a1;
	ctx.args[2] = a2;
	ctx.stack = XDT_STACK_REGS;
	xdt_probe_fire(&ctx);
}

/*
 * The shims.  Each tracepoint shim has its tracepoint's exact prototype
 * (TP_PROTO in include/trace/events/): a tracepoint calls its probes with
 * its own arguments, so one declared wrong reads garbage.  The tracepoints'
 * register_trace_*() helpers would check the prototypes, but their
 * __tracepoint_* symbols are not exported to modules.
 */
#define U(x) ((u64)(unsigned long)(x))

static void __xdt_probe proc_create(void *d, struct task_struct *parent,
				    struct task_struct *child)
{
	/* A new process; a new thread of one is lwp-create. */
	if (child->pid == child->tgid)
		stable_fire(d, U(child), 0, 0);
}

static void __xdt_probe proc_lwp_create(void *d, struct task_struct *parent,
					struct task_struct *child)
{
	if (child->pid != child->tgid)
		stable_fire(d, U(child), U(child), 0);
}

static int __xdt_probe proc_exec(struct kprobe *kp, struct pt_regs *regs)
{
	struct linux_binprm *bprm =
		(void *)xdt_arch_kernel_arg(regs, 0);

	stable_fire_regs(container_of(kp, struct stable, kp), regs,
			 U(bprm->filename), 0, 0);
	return 0;
}

static int __xdt_probe proc_exec_failure(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	/* bprm_execve() returns int: the register's upper half is not its */
	int ret = (int)regs_return_value(regs);
	struct kretprobe *rp = get_kretprobe(ri);

	/* DTrace's args[0]: the errno value */
	if (ret < 0 && rp)
		stable_fire(container_of(rp, struct stable, krp), -ret, 0, 0);
	return 0;
}

static void __xdt_probe proc_exec_success(void *d, struct task_struct *p,
					  pid_t old_pid,
					  struct linux_binprm *bprm)
{
	stable_fire(d, 0, 0, 0);
}

/*
 * do_exit() runs the tracepoint in every exiting thread, after it has
 * counted itself out of signal->live: the process exits with the thread
 * that finds none left.  (Two threads exiting at once may both see zero;
 * then exit fires twice.)  args[0] is DTrace's reason: CLD_EXITED,
 * CLD_KILLED or CLD_DUMPED, from the wait status do_exit() stored.
 */
static void __xdt_probe proc_exit(void *d, struct task_struct *p)
{
	int code = p->exit_code, why;

	if (atomic_read(&p->signal->live))
		return;
	why = !(code & 0x7f) ? CLD_EXITED : (code & 0x80) ? CLD_DUMPED :
	      CLD_KILLED;
	stable_fire(d, why, 0, 0);
}

static void __xdt_probe proc_lwp_exit(void *d, struct task_struct *p)
{
	stable_fire(d, 0, 0, 0);
}

static void __xdt_probe proc_signal_send(void *d, int sig,
					 struct kernel_siginfo *info,
					 struct task_struct *task, int group,
					 int result)
{
	stable_fire(d, U(task), U(task), sig);
}

static void __xdt_probe proc_signal_handle(void *d, int sig,
					   struct kernel_siginfo *info,
					   struct k_sigaction *ka)
{
	stable_fire(d, sig, U(info), U(ka->sa.sa_handler));
}

static int __xdt_probe sched_on_cpu(struct kprobe *kp, struct pt_regs *regs)
{
	/* finish_task_switch() runs on the new task's stack: curthread is it */
	stable_fire_regs(container_of(kp, struct stable, kp), regs, 0, 0, 0);
	return 0;
}

static void __xdt_probe sched_off_cpu(void *d, bool preempt,
				      struct task_struct *prev,
				      struct task_struct *next,
				      unsigned int prev_state)
{
	stable_fire(d, U(next), U(next), 0);
}

/* Fires before off-cpu (a higher priority, see stable_enable). */
static void __xdt_probe sched_sleep(void *d, bool preempt,
				    struct task_struct *prev,
				    struct task_struct *next,
				    unsigned int prev_state)
{
	if (!preempt && prev_state != TASK_RUNNING)
		stable_fire(d, 0, 0, 0);
}

static void __xdt_probe sched_preempt(void *d, bool preempt,
				      struct task_struct *prev,
				      struct task_struct *next,
				      unsigned int prev_state)
{
	if (preempt)
		stable_fire(d, 0, 0, 0);
}

/*
 * sched_waking, not sched_wakeup: it runs in the waker's context, as
 * DTrace's wakeup does, and only for a task that was asleep; sched_wakeup
 * may run later on the wakee's CPU, from an IPI.
 */
static void __xdt_probe sched_wakeup(void *d, struct task_struct *p)
{
	stable_fire(d, U(p), U(p), 0);
}

/* A scheduling class's enqueue_task(rq, p, flags) or dequeue_task(). */
static int __xdt_probe sched_queue(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *p = (void *)xdt_arch_kernel_arg(regs, 1);

	stable_fire_regs(container_of(kp, struct stable, kp), regs, U(p), U(p),
			 task_cpu(p));
	return 0;
}

static void __xdt_probe io_start(void *d, struct request *rq)
{
	stable_fire(d, U(rq), U(rq), U(rq));
}

static void __xdt_probe io_done(void *d, struct request *rq,
				blk_status_t error, unsigned int nr_bytes)
{
	stable_fire(d, U(rq), U(rq), U(rq));
}

/* ---- the table ---------------------------------------------------------- */
static struct stable stables[] = {
#define XDT_STABLE_ENTRY(p, n, k, src, fn, nt, xt) \
	{ .prov = p, .name = n, .kind = k, .source = src, .shim = fn },
	XDT_STABLE_PROBES(XDT_STABLE_ENTRY)
#undef XDT_STABLE_ENTRY
};

/* ---- enabling ----------------------------------------------------------- */
/*
 * Probes sharing a tracepoint fire in DTrace's order, whatever order they
 * were enabled in: sleep and preempt describe the switch off-cpu then
 * makes, and a process's last thread fires lwp-exit before exit.  (A
 * tracepoint calls higher priorities first.)
 */
static int fires_first(const struct stable *s)
{
	return s->shim == sched_sleep || s->shim == sched_preempt ||
	       s->shim == proc_lwp_exit;
}

/*
 * A kprobe where an xdt site is (fbt entry, kinst): refused.  The window
 * covers the ISAs' entry sites, which may sit past the symbol (arm64's
 * patchable entry NOPs).
 */
#define STABLE_WINDOW 16

static bool site_near(unsigned long addr)
{
	return xdt_sites_enabled_in(addr, STABLE_WINDOW);
}

/* Caller holds xdt_lock. */
static bool stable_claims(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stables); i++)
		if (stables[i].on && stables[i].kind != TP &&
		    addr >= stables[i].addr &&
		    addr < stables[i].addr + STABLE_WINDOW)
			return true;
	return false;
}

static int stable_enable(struct xdt_probe *probe)
{
	struct stable *s = probe->parg;
	int ret;

	if (s->on)
		return 0;
	switch (s->kind) {
	case TP:
		ret = tracepoint_probe_register_prio(s->tp, s->shim, s,
			TRACEPOINT_DEFAULT_PRIO + fires_first(s));
		break;
	case KP:
		if (site_near(s->addr))
			return -EBUSY;
		memset(&s->kp, 0, sizeof(s->kp));
		s->kp.addr = (kprobe_opcode_t *)s->addr;
		s->kp.pre_handler = s->shim;
		ret = register_kprobe(&s->kp);
		break;
	default:
		if (site_near(s->addr))
			return -EBUSY;
		memset(&s->krp, 0, sizeof(s->krp));
		s->krp.kp.addr = (kprobe_opcode_t *)s->addr;
		s->krp.handler = s->shim;
		s->krp.maxactive = 4 * num_possible_cpus();
		ret = register_kretprobe(&s->krp);
		break;
	}
	s->on = !ret;
	return ret;
}

static void stable_disable(struct xdt_probe *probe)
{
	struct stable *s = probe->parg;

	if (!s->on)
		return;
	s->on = false;
	switch (s->kind) {
	case TP:
		tracepoint_probe_unregister(s->tp, s->shim, s);
		break;
	case KP:
		/* waits for handlers in flight (synchronize_rcu) */
		unregister_kprobe(&s->kp);
		break;
	default:
		unregister_kretprobe(&s->krp);
		break;
	}
}

static const struct xdt_provider_ops stable_ops = {
	.enable = stable_enable,
	.disable = stable_disable,
	.quiesce = xdt_tracepoint_quiesce,
	.claims = stable_claims,
};

/* ---- setup -------------------------------------------------------------- */
struct fn_find {
	const char *name;
	size_t len;
	unsigned long addr;
};

/*
 * @name, or a clone of it with a compiler's suffix (finish_task_switch.isra.0,
 * .constprop.N) -- but not a piece split off it: GCC's .cold part (the
 * unlikely paths, where a kprobe never fires: the debug kernel has
 * finish_task_switch.isra.0.cold, and sched:::on-cpu went there) or a
 * partially inlined .part.N.
 */
static int fn_find_cb(void *data, const char *name, struct module *mod,
		      unsigned long addr)
{
	struct fn_find *f = data;
	const char *sfx = name + f->len;

	if (mod || strncmp(name, f->name, f->len) || (*sfx && *sfx != '.') ||
	    strstr(sfx, ".cold") || strstr(sfx, ".part."))
		return 0;
	if (!f->addr || !*sfx)
		f->addr = addr;		/* the first clone, or the name itself */
	return !*sfx;			/* an exact name ends the walk */
}

int xdt_stable_init(void)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(stable_provs); i++) {
		stable_provs[i].ops = &stable_ops;
		if (xdt_provider_register(&stable_provs[i]))
			goto fail;
	}
	mutex_lock(&xdt_lock);
	for (i = 0; i < ARRAY_SIZE(stables); i++) {
		struct stable *s = &stables[i];
		struct xdt_provider *prov = NULL;

		if (s->kind == TP) {
			s->tp = xdt_tracepoint_find(s->source);
			if (!s->tp) {
				pr_info("xdt: %s:::%s: no tracepoint %s\n",
					s->prov, s->name, s->source);
				continue;
			}
			xdt_tracepoint_iterator(s->tp, &s->lo, &s->hi);
		} else {
			struct fn_find f = { s->source, strlen(s->source) };

			kallsyms_on_each_symbol(fn_find_cb, &f);
			if (!f.addr) {
				pr_info("xdt: %s:::%s: no function %s\n",
					s->prov, s->name, s->source);
				continue;
			}
			s->addr = f.addr;
		}
		for (j = 0; j < ARRAY_SIZE(stable_provs); j++)
			if (!strcmp(stable_provs[j].name, s->prov))
				prov = &stable_provs[j];
		s->probe = xdt_probe_create(prov, "vmlinux", s->source, s->name,
					    s);
		if (!s->probe) {
			mutex_unlock(&xdt_lock);
			goto fail;
		}
	}
	mutex_unlock(&xdt_lock);
	return 0;
fail:
	xdt_stable_exit();
	return -ENOMEM;
}

void xdt_stable_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stable_provs); i++)
		if (stable_provs[i].ops)
			xdt_provider_unregister(&stable_provs[i]);
}
