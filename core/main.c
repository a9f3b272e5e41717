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
#include <linux/kernel_read_file.h>
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
 * An open file of /dev/xdt: its consumer's state, which XDT_IOC_ANON
 * replaces with the anonymous enabling's.  The idle state it replaced is
 * kept until release, so that a poll() or fdinfo read racing the claim
 * reads a state that is still there.
 */
struct xdt_file {
	struct mutex lock;		/* one ioctl at a time (threads may
					   share the file); @st changes under it */
	struct xdt_state *st;
	struct xdt_state *idle;		/* the one a claim replaced */
};

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
	struct xdt_file *xf;
	bool admin;

	if (!perfmon_capable())
		return -EPERM;
	/* a probe of the level, not a demand: no audit record when absent */
	admin = ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
	xf = kzalloc(sizeof(*xf), GFP_KERNEL);
	if (!xf)
		return -ENOMEM;
	xf->st = kzalloc(sizeof(*xf->st), GFP_KERNEL);
	if (!xf->st) {
		kfree(xf);
		return -ENOMEM;
	}
	mutex_init(&xf->lock);
	xf->st->perfmon_only = !admin;
	f->private_data = xf;
	return 0;
}

static int xdt_release(struct inode *inode, struct file *f)
{
	struct xdt_file *xf = f->private_data;

	xdt_state_free(xf->st);
	xdt_state_free(xf->idle);
	kfree(xf);
	return 0;
}

/* dtrace -a: this file's (idle) state becomes the anonymous one. */
static long ioc_anon(struct xdt_file *xf, void __user *uarg)
{
	struct xdt_state *claimed = NULL;
	struct xdt_anon_claim c;
	long ret;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	ret = xdt_anon_claim(xf->st, &c, &claimed);
	if (!ret) {
		xf->idle = xf->st;
		WRITE_ONCE(xf->st, claimed);
		pr_info("xdt: anonymous enabling claimed by pid %d\n",
			task_pid_nr(current));
	}
	if (copy_to_user(uarg, &c, sizeof(c)))
		ret = -EFAULT;	/* claimed all the same: close frees it */
	return ret;
}

/* One ioctl of a consumer at a time (threads may share its file). */
static long xdt_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct xdt_file *xf = f->private_data;
	struct xdt_state *st;
	unsigned int i;
	long ret;

	mutex_lock(&xf->lock);
	st = xf->st;
	for (i = 0; i < xdt_nprovider_modules; i++) {
		const struct xdt_provider_module *m = &xdt_provider_modules[i];

		if (m->ioctl && m->ioc == cmd)
			break;
	}
	if (cmd == XDT_IOC_ANON)
		ret = ioc_anon(xf, (void __user *)arg);
	else if (i < xdt_nprovider_modules)
		ret = xdt_provider_modules[i].ioctl(st, f, (void __user *)arg);
	else
		ret = xdt_ioctl_state(st, cmd, (void __user *)arg);
	mutex_unlock(&xf->lock);
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
	struct xdt_state *st = READ_ONCE(((struct xdt_file *)f->private_data)->st);
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
	struct xdt_file *xf = f->private_data;
	struct xdt_state *st = READ_ONCE(xf->st);

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

/*
 * Anonymous tracing (core/portable/anon.c): dtrace -A's file, read as the
 * module loads, before /dev/xdt exists.  Where from: the module parameter
 * anon=, by default XDT_ANON_PATH, /lib/firmware/xdt/anon.xdt ("" for
 * none).
 *
 * Why a file by path and not request_firmware(): the firmware loader is a
 * kernel option (CONFIG_FW_LOADER; the lab's kernels are built without
 * it) and xdt.ko must not need it; kernel_read_file_from_path_initns() is
 * what that loader reads a file with, in every kernel, with the same LSM
 * check (READING_FIRMWARE: a policy such as LoadPin that says where
 * firmware may come from says it for this file too).  The path resolves
 * in init's mount namespace, not the loader's, so a modprobe run in a
 * container does not pick up the container's file.  Where the file and
 * the module load come from decides what survives a reboot: the firmware
 * directory is on the root file system, and loading xdt at boot (a
 * modules-load.d entry, or an initramfs holding both) starts the enabling
 * on every boot until dtrace -A with no program removes the file.  A
 * module parameter alone (xdt.anon=) would survive only with a
 * bootloader or modprobe.d entry beside it; it is there to move the file.
 */
static char *anon_path = XDT_ANON_PATH;
module_param_named(anon, anon_path, charp, 0444);
MODULE_PARM_DESC(anon, "dtrace -A's anonymous enabling, started at load "
		 "(\"\": none)");

static void anon_load(void)
{
	size_t fsize = 0;
	void *buf = NULL;
	char why[192];
	ssize_t n;

	if (!anon_path || !*anon_path)
		return;
	n = kernel_read_file_from_path_initns(anon_path, 0, &buf, XDT_ANON_MAX,
					      &fsize, READING_FIRMWARE);
	if (n == -ENOENT)
		return;		/* none saved: the usual load */
	if (n < 0) {
		pr_warn("xdt: anonymous enabling %s not read: error %zd%s\n",
			anon_path, n, n == -EFBIG ? " (too big)" : "");
		return;
	}
	if (xdt_anon_start(buf, n, why, sizeof(why)))
		pr_warn("xdt: anonymous enabling %s refused: %s\n", anon_path,
			why);
	else
		pr_info("xdt: anonymous enabling %s: tracing, %s\n", anon_path,
			why);
	vfree(buf);
}

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
	/* before the device: no consumer can be first */
	anon_load();
	ret = misc_register(&xdt_dev);
	if (ret)
		goto err_anon;
	pr_info("xdt: ready on %s, %u probes\n", XDT_ISA_NAME, xdt_nprobes());
	return 0;
err_anon:
	xdt_anon_discard();
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
	xdt_anon_discard();	/* never claimed: its END fires, nobody reads */
	xdt_arch_trap_exit();
	providers_exit(xdt_nprovider_modules);
	xdt_destructive_exit();
	xdt_probes_exit();
}

module_init(xdt_init);
module_exit(xdt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xdt: DTrace-style tracing across ISAs");
