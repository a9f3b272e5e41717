// SPDX-License-Identifier: GPL-2.0
/*
 * syscall: `syscall::<name>:entry` and `:return` for every system call of
 * the running kernel's native table.
 *
 * Names come from the kernel: each entry of sys_call_table is named by the
 * symbol it points at (`__x64_sys_read`, `__arm64_sys_read`, `sys_read`),
 * everything up to the first "sys_" dropped, so the probe is `read` on
 * every ISA with no list kept here.  Entries that point at sys_ni_syscall
 * (numbers with no call) get no probe; numbers that share a function share
 * its probes.  Compat tables (32-bit tasks on a 64-bit kernel) are left
 * out: none of xdt's kernels builds them, and a compat call is skipped.
 *
 * Mechanism.  A module on a stock 6.1 can hook every system call in one
 * of three ways: the raw_syscalls sys_enter/sys_exit tracepoints (what
 * Oracle's DTrace does), a breakpoint on each `__*_sys_<name>` function
 * (fbt does that already, one trap per call, and sees the wrapper's
 * pt_regs, not the arguments), or rewriting sys_call_table (read-only
 * after boot, and refused by hardened kernels).  xdt takes the
 * tracepoints: no text is written, the arguments and return value come
 * from the kernel's own syscall_get_* accessors on every ISA, and the
 * cost while nothing is enabled is zero -- the tracepoints are registered
 * only while a syscall probe is enabled (their registration sets
 * TIF_SYSCALL_TRACEPOINT on every thread; unregistering clears it).  The
 * price: while any syscall probe is enabled, every system call of every
 * thread takes the slow path and calls xdt, which drops it after one bit
 * test unless its number is enabled (a per-syscall enable map, one bit per
 * number and direction).
 *
 * entry:  arg0..arg5 the call's arguments.
 * return: arg0 = arg1 = the return value, or -1 when the call failed, with
 *         errno set to the error (illumos' systrace does the same).
 */
#include <linux/bitmap.h>
#include <linux/compat.h>
#include <linux/err.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "xdt_impl.h"
#include "xdt_tp.h"
#include "providers.h"

struct sc_probe {
	struct xdt_probe *probe;
	bool ret;
	bool on;			/* enabled (STOP after a failed GO
					   disables probes never enabled) */
	u32 nr;				/* first number naming it */
};

struct sc_tp {
	const char *name;
	struct tracepoint *tp;
	unsigned long lo, hi;		/* its iterator, left out of stack() */
	u32 nenabled;			/* probes of this direction on */
};

static struct sc_tp tp_enter = { .name = "sys_enter" };
static struct sc_tp tp_exit = { .name = "sys_exit" };

static struct xdt_provider syscall_provider;
static struct xdt_probe *entry_probe[NR_syscalls], *return_probe[NR_syscalls];
static DECLARE_BITMAP(entry_on, NR_syscalls);
static DECLARE_BITMAP(return_on, NR_syscalls);
static struct sc_probe *scp;		/* 2 per named number */
static const char **names;		/* [nr], owned, NULL: no call */
static bool registered;

/* ---- probe context -------------------------------------------------------- */
static void __xdt_probe sc_fire(struct xdt_probe *p, struct sc_tp *t,
				struct pt_regs *regs, struct xdt_ctx *ctx)
{
	ctx->probe = p;
	ctx->regs = regs;
	ctx->stack = XDT_STACK_HERE;
	ctx->skip_lo = t->lo;
	ctx->skip_hi = t->hi;
	xdt_probe_fire(ctx);
}

/*
 * The general firings are their own functions (noinline) so that the
 * tracepoint's callbacks, which run on every system call of every thread,
 * have no frame to build and no context to clear before they know the call
 * is traced and its clause needs more than the fast firing.
 */
static noinline void __xdt_probe sc_enter_ctx(struct pt_regs *regs, long id)
{
	unsigned long a[6] __xdt_noinit;	/* syscall_get_arguments() */
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */
	unsigned int i;

	xdt_ctx_init(&ctx, NULL);
	syscall_get_arguments(current, regs, a);
	for (i = 0; i < 6; i++)
		ctx.args[i] = a[i];
	sc_fire(READ_ONCE(entry_probe[id]), &tp_enter, regs, &ctx);
}

static void __xdt_probe sc_enter(void *data, struct pt_regs *regs, long id)
{
	if ((unsigned long)id >= NR_syscalls || !test_bit(id, entry_on) ||
	    in_compat_syscall() || xdt_probe_fast(READ_ONCE(entry_probe[id])))
		return;
	sc_enter_ctx(regs, id);
}

static noinline void __xdt_probe sc_exit_ctx(struct pt_regs *regs, long id,
					     long ret)
{
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	xdt_ctx_init(&ctx, NULL);
	if (IS_ERR_VALUE(ret)) {
		ctx.err = -ret;
		ret = -1;
	}
	ctx.args[0] = ret;
	ctx.args[1] = ret;
	sc_fire(READ_ONCE(return_probe[id]), &tp_exit, regs, &ctx);
}

static void __xdt_probe sc_exit(void *data, struct pt_regs *regs, long ret)
{
	long id = syscall_get_nr(current, regs);

	if ((unsigned long)id >= NR_syscalls || !test_bit(id, return_on) ||
	    in_compat_syscall() || xdt_probe_fast(READ_ONCE(return_probe[id])))
		return;
	sc_exit_ctx(regs, id, ret);
}

/* ---- enabling ------------------------------------------------------------- */
static void sc_set_bits(struct sc_probe *s, bool on)
{
	unsigned long *map = s->ret ? return_on : entry_on;
	struct xdt_probe **tab = s->ret ? return_probe : entry_probe;
	u32 nr;

	for (nr = s->nr; nr < NR_syscalls; nr++)
		if (tab[nr] == s->probe)
			assign_bit(nr, map, on);
}

static int sc_enable(struct xdt_probe *probe)
{
	struct sc_probe *s = probe->parg;
	struct sc_tp *t = s->ret ? &tp_exit : &tp_enter;
	int ret;

	if (s->on)
		return 0;
	sc_set_bits(s, true);
	if (!t->nenabled) {
		ret = tracepoint_probe_register(t->tp, s->ret ? (void *)sc_exit :
						(void *)sc_enter, NULL);
		if (ret) {
			sc_set_bits(s, false);
			return ret;
		}
	}
	t->nenabled++;
	s->on = true;
	return 0;
}

static void sc_disable(struct xdt_probe *probe)
{
	struct sc_probe *s = probe->parg;
	struct sc_tp *t = s->ret ? &tp_exit : &tp_enter;

	if (!s->on)
		return;
	s->on = false;
	sc_set_bits(s, false);
	if (--t->nenabled)
		return;
	tracepoint_probe_unregister(t->tp, s->ret ? (void *)sc_exit :
				    (void *)sc_enter, NULL);
}

static const struct xdt_provider_ops syscall_ops = {
	.enable = sc_enable,
	.disable = sc_disable,
	.quiesce = xdt_tracepoint_quiesce,
};

static struct xdt_provider syscall_provider = {
	.name = "syscall",
	.ops = &syscall_ops,
};

/* ---- the table ------------------------------------------------------------ */
static unsigned long table_addr;

static int find_table(void *data, const char *name, struct module *mod,
		      unsigned long addr)
{
	if (mod || strcmp(name, "sys_call_table"))
		return 0;
	table_addr = addr;
	return 1;
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	struct sc_tp *t;

	if (!strcmp(tp->name, tp_enter.name))
		t = &tp_enter;
	else if (!strcmp(tp->name, tp_exit.name))
		t = &tp_exit;
	else
		return;
	t->tp = tp;
	xdt_tracepoint_iterator(tp, &t->lo, &t->hi);
}

/* "__x64_sys_read" -> "read"; NULL for sys_ni_syscall or no symbol. */
static const char *call_name(unsigned long fn, char *buf)
{
	const char *s;

	sprint_symbol_no_offset(buf, fn);
	s = strstr(buf, "sys_");
	if (!s || !strcmp(s + 4, "ni_syscall") || strchr(s, ' ') ||
	    strchr(s, '['))
		return NULL;
	return s + 4;
}

int xdt_syscall_init(void)
{
	char *buf;
	u32 nr, n = 0, prev;
	int ret = 0;

	kallsyms_on_each_symbol(find_table, NULL);
	for_each_kernel_tracepoint(find_tp, NULL);
	if (!table_addr || !tp_enter.tp || !tp_exit.tp) {
		pr_warn("xdt: syscall: no sys_call_table or raw_syscalls "
			"tracepoints (CONFIG_FTRACE_SYSCALLS?): no syscall "
			"probes\n");
		return 0;
	}
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	names = kcalloc(NR_syscalls, sizeof(*names), GFP_KERNEL);
	scp = kcalloc(2 * NR_syscalls, sizeof(*scp), GFP_KERNEL);
	if (!buf || !names || !scp) {
		ret = -ENOMEM;
		goto out;
	}
	xdt_provider_register(&syscall_provider);
	registered = true;
	mutex_lock(&xdt_lock);
	for (nr = 0; nr < NR_syscalls; nr++) {
		unsigned long fn = ((unsigned long *)table_addr)[nr];
		const char *name = call_name(fn, buf);
		struct sc_probe *e = &scp[2 * n], *r = &scp[2 * n + 1];

		if (!name)
			continue;
		/* Two numbers, one function (an alias): one pair of probes. */
		for (prev = 0; prev < nr; prev++)
			if (names[prev] && !strcmp(names[prev], name))
				break;
		names[nr] = kstrdup(name, GFP_KERNEL);
		if (!names[nr]) {
			ret = -ENOMEM;
			break;
		}
		if (prev < nr) {
			entry_probe[nr] = entry_probe[prev];
			return_probe[nr] = return_probe[prev];
			continue;
		}
		*e = (struct sc_probe){ .nr = nr, .ret = false };
		*r = (struct sc_probe){ .nr = nr, .ret = true };
		e->probe = xdt_probe_create(&syscall_provider, "", names[nr],
					    "entry", e);
		r->probe = xdt_probe_create(&syscall_provider, "", names[nr],
					    "return", r);
		if (!e->probe || !r->probe) {
			ret = -ENOMEM;
			break;
		}
		entry_probe[nr] = e->probe;
		return_probe[nr] = r->probe;
		n++;
	}
	mutex_unlock(&xdt_lock);
	pr_info("xdt: syscall: %u system calls\n", n);
out:
	kfree(buf);
	if (ret)
		xdt_syscall_exit();
	return ret;
}

void xdt_syscall_exit(void)
{
	u32 nr;

	/* Nothing is enabled: the device is closed (module refcount). */
	if (registered)
		xdt_provider_unregister(&syscall_provider);
	registered = false;
	if (names)
		for (nr = 0; nr < NR_syscalls; nr++)
			kfree(names[nr]);
	kfree(names);
	kfree(scp);
	names = NULL;
	scp = NULL;
}
