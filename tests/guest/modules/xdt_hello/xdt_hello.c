// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest out-of-tree module: proves the path xdt.ko takes (built
 * against the cached kernel tree, pushed into the guest, loaded, unloaded).
 * It resolves a kernel symbol at load so a broken kallsyms shows up here, and
 * can WARN() on request so the harness's console watch is itself tested.
 *
 * It also gives stack() a call chain whose shape is known on every ISA:
 * writing N to /sys/module/xdt_hello/parameters/chain calls
 * chain_set -> xdt_hello_a -> xdt_hello_b -> xdt_hello_c.  Each function
 * is noinline and uses its callee's result, so none is inlined or turned
 * into a tail call, and the result (N + 3) lands in the `chain` value.
 *
 * Writing N to .../parameters/args calls xdt_hello_args(N, N + 1, ..., N + 9):
 * ten arguments, so some are on the stack on every ISA (x86_64 passes six
 * in registers, arm64 and riscv64 eight), with values that show their order.
 *
 * Each write to chain also hits the module's tracepoint
 * xdt_hello:xdt_hello_chain(N, N + 3) (xdt_hello_trace.h).
 */
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/utsname.h>

#define CREATE_TRACE_POINTS
#include "xdt_hello_trace.h"

static char *tag = "none";
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag, "string echoed in the load message");

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "WARN() at load, to prove the test harness notices");

static int chain;

noinline int xdt_hello_c(int n)
{
	/* The barrier keeps the compiler from folding the chain. */
	barrier();
	return n + 1;
}

noinline int xdt_hello_b(int n)
{
	return xdt_hello_c(n) + 1;
}

noinline int xdt_hello_a(int n)
{
	return xdt_hello_b(n) + 1;
}

static int chain_set(const char *val, const struct kernel_param *kp)
{
	int n, ret = kstrtoint(val, 0, &n);

	if (ret)
		return ret;
	chain = xdt_hello_a(n);
	trace_xdt_hello_chain(n, chain);
	return 0;
}

noinline long xdt_hello_args(long a0, long a1, long a2, long a3, long a4,
			     long a5, long a6, long a7, long a8, long a9)
{
	barrier();
	return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7 ^ a8 ^ a9;
}

static long args_result;

static int args_set(const char *val, const struct kernel_param *kp)
{
	long n;
	int ret = kstrtol(val, 0, &n);

	if (ret)
		return ret;
	args_result = xdt_hello_args(n, n + 1, n + 2, n + 3, n + 4, n + 5,
				     n + 6, n + 7, n + 8, n + 9);
	return 0;
}

static const struct kernel_param_ops args_ops = {
	.set = args_set,
	.get = param_get_long,
};
module_param_cb(args, &args_ops, &args_result, 0644);
MODULE_PARM_DESC(args, "write N: calls xdt_hello_args(N .. N + 9)");

static const struct kernel_param_ops chain_ops = {
	.set = chain_set,
	.get = param_get_int,
};
module_param_cb(chain, &chain_ops, &chain, 0644);
MODULE_PARM_DESC(chain, "write N: calls a -> b -> c, reads back N + 3");

static int __init xdt_hello_init(void)
{
	pr_info("xdt_hello: loaded on %s, tag=%s, kernel_read at %pS\n",
		utsname()->machine, tag, (void *)kernel_read);
	WARN(warn, "xdt_hello: warning on request\n");
	return 0;
}

static void __exit xdt_hello_exit(void)
{
	pr_info("xdt_hello: unloaded, tag=%s\n", tag);
}

module_init(xdt_hello_init);
module_exit(xdt_hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xdt module pipeline smoke test");
