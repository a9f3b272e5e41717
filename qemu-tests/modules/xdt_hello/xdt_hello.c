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
 */
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/utsname.h>

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
	return 0;
}

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
