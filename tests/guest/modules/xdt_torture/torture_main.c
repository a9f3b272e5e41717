// SPDX-License-Identifier: GPL-2.0
/*
 * xdt_torture: functions for kinst to probe on every instruction, each
 * exercising one class of instruction that cannot simply be copied and run
 * somewhere else (PC-relative operands, relative branches taken and not
 * taken, calls, returns, loops, exclusive sequences), and each returning a
 * value that is only right if every instruction ran correctly.
 *
 * The functions are in hand-written assembly (torture_<SRCARCH>.S, which
 * documents instruction by instruction what each exercises) so the classes
 * are guaranteed whatever the compiler does, plus one ordinary C function
 * with a loop, xdt_torture_c_loop.  The expected results are computed
 * independently in tests/guest/test_torture.py.
 *
 * Interface, in /sys/kernel/debug/xdt_torture/:
 *   functions  read: this ISA's torture functions, one name a line
 *   call       write "NAME ARG [COUNT]": call NAME(ARG) COUNT times (default
 *              1; ARG decimal, 0..2^64-1).  Fails with ENOENT for an unknown
 *              name, EINVAL for a malformed line, EIO if the COUNT calls did
 *              not all return the same value.
 *   result     read: the value the last successful call returned, decimal
 *
 * Calls are serialised by a mutex: some functions go through a global
 * slot (the RIP-relative store, the exclusive-access loops).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

typedef u64 (*torture_fn_t)(u64);

/* The ordinary C function: a loop of 1..8 iterations, chosen by the arg. */
noinline u64 xdt_torture_c_loop(u64 x);
noinline u64 xdt_torture_c_loop(u64 x)
{
	unsigned int i, n = (x & 7) + 1;
	u64 acc = 0x9e3779b97f4a7c15ULL;

	for (i = 0; i < n; i++) {
		acc ^= x + i;
		acc = (acc << 5) | (acc >> 59);
		barrier();
	}
	return acc;
}

#define F(name) u64 name(u64 x);
#define FN(name) { #name, name }

#if defined(CONFIG_X86_64)
F(xdt_torture_x86_leaf) F(xdt_torture_x86_riprel) F(xdt_torture_x86_jmp)
F(xdt_torture_x86_call) F(xdt_torture_x86_loop)
#elif defined(CONFIG_ARM64)
F(xdt_torture_a64_leaf) F(xdt_torture_a64_adr) F(xdt_torture_a64_ldrlit)
F(xdt_torture_a64_branch) F(xdt_torture_a64_cbz) F(xdt_torture_a64_call)
F(xdt_torture_a64_excl)
#elif defined(CONFIG_RISCV)
F(xdt_torture_rv_leaf) F(xdt_torture_rv_auipc) F(xdt_torture_rv_branch)
F(xdt_torture_rv_call) F(xdt_torture_rv_compressed) F(xdt_torture_rv_lrsc)
#endif

static const struct {
	const char *name;
	torture_fn_t fn;
} torture_fns[] = {
	FN(xdt_torture_c_loop),
#if defined(CONFIG_X86_64)
	FN(xdt_torture_x86_leaf), FN(xdt_torture_x86_riprel),
	FN(xdt_torture_x86_jmp), FN(xdt_torture_x86_call),
	FN(xdt_torture_x86_loop),
#elif defined(CONFIG_ARM64)
	FN(xdt_torture_a64_leaf), FN(xdt_torture_a64_adr),
	FN(xdt_torture_a64_ldrlit), FN(xdt_torture_a64_branch),
	FN(xdt_torture_a64_cbz), FN(xdt_torture_a64_call),
	FN(xdt_torture_a64_excl),
#elif defined(CONFIG_RISCV)
	FN(xdt_torture_rv_leaf), FN(xdt_torture_rv_auipc),
	FN(xdt_torture_rv_branch), FN(xdt_torture_rv_call),
	FN(xdt_torture_rv_compressed), FN(xdt_torture_rv_lrsc),
#endif
};

static DEFINE_MUTEX(call_lock);
static u64 last_result;
static struct dentry *dir;

static ssize_t call_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char buf[128], name[64];
	unsigned long long arg, count = 1, i;
	torture_fn_t fn = NULL;
	bool same = true;
	u64 first;
	int n;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%63s %llu %llu", name, &arg, &count);
	if (n < 2 || count == 0 || count > 100000000)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(torture_fns); i++)
		if (!strcmp(torture_fns[i].name, name))
			fn = torture_fns[i].fn;
	if (!fn)
		return -ENOENT;

	mutex_lock(&call_lock);
	first = fn(arg);
	for (i = 1; i < count; i++) {
		if (fn(arg) != first)
			same = false;
		if (!(i & 1023))
			cond_resched();
	}
	if (same)
		last_result = first;
	mutex_unlock(&call_lock);
	return same ? len : -EIO;
}

static ssize_t result_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	char buf[32];
	int n;

	mutex_lock(&call_lock);
	n = scnprintf(buf, sizeof(buf), "%llu\n", last_result);
	mutex_unlock(&call_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t functions_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[512];
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(torture_fns); i++)
		n += scnprintf(buf + n, sizeof(buf) - n, "%s\n", torture_fns[i].name);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations call_fops = {
	.owner = THIS_MODULE,
	.write = call_write,
	.llseek = noop_llseek,
};

static const struct file_operations result_fops = {
	.owner = THIS_MODULE,
	.read = result_read,
	.llseek = default_llseek,
};

static const struct file_operations functions_fops = {
	.owner = THIS_MODULE,
	.read = functions_read,
	.llseek = default_llseek,
};

static int __init xdt_torture_init(void)
{
	dir = debugfs_create_dir("xdt_torture", NULL);
	debugfs_create_file("call", 0200, dir, NULL, &call_fops);
	debugfs_create_file("result", 0444, dir, NULL, &result_fops);
	debugfs_create_file("functions", 0444, dir, NULL, &functions_fops);
	pr_info("xdt_torture: %zu functions\n", ARRAY_SIZE(torture_fns));
	return 0;
}

static void __exit xdt_torture_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(xdt_torture_init);
module_exit(xdt_torture_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xdt: functions exercising every instruction class kinst handles");
