/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces xdt's portable core uses, for its user-space build
 * (the host VM of libxdt, core/host/machine.c).  In the spirit of Linux's
 * own tools/include: the portable files (core/portable/, listed in its
 * xdt_env.h) compile unchanged against the kernel or against this.  Only
 * what they use is here, each with the semantics it has there, for one
 * thread of execution on one CPU: a "lock" never spins, a grace period
 * has no reader to wait for, IRQs are never on, CPU 0 is the only CPU.
 *
 * What a kernel build gets from the environment instead (xdt_env.h:
 * memory reads that fault safely, built-in variables, stack(), the dtrace
 * provider's probes, patch sites) core/host/machine.c provides.
 */
#ifndef XDT_HOST_KERNEL_H
#define XDT_HOST_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;		/* as the kernel's: %llu */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u64 xdt_patchval_t;		/* no patch sites on the host */

#define __user
#define __kprobes
#define notrace
#define __noclone
#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#ifndef noinline
#define noinline		__attribute__((noinline))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define U32_MAX			UINT32_MAX
#define S64_MAX			INT64_MAX
#define S64_MIN			INT64_MIN
#define HZ			1000

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a)		(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define container_of(p, t, m)	((t *)((char *)(p) - offsetof(t, m)))
#define u64_to_user_ptr(x)	((void *)(uintptr_t)(x))

static inline u32 roundup_pow_of_two(u32 n)
{
	u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static inline int fls64(u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* Byte order: the host is little-endian (as are the three lab ISAs). */
#define cpu_to_be16(x)		__builtin_bswap16(x)
#define cpu_to_be32(x)		__builtin_bswap32(x)
#define cpu_to_be64(x)		__builtin_bswap64(x)
#define be16_to_cpu(x)		__builtin_bswap16(x)
#define be32_to_cpu(x)		__builtin_bswap32(x)
#define be64_to_cpu(x)		__builtin_bswap64(x)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian host");

/* One thread: plain accesses, and a cmpxchg that is a compare and store. */
#define READ_ONCE(x)		(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define smp_store_release(p, v)	WRITE_ONCE(*(p), v)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define cpu_relax()		do { } while (0)
#define cmpxchg(p, o, n)	__extension__({ \
	__typeof__(*(p)) old_ = (o); \
	__atomic_compare_exchange_n((p), &old_, (n), 0, __ATOMIC_SEQ_CST, \
				    __ATOMIC_SEQ_CST); \
	old_; })

/* One CPU, always "in probe context". */
#define nr_cpu_ids		1u
#define for_each_possible_cpu(c) for ((c) = 0; (c) < 1; (c)++)
#define cpu_possible(c)		((c) == 0)
#define cpu_online(c)		((c) == 0)
#define num_possible_cpus()	1u
#define raw_smp_processor_id()	0
#define local_irq_save(f)	((f) = 0)
#define local_irq_restore(f)	((void)(f))
#define DEFINE_PER_CPU(t, n)	t n
#define DECLARE_PER_CPU(t, n)	extern t n
#define this_cpu_ptr(p)		(p)
#define per_cpu_ptr(p, c)	(p)

static inline int smp_call_function_single(int cpu, void (*fn)(void *),
					   void *arg, int wait)
{
	(void)cpu;
	(void)wait;
	fn(arg);
	return 0;
}

/* Memory: the allocators register what they return (machine.c), so the
 * host's fault-safe loads know what is readable. */
#define GFP_KERNEL		0
void *xdt_host_alloc(size_t n, int zero);
void xdt_host_free(const void *p);
#define kmalloc(n, f)		xdt_host_alloc(n, 0)
#define kzalloc(n, f)		xdt_host_alloc(n, 1)
#define kcalloc(n, s, f)	xdt_host_alloc((size_t)(n) * (s), 1)
#define kvcalloc(n, s, f)	xdt_host_alloc((size_t)(n) * (s), 1)
#define kvmalloc_array(n, s, f)	xdt_host_alloc((size_t)(n) * (s), !!(f))
#define __GFP_ZERO		1
#define kvmalloc(n, f)		xdt_host_alloc(n, 0)
#define kvzalloc(n, f)		xdt_host_alloc(n, 1)
#define vmalloc(n)		xdt_host_alloc(n, 0)
#define vzalloc(n)		xdt_host_alloc(n, 1)
#define kfree(p)		xdt_host_free(p)
#define kvfree(p)		xdt_host_free(p)
#define vfree(p)		xdt_host_free(p)

/* User copies check the consumer's pointers as the kernel does (machine.c):
   0, or the bytes not copied. */
unsigned long xdt_host_user_copy(void *dst, const void *src, unsigned long n,
				 int to_user);
#define copy_to_user(d, s, n)	xdt_host_user_copy(d, s, n, 1)
#define copy_from_user(d, s, n)	xdt_host_user_copy(d, s, n, 0)
#define put_user(v, p) ({					\
	__typeof__(*(p)) __pu_v = (v);				\
	xdt_host_user_copy((p), &__pu_v, sizeof(__pu_v), 1) ? -EFAULT : 0; \
})

/* Hashes: bucket choice only, so any good mix will do. */
static inline u32 jhash(const void *key, u32 len, u32 seed)
{
	const u8 *p = key;
	u64 h = 0xcbf29ce484222325ULL ^ seed;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return (u32)(h ^ (h >> 32));
}

static inline u32 hash_long(unsigned long v, unsigned int bits)
{
	return (u32)((v * 0x61c8864680b583ebULL) >> (64 - bits));
}

static inline u32 hash_32(u32 v, unsigned int bits)
{
	return (v * 0x61C88647u) >> (32 - bits);
}

static inline unsigned int full_name_hash(const void *salt, const char *s,
					  unsigned int len)
{
	(void)salt;
	return jhash(s, len, 0);
}

static inline u64 get_random_u64(void)
{
	return ((u64)random() << 33) ^ ((u64)random() << 11) ^ random();
}

/* The one thread the host VM runs D for (machine.c). */
struct task_struct {
	unsigned int flags;
};
#define PF_EXITING		0x4
extern struct task_struct *xdt_host_current;
#define current			xdt_host_current

/* Kernel types the core's headers name but the portable files never use. */
struct pt_regs;
struct tracepoint;
struct delayed_work { int unused; };

/* Locks and grace periods: one thread, nothing to wait for. */
struct mutex { int unused; };
#define DEFINE_MUTEX(m)		struct mutex m = { 0 }
#define mutex_lock(m)		((void)(m))
#define mutex_unlock(m)		((void)(m))
#define lockdep_assert_held(m)	((void)(m))
#define synchronize_rcu()	do { } while (0)
#define synchronize_rcu_expedited() do { } while (0)
#define cond_resched()		do { } while (0)

/* No modules: a probe's owner is NULL and always there. */
struct module;
static inline bool try_module_get(struct module *m)
{
	(void)m;
	return true;
}
#define module_put(m)		((void)(m))

/* Lists, as <linux/list.h>: circular, with a head that is not an entry. */
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD(n)		struct list_head n = { &(n), &(n) }

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h->prev = h;
}

static inline void list_add_tail(struct list_head *e, struct list_head *h)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static inline void list_del(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e->prev = NULL;
}

#define list_entry(p, t, m)	container_of(p, t, m)
#define list_for_each_entry(pos, head, m)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), m);	\
	     &pos->m != (head);						\
	     pos = list_entry(pos->m.next, __typeof__(*pos), m))

/* Strings, with the kernel's semantics. */
static inline long strscpy(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	if (!n)
		return -E2BIG;
	if (len == n) {
		memcpy(dst, src, n - 1);
		dst[n - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return (long)len;
}

static inline char *kstrdup(const char *s, int gfp)
{
	char *p = xdt_host_alloc(strlen(s) + 1, 0);

	(void)gfp;
	if (p)
		strcpy(p, s);
	return p;
}

#define pr_warn(...)		fprintf(stderr, __VA_ARGS__)
#define pr_err(...)		fprintf(stderr, __VA_ARGS__)

/* The host VM loads as x86 does (the host's ISA): any alignment. */
#define XDT_UNALIGNED_LOADS	1

#endif
