// SPDX-License-Identifier: GPL-2.0
/*
 * xdt_bench: the in-kernel trigger for the probe-overhead benchmark (bench/README.md).
 *
 * Writing N to /sys/kernel/debug/xdt_bench/trigger calls xdt_bench_target()
 * N times in a tight loop and records the loop's elapsed time (ktime_get_ns)
 * in /sys/kernel/debug/xdt_bench/last_ns.  With a probe on xdt_bench_target
 * the difference to an unprobed run, divided by N, is the cost of one
 * firing, free of syscall and VFS noise (the BPF selftests' trigger-bench
 * idea).  /sys/kernel/debug/xdt_bench/calls counts every call of the target,
 * so a probe's hit count can be checked against it exactly.
 *
 * The target is noinline and does a little arithmetic on its argument whose
 * result the loop consumes, so it is neither inlined, folded nor dropped;
 * it has no branch before its first few instructions, so a probe at a small
 * offset from its entry fires exactly once per call.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define XDT_BENCH_MAX	100000000ULL

static struct dentry *dir;
static u64 last_ns, last_n, sink;
static atomic64_t calls = ATOMIC64_INIT(0);
static DEFINE_MUTEX(lock);

noinline u64 xdt_bench_target(u64 x)
{
	u64 r = x * 0x9e3779b97f4a7c15ULL;

	/* Keep the call a real call with a real body. */
	barrier();
	r ^= r >> 29;
	return r + 1;
}
EXPORT_SYMBOL_GPL(xdt_bench_target);

static ssize_t trigger_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	u64 n, i, acc = 0, t0, t1;
	int ret = kstrtou64_from_user(ubuf, len, 0, &n);

	if (ret)
		return ret;
	if (n > XDT_BENCH_MAX)
		return -E2BIG;
	mutex_lock(&lock);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		acc += xdt_bench_target(i);
	t1 = ktime_get_ns();
	last_ns = t1 - t0;
	last_n = n;
	sink = acc;
	atomic64_add(n, &calls);
	mutex_unlock(&lock);
	return len;
}

static ssize_t trigger_read(struct file *f, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	char buf[32];
	int n;

	mutex_lock(&lock);
	n = scnprintf(buf, sizeof(buf), "%llu\n", last_n);
	mutex_unlock(&lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
	.read = trigger_read,
	.llseek = default_llseek,
};

static int last_ns_get(void *data, u64 *val)
{
	mutex_lock(&lock);
	*val = last_ns;
	mutex_unlock(&lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(last_ns_fops, last_ns_get, NULL, "%llu\n");

static int calls_get(void *data, u64 *val)
{
	*val = atomic64_read(&calls);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(calls_fops, calls_get, NULL, "%llu\n");

static int __init xdt_bench_init(void)
{
	dir = debugfs_create_dir("xdt_bench", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	debugfs_create_file("trigger", 0600, dir, NULL, &trigger_fops);
	debugfs_create_file_unsafe("last_ns", 0444, dir, NULL, &last_ns_fops);
	debugfs_create_file_unsafe("calls", 0444, dir, NULL, &calls_fops);
	pr_info("xdt_bench: loaded, target at %pS\n", xdt_bench_target);
	return 0;
}

static void __exit xdt_bench_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(xdt_bench_init);
module_exit(xdt_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xdt benchmark trigger: N calls of a noinline target");
