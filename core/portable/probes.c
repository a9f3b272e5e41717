// SPDX-License-Identifier: GPL-2.0
/*
 * Providers and the probe table: registration, refusals, the glob and
 * probe matching, and the probe query of `dtrace -l`.  Portable: the host
 * VM registers its dtrace provider here as xdt.ko's providers do, so a
 * description matches the same probes by the same rules in both.
 *
 * Probe IDs are indices into a table that only grows while the module is
 * loaded, so an ID is stable for the life of the module and a consumer can
 * cache it.
 */
#include "xdt_impl.h"

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

void __xdt_provider_register(struct xdt_provider *prov)
{
	lockdep_assert_held(&xdt_lock);
	INIT_LIST_HEAD(&prov->probes);
	list_add_tail(&prov->list, &providers);
}

int xdt_provider_register(struct xdt_provider *prov)
{
	mutex_lock(&xdt_lock);
	__xdt_provider_register(prov);
	mutex_unlock(&xdt_lock);
	return 0;
}

/* The provider's probes leave the table; their IDs are never reused. */
void xdt_provider_unregister(struct xdt_provider *prov)
{
	mutex_lock(&xdt_lock);
	__xdt_provider_unregister(prov);
	mutex_unlock(&xdt_lock);
}

void __xdt_provider_unregister(struct xdt_provider *prov)
{
	u32 i, j = 0;

	lockdep_assert_held(&xdt_lock);
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

/* Does a provider hold @addr (ops->claims)?  Caller holds xdt_lock. */
bool xdt_addr_claimed(unsigned long addr)
{
	struct xdt_provider *prov;

	list_for_each_entry(prov, &providers, list)
		if (prov->ops->claims && prov->ops->claims(addr))
			return true;
	return false;
}
