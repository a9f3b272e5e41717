// SPDX-License-Identifier: GPL-2.0
/*
 * kinst: a probe on any instruction of a kernel function, named by its
 * decimal offset: kinst:kernel:vfs_read:14.
 *
 * Probes are created on demand.  A whole kernel's worth (a million
 * instruction boundaries) would cost tens of megabytes that nobody lists,
 * so a description that names a function exactly (kinst::vfs_read:,
 * kinst:kernel:vfs_read:7) makes that function's probes the first time it
 * is listed or enabled; they then live as long as xdt (or the module the
 * function is in).  Globbed function names match only what exists, as on
 * FreeBSD.
 *
 * The ISA decodes the function (xdt_kinst_arch_sites) and says for every
 * instruction whether it is emulated in the trap handler or run out of
 * line from a trampoline (core/xol.c), or why it is refused.  On top of
 * that, whatever the ISA says, an instruction is refused here when
 * something else keys on its address:
 *  - an exception-table entry: a fault there is fixed up by looking the
 *    faulting PC up in the table, which a trampoline's PC is not in;
 *  - a jump-label (static key) site and an x86 static-call site: the
 *    kernel rewrites them at run time, under our breakpoint.
 * The function-level exclusions are fbt's (xdt_text_excluded).
 *
 * Refusals are kept per offset and shown by `dtrace -l -v`.  A named
 * offset that is no instruction boundary (or a refused one) makes the
 * enabling fail with that reason rather than "matched no probes".
 */
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call_types.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/extable.h>

#include "xdt_arch.h"
#include "providers.h"

/* ---- probe context: a firing at a kinst site -------------------------- */
/*
 * Restored while a trap on it was in flight: re-executed from memory (the
 * original instruction is back), not run from its out-of-line slot, which
 * may already have been given back.
 */
static void __xdt_probe kinst_site_restored(struct xdt_site *s,
					    struct pt_regs *regs)
{
	instruction_pointer_set(regs, s->addr);
}

/* kinst probes have no arguments (as on FreeBSD): every argN reads 0. */
static const struct xdt_site_ops kinst_site_ops = {
	.args = NULL,
	.emulate = xdt_kinst_arch_emulate,
	.restored = kinst_site_restored,
};

struct kinst_probe {
	struct xdt_site site;
	struct xdt_probe *probe;
	char name[12];
};

struct kinst_func {
	struct list_head list;
	char *name;
	struct module *mod;		/* NULL for vmlinux */
	unsigned long addr, size;
	u32 n;
	struct kinst_probe p[];
};

static LIST_HEAD(funcs);
static struct xdt_provider kinst_provider;

/* vmlinux's tables of addresses something else keys on. */
static const struct exception_table_entry *ex_start, *ex_stop;
#ifdef CONFIG_JUMP_LABEL
static const struct jump_entry *jl_start, *jl_stop;
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
static const struct static_call_site *sc_start, *sc_stop;
#endif

static int tables_cb(void *data, const char *name, struct module *mod,
		     unsigned long addr)
{
	if (!strcmp(name, "__start___ex_table"))
		ex_start = (void *)addr;
	else if (!strcmp(name, "__stop___ex_table"))
		ex_stop = (void *)addr;
#ifdef CONFIG_JUMP_LABEL
	else if (!strcmp(name, "__start___jump_table"))
		jl_start = (void *)addr;
	else if (!strcmp(name, "__stop___jump_table"))
		jl_stop = (void *)addr;
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	else if (!strcmp(name, "__start_static_call_sites"))
		sc_start = (void *)addr;
	else if (!strcmp(name, "__stop_static_call_sites"))
		sc_stop = (void *)addr;
#endif
	return 0;
}

/* Addresses inside one function that something else keys on, sorted. */
struct special {
	unsigned long addr;
	const char *why;
};

struct specials {
	u32 n, cap;
	struct special *s;
	unsigned long lo, hi;
};

static void special_add(struct specials *sp, unsigned long addr,
			const char *why)
{
	if (addr < sp->lo || addr >= sp->hi || sp->n == sp->cap)
		return;
	sp->s[sp->n++] = (struct special){ addr, why };
}

/* Every table entry starts with a 32-bit offset from itself. */
static unsigned long rel32(const s32 *p)
{
	return (unsigned long)p + *p;
}

static void gather_specials(struct specials *sp, struct module *mod)
{
	const struct exception_table_entry *e = ex_start, *ee = ex_stop;

	if (mod) {
		e = mod->extable;
		ee = mod->extable + mod->num_exentries;
	}
	for (; e && e < ee; e++)
		special_add(sp, rel32(&e->insn),
			    "has an exception-table fixup");
#ifdef CONFIG_JUMP_LABEL
	{
		const struct jump_entry *j = jl_start, *je = jl_stop;

		if (mod) {
			j = mod->jump_entries;
			je = j + mod->num_jump_entries;
		}
		for (; j && j < je; j++)
			special_add(sp, jump_entry_code(j),
				    "static-key (jump label) site");
	}
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	{
		const struct static_call_site *c = sc_start, *ce = sc_stop;

		if (mod) {
			c = mod->static_call_sites;
			ce = c + mod->num_static_call_sites;
		}
		for (; c && c < ce; c++)
			special_add(sp, rel32(&c->addr), "static-call site");
	}
#endif
}

static const char *special_why(const struct specials *sp, unsigned long addr)
{
	u32 i;

	for (i = 0; i < sp->n; i++)
		if (sp->s[i].addr == addr)
			return sp->s[i].why;
	return NULL;
}

/* ---- providing ------------------------------------------------------------ */
struct walk {
	u32 n, cap;
	struct xdt_kinst_desc *d;
};

static int walk_add(void *ctx, const struct xdt_kinst_desc *d)
{
	struct walk *w = ctx;

	if (w->n == w->cap)
		return -E2BIG;
	w->d[w->n++] = *d;
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

static struct kinst_func *find_func(const char *mod, const char *name,
				    unsigned long addr)
{
	struct kinst_func *f;

	list_for_each_entry(f, &funcs, list)
		if (!strcmp(f->name, name) && f->addr == addr &&
		    !strcmp(f->mod ? f->mod->name : "kernel", mod))
			return f;
	return NULL;
}

static void refuse(const char *mod, const char *func, u32 off,
		   const char *why)
{
	char name[12];

	snprintf(name, sizeof(name), "%u", off);
	if (!xdt_refused(&kinst_provider, mod, func, name))
		xdt_refusal_add_name(&kinst_provider, mod, func, name, why);
}

/*
 * Kernel functions xdt's own probe path calls.  A probe inside one of them
 * is hit again, nested, by every firing of every probe: nested traps are
 * only emulated, so this is correct, but with every instruction of memset
 * probed, each firing would take as many traps as memset has
 * instructions to run (seen on riscv64: a keyed aggregation over a
 * file-reading load went from 1 s to minutes).  fbt's single entry site
 * costs one nested trap there and keeps them.
 */
static const char *const probe_path_funcs[] = {
	"memset", "memcpy", "memmove", "__memset", "__memcpy", "__memmove",
	"memcmp", "strlen", "strnlen", "copy_from_kernel_nofault",
	"copy_from_kernel_nofault_allowed", "strncpy_from_kernel_nofault",
};

/* Make the probes of the function @name at @addr.  Holds xdt_lock. */
static int provide_func(const char *name, struct module *mod,
			unsigned long addr, unsigned long size)
{
	const char *modname = mod ? mod->name : "kernel";
	struct specials sp = { .lo = addr, .hi = addr + size };
	struct walk w = { 0 };
	struct kinst_func *f = NULL;
	const char *why;
	char *fname = NULL;
	u32 i, nok = 0;
	int ret = -ENOMEM;

	if (find_func(modname, name, addr) ||
	    xdt_refused(&kinst_provider, modname, name, NULL))
		return 0;
	why = xdt_text_excluded(name, addr, mod);
	if (!why && !mod && match_string(probe_path_funcs,
					 ARRAY_SIZE(probe_path_funcs),
					 name) >= 0)
		why = "xdt's probe path calls it (nested traps)";
	if (why) {
		xdt_refusal_add(&kinst_provider, modname, name, why);
		return 0;
	}
	/* The shortest instruction of any of xdt's ISAs is 1 byte (x86). */
	w.cap = min_t(unsigned long, size, 1 << 20);
	w.d = vmalloc(array_size(w.cap, sizeof(*w.d)));
	sp.cap = 1024;
	sp.s = kvmalloc_array(sp.cap, sizeof(*sp.s), GFP_KERNEL);
	if (!w.d || !sp.s)
		goto out;
	why = xdt_kinst_arch_sites(addr, size, walk_add, &w);
	if (why) {
		xdt_refusal_add(&kinst_provider, modname, name, why);
		ret = 0;
		goto out;
	}
	gather_specials(&sp, mod);
	for (i = 0; i < w.n; i++) {
		if (!w.d[i].why)
			w.d[i].why = special_why(&sp, addr + w.d[i].off);
		if (w.d[i].why)
			refuse(modname, name, w.d[i].off, w.d[i].why);
		else
			nok++;
	}
	f = kvzalloc(struct_size(f, p, nok), GFP_KERNEL);
	fname = kstrdup(name, GFP_KERNEL);
	if (!f || !fname)
		goto out;
	f->name = fname;
	f->mod = mod;
	f->addr = addr;
	f->size = size;
	list_add_tail(&f->list, &funcs);
	for (i = 0; i < w.n; i++) {
		const struct xdt_kinst_desc *d = &w.d[i];
		struct kinst_probe *kp = &f->p[f->n];
		struct xdt_site *s = &kp->site;

		if (d->why)
			continue;
		s->addr = addr + d->off;
		s->ops = &kinst_site_ops;
		s->arg = d->off;
		s->kind = d->kind;
		s->frame = d->frame;
		s->len = d->len;
		s->orig = d->orig;
		s->aux = d->aux;
		s->patch = xdt_arch_patch_for(s->orig);
		s->ool = d->xol;
		snprintf(kp->name, sizeof(kp->name), "%u", d->off);
		kp->probe = xdt_probe_create(&kinst_provider, modname,
					     f->name, kp->name, kp);
		if (!kp->probe)
			break;
		kp->probe->owner = mod;
		s->probe = kp->probe;
		xdt_site_insert(s);
		f->n++;
	}
	fname = NULL;
	ret = 0;
out:
	if (ret)
		kvfree(f);
	kfree(fname);
	vfree(w.d);
	kvfree(sp.s);
	return ret;
}

struct lookup {
	const char *mod, *func;
	struct {
		unsigned long addr;
		struct module *mod;
	} hit[8];
	u32 n;
};

static void lookup_hit(struct lookup *l, struct module *mod,
		       unsigned long addr)
{
	unsigned long size, off;

	if (l->n == ARRAY_SIZE(l->hit) ||
	    !kallsyms_lookup_size_offset(addr, &size, &off) || off || !size)
		return;
	l->hit[l->n].addr = addr;
	l->hit[l->n].mod = mod;
	l->n++;
}

static int lookup_cb(void *data, const char *name, struct module *mod,
		     unsigned long addr)
{
	struct lookup *l = data;

	if (!strcmp(name, l->func))
		lookup_hit(l, NULL, addr);
	return 0;
}

static int mod_lookup_cb(void *data, const char *name, struct module *mod,
			 unsigned long addr)
{
	struct lookup *l = data;

	if (strcmp(name, l->func) || mod->state != MODULE_STATE_LIVE ||
	    !xdt_glob(l->mod, mod->name))
		return 0;
	/* Core text only: init text is freed after init. */
	if (addr < (unsigned long)mod->core_layout.base ||
	    addr >= (unsigned long)mod->core_layout.base +
		    mod->core_layout.text_size)
		return 0;
	lookup_hit(l, mod, addr);
	return 0;
}

/* Why the offset @name of @func has no probe, for the enabling's error. */
static void explain(const char *mod, const char *func, const char *name,
		    char *why, size_t len)
{
	struct kinst_func *f;
	bool found = false;
	u32 off, i;
	u32 prev = 0, next = 0;

	if (!why || kstrtou32(name, 10, &off))
		return;
	list_for_each_entry(f, &funcs, list) {
		if (strcmp(f->name, func) ||
		    !xdt_glob(mod, f->mod ? f->mod->name : "kernel"))
			continue;
		found = true;
		if (off >= f->size) {
			snprintf(why, len, "offset %u is past the end of %s "
				 "(%lu bytes)", off, func, f->size);
			return;
		}
		for (i = 0; i < f->n; i++) {
			if (f->p[i].site.arg == off)
				return;		/* it has a probe */
			if (f->p[i].site.arg < off)
				prev = f->p[i].site.arg;
			else if (f->p[i].site.arg > off && !next)
				next = f->p[i].site.arg;
		}
	}
	if (!found)
		return;
	list_for_each_entry(f, &funcs, list) {
		const char *r = xdt_refused(&kinst_provider,
					    f->mod ? f->mod->name : "kernel",
					    func, name);

		if (!strcmp(f->name, func) && r) {
			snprintf(why, len, "instruction refused: %s", r);
			return;
		}
	}
	snprintf(why, len, "offset %u is not an instruction boundary of %s "
		 "(the nearest are %u and %u)", off, func, prev, next);
}

static void kinst_provide(const struct xdt_probedesc *d, char *why,
			  size_t len)
{
	char mod[XDT_MODNAMELEN], func[XDT_FUNCNAMELEN], name[XDT_NAMELEN];
	struct lookup *l;
	u32 i;

	strscpy(mod, d->mod, sizeof(mod));
	strscpy(func, d->func, sizeof(func));
	strscpy(name, d->name, sizeof(name));
	if (!func[0] || has_glob(func))
		return;
	if (!mod[0])
		strcpy(mod, "*");
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return;
	l->mod = mod;
	l->func = func;
	if (xdt_glob(mod, "kernel"))
		kallsyms_on_each_symbol(lookup_cb, l);
	module_kallsyms_on_each_symbol(mod_lookup_cb, l);
	for (i = 0; i < l->n; i++) {
		unsigned long size, off;

		if (!kallsyms_lookup_size_offset(l->hit[i].addr, &size, &off))
			continue;
		if (provide_func(func, l->hit[i].mod, l->hit[i].addr, size))
			pr_warn("xdt: kinst: %s: out of memory\n", func);
	}
	kfree(l);
	if (name[0] && !has_glob(name))
		explain(mod, func, name, why, len);
}

/* ---- the provider --------------------------------------------------------- */
static u32 kinst_sites(struct xdt_probe *p, struct xdt_site **out, u32 max)
{
	struct kinst_probe *kp = p->parg;

	if (out && max)
		out[0] = &kp->site;
	return 1;
}

/*
 * For `dtrace -l -v`: how a firing runs the displaced instruction --
 * "emulated" in the trap handler or "out of line" from a trampoline slot
 * -- so a tool asks instead of re-deriving the ISA's rules.
 */
static void kinst_mechanism(struct xdt_probe *p, char *buf, size_t len)
{
	struct kinst_probe *kp = p->parg;

	scnprintf(buf, len, "breakpoint; %s",
		  kp->site.ool ? "out of line" : "emulated");
}

static const struct xdt_provider_ops kinst_ops = {
	.sites = kinst_sites,
	.provide = kinst_provide,
	.mechanism = kinst_mechanism,
};

static struct xdt_provider kinst_provider = {
	.name = "kinst",
	.ops = &kinst_ops,
};

/* Drop functions (of @mod, or all): none of their probes is enabled. */
static void forget(struct module *mod, bool all)
{
	struct kinst_func *f, *t;
	u32 i;

	list_for_each_entry(f, &funcs, list)
		if (all || f->mod == mod)
			for (i = 0; i < f->n; i++)
				xdt_site_remove(&f->p[i].site);
	/* No trap handler may still be walking a hash chain. */
	synchronize_rcu();
	list_for_each_entry_safe(f, t, &funcs, list) {
		if (!all && f->mod != mod)
			continue;
		for (i = 0; i < f->n && !all; i++)
			xdt_probe_destroy(f->p[i].probe);
		list_del(&f->list);
		kfree(f->name);
		kvfree(f);
	}
}

static int kinst_module_notify(struct notifier_block *nb,
			       unsigned long action, void *data)
{
	struct module *mod = data;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_OK;
	mutex_lock(&xdt_lock);
	forget(mod, false);
	xdt_refusal_forget(&kinst_provider, mod->name);
	mutex_unlock(&xdt_lock);
	return NOTIFY_OK;
}

static struct notifier_block kinst_module_nb = {
	.notifier_call = kinst_module_notify,
};

int xdt_kinst_init(void)
{
	int ret;

	kallsyms_on_each_symbol(tables_cb, NULL);
	xdt_provider_register(&kinst_provider);
	ret = register_module_notifier(&kinst_module_nb);
	if (ret)
		xdt_provider_unregister(&kinst_provider);
	return ret;
}

void xdt_kinst_exit(void)
{
	unregister_module_notifier(&kinst_module_nb);
	mutex_lock(&xdt_lock);
	forget(NULL, true);
	mutex_unlock(&xdt_lock);
	/* The probes themselves go with the provider. */
	xdt_provider_unregister(&kinst_provider);
}
