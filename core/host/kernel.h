/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces xdt's portable core uses, for its user-space build
 * (the host VM of libxdt, core/host/machine.c).  In the spirit of Linux's
 * own tools/include: the portable files -- the DIF verifier and machine
 * (dif.c), variables (vars.c), firing (firing.c), buffers and aggregations
 * (buf.c), program loading (load.c) -- compile unchanged against the kernel
 * or against this.  Only what they use is here, each with the semantics it
 * has there, for one thread of execution on one CPU: a "lock" never
 * spins, IRQs are never on, CPU 0 is the only CPU.
 *
 * What a kernel build gets from the environment instead (memory reads that
 * fault safely, built-in variables, stack(), the dtrace provider's probes)
 * core/host/machine.c provides.
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
#define kvmalloc(n, f)		xdt_host_alloc(n, 0)
#define kvzalloc(n, f)		xdt_host_alloc(n, 1)
#define vmalloc(n)		xdt_host_alloc(n, 0)
#define vzalloc(n)		xdt_host_alloc(n, 1)
#define kfree(p)		xdt_host_free(p)
#define kvfree(p)		xdt_host_free(p)
#define vfree(p)		xdt_host_free(p)

static inline unsigned long copy_to_user(void *dst, const void *src,
					 unsigned long n)
{
	memcpy(dst, src, n);
	return 0;
}

#define put_user(v, p)		(*(p) = (v), 0)

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
struct module;
struct tracepoint;
struct mutex { int unused; };
struct delayed_work { int unused; };
struct list_head { struct list_head *next, *prev; };

#define pr_warn(...)		fprintf(stderr, __VA_ARGS__)

/* The host VM loads as x86 does (the host's ISA): any alignment. */
#define XDT_UNALIGNED_LOADS	1

#endif
