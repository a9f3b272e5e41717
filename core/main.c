// SPDX-License-Identifier: GPL-2.0
/*
 * xdt.ko: module setup and /dev/xdt.
 *
 * Every open of the device is a consumer of its own (struct xdt_state): it
 * enables one program, runs it, and closing its file tears its part down;
 * consumers share only the probes (core/enable.c).  The device pins the
 * module, so `rmmod xdt` while tracing is refused by the kernel (module in
 * use) and can never pull text out from under a patched site.
 *
 * Who may open it: docs/privileges.md.  In short, as perf_event_open() and
 * BPF tracing on 6.1: CAP_PERFMON or CAP_SYS_ADMIN; destructive actions
 * and D reads of kernel memory need CAP_SYS_ADMIN.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/vmalloc.h>

#include "xdt_arch.h"


/*
 * The gate.  The node is 0666: what decides is the opener's capabilities,
 * as for perf_event_open() and bpf(), which are gated by capability and not
 * by a file's mode.  CAP_PERFMON or CAP_SYS_ADMIN (perfmon_capable()) may
 * trace at all; only CAP_SYS_ADMIN may read kernel memory from D and use
 * destructive actions.  The level is decided here, once, from the
 * credentials of the task that opens (those that become f->f_cred): a
 * descriptor passed to another process keeps its opener's level and the
 * holder's own capabilities do not matter, as with a perf event's file.
 * Capabilities count in the initial user namespace only (capable()): root
 * in a container that does not have them there may not trace.
 */
static int xdt_open(struct inode *inode, struct file *f)
{
	struct xdt_state *st;
	bool admin;

	if (!perfmon_capable())
		return -EPERM;
	/* a probe of the level, not a demand: no audit record when absent */
	admin = ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mutex_init(&st->ioc_lock);
	st->perfmon_only = !admin;
	f->private_data = st;
	return 0;
}

/*
 * dtrace -w from a CAP_PERFMON-only opener: refused whole, before the
 * program is loaded, with the reason in the reply (the consumer prints
 * it).  @blob is the kernel's own copy, the one the loader goes on to use,
 * so the flags checked are the flags loaded.
 */
static int check_destructive(struct xdt_state *st, struct xdt_enable *req,
			     const void *blob)
{
	const struct xdt_prog *p = blob;

	if (!st->perfmon_only || req->size < sizeof(*p) ||
	    !(p->flags & XDT_PROG_DESTRUCTIVE))
		return 0;
	snprintf(req->err, sizeof(req->err),
		 "destructive actions (dtrace -w) need CAP_SYS_ADMIN; "
		 "/dev/xdt was opened with CAP_PERFMON only");
	return -EPERM;
}

static int xdt_release(struct inode *inode, struct file *f)
{
	xdt_state_free(f->private_data);
	return 0;
}

static long ioc_enable(struct xdt_state *st, void __user *uarg)
{
	struct xdt_enable *req;
	void *blob = NULL;
	long ret;

	if (st->state != XDT_STATE_IDLE)
		return -EBUSY;
	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(req, uarg, sizeof(*req)))
		goto out;
	memset(req->err, 0, sizeof(req->err));
	ret = -E2BIG;
	if (req->size > XDT_MAX_PROG) {
		snprintf(req->err, sizeof(req->err),
			 "program object of %u bytes (at most %u)", req->size,
			 XDT_MAX_PROG);
		goto reply;
	}
	ret = -ENOMEM;
	blob = kvmalloc(max(req->size, 1u), GFP_KERNEL);
	if (!blob)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(blob, u64_to_user_ptr(req->prog), req->size)) {
		kvfree(blob);
		goto out;
	}
	ret = check_destructive(st, req, blob);
	if (ret) {
		kvfree(blob);
		goto reply;
	}
	ret = xdt_enable(st, req, blob);	/* st owns blob now */
	if (ret)
		xdt_state_reset(st);	/* refused: idle again, nothing kept */
reply:
	if (copy_to_user(uarg, req, sizeof(*req)))
		ret = -EFAULT;
out:
	kfree(req);
	return ret;
}

static long ioc_eprobes(struct xdt_state *st, void __user *uarg)
{
	struct xdt_eprobe_query q;
	struct xdt_eprobe __user *out;
	struct xdt_eprobe e;
	u32 i;

	if (copy_from_user(&q, uarg, sizeof(q)))
		return -EFAULT;
	out = u64_to_user_ptr(q.buf);
	for (i = 0; i < st->necbs && i < q.cap; i++) {
		struct xdt_ecb *ecb = &st->ecbs[i];
		struct xdt_probe *p = ecb->probe;

		memset(&e, 0, sizeof(e));
		e.epid = ecb->epid;
		e.clause = ecb->clause->index;
		e.probe = p->id;
		strscpy(e.desc.prov, p->prov->name, sizeof(e.desc.prov));
		strscpy(e.desc.mod, p->mod ?: "", sizeof(e.desc.mod));
		strscpy(e.desc.func, p->func ?: "", sizeof(e.desc.func));
		strscpy(e.desc.name, p->name ?: "", sizeof(e.desc.name));
		if (copy_to_user(&out[i], &e, sizeof(e)))
			return -EFAULT;
	}
	q.count = st->necbs;
	return copy_to_user(uarg, &q, sizeof(q)) ? -EFAULT : 0;
}

static long xdt_ioctl_locked(struct file *f, unsigned int cmd,
			     unsigned long arg)
{
	struct xdt_state *st = f->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case XDT_IOC_VERSION:
		return put_user((u32)XDT_ABI_VERSION, (u32 __user *)uarg);
	case XDT_IOC_PROBES: {
		struct xdt_probe_query q;

		if (copy_from_user(&q, uarg, sizeof(q)))
			return -EFAULT;
		ret = xdt_probe_query(&q);
		if (!ret && copy_to_user(uarg, &q, sizeof(q)))
			ret = -EFAULT;
		return ret;
	}
	case XDT_IOC_ENABLE:
		return ioc_enable(st, uarg);
	case XDT_IOC_EPROBES:
		return ioc_eprobes(st, uarg);
	case XDT_IOC_GO:
		return xdt_go(st);
	case XDT_IOC_STOP:
		if (st->state != XDT_STATE_RUNNING)
			return -EINVAL;
		xdt_stop(st);
		return 0;
	case XDT_IOC_BUFSNAP: {
		struct xdt_bufsnap b;

		if (copy_from_user(&b, uarg, sizeof(b)))
			return -EFAULT;
		if (st->state < XDT_STATE_RUNNING)
			return -EINVAL;
		ret = xdt_buf_snap(st, b.cpu, u64_to_user_ptr(b.buf), &b.size,
				   &b.drops);
		if ((!ret || ret == -ENOSPC) && copy_to_user(uarg, &b, sizeof(b)))
			ret = -EFAULT;
		return ret;
	}
	case XDT_IOC_AGGSNAP: {
		struct xdt_aggsnap a;

		if (copy_from_user(&a, uarg, sizeof(a)))
			return -EFAULT;
		if (st->state < XDT_STATE_RUNNING)
			return -EINVAL;
		ret = xdt_agg_snap(st, &a);
		if ((!ret || ret == -ENOSPC) && copy_to_user(uarg, &a, sizeof(a)))
			ret = -EFAULT;
		return ret;
	}
	case XDT_IOC_STATUS: {
		struct xdt_status s;

		xdt_state_status(st, &s);
		return copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
	}
	}
	return -ENOTTY;
}

/* One ioctl of a consumer at a time (threads may share its file). */
static long xdt_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct xdt_state *st = f->private_data;
	long ret;

	mutex_lock(&st->ioc_lock);
	ret = xdt_ioctl_locked(f, cmd, arg);
	mutex_unlock(&st->ioc_lock);
	return ret;
}

/*
 * /proc/<pid>/fdinfo/<fd> of an open /dev/xdt: where this consumer is
 * (idle, enabled, running, stopped) and whether its probes are all in
 * (tracing: 1 from a successful GO to the start of its STOP) -- what a
 * script waits on before it starts a workload for one consumer, however
 * many others trace (parameters/tracing counts them all).
 */
static void xdt_show_fdinfo(struct seq_file *m, struct file *f)
{
	static const char *const names[] = { "idle", "enabled", "running",
					     "stopped" };
	struct xdt_state *st = f->private_data;
	int state = READ_ONCE(st->state);

	seq_printf(m, "xdt-state:\t%s\nxdt-tracing:\t%d\n",
		   state >= 0 && state < ARRAY_SIZE(names) ? names[state] : "?",
		   READ_ONCE(st->counted) ? 1 : 0);
}

static const struct file_operations xdt_fops = {
	.owner = THIS_MODULE,
	.open = xdt_open,
	.release = xdt_release,
	.unlocked_ioctl = xdt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = xdt_show_fdinfo,
};

static struct miscdevice xdt_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "xdt",
	.fops = &xdt_fops,
	.mode = 0666,		/* xdt_open's capability check is the gate */
};

static void providers_exit(unsigned int n)
{
	while (n--)
		xdt_provider_modules[n].exit();
}

static int __init xdt_init(void)
{
	unsigned int i;
	int ret = 0;

	xdt_probes_init();
	xdt_dif_init();
	xdt_destructive_init();
	for (i = 0; i < xdt_nprovider_modules && !ret; i++) {
		ret = xdt_provider_modules[i].init();
		if (ret) {
			pr_err("xdt: provider %s: %d\n",
			       xdt_provider_modules[i].name, ret);
			providers_exit(i);
		}
	}
	if (ret)
		goto err_tables;
	ret = xdt_arch_trap_init();
	if (ret)
		goto err_providers;
	ret = misc_register(&xdt_dev);
	if (ret)
		goto err_trap;
	pr_info("xdt: ready on %s, %u probes\n", XDT_ISA_NAME, xdt_nprobes());
	return 0;
err_trap:
	xdt_arch_trap_exit();
err_providers:
	providers_exit(xdt_nprovider_modules);
err_tables:
	xdt_destructive_exit();
	xdt_probes_exit();
	return ret;
}

static void __exit xdt_exit(void)
{
	misc_deregister(&xdt_dev);
	xdt_arch_trap_exit();
	providers_exit(xdt_nprovider_modules);
	xdt_destructive_exit();
	xdt_probes_exit();
}

module_init(xdt_init);
module_exit(xdt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xdt: DTrace-style tracing across ISAs");
