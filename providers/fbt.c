// SPDX-License-Identifier: GPL-2.0
/*
 * fbt: function boundary probes, `entry` and `return`, for every function
 * of the kernel's text that can safely take a breakpoint.  Which
 * instruction is patched and how it is emulated is the ISA's business
 * (xdt_fbt_arch_sites); this file decides which functions are eligible
 * and keeps the sites.
 *
 * Refused, with the reason kept for `dtrace -l -v`:
 *  - code in the sections the kernel runs with instrumentation forbidden
 *    (noinstr, entry, kprobes, irqentry/softirqentry, cpuidle text);
 *  - whatever kprobes refuses (its blacklist: NOKPROBE_SYMBOL and friends);
 *  - xdt's own hooks in the kernel;
 *  - functions the ISA layer cannot find sites in.
 * Loaded modules get probes too (module name as the probe's module), at
 * xdt's load and whenever a module goes live; xdt.ko itself is skipped, so
 * the framework cannot be probed.  While an enabling refers to a module's
 * probe it holds a reference on the module, so the module cannot unload
 * under a patched site; when a module goes, its probes and sites go first.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "xdt_arch.h"
#include "providers.h"

struct fbt_func {
	struct xdt_probe *entry, *ret;
	const char *name;
	unsigned long addr;
	struct module *mod;		/* NULL for vmlinux */
	u8 modes;			/* entry: BIT(XDT_FBTMODE_*) it can take */
	u32 nsites;
	struct xdt_site sites[];
};

struct fbt_range {
	const char *start, *end, *why;
	unsigned long lo, hi;
};

static struct fbt_range ranges[] = {
	{ "__noinstr_text_start", "__noinstr_text_end", "noinstr text" },
	{ "__entry_text_start", "__entry_text_end", "entry text" },
	{ "__kprobes_text_start", "__kprobes_text_end", "kprobes text" },
	{ "__irqentry_text_start", "__irqentry_text_end", "irqentry text" },
	{ "__softirqentry_text_start", "__softirqentry_text_end",
	  "softirqentry text" },
	{ "__cpuidle_text_start", "__cpuidle_text_end", "cpuidle text" },
};

/*
 * The checkers' runtimes, on the debug kernels: the compiler calls KASAN's,
 * UBSAN's and KCSAN's hooks from every instrumented access -- xdt.ko's own
 * probe context included -- and lockdep's from every lock operation.  The
 * kernel builds them without ftrace's hook for that reason.  A probe there
 * fires from inside every other firing (counted and skipped by the busy
 * flag) and traps on nearly every instruction the kernel runs:
 * fbt:::entry did not finish in 15 minutes on the x86_64 debug kernel.
 * By name, because kallsyms keeps no file; the normal kernels have none
 * of these.
 */
static const char *const checker_prefix[] = {
	"__asan_", "__kasan_", "kasan_", "__hwasan_", "__ubsan_", "ubsan_",
	"__tsan_", "__kcsan_", "kcsan_", "__sanitizer_", "kmsan_", "__msan_",
	"lockdep_hardirq", "lockdep_softirq", "lockdep_init_map",
	"lockdep_rcu", "__lock_acquire", "lock_acquire", "lock_release",
	"lock_acquired", "lock_contended", "lock_is_held", "lock_pin_lock",
	"lock_repin_lock", "lock_unpin_lock", "lock_sync",
};

static bool checker_runtime(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(checker_prefix); i++)
		if (!strncmp(name, checker_prefix[i],
			     strlen(checker_prefix[i])))
			return true;
	return false;
}

/*
 * ftrace's own entry code: the generic names include/linux/ftrace.h
 * declares and every ISA's ftrace assembly defines (with the labels
 * inside it).  ftrace rewrites the calls inside it, and x86_64 copies it
 * whole into each ops' trampoline -- a breakpoint there was copied too,
 * and the copy trapped where xdt owns no site: the int3 went on to kgdb
 * (or the die path) and the machine stopped (x86_64, -x fbtmode=ftrace
 * over ftrace_caller and other functions, the third GO).  kprobes does
 * not refuse these; xdt must.  Exact names (the generic ones here, the
 * ISA's own from isa.h), and the labels after a prefix
 * ("ftrace_caller_end", "ftrace_regs_caller_op_ptr").
 */
static const char *const ftrace_entry_code[] = {
	"ftrace_caller", "ftrace_regs_caller", "ftrace_call",
	"ftrace_regs_call", "ftrace_graph_call", "ftrace_graph_caller",
	"ftrace_stub", "return_to_handler",
	XDT_FTRACE_ARCH_CODE,	/* the ISA's own (arch/<isa>/isa.h) */
};

static bool ftrace_entry(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftrace_entry_code); i++)
		if (!strcmp(name, ftrace_entry_code[i]))
			return true;
	return !strncmp(name, "ftrace_caller_", 14) ||
	       !strncmp(name, "ftrace_regs_caller_", 19);
}

static unsigned long text_lo, text_hi;
static struct fbt_func **funcs;
static u32 nfuncs, funcs_cap;

static struct xdt_provider fbt_provider;

/* ---- probe context: a firing at an fbt site --------------------------- */
/*
 * Entry arguments past the registers, on the stack: each is a fault-safe
 * load, and four of them were a third of an x86_64 fbt entry firing's
 * instructions (icount) for clauses that read no argument at all -- so
 * they are fetched only when a clause reads one.
 */
static u64 __xdt_probe fbt_getarg(struct xdt_ctx *ctx, unsigned int i)
{
	unsigned long at = xdt_fbt_arch_stack_arg(ctx->priv, ctx->regs, i);
	u64 v;

	if (copy_from_kernel_nofault(&v, (void *)at, sizeof(v)))
		return 0;
	return v;
}

/*
 * Restored while a trap on it was in flight: emulated (exactly, from
 * s->orig) rather than re-executed from memory.  QEMU's TCG once kept
 * running a stale translation of a restored entry NOP, so re-executing
 * trapped again forever on both vCPUs (test_every_entry_probe_at_once
 * hung; gdb rewriting the same byte, which flushes the translation, set
 * the guest free).  The cost: if ftrace takes the site over in this
 * window, this one call skips ftrace's hook.
 */
static const struct xdt_site_ops fbt_site_ops = {
	.args = xdt_fbt_arch_args,
	.emulate = xdt_fbt_arch_emulate,
	.restored = xdt_fbt_arch_emulate,
	.fires = XDT_FBT_FIRES,
};

/* Sites gathered for one function while the ISA layer walks it. */
struct walk {
	u32 n;
	struct xdt_site_desc s[256];
};

static int walk_add(void *ctx, const struct xdt_site_desc *d)
{
	struct walk *w = ctx;

	if (w->n == ARRAY_SIZE(w->s))
		return -E2BIG;
	w->s[w->n++] = *d;
	return 0;
}

static int bounds_cb(void *data, const char *name, struct module *mod,
		     unsigned long addr)
{
	unsigned int i;

	xdt_fentry_kallsyms(name, addr);
	if (!strcmp(name, "_stext"))
		text_lo = addr;
	else if (!strcmp(name, "_etext"))
		text_hi = addr;
	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		if (!strcmp(name, ranges[i].start))
			ranges[i].lo = addr;
		else if (!strcmp(name, ranges[i].end))
			ranges[i].hi = addr;
	}
	return 0;
}

/*
 * Shared with kinst: the text neither provider may patch.  @addr is the
 * start of function @name, in vmlinux (@mod NULL) or a live module's core
 * text.
 */
const char *xdt_text_excluded(const char *name, unsigned long addr,
			      struct module *mod)
{
	unsigned int i;

	if (!mod && (addr < text_lo || addr >= text_hi))
		return "not kernel text";
	if (mod == THIS_MODULE)
		return "xdt itself";

	for (i = 0; i < ARRAY_SIZE(ranges); i++)
		if (addr >= ranges[i].lo && addr < ranges[i].hi)
			return ranges[i].why;
	if (!mod && !strncmp(name, "xdt_", 4))
		return "xdt's own kernel hook";
	if (within_kprobe_blacklist(addr))
		return "kprobes blacklist";
	if (checker_runtime(name))
		return "kernel checker's runtime (called from probe context)";
	if (ftrace_entry(name))
		return "ftrace's entry code (ftrace copies and rewrites it)";
	return NULL;
}

static bool have_func(struct module *mod, unsigned long addr)
{
	u32 i;

	for (i = 0; i < nfuncs; i++)
		if (funcs[i]->mod == mod && funcs[i]->addr == addr)
			return true;
	return false;
}

static int add_func(const char *name, struct module *mod, unsigned long addr,
		    struct walk *w)
{
	const char *modname = mod ? mod->name : "kernel";
	struct fbt_func *f;
	const char *fname;
	bool has_ret = false;
	u32 i;

	if (nfuncs == funcs_cap) {
		u32 ncap = funcs_cap ? funcs_cap * 2 : 4096;
		struct fbt_func **n = kvcalloc(ncap, sizeof(*n), GFP_KERNEL);

		if (!n)
			return -ENOMEM;
		if (funcs) {
			memcpy(n, funcs, nfuncs * sizeof(*n));
			kvfree(funcs);
		}
		funcs = n;
		funcs_cap = ncap;
	}
	/*
	 * The name rides in the same allocation as the sites: the lab's
	 * kernels use SLOB, whose first fit over its partly used pages made
	 * each of the 12 671 small names cost ~0.5 ms under TCG on arm64
	 * (loading xdt.ko: 22 s with them, 4-9 s without).
	 */
	f = kzalloc(struct_size(f, sites, w->n) + strlen(name) + 1, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	fname = strcpy((char *)&f->sites[w->n], name);
	f->mod = mod;
	f->addr = addr;
	f->entry = xdt_probe_create(&fbt_provider, modname, fname, "entry", f);
	f->modes = BIT(XDT_FBTMODE_BREAKPOINT);
	for (i = 0; i < w->n; i++) {
		has_ret |= w->s[i].is_return;
		if (!w->s[i].is_return && w->s[i].ftrace &&
		    xdt_fentry_traceable(w->s[i].addr))
			f->modes |= BIT(XDT_FBTMODE_FTRACE) |
				    (XDT_HAVE_TRAMP &&
				     xdt_arch_tramp_ok(w->s[i].addr) ?
				     BIT(XDT_FBTMODE_TRAMPOLINE) : 0);
	}
	if (has_ret)
		f->ret = xdt_probe_create(&fbt_provider, modname, fname,
					  "return", f);
	f->name = fname;
	if (f->entry)
		f->entry->owner = mod;
	if (f->ret)
		f->ret->owner = mod;
	funcs[nfuncs++] = f;		/* freed with the provider from here */
	if (!f->entry || (has_ret && !f->ret))
		return -ENOMEM;
	f->nsites = w->n;
	for (i = 0; i < w->n; i++) {
		struct xdt_site *s = &f->sites[i];

		s->addr = w->s[i].addr;
		s->probe = w->s[i].is_return ? f->ret : f->entry;
		s->ops = &fbt_site_ops;
		s->arg = w->s[i].off;
		s->kind = w->s[i].kind;
		s->orig = w->s[i].orig;
		s->aux = w->s[i].aux;
		s->patch = xdt_arch_patch_for(s->orig);
		xdt_site_insert(s);
	}
	return 0;
}

struct scan {
	struct walk w;
	unsigned long last;
	struct module *only;		/* module scan: just this one */
	int err;
};

static int consider(struct scan *sc, const char *name, struct module *mod,
		    unsigned long addr)
{
	unsigned long size, off;
	const char *why;

	/*
	 * Module symbol tables still hold section symbols (no name) and ISA
	 * mapping symbols ($x, $d) and local labels (.L*), which vmlinux's
	 * kallsyms has already dropped; none names a function.
	 */
	if (!name[0] || name[0] == '$' || name[0] == '.' || addr == sc->last)
		return 0;
	sc->last = addr;
	/*
	 * An alias of a function already seen: vmlinux's symbols come sorted
	 * by address (the check above), a module's do not (cleanup_module
	 * and the module's exit function are one address).  One address, one
	 * probe, under the first name.
	 */
	if (mod && have_func(mod, addr))
		return 0;
	if (!kallsyms_lookup_size_offset(addr, &size, &off) || off || !size)
		return 0;
	why = xdt_text_excluded(name, addr, mod);
	if (!why) {
		sc->w.n = 0;
		why = xdt_fbt_arch_sites(addr, size, walk_add, &sc->w);
		if (!why && sc->w.n == 0)
			why = "no patchable site";
	}
	if (why) {
		xdt_refusal_add(&fbt_provider, mod ? mod->name : "kernel",
				name, why);
		return 0;
	}
	sc->err = add_func(name, mod, addr, &sc->w);
	return sc->err;
}

static int scan_cb(void *data, const char *name, struct module *mod,
		   unsigned long addr)
{
	if (addr < text_lo || addr >= text_hi)
		return 0;
	return consider(data, name, NULL, addr);
}

/*
 * Module symbols: core text only (init text is freed after init; 6.1 keeps
 * a module's text at the start of its core layout).
 */
static int mod_scan_cb(void *data, const char *name, struct module *mod,
		       unsigned long addr)
{
	struct scan *sc = data;

	if (mod == THIS_MODULE || (sc->only && mod != sc->only) ||
	    mod->state != MODULE_STATE_LIVE)
		return 0;
	if (addr < (unsigned long)mod->core_layout.base ||
	    addr >= (unsigned long)mod->core_layout.base +
		    mod->core_layout.text_size)
		return 0;
	return consider(sc, name, mod, addr);
}

static void scan_modules(struct module *only)
{
	struct scan *sc = vzalloc(sizeof(*sc));

	if (!sc)
		return;
	sc->only = only;
	/* module_kallsyms_on_each_symbol takes module_mutex itself. */
	module_kallsyms_on_each_symbol(mod_scan_cb, sc);
	if (sc->err)
		pr_warn("xdt: fbt: module probes incomplete (%d)\n", sc->err);
	vfree(sc);
}

static bool have_module(struct module *mod)
{
	u32 i;

	for (i = 0; i < nfuncs; i++)
		if (funcs[i]->mod == mod)
			return true;
	return false;
}

/*
 * A module's probes and sites go before its text does.  None is enabled:
 * every ECB holds a reference on its probe's module, so a module with
 * bound probes cannot be going.
 */
static void forget_module(struct module *mod)
{
	u32 i, j, kept = 0;

	for (i = 0; i < nfuncs; i++)
		if (funcs[i]->mod == mod)
			for (j = 0; j < funcs[i]->nsites; j++)
				xdt_site_remove(&funcs[i]->sites[j]);
	/* No trap handler may still be walking a hash chain through them. */
	synchronize_rcu();
	for (i = 0; i < nfuncs; i++) {
		struct fbt_func *f = funcs[i];

		if (f->mod != mod) {
			funcs[kept++] = f;
			continue;
		}
		if (f->entry)
			xdt_probe_destroy(f->entry);
		if (f->ret)
			xdt_probe_destroy(f->ret);
		kfree(f);	/* and its name */
	}
	nfuncs = kept;
	xdt_refusal_forget(&fbt_provider, mod->name);
}

static int fbt_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;

	mutex_lock(&xdt_lock);
	if (action == MODULE_STATE_LIVE && !have_module(mod))
		scan_modules(mod);
	else if (action == MODULE_STATE_GOING)
		forget_module(mod);
	mutex_unlock(&xdt_lock);
	return NOTIFY_OK;
}

static struct notifier_block fbt_module_nb = {
	.notifier_call = fbt_module_notify,
};

static struct fbt_func *probe_func(struct xdt_probe *p)
{
	return p->parg;
}

/*
 * The breakpoint sites of @p under its current mechanism; with @out NULL,
 * all of them (an upper bound the core sizes its array by before the
 * mechanism is chosen).
 */
static u32 fbt_sites(struct xdt_probe *p, struct xdt_site **out, u32 max)
{
	struct fbt_func *f = probe_func(p);
	u32 i, n = 0;

	for (i = 0; i < f->nsites; i++) {
		if (f->sites[i].probe != p ||
		    (out && f->sites[i].via != XDT_VIA_TRAP))
			continue;
		if (out && n < max)
			out[n] = &f->sites[i];
		n++;
	}
	return n;
}

/*
 * -x fbtmode, for an entry probe being switched on: the default is the
 * cheapest mechanism the function can take, in the order below (measured:
 * bench/README.md, docs/mechanisms.md); an explicit mode the function
 * cannot take falls back to the breakpoint, which every fbt probe has.
 * (The default was the breakpoint for a while, after two consumers on one
 * x86_64 function counted nothing in some runs: that was QEMU's MTTCG
 * running vfs_read's old bytes after ftrace had patched the call in --
 * tools/xdtvm.py, docs/mechanisms.md.)
 */
static const u8 fbt_preference[] = {
	XDT_FBTMODE_TRAMPOLINE, XDT_FBTMODE_FTRACE, XDT_FBTMODE_BREAKPOINT,
};

static u8 fbt_mode_for(const struct fbt_func *f, u32 want)
{
	u8 modes = f->modes;
	unsigned int i;

	/*
	 * Where xdt writes the trampoline call itself (arm64, riscv64), the
	 * site must still hold ftrace's NOP: a function ftrace has live (a
	 * kprobe on ftrace, the function tracer) is left to ftrace's own
	 * mechanism, which shares it.
	 */
	for (i = 0; i < f->nsites; i++)
		if (f->sites[i].probe == f->entry &&
		    (!XDT_HAVE_TRAMP || !xdt_arch_tramp_ok(f->sites[i].addr)))
			modes &= ~BIT(XDT_FBTMODE_TRAMPOLINE);
	if (want > XDT_FBTMODE_DEFAULT && want < XDT_FBTMODE_NMODES)
		return (modes & BIT(want)) ? want : XDT_FBTMODE_BREAKPOINT;
	for (i = 0; i < ARRAY_SIZE(fbt_preference); i++)
		if (modes & BIT(fbt_preference[i]))
			return fbt_preference[i];
	return XDT_FBTMODE_BREAKPOINT;
}

static const u8 via_of_mode[XDT_FBTMODE_NMODES] = {
	[XDT_FBTMODE_BREAKPOINT] = XDT_VIA_TRAP,
	[XDT_FBTMODE_FTRACE] = XDT_VIA_FTRACE,
	[XDT_FBTMODE_TRAMPOLINE] = XDT_VIA_TRAMP,
};

/*
 * Return probes stay breakpoints on every ISA, one on each return
 * instruction.  The alternative, hijacking the return address as kretprobes
 * (rethook on x86_64) and fexit do, needs an entry hook on every call (even
 * when only the return is enabled), the real return address saved in a
 * per-task stack from a bounded pool (a module cannot add rethook's list to
 * task_struct), and a return trampoline.  And while the function runs, its
 * frame returns into xdt: the kernel's unwinders know kretprobe's, rethook's
 * and BPF's trampolines and look the real caller up, but not a module's, so
 * every stack taken meanwhile (stack() in xdt's own nested probes, perf, a
 * WARN's backtrace, ORC's reliability check for livepatch) would show xdt's
 * trampoline where the caller was.  A breakpoint costs one exception per
 * return (measured against kretprobe and fexit: docs/mechanisms.md) and
 * changes nothing a stack walk sees.
 */
static void fbt_choose(struct xdt_probe *p, const struct xdt_prog *prog)
{
	struct fbt_func *f = probe_func(p);
	u8 via = via_of_mode[fbt_mode_for(f, prog->fbtmode)];
	u32 i;

	/* past the ISA's limit of trampolines (XDT_TRAMP_MAX): a breakpoint */
	if (p == f->entry && via == XDT_VIA_TRAMP && !xdt_fentry_tramp_reserve())
		via = XDT_VIA_TRAP;
	for (i = 0; i < f->nsites; i++)
		if (f->sites[i].probe == p)
			WRITE_ONCE(f->sites[i].via,
				   p == f->entry ? via : XDT_VIA_TRAP);
}

/* Entry sites reached without a breakpoint go in and out here. */
static int fbt_enable(struct xdt_probe *p)
{
	struct fbt_func *f = probe_func(p);
	u32 i;

	for (i = 0; i < f->nsites; i++)
		if (f->sites[i].probe == p && f->sites[i].via != XDT_VIA_TRAP)
			xdt_fentry_want(&f->sites[i], true);
	return 0;
}

static void fbt_disable(struct xdt_probe *p)
{
	struct fbt_func *f = probe_func(p);
	u32 i;

	for (i = 0; i < f->nsites; i++)
		if (f->sites[i].probe == p && f->sites[i].live == 1)
			xdt_fentry_want(&f->sites[i], false);
}

static void fbt_mechanism(struct xdt_probe *p, char *buf, size_t len)
{
	static const char *const names[] = XDT_FBTMODE_NAMES;
	static const u8 mode_of_via[] = {
		[XDT_VIA_TRAP] = XDT_FBTMODE_BREAKPOINT,
		[XDT_VIA_FTRACE] = XDT_FBTMODE_FTRACE,
		[XDT_VIA_TRAMP] = XDT_FBTMODE_TRAMPOLINE,
	};
	struct fbt_func *f = probe_func(p);
	u8 modes = p == f->entry ? f->modes : BIT(XDT_FBTMODE_BREAKPOINT);
	size_t n = 0;
	u32 i;

	buf[0] = '\0';
	for (i = XDT_FBTMODE_BREAKPOINT; i < XDT_FBTMODE_NMODES; i++)
		if (modes & BIT(i))
			n += scnprintf(buf + n, len - n, "%s%s", n ? " " : "",
				       names[i]);
	for (i = 0; p->nenabled && i < f->nsites; i++)
		if (f->sites[i].probe == p) {
			scnprintf(buf + n, len - n, "; in use: %s",
				  names[mode_of_via[f->sites[i].via]]);
			break;
		}
}

static const struct xdt_provider_ops fbt_ops = {
	.mechanism = fbt_mechanism,
	.sites = fbt_sites,
	.getarg = fbt_getarg,
	.choose = fbt_choose,
	.enable = fbt_enable,
	.disable = fbt_disable,
	.commit = xdt_fentry_commit,
};

static struct xdt_provider fbt_provider = {
	.name = "fbt",
	.ops = &fbt_ops,
};

int xdt_fbt_init(void)
{
	struct scan *sc;
	int ret;

	kallsyms_on_each_symbol(bounds_cb, NULL);
	if (!text_lo || !text_hi)
		return -ENOENT;
	sc = vzalloc(sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	xdt_provider_register(&fbt_provider);
	ret = register_module_notifier(&fbt_module_nb);
	if (ret) {
		vfree(sc);
		xdt_provider_unregister(&fbt_provider);
		return ret;
	}
	mutex_lock(&xdt_lock);
	kallsyms_on_each_symbol(scan_cb, sc);
	ret = sc->err;
	if (!ret)
		scan_modules(NULL);
	mutex_unlock(&xdt_lock);
	vfree(sc);
	pr_info("xdt: fbt: %u functions with probes\n", nfuncs);
	return ret;
}

void xdt_fbt_exit(void)
{
	u32 i, j;

	unregister_module_notifier(&fbt_module_nb);
	xdt_fentry_exit();
	/* Nothing is patched in: the device is closed (module refcount). */
	for (i = 0; i < nfuncs; i++)
		for (j = 0; j < funcs[i]->nsites; j++)
			xdt_site_remove(&funcs[i]->sites[j]);
	synchronize_rcu();
	xdt_provider_unregister(&fbt_provider);
	for (i = 0; i < nfuncs; i++)
		kfree(funcs[i]);	/* and its name */
	kvfree(funcs);
	funcs = NULL;
	nfuncs = funcs_cap = 0;
}
