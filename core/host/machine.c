// SPDX-License-Identifier: GPL-2.0
/*
 * The host VM (hostvm.h): the environment the portable core expects of a
 * kernel, for one thread in user space, and the ioctls of /dev/xdt over it.
 *
 * Memory.  In the kernel a DIF load reads only RAM and faults on anything
 * else.  Here every allocation the core makes goes through
 * xdt_host_alloc(), which records it; a load succeeds only inside a live
 * recorded block (the program, variables, scratch, buffers, the built-in
 * strings below), so `*(int *)0` or a pointer past a string faults and
 * fires ERROR exactly as in a guest.
 *
 * What differs from a guest, by design: the only probes are dtrace:::BEGIN,
 * END and ERROR (a description naming any other matches nothing); one CPU;
 * stack() is empty (BEGIN and END have no kernel stack in a guest either)
 * unless a test gives stacks (xdt_stack() below);
 * built-in variables are this process's (execname, pid, uid, clocks), as a
 * BEGIN clause in a guest sees dtrace's own; and freed dynamic variables
 * are not recycled during a run (no cleaner: a run is BEGIN and END only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "xdt_impl.h"
#include "hostvm.h"

/* ---- memory ---------------------------------------------------------------- */
/*
 * copy_to_user()/copy_from_user(): a consumer's pointer may be anything
 * (xdt-fuzz hands the ioctls wild ones on purpose), and the kernel answers
 * a bad one with EFAULT, not a crash.  process_vm_readv/writev on this very
 * process check the addresses the same way, with the kernel's own page
 * tables: a system call per copy, and the ioctls copy a few times each
 * (the probe path never does).
 */
unsigned long xdt_host_user_copy(void *dst, const void *src, unsigned long n,
				 int to_user)
{
	struct iovec local = { to_user ? (void *)src : dst, n };
	struct iovec remote = { to_user ? dst : (void *)src, n };
	ssize_t r;

	if (!n)
		return 0;
	r = to_user ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0) :
		      process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (r < 0 && (errno == ENOSYS || errno == EPERM)) {
		/* a sandbox without these calls: trust the pointer */
		memcpy(dst, src, n);
		return 0;
	}
	return r < 0 ? n : n - (unsigned long)r;
}

struct block {
	const char *base;
	size_t size;
};

static struct block *blocks;
static size_t nblocks, blockcap;

void *xdt_host_alloc(size_t n, int zero)
{
	char *p = zero ? calloc(1, n ? n : 1) : malloc(n ? n : 1);

	if (!p)
		return NULL;
	if (nblocks == blockcap) {
		size_t cap = blockcap ? blockcap * 2 : 64;
		struct block *b = realloc(blocks, cap * sizeof(*b));

		if (!b) {
			free(p);
			return NULL;
		}
		blocks = b;
		blockcap = cap;
	}
	blocks[nblocks].base = p;
	blocks[nblocks].size = n;
	nblocks++;
	return p;
}

void xdt_host_free(const void *p)
{
	size_t i;

	if (!p)
		return;
	for (i = nblocks; i-- > 0;) {
		if (blocks[i].base == p) {
			blocks[i] = blocks[--nblocks];
			break;
		}
	}
	free((void *)p);
}

/* The readable bytes at @a: 0 when @a is in no live block. */
static size_t readable(unsigned long a)
{
	size_t i;

	for (i = 0; i < nblocks; i++) {
		unsigned long b = (unsigned long)blocks[i].base;

		if (a >= b && a - b < blocks[i].size)
			return blocks[i].size - (a - b);
	}
	return 0;
}

/*
 * As the kernel's copy_from_kernel_nofault(), which copies forward: a
 * source that overlaps the destination (a D program may name any of its
 * storage; the core moves where DTrace does, xdt_move()) is read forward
 * a byte at a time here, defined in C and the kernel's own result when
 * the source lies above.
 */
int xdt_copy_nofault(void *dst, unsigned long src, size_t n)
{
	unsigned long d = (unsigned long)dst;

	if (!n)
		return 0;
	if (readable(src) < n)
		return -EFAULT;
	if (src < d + n && d < src + n) {
		for (size_t i = 0; i < n; i++)
			((volatile char *)dst)[i] = ((const char *)src)[i];
		return 0;
	}
	memcpy(dst, (const void *)src, n);
	return 0;
}

/* As the kernel's: the length, or @max bytes unterminated, or -EFAULT. */
long xdt_strcpy_nofault(char *dst, unsigned long src, u32 max)
{
	size_t avail = readable(src);
	u32 n;

	for (n = 0; n < max; n++) {
		if (n >= avail)
			return -EFAULT;
		dst[n] = ((const char *)src)[n];
		if (!dst[n])
			return n;
	}
	return max;
}

/* ---- the dtrace provider, the thread, built-in variables --------------------- */
static const struct xdt_provider_ops dtrace_ops;
static struct xdt_provider dtrace_prov = { .ops = &dtrace_ops };
struct xdt_probe *xdt_probe_begin, *xdt_probe_end, *xdt_probe_error;
static struct task_struct task;
struct task_struct *xdt_host_current = &task;
static char *comm;

/* Names in recorded memory, so D reads them as it reads the kernel's. */
static const char *dup_name(const char *s)
{
	char *p = xdt_host_alloc(strlen(s) + 1, 0);

	if (p)
		strcpy(p, s);
	return p;
}

/*
 * The dtrace provider, registered in the probe table as xdt.ko's is
 * (core/portable/probes.c), so descriptions match by the same rules.
 */
static int setup(void)
{
	struct xdt_probe **slot[] = { &xdt_probe_begin, &xdt_probe_end,
				      &xdt_probe_error };
	static const char *const names[] = { "BEGIN", "END", "ERROR" };
	static int registered;
	FILE *f;
	int i;

	/* Each step once: a step that failed (no memory) is tried again. */
	if (!dtrace_prov.name)
		dtrace_prov.name = dup_name("dtrace");
	if (!comm) {
		comm = xdt_host_alloc(16, 1);	/* TASK_COMM_LEN */
		if (comm) {
			f = fopen("/proc/self/comm", "r");
			if (!f || !fgets(comm, 16, f))
				strcpy(comm, "dtrace");
			if (f)
				fclose(f);
			comm[strcspn(comm, "\n")] = '\0';
		}
	}
	if (!dtrace_prov.name || !comm)
		return -ENOMEM;
	if (!registered) {
		xdt_probes_init();
		xdt_provider_register(&dtrace_prov);
		registered = 1;
	}
	for (i = 0; i < 3; i++) {
		const char *empty, *name;

		if (*slot[i])
			continue;
		empty = dup_name("");
		name = dup_name(names[i]);
		if (!empty || !name)
			return -ENOMEM;
		*slot[i] = xdt_probe_create(&dtrace_prov, empty, empty, name,
					    NULL);
		if (!*slot[i])
			return -ENOMEM;
	}
	return 0;
}

static u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

u64 xdt_dif_var(u32 v, struct xdt_mstate *m)
{
	struct xdt_probe *p = m->ctx->probe;

	switch (v) {
	case DIF_VAR_PROBEPROV:
		return (unsigned long)p->prov->name;
	case DIF_VAR_PROBEMOD:
		return (unsigned long)p->mod;
	case DIF_VAR_PROBEFUNC:
		return (unsigned long)p->func;
	case DIF_VAR_PROBENAME:
		return (unsigned long)p->name;
	case DIF_VAR_EXECNAME:
		return (unsigned long)comm;
	case DIF_VAR_PID:
		return (u64)getpid();
	case DIF_VAR_TID:
		return (u64)gettid();
	case DIF_VAR_PPID:
		return (u64)getppid();
	case DIF_VAR_IPL:
		return 0;	/* a process: never an interrupt */
	case DIF_VAR_UID:
		return (u64)getuid();
	case DIF_VAR_GID:
		return (u64)getgid();
	case DIF_VAR_CPU:
		return 0;
	case DIF_VAR_TIMESTAMP:
		return clock_ns(CLOCK_MONOTONIC);
	case DIF_VAR_VTIMESTAMP:
		return clock_ns(CLOCK_THREAD_CPUTIME_ID);
	case DIF_VAR_WALLTIMESTAMP:
		return clock_ns(CLOCK_REALTIME);
	case DIF_VAR_EPID:
		return m->ecb ? m->ecb->epid : 0;
	case DIF_VAR_ID:
		return p->id;
	case DIF_VAR_ERRNO:
		return (u64)(s64)m->ctx->err;
	default:
		if (v - DIF_VAR_ARG0 < XDT_NARGS)
			return xdt_arg(m->ctx, v - DIF_VAR_ARG0);
		return 0;
	}
}

/* The host VM has no user address space of a traced task: every copyin faults. */
int xdt_copyin_nofault(void *dst, unsigned long uaddr, size_t n)
{
	return n ? -EFAULT : 0;
}

long xdt_ustrcpy_nofault(char *dst, unsigned long uaddr, u32 max)
{
	return -EFAULT;
}

/*
 * Destructive actions in the host VM, where BEGIN/END/ERROR fire in the
 * consumer's own process (as in the kernel they fire in dtrace's): a
 * signal goes to this process, chill() sleeps, panic() aborts, and there
 * is no debugger and no traced user memory to write.
 */
int xdt_copyout_nofault(unsigned long uaddr, const void *src, size_t n)
{
	return n ? -EFAULT : 0;
}

int xdt_raise(u64 sig)
{
	if (!sig || sig >= 65)
		return -EINVAL;
	return kill(getpid(), (int)sig) ? -EINVAL : 0;
}

int xdt_chill(u64 ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	if (ns > 500000000u)
		return -EBUSY;
	nanosleep(&ts, NULL);
	return 0;
}

int xdt_breakpoint(void)
{
	return -ENODEV;
}

void xdt_panic(const struct xdt_probe *p)
{
	fprintf(stderr, "dtrace: panic action at probe %s:%s:%s:%s\n",
		p->prov->name, p->mod, p->func, p->name);
	abort();
}

/* No VFS in the host VM: d_path() is an illegal operation there. */
const struct xdt_vfs_layout *xdt_vfs_layout(u64 *root)
{
	*root = 0;
	return NULL;
}

/*
 * No kernel locks in the host VM, but the words decode the same: a test
 * lays out a struct mutex's owner word or a struct rw_semaphore's count at
 * the start of scratch memory (their place in Linux 6.1's non-RT layout),
 * and the lock subroutines read it there, through the same checked loads.
 */
const struct xdt_lock_layout *xdt_lock_layout(void)
{
	static const struct xdt_lock_layout host = { 0, 0 };

	return &host;
}

/* This process's arguments, from /proc (the host VM's BEGIN is dtrace's). */
long xdt_execargs(char *dst, u32 max)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n = 0;

	if (f) {
		n = fread(dst, 1, max - 1, f);
		fclose(f);
	}
	while (n && !dst[n - 1])
		n--;
	for (size_t i = 0; i < n; i++)
		if (!dst[i])
			dst[i] = ' ';
	dst[n] = '\0';
	return (long)n;
}

/* This process's ancestry, from /proc. */
int xdt_progenyof(s64 pid)
{
	long p = getpid();
	int depth;

	for (depth = 0; p > 0 && depth < 4096; depth++) {
		char path[64], buf[512], *r;
		FILE *f;

		if (p == pid)
			return 1;
		snprintf(path, sizeof(path), "/proc/%ld/stat", p);
		f = fopen(path, "r");
		if (!f)
			return 0;
		r = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* pid (comm) state ppid: comm may hold spaces, find its ')' */
		if (!r || !(r = strrchr(buf, ')')) ||
		    sscanf(r + 1, " %*c %ld", &p) != 1)
			return 0;
	}
	return 0;
}

/*
 * stack(): a host thread has no kernel stack, so stack() is empty unless
 * XDT_HOSTVM_STACKS gives stacks to return ("pc,pc,...;pc,...", innermost
 * first): each stack() takes the next, round robin.  This is how the
 * printing of real records and snapshots with stacks is tested (symbols
 * from XDT_KALLSYMS) without a fake record in the library.
 */
/* uregs[]: the host VM's firings have no user registers: 0. */
int xdt_ureg(struct xdt_ctx *ctx, u64 i, u64 *v)
{
	(void)ctx;
	(void)i;
	*v = 0;
	return 0;
}

/* ustack(): the host VM's firings have no traced user thread. */
unsigned int xdt_ustack(struct xdt_ctx *ctx, u64 *pcs, unsigned int max)
{
	(void)ctx;
	if (!max)
		return 0;
	pcs[0] = XDT_USTACK_TAG | (u32)getpid();
	return 1;
}

unsigned int xdt_stack(struct xdt_ctx *ctx, u64 *pcs, unsigned int max)
{
	static unsigned int next;
	const char *s = getenv("XDT_HOSTVM_STACKS");
	unsigned int n = 0, i;
	char *end;

	if (!s || !*s)
		return 0;
	/* skip to stack number next, wrapping at the end of the list */
	for (i = 0; i < next; i++) {
		s = strchr(s, ';');
		if (!s)
			break;
		s++;
	}
	if (!s || !*s) {
		s = getenv("XDT_HOSTVM_STACKS");
		next = 0;
	}
	next++;
	while (n < max && *s && *s != ';') {
		pcs[n++] = strtoull(s, &end, 0);
		if (end == s)
			break;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* No cleaner and no thread exits on the host (see the top); speculations
   are cleaned when the consumer reads (XDT_IOC_BUFSNAP) and at STOP. */
void xdt_spec_start(struct xdt_state *st, unsigned long period)
{
}

void xdt_spec_stop(struct xdt_state *st)
{
}

int xdt_vars_start(struct xdt_vars *v)
{
	return 0;
}

void xdt_vars_unhook(struct xdt_vars *v)
{
}

void xdt_vars_stop(struct xdt_vars *v)
{
}

/* ---- patch sites: none here ---------------------------------------------- */
/*
 * The host VM's one provider reports no patch sites, so the state machine
 * (core/portable/enable.c) only ever asks for none: there is no text to
 * patch and no slot to run an instruction out of line.
 */
void xdt_fentry_choose_begin(void)
{
}

int xdt_xol_prepare(struct xdt_site **sites, unsigned int n)
{
	return n ? -EINVAL : 0;
}

void xdt_xol_release(struct xdt_site **sites, unsigned int n)
{
}

int xdt_sites_patch(struct xdt_site **sites, unsigned int n, bool on)
{
	return n ? -EINVAL : 0;
}

/* ---- the device ---------------------------------------------------------------- */
struct xdt_hostvm {
	struct xdt_state *st;
	struct xdt_state *idle;		/* the one XDT_IOC_ANON replaced */
};

/*
 * The module's load, for anonymous tracing (core/portable/anon.c): the
 * host VM's first open in a process starts $XDT_HOSTVM_ANON's enabling,
 * as xdt.ko starts its file's, so host tests run dtrace -A's file through
 * the same loader and claim in milliseconds.  Refusals go to stderr, as
 * the kernel's go to its log.
 */
static void anon_load(void)
{
	static bool loaded;
	const char *path = getenv("XDT_HOSTVM_ANON");
	char why[192];
	FILE *f;
	char *buf;
	long n;

	if (loaded || !path || !*path)
		return;
	loaded = true;
	f = fopen(path, "rb");
	if (!f)
		return;		/* none saved */
	buf = malloc(XDT_ANON_MAX);
	n = buf ? (long)fread(buf, 1, XDT_ANON_MAX, f) : -1;
	fclose(f);
	if (n < 0)
		fprintf(stderr, "xdt: anonymous enabling %s not read\n", path);
	else if (xdt_anon_start(buf, (size_t)n, why, sizeof(why)))
		fprintf(stderr, "xdt: anonymous enabling %s refused: %s\n",
			path, why);
	free(buf);
}

struct xdt_hostvm *xdt_hostvm_open(void)
{
	struct xdt_hostvm *vm;

	if (setup()) {
		errno = ENOMEM;
		return NULL;
	}
	anon_load();
	vm = calloc(1, sizeof(*vm));
	if (vm)
		vm->st = kzalloc(sizeof(*vm->st), GFP_KERNEL);
	if (!vm || !vm->st) {
		free(vm);
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * XDT_HOSTVM_PRIV=perfmon: a consumer as one that opened /dev/xdt
	 * with CAP_PERFMON only (its reads held to its own memory, -w
	 * refused), so host tests check those rules in milliseconds.
	 */
	vm->st->perfmon_only = getenv("XDT_HOSTVM_PRIV") &&
			       !strcmp(getenv("XDT_HOSTVM_PRIV"), "perfmon");
	return vm;
}

void xdt_hostvm_close(struct xdt_hostvm *vm)
{
	if (!vm)
		return;
	xdt_state_free(vm->st);
	xdt_state_free(vm->idle);
	free(vm);
}

int xdt_hostvm_ioctl(struct xdt_hostvm *vm, unsigned long cmd, void *arg)
{
	struct xdt_state *st = vm->st, *claimed = NULL;
	long ret;

	/* the host's cleaner of speculations: every time the consumer reads */
	if (cmd == XDT_IOC_BUFSNAP && st->state == XDT_STATE_RUNNING &&
	    !((struct xdt_bufsnap *)arg)->cpu)
		xdt_spec_clean(st);
	if (cmd == XDT_IOC_ANON) {
		ret = xdt_anon_claim(st, arg, &claimed);
		if (!ret) {
			vm->idle = st;
			vm->st = claimed;
		}
	} else {
		ret = xdt_ioctl_state(st, cmd, arg);
	}
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (int)ret;
}
