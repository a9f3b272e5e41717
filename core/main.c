// SPDX-License-Identifier: GPL-2.0
/*
 * xdt.ko: module setup and /dev/xdt.
 *
 * Every open of the device is a consumer of its own (struct xdt_state): it
 * enables one program, runs it, and closing its file tears its part down;
 * consumers share only the probes (core/portable/enable.c).  The device pins the
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
#include <linux/poll.h>
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

static int xdt_release(struct inode *inode, struct file *f)
{
	xdt_state_free(f->private_data);
	return 0;
}

/* One ioctl of a consumer at a time (threads may share its file). */
static long xdt_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct xdt_state *st = f->private_data;
	unsigned int i;
	long ret;

	mutex_lock(&st->ioc_lock);
	for (i = 0; i < xdt_nprovider_modules; i++) {
		const struct xdt_provider_module *m = &xdt_provider_modules[i];

		if (m->ioctl && m->ioc == cmd)
			break;
	}
	if (i < xdt_nprovider_modules)
		ret = xdt_provider_modules[i].ioctl(st, f, (void __user *)arg);
	else
		ret = xdt_ioctl_state(st, cmd, (void __user *)arg);
	mutex_unlock(&st->ioc_lock);
	return ret;
}

/*
 * How many consumers are tracing: GO done, STOP not begun
 * (core/portable/enable.c counts them under xdt_lock).  Read-only in
 * /sys/module/xdt/parameters/tracing, for an operator asking "is anyone
 * tracing?" and for a script that must start its workload only once the
 * probes are in (a consumer's open pins the module before it compiles).
 */
module_param_named(tracing, xdt_tracing, int, 0444);
MODULE_PARM_DESC(tracing, "consumers tracing now (GO done, STOP not begun)");

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

/*
 * poll(): EPOLLPRI while a provider wants the consumer now (pid: a thread
 * held at the loader's r_brk waits for the consumer to make the probes of
 * an object it dlopen()ed).  One queue for all consumers: rare events.
 */
static DECLARE_WAIT_QUEUE_HEAD(xdt_attn_wq);

void xdt_attn_wake(void)
{
	wake_up_all(&xdt_attn_wq);
}

static __poll_t xdt_poll(struct file *f, struct poll_table_struct *pt)
{
	struct xdt_state *st = f->private_data;

	poll_wait(f, &xdt_attn_wq, pt);
	return READ_ONCE(st->attn) ? EPOLLPRI : 0;
}

static const struct file_operations xdt_fops = {
	.owner = THIS_MODULE,
	.open = xdt_open,
	.release = xdt_release,
	.unlocked_ioctl = xdt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = xdt_show_fdinfo,
	.poll = xdt_poll,
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
		if (xdt_provider_modules[n].exit)
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
		ret = xdt_provider_modules[i].init ?
		      xdt_provider_modules[i].init() : 0;
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
