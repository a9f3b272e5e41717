// SPDX-License-Identifier: GPL-2.0
/*
 * Providers, the probe table, refusals, and the patch-site hash.
 *
 * Probe IDs are indices into a table that only grows while the module is
 * loaded, so an ID is stable for the life of the module and a consumer can
 * cache it.  Sites are hashed by address for the trap handler; the hash is
 * only changed with no site of the changed provider patched in.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/vmalloc.h>

#include "xdt_arch.h"

DEFINE_MUTEX(xdt_lock);
static LIST_HEAD(providers);

static struct xdt_probe **probes;	/* [1..nprobes]; [0] unused */
static u32 nprobes, probes_cap;

/*
 * Probes by function name.  Matching a description means a glob against
 * every probe, which is what a glob needs but makes a program of N clauses
 * that each name one function cost N x (every probe): 1000 fbt clauses were
 * 1000 x 35 000 matches, 25 s under TCG.  A description whose function field
 * is a plain name walks that name's chain only.  Chains are kept in ID order
 * (a new probe has the highest ID and goes last) so every match comes out
 * in the same order either way.  (Doubly linked with a head that knows its
 * tail: kinst makes thousands of probes with one function name.)
 */
#define FUNC_HASH_BITS	12
static struct list_head func_hash[1 << FUNC_HASH_BITS];

/*
 * And by probe name, for the descriptions D's short forms make: `BEGIN`,
 * `tick-1s`, `:::entry` have only a name, and each such clause matched
 * its globs against all ~38 000 probes (0.9 s of one enabling on the
 * x86_64 debug kernel for `tick-1ms{} tick-20ms{}`).  Same rules: ID
 * order, checked with the full match.
 */
#define NAME_HASH_BITS	8
static struct list_head name_hash[1 << NAME_HASH_BITS];

void xdt_probes_init(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(func_hash); i++)
		INIT_LIST_HEAD(&func_hash[i]);
	for (i = 0; i < ARRAY_SIZE(name_hash); i++)
		INIT_LIST_HEAD(&name_hash[i]);
}

static struct list_head *name_bucket(const char *name)
{
	return &name_hash[hash_32(full_name_hash(NULL, name, strlen(name)),
				  NAME_HASH_BITS)];
}

static struct list_head *func_bucket(const char *func)
{
	return &func_hash[hash_32(full_name_hash(NULL, func, strlen(func)),
				  FUNC_HASH_BITS)];
}

struct refusal {
	struct xdt_provider *prov;
	const char *why;
	char *mod, *func, *name;	/* owned by the table; name NULL: all */
};
static struct refusal *refusals;
static u32 nrefusals, refusals_cap;

static bool field_match(const char *pat, size_t len, const char *s);

/*
 * After every provider has unregistered (module exit, or init's unwind):
 * the tables themselves.  Each unload leaked them until kmemleak on the
 * riscv64 debug kernel said so (the table grown to 1 MiB by kinst).
 */
void xdt_probes_exit(void)
{
	kvfree(probes);
	probes = NULL;
	probes_cap = 0;
	kvfree(refusals);
	refusals = NULL;
	refusals_cap = nrefusals = 0;
}

int xdt_provider_register(struct xdt_provider *prov)
{
	mutex_lock(&xdt_lock);
	INIT_LIST_HEAD(&prov->probes);
	list_add_tail(&prov->list, &providers);
	mutex_unlock(&xdt_lock);
	return 0;
}

/* The provider's probes leave the table; their IDs are never reused. */
void xdt_provider_unregister(struct xdt_provider *prov)
{
	u32 i, j = 0;

	mutex_lock(&xdt_lock);
	for (i = 1; i <= nprobes; i++) {
		if (probes[i] && probes[i]->prov == prov) {
			list_del(&probes[i]->fnode);
			list_del(&probes[i]->pnode);
			list_del(&probes[i]->nnode);
			kfree(probes[i]);
			probes[i] = NULL;
		}
	}
	for (i = 0; i < nrefusals; i++) {
		if (refusals[i].prov == prov) {
			kfree(refusals[i].mod);
			kfree(refusals[i].func);
			kfree(refusals[i].name);
		} else
			refusals[j++] = refusals[i];
	}
	nrefusals = j;
	list_del(&prov->list);
	mutex_unlock(&xdt_lock);
}

static int grow(void **arr, u32 *cap, u32 need, size_t elem)
{
	void *n;
	u32 ncap;

	if (need <= *cap)
		return 0;
	ncap = max_t(u32, need, *cap ? *cap * 2 : 1024);
	n = kvmalloc_array(ncap, elem, GFP_KERNEL | __GFP_ZERO);
	if (!n)
		return -ENOMEM;
	if (*arr) {
		memcpy(n, *arr, (size_t)*cap * elem);
		kvfree(*arr);
	}
	*arr = n;
	*cap = ncap;
	return 0;
}

/* Caller holds xdt_lock. */
struct xdt_probe *xdt_probe_create(struct xdt_provider *prov, const char *mod,
				   const char *func, const char *name,
				   void *parg)
{
	struct xdt_probe *p;

	lockdep_assert_held(&xdt_lock);
	if (grow((void **)&probes, &probes_cap, nprobes + 2, sizeof(*probes)))
		return NULL;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	p->id = ++nprobes;
	p->prov = prov;
	p->mod = mod;
	p->func = func;
	p->name = name;
	p->parg = parg;
	probes[p->id] = p;
	list_add_tail(&p->fnode, func_bucket(func ? func : ""));
	list_add_tail(&p->pnode, &prov->probes);
	list_add_tail(&p->nnode, name_bucket(name ? name : ""));
	return p;
}

/* Caller holds xdt_lock; no ECB may refer to @p (its owner is going). */
void xdt_probe_destroy(struct xdt_probe *p)
{
	lockdep_assert_held(&xdt_lock);
	probes[p->id] = NULL;
	list_del(&p->fnode);
	list_del(&p->pnode);
	list_del(&p->nnode);
	kfree(p);
}

struct xdt_probe *xdt_probe_lookup(u32 id)
{
	return id && id <= nprobes ? probes[id] : NULL;
}

u32 xdt_nprobes(void)
{
	return nprobes;
}

void xdt_refusal_add_name(struct xdt_provider *prov, const char *mod,
			  const char *func, const char *name,
			  const char *why)
{
	char *f, *m, *n = NULL;

	lockdep_assert_held(&xdt_lock);
	if (grow((void **)&refusals, &refusals_cap, nrefusals + 1,
		 sizeof(*refusals)))
		return;
	f = kstrdup(func, GFP_KERNEL);
	m = kstrdup(mod, GFP_KERNEL);
	if (name)
		n = kstrdup(name, GFP_KERNEL);
	if (f && m && (n || !name)) {
		refusals[nrefusals++] = (struct refusal){ prov, why, m, f, n };
	} else {
		kfree(f);
		kfree(m);
		kfree(n);
	}
}

void xdt_refusal_add(struct xdt_provider *prov, const char *mod,
		     const char *func, const char *why)
{
	xdt_refusal_add_name(prov, mod, func, NULL, why);
}

/* The refusal for exactly this (@name NULL: whole function), or NULL. */
const char *xdt_refused(struct xdt_provider *prov, const char *mod,
		 const char *func, const char *name)
{
	u32 i;

	lockdep_assert_held(&xdt_lock);
	for (i = 0; i < nrefusals; i++) {
		struct refusal *r = &refusals[i];

		if (r->prov == prov && !strcmp(r->mod, mod) &&
		    !strcmp(r->func, func) &&
		    (!name ? !r->name : r->name && !strcmp(r->name, name)))
			return r->why;
	}
	return NULL;
}

/* Let on-demand providers create what @d names.  Holds xdt_lock. */
void xdt_provide(const struct xdt_probedesc *d, char *why, size_t len)
{
	struct xdt_provider *prov;

	lockdep_assert_held(&xdt_lock);
	list_for_each_entry(prov, &providers, list)
		if (prov->ops->provide &&
		    field_match(d->prov, sizeof(d->prov), prov->name))
			prov->ops->provide(d, why, len);
}

/* Drop @prov's refusals in module @mod (it is going away). */
void xdt_refusal_forget(struct xdt_provider *prov, const char *mod)
{
	u32 i, j = 0;

	lockdep_assert_held(&xdt_lock);
	for (i = 0; i < nrefusals; i++) {
		if (refusals[i].prov == prov && !strcmp(refusals[i].mod, mod)) {
			kfree(refusals[i].mod);
			kfree(refusals[i].func);
			kfree(refusals[i].name);
		} else {
			refusals[j++] = refusals[i];
		}
	}
	nrefusals = j;
}

/*
 * Shell-style glob: '*', '?', '[...]' (with '!' or '^' negation and ranges),
 * '\' escapes.  Iterative with one backtrack point, so no recursion depth
 * depends on user input.
 */
bool xdt_glob(const char *p, const char *s)
{
	const char *star = NULL, *ss = NULL;

	while (*s) {
		if (*p == '*') {
			star = ++p;
			ss = s;
			continue;
		}
		if (*p == '?') {
			p++;
			s++;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;
			bool neg = false, hit = false;

			if (*q == '!' || *q == '^') {
				neg = true;
				q++;
			}
			while (*q && (*q != ']' || q == p + 1 + neg)) {
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hit |= *s >= q[0] && *s <= q[2];
					q += 3;
				} else {
					hit |= *s == *q++;
				}
			}
			if (*q == ']' && hit != neg) {
				p = q + 1;
				s++;
				continue;
			}
		} else {
			if (*p == '\\' && p[1])
				p++;
			if (*p == *s) {
				p++;
				s++;
				continue;
			}
		}
		if (!star)
			return false;
		p = star;
		s = ++ss;
	}
	while (*p == '*')
		p++;
	return !*p;
}

static bool field_match(const char *pat, size_t len, const char *s)
{
	char buf[XDT_FUNCNAMELEN];

	if (!pat[0])
		return true;
	strscpy(buf, pat, min(len, sizeof(buf)));
	return xdt_glob(buf, s ? s : "");
}

bool xdt_probe_matches(const struct xdt_probe *p,
		       const struct xdt_probedesc *d)
{
	return field_match(d->prov, sizeof(d->prov), p->prov->name) &&
	       field_match(d->mod, sizeof(d->mod), p->mod) &&
	       field_match(d->func, sizeof(d->func), p->func) &&
	       field_match(d->name, sizeof(d->name), p->name);
}

/*
 * Call @fn on every probe @d matches, in ID order, until it returns nonzero
 * (which is returned).  Caller holds xdt_lock.
 */
int xdt_probe_foreach(const struct xdt_probedesc *d,
		      int (*fn)(struct xdt_probe *p, void *arg), void *arg)
{
	char func[XDT_FUNCNAMELEN], pname[XDT_PROVNAMELEN], name[XDT_NAMELEN];
	struct xdt_probe *p;
	u32 i;
	int ret;

	lockdep_assert_held(&xdt_lock);
	strscpy(func, d->func, sizeof(func));
	if (func[0] && !strpbrk(func, "*?[\\")) {
		list_for_each_entry(p, func_bucket(func), fnode) {
			if (!xdt_probe_matches(p, d))
				continue;
			ret = fn(p, arg);
			if (ret)
				return ret;
		}
		return 0;
	}
	/*
	 * A plain probe name: its chain (BEGIN, tick-1s), unless it is one of
	 * the names thousands share (entry, return) and the provider is named:
	 * then the provider's list (fbt:::entry, syscall::*:entry).
	 */
	strscpy(pname, d->prov, sizeof(pname));
	strscpy(name, d->name, sizeof(name));
	if (name[0] && !strpbrk(name, "*?[\\") &&
	    (!pname[0] || strpbrk(pname, "*?[\\") ||
	     (strcmp(name, "entry") && strcmp(name, "return")))) {
		i = 0;
		list_for_each_entry(p, name_bucket(name), nnode) {
			if (!(++i & 1023))
				cond_resched();
			if (!xdt_probe_matches(p, d))
				continue;
			ret = fn(p, arg);
			if (ret)
				return ret;
		}
		return 0;
	}
	/*
	 * A provider named exactly (dtrace:::, profile:::, syscall::*:entry):
	 * its own probes only.
	 */
	if (pname[0] && !strpbrk(pname, "*?[\\")) {
		struct xdt_provider *prov;

		list_for_each_entry(prov, &providers, list) {
			if (strcmp(prov->name, pname))
				continue;
			i = 0;
			list_for_each_entry(p, &prov->probes, pnode) {
				if (!(++i & 1023))
					cond_resched();
				if (!xdt_probe_matches(p, d))
					continue;
				ret = fn(p, arg);
				if (ret)
					return ret;
			}
		}
		return 0;
	}
	for (i = 1; i <= nprobes; i++) {
		/* ~35 000 globs under TCG: let the CPU go now and then. */
		if (!(i & 1023))
			cond_resched();
		p = probes[i];
		if (!p || !xdt_probe_matches(p, d))
			continue;
		ret = fn(p, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static void desc_fill(struct xdt_probedesc *d, const char *prov,
		      const char *mod, const char *func, const char *name)
{
	memset(d, 0, sizeof(*d));
	strscpy(d->prov, prov, sizeof(d->prov));
	strscpy(d->mod, mod ? mod : "", sizeof(d->mod));
	strscpy(d->func, func ? func : "", sizeof(d->func));
	strscpy(d->name, name ? name : "", sizeof(d->name));
}

struct query_state {
	struct xdt_probeinfo __user *out;
	struct xdt_probeinfo *pi;
	u32 cap, n;
};

static int query_one(struct xdt_probe *p, void *arg)
{
	struct query_state *qs = arg;
	struct xdt_probeinfo *pi = qs->pi;

	if (qs->n < qs->cap) {
		memset(pi, 0, sizeof(*pi));
		pi->id = p->id;
		pi->flags = p->nenabled ? XDT_PROBE_ENABLED : 0;
		desc_fill(&pi->desc, p->prov->name, p->mod, p->func, p->name);
		if (p->prov->ops->mechanism)
			p->prov->ops->mechanism(p, pi->mech, sizeof(pi->mech));
		if (copy_to_user(&qs->out[qs->n], pi, sizeof(*pi)))
			return -EFAULT;
	}
	qs->n++;
	return 0;
}

/* XDT_IOC_PROBES: copy out matching probes (and refusals, if asked). */
int xdt_probe_query(struct xdt_probe_query *q)
{
	struct xdt_probeinfo __user *out = u64_to_user_ptr(q->buf);
	struct xdt_probeinfo *pi;
	struct query_state qs;
	u32 i, n = 0;
	int ret = 0;

	pi = kmalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi)
		return -ENOMEM;
	qs = (struct query_state){ .out = out, .pi = pi, .cap = q->cap };
	mutex_lock(&xdt_lock);
	q->err[0] = '\0';
	xdt_provide(&q->match, q->err, sizeof(q->err));
	ret = xdt_probe_foreach(&q->match, query_one, &qs);
	n = qs.n;
	for (i = 0; !ret && (q->flags & XDT_PQ_REFUSED) && i < nrefusals; i++) {
		struct refusal *r = &refusals[i];
		struct xdt_probe fake = { .prov = r->prov, .mod = r->mod,
					  .func = r->func, .name = r->name };
		struct xdt_probedesc m = q->match;

		if (!r->name)
			m.name[0] = '\0';	/* it covers every name */
		if (!xdt_probe_matches(&fake, &m))
			continue;
		if (n < q->cap) {
			memset(pi, 0, sizeof(*pi));
			pi->flags = XDT_PROBE_REFUSED;
			desc_fill(&pi->desc, r->prov->name, r->mod, r->func,
				  r->name);
			strscpy(pi->why, r->why, sizeof(pi->why));
			if (copy_to_user(&out[n], pi, sizeof(*pi)))
				ret = -EFAULT;
		}
		n++;
	}
	mutex_unlock(&xdt_lock);
	kfree(pi);
	q->count = n;
	return ret;
}

/* ---- sites ----------------------------------------------------------------- */
#define SITE_HASH_BITS	16
static struct xdt_site *site_hash[1 << SITE_HASH_BITS];

static inline u32 __xdt_probe site_bucket(unsigned long addr)
{
	return hash_long(addr, SITE_HASH_BITS);
}

void xdt_site_insert(struct xdt_site *site)
{
	u32 b = site_bucket(site->addr);

	site->hnext = site_hash[b];
	/* Publish a fully built site to the lock-free trap-time lookup. */
	smp_store_release(&site_hash[b], site);
}

/* Only for sites that are not patched in; callers wait for RCU before free. */
void xdt_site_remove(struct xdt_site *site)
{
	struct xdt_site **pp = &site_hash[site_bucket(site->addr)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == site) {
			WRITE_ONCE(*pp, site->hnext);
			return;
		}
	}
}

/*
 * fbt and kinst may both have a site at one address (an entry NOP, a ret);
 * at most one of them is patched in at a time (sites_write refuses the
 * second), and a trap belongs to that one.
 */
struct xdt_site *__xdt_probe xdt_site_lookup(unsigned long addr)
{
	struct xdt_site *s = smp_load_acquire(&site_hash[site_bucket(addr)]);
	struct xdt_site *first = NULL;

	for (; s; s = READ_ONCE(s->hnext)) {
		if (s->addr != addr)
			continue;
		if (READ_ONCE(s->enabled))
			return s;
		if (!first)
			first = s;
	}
	return first;
}

/* Probe context: the site at @addr reached @via (core/fentry.c). */
struct xdt_site *__xdt_probe xdt_site_lookup_via(unsigned long addr, u8 via)
{
	struct xdt_site *s = smp_load_acquire(&site_hash[site_bucket(addr)]);

	for (; s; s = READ_ONCE(s->hnext))
		if (s->addr == addr && READ_ONCE(s->via) == via)
			return s;
	return NULL;
}

/*
 * Is an xdt site enabled in [@addr, @addr + @len)?  For a provider that
 * patches by other means (a stable probe's kprobe): the two must not meet
 * on one instruction.  xdt_lock.
 */
bool xdt_sites_enabled_in(unsigned long addr, unsigned long len)
{
	unsigned long a;

	for (a = addr; a < addr + len; a++)
		if (xdt_site_busy(a))
			return true;
	return false;
}

/* Is a breakpoint of xdt's (any site's) patched in at @addr? */
bool xdt_site_busy(unsigned long addr)
{
	struct xdt_site *s = site_hash[site_bucket(addr)];

	for (; s; s = s->hnext)
		if (s->addr == addr && s->enabled)
			return true;
	return false;
}

/*
 * Is another site at @s's address enabled too?  Every site of a batch is
 * marked enabled before it is written, so this finds a second probe on the
 * same instruction in the batch as well as one already patched in.  One
 * breakpoint can only be one site's.
 */
static bool site_shared(struct xdt_site *s)
{
	struct xdt_site *o = site_hash[site_bucket(s->addr)];

	for (; o; o = o->hnext)
		if (o != s && o->addr == s->addr && o->enabled)
			return true;
	return false;
}

/*
 * Write the patch (@on) or the original back at @n sites.  Going in, every
 * site is first checked to hold the instruction xdt decoded; if any does
 * not (ftrace, kprobes or a debugger owns it now) nothing is written and
 * the call fails with -EBUSY.  Going out, each site on its own (see
 * sites_write_off).  The ISA writes them in chunks: tens of
 * thousands of sites at once would hold the text lock and the CPUs for
 * tens of seconds (an RCU stall on this non-preemptible kernel under
 * TCG).  Every site is valid on its own, so a half-done batch is a
 * consistent state.
 */
#define XDT_POKE_CHUNK	512

/*
 * The chunk being written, in static memory (xdt_lock serialises every
 * GO and STOP): restoring the text must not depend on an allocation, or a
 * STOP that met memory pressure would leave breakpoints behind it, owned
 * by no consumer, and refuse every later enabling there (make soak's
 * fail-nth found exactly that).  8 KiB of .bss buys it.
 */
static unsigned long poke_addrs[XDT_POKE_CHUNK];
static xdt_patchval_t poke_vals[XDT_POKE_CHUNK];

/* Write the patch (@on) or the original at @sites[0..@k). */
static int poke_chunk(struct xdt_site **sites, unsigned int k, bool on)
{
	unsigned int j;

	lockdep_assert_held(&xdt_lock);
	for (j = 0; j < k; j++) {
		poke_addrs[j] = sites[j]->addr;
		poke_vals[j] = on ? sites[j]->patch : sites[j]->orig;
	}
	return xdt_arch_poke(poke_addrs, poke_vals, k);
}

/* Does @s's text hold @want? */
static bool site_holds(const struct xdt_site *s, xdt_patchval_t want)
{
	xdt_patchval_t cur = 0;

	return !copy_from_kernel_nofault(&cur, (void *)s->addr,
					 XDT_PATCH_LEN(s->orig)) &&
	       cur == want;
}

static int sites_write_on(struct xdt_site **sites, unsigned int n)
{
	unsigned int i, k;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct xdt_site *s = sites[i];
		xdt_patchval_t cur = 0;

		if (site_shared(s)) {
			pr_err("xdt: %ps: two probes on one instruction (fbt "
			       "and kinst): not patching\n", (void *)s->addr);
			return -EBUSY;
		}
		if (copy_from_kernel_nofault(&cur, (void *)s->addr,
					     XDT_PATCH_LEN(s->orig)) ||
		    cur != s->orig) {
			pr_err("xdt: %ps: found %#llx, expected %#llx; "
			       "not patching\n", (void *)s->addr, (u64)cur,
			       (u64)s->orig);
			return -EBUSY;
		}
	}
	for (i = 0; i < n; i += k) {
		k = min_t(unsigned int, n - i, XDT_POKE_CHUNK);
		ret = poke_chunk(sites + i, k, true);
		if (ret)
			break;
		cond_resched();
	}
	if (ret && i) {
		/*
		 * Take back what went in: a breakpoint left behind a site
		 * marked disabled would reach the kernel as a stray trap.
		 */
		for (i = 0; i < n; i += k) {
			k = min_t(unsigned int, n - i, XDT_POKE_CHUNK);
			WARN_ON(poke_chunk(sites + i, k, false));
		}
	}
	return ret;
}

/*
 * Going out, each site is restored on its own: one site whose text
 * someone else changed (a debugger's breakpoint over xdt's) must not keep
 * every other breakpoint of the batch in the kernel with no consumer
 * behind it.  That site is left as it is, said in the log, and stays
 * enabled so a trap there is still xdt's to emulate.
 */
static int sites_write_off(struct xdt_site **sites, unsigned int n)
{
	unsigned int i, k = 0;
	int ret = 0, r;

	lockdep_assert_held(&xdt_lock);
	for (i = 0; i < n; i++) {
		struct xdt_site *s = sites[i];

		if (!site_holds(s, s->patch)) {
			pr_err("xdt: %ps: xdt's patch is no longer there: "
			       "left as it is\n", (void *)s->addr);
			ret = -EBUSY;
		} else {
			poke_addrs[k] = s->addr;
			poke_vals[k++] = s->orig;
		}
		if (k == XDT_POKE_CHUNK || (k && i == n - 1)) {
			r = xdt_arch_poke(poke_addrs, poke_vals, k);
			if (r && !ret)
				ret = r;
			k = 0;
			cond_resched();
		}
	}
	return ret;
}

/*
 * Patch sites in or out.  A site is marked enabled before its breakpoint
 * can be hit and unmarked once it is gone; a trap already in flight on a
 * site that was just restored is recognised by xdt_trap() (the text no
 * longer holds our patch) and simply re-executed.
 */
/* Caller holds xdt_lock (the provider list). */
bool xdt_addr_claimed(unsigned long addr)
{
	struct xdt_provider *prov;

	list_for_each_entry(prov, &providers, list)
		if (prov->ops->claims && prov->ops->claims(addr))
			return true;
	return false;
}

int xdt_sites_patch(struct xdt_site **sites, unsigned int n, bool on)
{
	unsigned int i;
	int ret;

	if (!n)
		return 0;
	if (on) {
		/* a stable probe's kprobe there: one of the two must yield */
		for (i = 0; i < n; i++)
			if (xdt_addr_claimed(sites[i]->addr) ||
			    sites[i]->enabled)	/* a STOP could not restore it */
				return -EBUSY;
		for (i = 0; i < n; i++)
			WRITE_ONCE(sites[i]->enabled, 1);
		ret = sites_write_on(sites, n);
		if (ret)
			for (i = 0; i < n; i++)
				WRITE_ONCE(sites[i]->enabled, 0);
		return ret;
	}
	ret = sites_write_off(sites, n);
	for (i = 0; i < n; i++)
		if (!ret || site_holds(sites[i], sites[i]->orig))
			WRITE_ONCE(sites[i]->enabled, 0);
	return ret;
}
