// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest out-of-tree module: proves the path xdt.ko takes (built
 * against the cached kernel tree, pushed into the guest, loaded, unloaded).
 * It resolves a kernel symbol at load so a broken kallsyms shows up here, and
 * can WARN() on request so the harness's console watch is itself tested.
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
