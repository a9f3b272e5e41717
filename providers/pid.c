// SPDX-License-Identifier: GPL-2.0
/*
 * pid.c - the pid provider: pid<PID>:<module>:<function>:entry and :return
 * in a user process, over the kernel's uprobes.
 *
 * Who makes the probes.  As in DTrace (libdtrace's dt_pid.c asking the
 * fasttrap provider by ioctl), the consumer reads the process's mappings
 * and its objects' ELF symbol tables and asks for probes at addresses in
 * the process (XDT_IOC_UPROBES, core/uapi/xdt.h section 7).  The kernel
 * trusts none of it: it checks that the opener of /dev/xdt may trace the
 * process, finds each address's executable file mapping in the process
 * itself, and keeps the (inode, file offset) uprobes need.  One provider,
 * named <prov><pid>, per process.
 *
 * Mechanism.  uprobe_register_refctr() (exported in 6.1) with a filter
 * that accepts only the traced process's mm, so the breakpoint goes into
 * that process only, however many others map the same file; the handler
 * is run by the kernel in the traced thread, in process context.  The
 * alternative measured against it is none yet: a breakpoint of xdt's own
 * in user text would re-implement uprobes' single-stepping out of line
 * (the XOL area), its fork and exec handling and its return hijacking on
 * every ISA (docs/mechanisms.md, "User space").  Return probes are
 * uretprobes: they fire once per return however the function leaves
 * (several ret instructions, a tail call), but the returning instruction
 * is not known there, so arg0 of pid's return probe is the address the
 * function returns to rather than illumos' offset of the returning
 * instruction (docs/d-language.md); arg1 is the return value, as there.
 *
 * Lifetimes.  A process's provider lives while a thread of it runs the
 * image the probes were made in (we hold its mm_struct with mmgrab(), so
 * its address cannot be reused by another process while we compare
 * against it); after the process exits or execs, the provider and its
 * probes go as soon as no consumer has one of them enabled: at the next
 * request, when the process's last thread exits (sched_process_exit), or
 * when the last consumer stops.  A child made by fork() inherits the
 * breakpoints in its copy of the text; the handler answers
 * UPROBE_HANDLER_REMOVE there and uprobes takes them out of the child, so
 * a child is not traced (illumos' rule).
 *
 * USDT.  A <sys/sdt.h> probe (systemtap's .note.stapsdt format) is a nop
 * in the program's text and a note naming its provider, its name, its
 * arguments as assembler operands and the semaphore of its is-enabled
 * test.  The consumer reads the notes (libxdt/uproc.c) and asks for
 * provider <provider><pid>'s probes as it asks for pid's, with the
 * operands parsed; the kernel names their registers with the ISA's table
 * and gives the semaphore to uprobes (the ref_ctr_offset of
 * uprobe_register_refctr), which counts it up in the traced process
 * while the probe is enabled.  One probe has a site per note with its
 * name in the same function (a macro used twice, or inlined).
 */
#include <linux/ctype.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/workqueue.h>

#include "xdt_arch.h"
#include "xdt_tp.h"
#include "providers.h"

/* Probes in all processes together: each costs ~400 bytes of kernel memory. */
#define UPID_MAX_SITES	(1u << 18)

struct uproc {
	struct xdt_provider prov;
	char name[XDT_PROVNAMELEN];
	struct pid *pid;
	struct mm_struct *mm;		/* mmgrab()ed: the image traced */
	bool usdt;			/* a USDT provider's, not pid's */
	struct list_head node;		/* upids */
	struct list_head sites;
};

/* A USDT argument: struct xdt_uarg with its register numbered. */
struct uarg {
	s64 off;
	s8 size;
	u8 kind;			/* XDT_UA_* */
	u16 reg;			/* uregs[] index */
};

struct usite {
	struct uprobe_consumer uc;
	struct uproc *up;
	struct xdt_probe *probe;
	struct usite *next;		/* the probe's next site (USDT) */
	struct inode *inode;		/* igrab()ed */
	loff_t off;			/* in the file */
	loff_t refctr;			/* USDT: the semaphore's, or 0 */
	unsigned long addr;		/* in the process */
	u32 kind;			/* XDT_UP_* */
	bool registered;
	u8 nargs;			/* USDT */
	struct uarg *args;		/* USDT: [nargs] */
	struct list_head node;		/* up->sites */
	char strs[];			/* mod, func, name */
};

static LIST_HEAD(upids);		/* xdt_lock */
static unsigned int nupids, nsites;	/* xdt_lock; nupids read by the exit hook */
static const struct xdt_provider_ops uproc_ops;
static struct tracepoint *exit_tp;
static void uproc_reap_work(struct work_struct *w);
static DECLARE_WORK(reap_work, uproc_reap_work);

/* ---- probe context: in the traced thread, from uprobes ------------------ */
/* A USDT argument: a fault reads as 0, as a pid probe's stack argument. */
static u64 __xdt_probe usdt_arg(struct pt_regs *regs, const struct uarg *a)
{
	unsigned int n = abs(a->size);
	u64 v = 0, addr;

	switch (a->kind) {
	case XDT_UA_CONST:
		return a->off;
	case XDT_UA_REG:
		if (!xdt_uarch_reg(regs, a->reg, &v))
			return 0;
		break;
	case XDT_UA_MEM:
	case XDT_UA_ABS:
		addr = a->off;
		if (a->kind == XDT_UA_MEM) {
			if (!xdt_uarch_reg(regs, a->reg, &v))
				return 0;
			addr += v;
		}
		v = 0;
		/* little-endian on all three ISAs: the low bytes first */
		if (xdt_copyin_nofault(&v, addr, n))
			return 0;
		break;
	default:
		return 0;
	}
	if (n == 8)
		return v;
	v &= (1ULL << (n * 8)) - 1;
	if (a->size < 0 && (v >> (n * 8 - 1)))
		v |= ~0ULL << (n * 8);
	return v;
}

static u64 __xdt_probe uproc_getarg(struct xdt_ctx *ctx, unsigned int i)
{
	const struct usite *s = ctx->priv;
	u64 v;

	if (!ctx->regs)
		return 0;
	if (s->kind == XDT_UP_USDT)
		return i < s->nargs ? usdt_arg(ctx->regs, &s->args[i]) : 0;
	if (xdt_copyin_nofault(&v, xdt_uarch_stack_arg(ctx->regs, i), sizeof(v)))
		return 0;
	return v;
}

static int __xdt_probe uproc_handler(struct uprobe_consumer *uc,
				    struct pt_regs *regs)
{
	struct usite *s = container_of(uc, struct usite, uc);
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	if (current->mm != s->up->mm)
		return UPROBE_HANDLER_REMOVE;	/* a forked child's copy */
	if (s->kind == XDT_UP_RETURN || xdt_probe_fast(s->probe))
		return 0;		/* RETURN: only to answer for children */
	xdt_ctx_init(&ctx, s->probe);
	ctx.regs = regs;
	ctx.priv = s;
	if (s->kind == XDT_UP_ENTRY) {
		ctx.nargs = xdt_uarch_args(regs, ctx.args);
		ctx.uentry = 1;
	} else if (s->kind == XDT_UP_USDT) {
		ctx.nargs = 0;	/* each read when a clause reads it */
	}
	xdt_probe_fire(&ctx);
	return 0;
}

static int __xdt_probe uproc_ret_handler(struct uprobe_consumer *uc,
					unsigned long func,
					struct pt_regs *regs)
{
	struct usite *s = container_of(uc, struct usite, uc);
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	if (current->mm != s->up->mm || xdt_probe_fast(s->probe))
		return 0;
	xdt_ctx_init(&ctx, s->probe);
	ctx.regs = regs;
	ctx.priv = s;
	ctx.args[0] = instruction_pointer(regs);
	ctx.args[1] = regs_return_value(regs);
	xdt_probe_fire(&ctx);
	return 0;
}

/* Which processes get the breakpoint: the traced one only. */
static bool uproc_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx c,
			struct mm_struct *mm)
{
	return mm == container_of(uc, struct usite, uc)->up->mm;
}

/* ---- enabling ------------------------------------------------------------ */
static void uproc_disable(struct xdt_probe *p)
{
	struct usite *s;
	bool any = false;

	for (s = p->parg; s; s = s->next) {
		if (!s->registered)
			continue;
		/* returns once no handler of ours runs (register_rwsem) */
		uprobe_unregister(s->inode, s->off, &s->uc);
		s->registered = false;
		any = true;
	}
	if (any)
		schedule_work(&reap_work);	/* the process may be gone */
}

static int uproc_enable(struct xdt_probe *p)
{
	struct usite *s;
	int ret = 0;

	for (s = p->parg; s && !ret; s = s->next) {
		s->uc.handler = uproc_handler;
		s->uc.ret_handler = s->kind == XDT_UP_RETURN ?
				    uproc_ret_handler : NULL;
		s->uc.filter = uproc_filter;
		/*
		 * -EINVAL here, for a USDT site, may be uprobes refusing a
		 * second semaphore for one address (a pid probe on the
		 * note's nop has none).
		 */
		ret = uprobe_register_refctr(s->inode, s->off, s->refctr,
					     &s->uc);
		if (!ret)
			s->registered = true;
	}
	if (ret)
		uproc_disable(p);
	return ret;
}

static void uproc_mechanism(struct xdt_probe *p, char *buf, size_t len)
{
	struct usite *s = p->parg, *t;
	unsigned int n = 0;
	int w;

	for (t = s; t; t = t->next)
		n++;
	w = snprintf(buf, len, "%s at %s+0x%llx",
		     s->kind == XDT_UP_RETURN ? "uretprobe" : "uprobe",
		     s->strs, (unsigned long long)s->off);
	if (n > 1 && w >= 0 && (size_t)w < len)
		w += snprintf(buf + w, len - w, " and %u more sites", n - 1);
	if (s->refctr && w >= 0 && (size_t)w < len)
		snprintf(buf + w, len - w, ", semaphore at +0x%llx",
			 (unsigned long long)s->refctr);
}

static const struct xdt_provider_ops uproc_ops = {
	.late = true,
	.enable = uproc_enable,
	.disable = uproc_disable,
	.mechanism = uproc_mechanism,
	.getarg = uproc_getarg,
};

/* ---- processes ------------------------------------------------------------ */
/* Does a thread of the process still run the image its probes were made in? */
static bool uproc_live(struct uproc *up)
{
	struct task_struct *g, *t;
	bool live = false;

	rcu_read_lock();
	g = pid_task(up->pid, PIDTYPE_TGID);
	if (g) {
		for_each_thread(g, t) {
			if (READ_ONCE(t->mm) == up->mm) {
				live = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return live;
}

static bool uproc_busy(struct uproc *up)
{
	struct usite *s;

	list_for_each_entry(s, &up->sites, node)
		if (s->probe->nbound || s->registered)
			return true;
	return false;
}

static void uproc_destroy(struct uproc *up)
{
	struct usite *s, *n;

	lockdep_assert_held(&xdt_lock);
	__xdt_provider_unregister(&up->prov);	/* frees the probes */
	list_for_each_entry_safe(s, n, &up->sites, node) {
		iput(s->inode);
		kfree(s->args);
		kfree(s);
		nsites--;
	}
	list_del(&up->node);
	nupids--;
	mmdrop(up->mm);
	put_pid(up->pid);
	kfree(up);
}

/* Drop the providers of processes that are gone, unless in use. */
static void uproc_reap(void)
{
	struct uproc *up, *n;

	lockdep_assert_held(&xdt_lock);
	list_for_each_entry_safe(up, n, &upids, node)
		if (!uproc_live(up) && !uproc_busy(up))
			uproc_destroy(up);
}

static void uproc_reap_work(struct work_struct *w)
{
	mutex_lock(&xdt_lock);
	uproc_reap();
	mutex_unlock(&xdt_lock);
}

/* sched_process_exit: a process's last thread going ends its probes. */
static void __xdt_probe uproc_exit(void *data, struct task_struct *p)
{
	if (READ_ONCE(nupids) && !atomic_read(&p->signal->live))
		schedule_work(&reap_work);
}

/*
 * May the opener of @f trace @task?  What ptrace_may_access() decides for
 * PTRACE_MODE_ATTACH_REALCREDS, which 6.1 does not export: the same real
 * user and group as all of the process's, and a dumpable process; or
 * CAP_SYS_PTRACE in its user namespace.  Unlike it, no LSM is asked (Yama's
 * ptrace_scope does not apply to xdt).
 */
static bool uproc_may_trace(struct file *f, struct task_struct *task,
			   struct mm_struct *mm)
{
	const struct cred *cred = f->f_cred, *tcred;
	bool same, cap;

	rcu_read_lock();
	tcred = __task_cred(task);
	same = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	cap = file_ns_capable(f, tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (cap)
		return true;
	return same && get_dumpable(mm) == SUID_DUMP_USER;
}

static struct uproc *uproc_get(const char *name, bool usdt, struct pid *pid,
			     struct mm_struct *mm, char *err, size_t len)
{
	struct uproc *up;

	list_for_each_entry(up, &upids, node) {
		if (strcmp(up->name, name))
			continue;
		if (up->mm == mm)
			return up;
		/* reaped already unless a consumer still has its probes */
		snprintf(err, len, "%s: the process has exec'd or gone while "
			 "probes of its old image are enabled", name);
		return ERR_PTR(-EBUSY);
	}
	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return ERR_PTR(-ENOMEM);
	strscpy(up->name, name, sizeof(up->name));
	up->prov.name = up->name;
	up->prov.ops = &uproc_ops;
	up->usdt = usdt;
	up->pid = get_pid(pid);
	mmgrab(mm);
	up->mm = mm;
	INIT_LIST_HEAD(&up->sites);
	__xdt_provider_register(&up->prov);
	list_add_tail(&up->node, &upids);
	WRITE_ONCE(nupids, nupids + 1);
	return up;
}

static int find_probe(struct xdt_probe *p, void *arg)
{
	*(struct xdt_probe **)arg = p;
	return 1;
}

/*
 * A USDT site's arguments, numbered.  A register the ISA's table does not
 * hold reads as 0 (XDT_UA_NONE), as an operand the consumer could not
 * parse does: one odd operand should not cost the program its probes.
 */
static int usdt_args(struct usite *s, const struct xdt_uprobe *u, char *err,
		     size_t len)
{
	char dname[16];
	unsigned int i;
	u64 r;

	if (u->nargs > XDT_USDT_ARGS || (s->kind != XDT_UP_USDT && u->nargs)) {
		snprintf(err, len, "%s`%s: %u USDT arguments", u->mod, u->func,
			 u->nargs);
		return -EINVAL;
	}
	if (!u->nargs)
		return 0;
	s->args = kcalloc(u->nargs, sizeof(*s->args), GFP_KERNEL);
	if (!s->args)
		return -ENOMEM;
	s->nargs = u->nargs;
	for (i = 0; i < u->nargs; i++) {
		const struct xdt_uarg *a = &u->args[i];
		struct uarg *k = &s->args[i];
		int n = abs(a->size);

		if (a->kind > XDT_UA_ABS ||
		    (n != 1 && n != 2 && n != 4 && n != 8)) {
			snprintf(err, len, "%s`%s: USDT argument %u: kind %u, "
				 "size %d", u->mod, u->func, i, a->kind,
				 a->size);
			return -EINVAL;
		}
		k->off = a->off;
		k->size = a->size;
		k->kind = a->kind;
		if (k->kind != XDT_UA_REG && k->kind != XDT_UA_MEM)
			continue;
		k->kind = XDT_UA_NONE;
		if (strnlen(a->reg, sizeof(a->reg)) == sizeof(a->reg) ||
		    !xdt_uarch_sdt_reg(a->reg, dname, sizeof(dname)))
			continue;
		for (r = 0; xdt_uarch_ureg_name(r); r++) {
			if (!strcmp(xdt_uarch_ureg_name(r), dname)) {
				k->kind = a->kind;
				k->reg = r;
				break;
			}
		}
	}
	return 0;
}

/*
 * One probe named @name at @addr (or found made).  The address must lie in
 * an executable mapping of a file in @mm; uprobes wants the file and the
 * offset in it.  1: made, 0: there already.
 */
static int uproc_one(struct uproc *up, struct mm_struct *mm,
		     const struct xdt_uprobe *u, unsigned long addr, u32 kind,
		     const char *name, char *err, size_t len)
{
	struct xdt_probedesc d;
	struct xdt_probe *p = NULL;
	struct vm_area_struct *vma;
	struct inode *inode = NULL;
	struct usite *s, *last = NULL;
	size_t lm, lf, ln;
	loff_t off = 0;
	int ret;

	lm = strnlen(u->mod, sizeof(u->mod));
	lf = strnlen(u->func, sizeof(u->func));
	ln = strlen(name);
	memset(&d, 0, sizeof(d));
	strscpy(d.prov, up->name, sizeof(d.prov));
	memcpy(d.mod, u->mod, lm);
	memcpy(d.func, u->func, lf);
	memcpy(d.name, name, ln);
	xdt_probe_foreach(&d, find_probe, &p);
	if (p && kind != XDT_UP_USDT)
		return 0;
	for (last = p ? p->parg : NULL; last; last = last->next) {
		if (last->addr == addr)
			return 0;
		if (!last->next)
			break;	/* a new site of USDT probe @p */
	}
	if (nsites >= UPID_MAX_SITES) {
		snprintf(err, len, "more than %u user-space probes",
			 UPID_MAX_SITES);
		return -ENOSPC;
	}
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file && (vma->vm_flags & VM_EXEC)) {
		inode = igrab(file_inode(vma->vm_file));
		off = (loff_t)(addr - vma->vm_start) +
		      ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
	}
	mmap_read_unlock(mm);
	if (!inode) {
		snprintf(err, len, "%s`%s: 0x%lx is not in an executable file "
			 "mapping of the process", d.mod, d.func, addr);
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s) + lm + lf + ln + 3, GFP_KERNEL);
	if (!s) {
		iput(inode);
		return -ENOMEM;
	}
	memcpy(s->strs, u->mod, lm);
	memcpy(s->strs + lm + 1, u->func, lf);
	memcpy(s->strs + lm + lf + 2, name, ln);
	s->up = up;
	s->inode = inode;
	s->off = off;
	s->addr = addr;
	s->kind = kind;
	s->refctr = kind == XDT_UP_USDT ? u->refctr : 0;
	ret = usdt_args(s, u, err, len);
	if (ret)
		goto fail;
	if (last) {
		s->probe = p;
		last->next = s;
	} else {
		s->probe = xdt_probe_create(&up->prov, s->strs,
					    s->strs + lm + 1,
					    s->strs + lm + lf + 2, s);
		ret = -ENOMEM;
		if (!s->probe)
			goto fail;
	}
	list_add_tail(&s->node, &up->sites);
	nsites++;
	return !last;
fail:
	iput(inode);
	kfree(s->args);
	kfree(s);
	return ret;
}

/*
 * @n bytes of text at @addr of @mm, as its file has them: not the
 * process's copy, where a uprobe already in (another consumer's, or this
 * provider's entry probe) shows as uprobes' breakpoint, not the
 * instruction it displaced.  The bytes read, or a negative errno.
 */
static ssize_t uproc_read_text(struct mm_struct *mm, unsigned long addr,
			       void *buf, size_t n)
{
	struct vm_area_struct *vma;
	struct file *file = NULL;
	loff_t off = 0;
	ssize_t r;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file && (vma->vm_flags & VM_EXEC)) {
		file = get_file(vma->vm_file);
		off = (loff_t)(addr - vma->vm_start) +
		      ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
	}
	mmap_read_unlock(mm);
	if (!file)
		return -EFAULT;
	r = kernel_read(file, buf, n, &off);
	fput(file);
	return r;
}

/*
 * Offset probes: the function's text is read from the process's file and decoded
 * from its first byte (arch/<isa>/user_isa.c), so a probe is only ever
 * put on an instruction boundary, and never on an instruction the ISA
 * refuses (kept as a refusal with its reason, for `dtrace -l -v`).
 * @only: the one offset asked for (XDT_UP_OFFSET), else every instruction.
 * Returns the probes made, or an error.
 */
static int uproc_offsets(struct uproc *up, struct task_struct *task,
			 struct mm_struct *mm, const struct xdt_uprobe *u,
			 bool one, u32 only, char *err, size_t len)
{
	u32 size = min_t(u32, u->size, XDT_UFUNC_MAX), pos = 0;
	char name[XDT_NAMELEN];
	int made = 0, ret = 0;
	const char *why;
	u8 *text;

	if (!size) {
		snprintf(err, len, "%s`%s: offset probes need the function's "
			 "size (its symbol has none)", u->mod, u->func);
		return -EINVAL;
	}
	text = kvmalloc(size, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	if (uproc_read_text(mm, u->addr, text, size) != size) {
		snprintf(err, len, "%s`%s: cannot read its text in the process",
			 u->mod, u->func);
		ret = -EFAULT;
		goto out;
	}
	while (pos < size && (!one || pos <= only)) {
		unsigned int l = xdt_uarch_insn(text + pos, size - pos, &why);

		if (!l)
			break;
		snprintf(name, sizeof(name), "%x", pos);
		if (one && pos != only) {
			pos += l;
			continue;
		}
		if (why) {
			if (one) {
				snprintf(err, len, "%s`%s+0x%x: %s", u->mod,
					 u->func, pos, why);
				ret = -EINVAL;
				goto out;
			}
			if (!xdt_refused(&up->prov, u->mod, u->func, name))
				xdt_refusal_add_name(&up->prov, u->mod,
						     u->func, name, why);
		} else {
			ret = uproc_one(up, mm, u, u->addr + pos, XDT_UP_OFFSET,
					name, err, len);
			if (ret < 0 || one)
				goto out;	/* one: the probe asked for */
			made += ret;
		}
		if (!(pos & 255))
			cond_resched();
		pos += l;
	}
	ret = made;
	if (one && pos != only) {
		snprintf(err, len, "%s`%s: 0x%x is %s", u->mod, u->func, only,
			 only >= size ? "past the function's end" :
			 pos > only ? "not an instruction boundary" :
			 "after an instruction that cannot be decoded");
		ret = -EINVAL;
	}
out:
	kvfree(text);
	return ret;
}

/*
 * Entry and return probes are uprobes on the function's first instruction:
 * one that 6.1's uprobes will not take there (x86's AVX2 string functions
 * begin with vmovd or vpxor; riscv's with c.jr or c.beqz) is refused as an
 * offset probe would be, kept for `dtrace -l -v`, its reason in @note.
 * Not knowing the instruction (it cannot be read or decoded) leaves the
 * verdict to uprobes at GO.  true: refused.
 */
static bool uproc_first_refused(struct uproc *up, struct mm_struct *mm,
				const struct xdt_uprobe *u, char *note,
				size_t len)
{
	const char *why = NULL;
	u8 text[16];
	ssize_t n;

	n = uproc_read_text(mm, u->addr, text, sizeof(text));
	if (n <= 0 || !xdt_uarch_insn(text, n, &why) || !why)
		return false;
	if (!xdt_refused(&up->prov, u->mod, u->func, u->name))
		xdt_refusal_add_name(&up->prov, u->mod, u->func, u->name, why);
	snprintf(note, len, "%s`%s: its first instruction cannot be probed: "
		 "%s", u->mod, u->func, why);
	return true;
}

static int uproc_add(struct uproc *up, struct task_struct *task,
		     struct mm_struct *mm, const struct xdt_uprobe *u,
		     char *err, size_t len)
{
	size_t lm = strnlen(u->mod, sizeof(u->mod));
	size_t lf = strnlen(u->func, sizeof(u->func));
	size_t ln = strnlen(u->name, sizeof(u->name));

	if (u->kind > XDT_UP_USDT || (u->kind == XDT_UP_USDT) != up->usdt) {
		snprintf(err, len, "probe kind %u is not one of %s's", u->kind,
			 up->name);
		return -EINVAL;
	}
	if (lm == sizeof(u->mod) || lf == sizeof(u->func) || !lf ||
	    ln == sizeof(u->name) ||
	    ((u->kind <= XDT_UP_RETURN || u->kind == XDT_UP_USDT) && !ln)) {
		snprintf(err, len, "a probe's module, function or name is "
			 "empty or not terminated");
		return -EINVAL;
	}
	if (strpbrk(u->func, "*?[\\") || strpbrk(u->mod, "*?[\\") ||
	    ((u->kind <= XDT_UP_RETURN || u->kind == XDT_UP_USDT) &&
	     strpbrk(u->name, "*?[\\"))) {
		snprintf(err, len, "%.64s:%.128s:%.64s: a probe's name may not "
			 "hold a glob character", u->mod, u->func, u->name);
		return -EINVAL;
	}
	if (u->kind == XDT_UP_OFFSET || u->kind == XDT_UP_OFFSETS)
		return uproc_offsets(up, task, mm, u, u->kind == XDT_UP_OFFSET,
				     u->off, err, len);
	if (u->kind <= XDT_UP_RETURN && uproc_first_refused(up, mm, u, err, len))
		return 0;	/* no probe; @err says why, the request goes on */
	return uproc_one(up, mm, u, u->addr, u->kind, u->name, err, len);
}

#define UPID_CHUNK	16

long xdt_pid_ioctl(struct xdt_state *st, struct file *f, void __user *uarg)
{
	struct xdt_uprobe_req *req;
	struct xdt_uprobe *buf = NULL;
	struct task_struct *task = NULL;
	struct mm_struct *mm = NULL;
	struct pid *pid = NULL;
	char name[XDT_PROVNAMELEN];
	struct uproc *up;
	size_t plen;
	u32 i, j, n;
	long ret;

	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(req, uarg, sizeof(*req)))
		goto out;
	memset(req->err, 0, sizeof(req->err));
	req->created = 0;
	req->bound = 0;
	ret = -EINVAL;
	plen = strnlen(req->prov, sizeof(req->prov));
	if (!plen || plen + 11 > sizeof(req->prov) ||
	    !isalpha(req->prov[0]) || isdigit(req->prov[plen - 1])) {
		snprintf(req->err, sizeof(req->err), "bad provider name");
		goto reply;
	}
	for (i = 0; i < plen; i++) {
		if (!isalnum(req->prov[i]) && req->prov[i] != '_') {
			snprintf(req->err, sizeof(req->err),
				 "bad provider name");
			goto reply;
		}
	}
	if (req->count > XDT_UPROBES_MAX) {
		snprintf(req->err, sizeof(req->err), "%u probes in one request "
			 "(at most %u)", req->count, XDT_UPROBES_MAX);
		ret = -E2BIG;
		goto reply;
	}
	ret = -ESRCH;
	if (req->pid > 0)
		pid = find_get_pid(req->pid);
	task = pid ? get_pid_task(pid, PIDTYPE_TGID) : NULL;
	if (!task) {
		snprintf(req->err, sizeof(req->err), "process %d does not exist",
			 req->pid);
		goto reply;
	}
	mm = get_task_mm(task);
	if (!mm) {
		snprintf(req->err, sizeof(req->err), "process %d has no user "
			 "address space (a kernel thread, or exiting)", req->pid);
		goto reply;
	}
	ret = -EPERM;
	if (!uproc_may_trace(f, task, mm)) {
		snprintf(req->err, sizeof(req->err), "process %d: permission "
			 "denied (another user's, or not dumpable; tracing it "
			 "needs CAP_SYS_PTRACE)", req->pid);
		goto reply;
	}
	ret = -ENOMEM;
	buf = kmalloc_array(UPID_CHUNK, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		goto reply;
	snprintf(name, sizeof(name), "%s%d", req->prov, req->pid);
	mutex_lock(&xdt_lock);
	uproc_reap();
	up = uproc_get(name, strcmp(req->prov, "pid"), pid, mm, req->err,
		       sizeof(req->err));
	ret = PTR_ERR_OR_ZERO(up);
	for (i = 0; !ret && i < req->count; i += n) {
		n = min_t(u32, UPID_CHUNK, req->count - i);
		if (copy_from_user(buf, u64_to_user_ptr(req->probes) +
				   (size_t)i * sizeof(*buf), n * sizeof(*buf))) {
			ret = -EFAULT;
			break;
		}
		for (j = 0; j < n && !ret; j++) {
			ret = uproc_add(up, task, mm, &buf[j], req->err,
					sizeof(req->err));
			if (ret > 0) {
				req->created += ret;
				ret = 0;
			}
		}
		cond_resched();
	}
	/*
	 * On a refusal the probes made so far stay: like those of an
	 * earlier request, they go with the process.
	 */
	if (!IS_ERR(up) && list_empty(&up->sites))
		uproc_destroy(up);
	mutex_unlock(&xdt_lock);
	/*
	 * While tracing (an object dlopen()ed after GO): the consumer's
	 * clauses that match the new probes get them now.
	 */
	if (!ret && st->state == XDT_STATE_RUNNING) {
		ret = xdt_state_bind_late(st, &req->bound);
		if (ret == -ENOSPC)
			snprintf(req->err, sizeof(req->err), "no room for more "
				 "probes made while tracing (xdt_enable.late)");
		else if (ret)
			snprintf(req->err, sizeof(req->err), "could not enable "
				 "the new probes (%ld)", ret);
	}
reply:
	if (copy_to_user(uarg, req, sizeof(*req)))
		ret = -EFAULT;
out:
	kfree(buf);
	if (mm)
		mmput(mm);
	if (task)
		put_task_struct(task);
	put_pid(pid);
	kfree(req);
	return ret;
}

int xdt_pid_init(void)
{
	exit_tp = xdt_tracepoint_find("sched_process_exit");
	if (!exit_tp)
		return -ENOENT;
	return tracepoint_probe_register(exit_tp, uproc_exit, NULL);
}

void xdt_pid_exit(void)
{
	struct uproc *up, *n;

	tracepoint_probe_unregister(exit_tp, uproc_exit, NULL);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&reap_work);
	/* no consumer is left (each pins the module): nothing is enabled */
	mutex_lock(&xdt_lock);
	list_for_each_entry_safe(up, n, &upids, node)
		uproc_destroy(up);
	mutex_unlock(&xdt_lock);
}

/* ---- the loader's hold: objects dlopen()ed while tracing ----------------- */
/*
 * DTrace stops a traced process at its loader's r_brk (rtld_db's
 * RD_DLACTIVITY) and makes the probes of a new object before the process
 * goes on.  Here the consumer asks for a uprobe at r_brk
 * (XDT_IOC_UHOLD/SET, the address read from the loader's _r_debug): a
 * thread of the process that calls it waits in the handler -- in its own
 * context on its way back to user space, where a uprobe handler may sleep
 * -- until the consumer has made the new object's probes, which the kernel
 * binds to the running clauses (xdt_state_bind_late), and says so (ACK).
 * The loader calls r_brk before it maps an object and again once it is
 * mapped and relocated, before its initialisers run, so not one of its
 * instructions runs untraced.  The wait is killable and bounded: a
 * consumer that has not looked (PEEK) within XDT_UHOLD_MS -- stopped,
 * dead, starved -- costs the process that much per call, never a hang;
 * one that has looked and is making the probes (reading the object's
 * symbols, registering uprobes: seconds on a slow machine or a debug
 * kernel) is waited for up to XDT_UHOLD_ROUNDS such periods.  A wait that
 * ends unacknowledged is logged, since the process then ran on with the
 * new object's probes not yet in.  The consumer learns of a waiting thread from
 * poll() on its file (EPOLLPRI: st->attn).  Not probe context: nothing
 * here runs in a D firing.
 */
struct uhold {
	struct xdt_attach at;
	struct uprobe_consumer uc;
	struct xdt_state *st;
	struct inode *inode;
	loff_t off;
	struct mm_struct *mm;		/* mmgrab()ed: the process held */
	pid_t pid;
	bool live;
	wait_queue_head_t wq;
	atomic64_t seq;			/* calls of r_brk */
	u64 seen;			/* the consumer has looked up to */
	u64 ack;			/* released up to */
};

#define XDT_UHOLD_ROUNDS	5	/* XDT_UHOLD_MS periods for a consumer at work */

static int uhold_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct uhold *h = container_of(uc, struct uhold, uc);
	unsigned int rounds = 0;
	long left;
	u64 seq;

	if (current->mm != h->mm || !READ_ONCE(h->live))
		return 0;
	seq = atomic64_inc_return(&h->seq);
	WRITE_ONCE(h->st->attn, 1);
	xdt_attn_wake();
	do {
		rounds++;
		left = wait_event_killable_timeout(h->wq,
				READ_ONCE(h->ack) >= seq || !READ_ONCE(h->live),
				msecs_to_jiffies(XDT_UHOLD_MS));
	} while (!left && READ_ONCE(h->seen) >= seq &&
		 rounds < XDT_UHOLD_ROUNDS);
	if (!left)
		pr_info_ratelimited("xdt: pid %d: loader hold let go after %u ms, the consumer %s\n",
				    h->pid, rounds * XDT_UHOLD_MS,
				    READ_ONCE(h->seen) >= seq ?
				    "still making the new object's probes" :
				    "never looked");
	return 0;
}

static int uhold_ret_handler(struct uprobe_consumer *uc, unsigned long func,
			     struct pt_regs *regs)
{
	return uhold_handler(uc, regs);
}

static bool uhold_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx c,
			 struct mm_struct *mm)
{
	return mm == container_of(uc, struct uhold, uc)->mm;
}

/* STOP: the held threads go on, then the uprobe goes (it waits for them) */
static void uhold_stop(struct xdt_attach *a)
{
	struct uhold *h = container_of(a, struct uhold, at);

	WRITE_ONCE(h->live, false);
	wake_up_all(&h->wq);
	uprobe_unregister(h->inode, h->off, &h->uc);
	iput(h->inode);
	mmdrop(h->mm);
	kfree(h);
}

static struct uhold *uhold_find(struct xdt_state *st, pid_t pid)
{
	struct xdt_attach *a;

	for (a = st->attached; a; a = a->next) {
		struct uhold *h = container_of(a, struct uhold, at);

		if (a->stop == uhold_stop && h->pid == pid)
			return h;
	}
	return NULL;
}

static long uhold_set(struct xdt_state *st, struct file *f,
		      struct xdt_uhold_req *req)
{
	struct task_struct *task = NULL;
	struct vm_area_struct *vma;
	struct mm_struct *mm = NULL;
	struct uhold *h = NULL;
	struct pid *pid;
	long ret = -ESRCH;

	if (uhold_find(st, req->pid))
		return 0;		/* one per process is enough */
	pid = req->pid > 0 ? find_get_pid(req->pid) : NULL;
	task = pid ? get_pid_task(pid, PIDTYPE_TGID) : NULL;
	if (task)
		mm = get_task_mm(task);
	if (!mm) {
		snprintf(req->err, sizeof(req->err), "process %d is gone",
			 req->pid);
		goto out;
	}
	ret = -EPERM;
	if (!uproc_may_trace(f, task, mm)) {
		snprintf(req->err, sizeof(req->err), "process %d: permission "
			 "denied", req->pid);
		goto out;
	}
	ret = -ENOMEM;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		goto out;
	ret = -EINVAL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, req->addr);
	if (vma && vma->vm_file && (vma->vm_flags & VM_EXEC)) {
		h->inode = igrab(file_inode(vma->vm_file));
		h->off = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
			 (req->addr - vma->vm_start);
	}
	mmap_read_unlock(mm);
	if (!h->inode) {
		snprintf(req->err, sizeof(req->err), "0x%llx is not in "
			 "executable text of process %d",
			 (unsigned long long)req->addr, req->pid);
		goto out;
	}
	h->st = st;
	h->pid = req->pid;
	h->live = true;
	h->mm = mm;
	mmgrab(mm);
	init_waitqueue_head(&h->wq);
	if (req->op == XDT_UHOLD_SET_RET)
		h->uc.ret_handler = uhold_ret_handler;	/* dlopen()'s return */
	else
		h->uc.handler = uhold_handler;		/* r_brk */
	h->uc.filter = uhold_filter;
	h->at.stop = uhold_stop;
	ret = uprobe_register(h->inode, h->off, &h->uc);
	if (ret) {
		snprintf(req->err, sizeof(req->err), "uprobe at 0x%llx: %ld",
			 (unsigned long long)req->addr, ret);
		mmdrop(mm);
		iput(h->inode);
		goto out;
	}
	mutex_lock(&xdt_lock);
	h->at.next = st->attached;
	st->attached = &h->at;
	mutex_unlock(&xdt_lock);
	h = NULL;
out:
	kfree(h);
	if (mm)
		mmput(mm);
	if (task)
		put_task_struct(task);
	put_pid(pid);
	return ret;
}

long xdt_uhold_ioctl(struct xdt_state *st, struct file *f, void __user *uarg)
{
	struct xdt_uhold_req req;
	struct uhold *h;
	long ret = 0;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	memset(req.err, 0, sizeof(req.err));
	/*
	 * SET before GO too: a hold set after it left a window in which a
	 * dlopen() ran unheld (a consumer slow to read the loader's
	 * symbols, riscv64 under load: the library's calls were missed).
	 * A thread held before GO waits for the consumer's first look.
	 */
	if (st->state != XDT_STATE_RUNNING &&
	    !(st->state == XDT_STATE_ENABLED &&
	      (req.op == XDT_UHOLD_SET || req.op == XDT_UHOLD_SET_RET)))
		return -EINVAL;
	switch (req.op) {
	case XDT_UHOLD_SET:
	case XDT_UHOLD_SET_RET:
		ret = uhold_set(st, f, &req);
		break;
	case XDT_UHOLD_PEEK:
		/* cleared first: a call after this read sets it again */
		WRITE_ONCE(st->attn, 0);
		smp_mb();
		h = uhold_find(st, req.pid);
		req.seq = h ? atomic64_read(&h->seq) : 0;
		if (h && req.seq > READ_ONCE(h->seen))
			WRITE_ONCE(h->seen, req.seq);
		break;
	case XDT_UHOLD_ACK:
		h = uhold_find(st, req.pid);
		if (!h)
			return -ENOENT;
		if (req.seq > READ_ONCE(h->ack))
			WRITE_ONCE(h->ack, req.seq);
		wake_up_all(&h->wq);
		break;
	default:
		return -EINVAL;
	}
	if (copy_to_user(uarg, &req, sizeof(req)))
		ret = -EFAULT;
	return ret;
}
