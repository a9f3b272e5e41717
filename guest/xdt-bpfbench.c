// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-bpfbench: the eBPF and ftrace baselines of the overhead benchmark
 * (bench/README.md), as one static guest program that needs nothing but the raw
 * bpf(2) and perf_event_open(2) syscalls and tracefs (Debian has no riscv64
 * libbpf).  It loads a handwritten BPF program, attaches it to kernel
 * functions by name with one of several mechanisms, runs a command, reads
 * the program's hit count back and detaches, timing each step:
 *
 *   xdt-bpfbench attach --mech MECH [--prog empty|count] --func F[,F...]
 *                [--off N] -- CMD [ARG...]
 *   xdt-bpfbench load --prog PROG [--type kprobe|fentry|raw-tp|tracepoint]
 *                [--func F]
 *
 * MECH: kprobe (entry), kprobe-off (FUNC+OFF), kretprobe, fentry, fexit,
 * kprobe-multi (one fprobe link for every F), raw-tp (F = TP[:SYSCALL]: a
 * BPF_PROG_TYPE_RAW_TRACEPOINT program on raw tracepoint TP through
 * BPF_RAW_TRACEPOINT_OPEN; with :SYSCALL, for raw_syscalls' sys_enter, the
 * program counts only when the id argument, ctx->args[1], is that
 * syscall's number on this ISA), tracepoint (F = GROUP:EVENT, e.g.
 * syscalls:sys_enter_getppid: a BPF_PROG_TYPE_TRACEPOINT program on the
 * perf tracepoint event whose id tracefs gives), kprobe-events (tracefs, no
 * BPF: one `p:xdtb/xdtbfI F+OFF` event per function, written line by line
 * to kprobe_events, then each enabled through its own enable file; the
 * count is the events' hits in kprobe_profile), uprobe, uretprobe and
 * usdt (user space: F = BINARY:FUNCTION, or BINARY:PROVIDER:NAME for a
 * USDT probe's site from the binary's .note.stapsdt; a uprobe through the
 * uprobe PMU at the site's file offset, per-task for CMD's process, which
 * is forked and held before its exec until the probe is attached), and
 * xdt (not BPF: an xdt
 * program through /dev/xdt's raw ioctls, one clause
 * `fbt::F:entry { @ = count(); }` per F, or the clause as given when F has
 * colons, e.g. fbt:kernel::entry; attach = XDT_IOC_ENABLE + XDT_IOC_GO,
 * detach = XDT_IOC_STOP + close).
 * --func @FILE reads the functions from FILE, one a line (the bench's
 * enable/disable scaling test gives thousands).
 * PROG: empty (r0 = 0), count (increment a per-CPU array slot: the count is
 * exact), and two malformed programs the verifier must refuse: nullderef
 * (count without the NULL check) and uninit (reads a register never set).
 *
 * On success it prints one line of key=value fields:
 *   mech= prog= func= off= via= count= jit= load_ns= attach_ns= detach_ns=
 *   nprobes= [phases] status=
 * nprobes= is the number of attachments (xdt: probes the clauses matched);
 * phases split attach/detach: kprobe-events define_ns= arm_ns= disarm_ns=
 * remove_ns=, xdt enable_ns= go_ns= stop_ns= free_ns=.
 * via= says what the kernel used: for kprobes, the flags of
 * /sys/kernel/debug/kprobes/list ([FTRACE] -> ftrace, [OPTIMIZED] ->
 * optprobe, else the ISA's breakpoint: int3, brk, ebreak); fentry/fexit ->
 * trampoline (trampoline-ftrace-direct when tracefs' enabled_functions shows
 * the function's ftrace site calling it directly); kprobe-multi -> fprobe;
 * raw-tp -> raw_tp:TP (plus sysnr= when it filters on a syscall number);
 * tracepoint -> tracepoint:GROUP:EVENT; uprobe, uretprobe, usdt ->
 * uprobe, uprobe+ret, uprobe@usdt (plus uaddr= and uoff=, the first
 * site's address and file offset, and upid=, the command's pid).
 * When the kernel lacks the mechanism it prints `mech=... unsupported="..."`
 * and exits 3; a program the verifier refuses exits 2 with the verifier's
 * log on stderr; other errors exit 1; a CMD that fails exits 4 (after the
 * line is printed).
 *
 * Everything BPF-specific (instruction encoding, the attach sequences) is
 * written here from the uapi headers of the cross libc6-dev packages (Linux
 * 6.1 uapi); no constant had to be defined locally.  BTF is read by
 * libxdt's reader (compiler/btf.c), linked in.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/perf_event.h>

#include "xdt.h"		/* core/uapi: the xdt mechanism */
#include "xdt_pobj.h"	/* core/uapi: its program object */
#include "libxdt.h"	/* libxdt/: its BTF reader */

#if defined(__x86_64__)
#define TRAP_NAME "int3"
#elif defined(__aarch64__)
#define TRAP_NAME "brk"
#elif defined(__riscv)
#define TRAP_NAME "ebreak"
#else
#define TRAP_NAME "trap"
#endif

/* The kernel's internal "operation not supported" (not in uapi errno). */
#define KERNEL_ENOTSUPP 524
#define TRACEFS "/sys/kernel/tracing"

enum exitcode { EX_OK = 0, EX_ERR = 1, EX_VERIFIER = 2, EX_UNSUPP = 3,
		EX_CMD = 4 };

static const char *mech = "", *progname = "count", *funcarg = "";
static unsigned long off;
/* raw-tp with :SYSCALL: count only when sys_enter's id is this (else -1). */
static long sysnr = -1;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xdt-bpfbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EX_ERR);
}

static void unsupported(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("mech=%s prog=%s func=%s unsupported=\"%s\"\n", mech, progname,
	       funcarg, why);
	fflush(stdout);
	exit(EX_UNSUPP);
}

static const char *errstr(int e)
{
	return e == KERNEL_ENOTSUPP ? "ENOTSUPP (524)" : strerror(e);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ---- files ----------------------------------------------------------- */

/* The whole of @path (sysfs files report no useful size), NUL-terminated. */
static char *slurp(const char *path, size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	for (;;) {
		if (!buf)
			die("out of memory reading %s", path);
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int e = errno;

			close(fd);
			free(buf);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

static int write_str(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags), ret = 0;
	size_t len = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

/* ---- syscalls -------------------------------------------------------- */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int sys_perf_event_open(struct perf_event_attr *a, int pid, int cpu,
			       int group, unsigned long flags)
{
	return syscall(__NR_perf_event_open, a, pid, cpu, group, flags);
}

/* ---- BPF programs ---------------------------------------------------- */

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src,
			    int16_t o, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src,
			      .off = o, .imm = imm };
	return i;
}

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R5 BPF_REG_5
#define FP BPF_REG_10

static int emit_exit0(struct bpf_insn *p)
{
	p[0] = insn(BPF_ALU64 | BPF_MOV | BPF_K, R0, 0, 0, 0);
	p[1] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return 2;
}

/*
 * count:  u32 key = 0; u64 *v = bpf_map_lookup_elem(&map, &key);
 *         if (v) *v += 1; return 0;
 * A per-CPU slot needs no atomic: a kprobe or trampoline program runs with
 * migration off and does not nest on one CPU.  @nullcheck = 0 drops the
 * test, which the verifier must refuse.
 */
static int emit_count(struct bpf_insn *p, int mapfd, int nullcheck)
{
	int n = 0;

	p[n++] = insn(BPF_ST | BPF_MEM | BPF_W, FP, 0, -4, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, R2, FP, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, R2, 0, 0, -4);
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, R1, BPF_PSEUDO_MAP_FD, 0,
		      mapfd);
	p[n++] = insn(0, 0, 0, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	if (nullcheck)
		p[n++] = insn(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 3, 0);
	p[n++] = insn(BPF_LDX | BPF_MEM | BPF_DW, R1, R0, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, R1, 0, 0, 1);
	p[n++] = insn(BPF_STX | BPF_MEM | BPF_DW, R0, R1, 0, 0);
	return n + emit_exit0(p + n);
}

/*
 * count, when ctx->args[1] == @nr (raw_syscalls:sys_enter's `long id`
 * argument; a raw tracepoint's context is its arguments as u64s):
 *         if (ctx->args[1] != nr) return 0; <count>
 * The jump lands on count's own `r0 = 0; exit`.
 */
static int emit_count_if_id(struct bpf_insn *p, int mapfd, long nr)
{
	int n;

	p[0] = insn(BPF_LDX | BPF_MEM | BPF_DW, R2, R1, 8, 0);
	n = emit_count(p + 2, mapfd, 1);
	p[1] = insn(BPF_JMP | BPF_JNE | BPF_K, R2, 0, n - 2, (int32_t)nr);
	return n + 2;
}

static int map_create(void)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	strncpy(a.map_name, "xdtb_count", sizeof(a.map_name) - 1);
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0)
		die("BPF_MAP_CREATE (per-CPU array): %s", errstr(errno));
	return fd;
}

static int possible_cpus(void)
{
	char *s = slurp("/sys/devices/system/cpu/possible", NULL), *p;
	int max = 0;

	if (!s)
		die("/sys/devices/system/cpu/possible: %s", strerror(errno));
	/* "0", "0-3" or "0-1,4-5": the highest number bounds the array. */
	for (p = s; *p; p++)
		if (isdigit((unsigned char)*p)) {
			int v = (int)strtol(p, &p, 10);

			if (v > max)
				max = v;
			p--;
		}
	free(s);
	return max + 1;
}

static long long map_sum(int mapfd)
{
	int ncpu = possible_cpus(), i;
	uint64_t *vals = calloc(ncpu, 8);
	uint32_t key = 0;
	union bpf_attr a;
	long long sum = 0;

	if (!vals)
		die("out of memory");
	memset(&a, 0, sizeof(a));
	a.map_fd = mapfd;
	a.key = ptr(&key);
	a.value = ptr(vals);
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) < 0)
		die("BPF_MAP_LOOKUP_ELEM: %s", errstr(errno));
	for (i = 0; i < ncpu; i++)
		sum += vals[i];
	free(vals);
	return sum;
}

struct load {
	enum bpf_prog_type type;
	enum bpf_attach_type expected;
	uint32_t btf_id, btf_obj_fd;
};

static char vlog[1 << 20];
static int jit = -1;
static int jit_of(int fd);

/* Load @progname; on refusal print the verifier's log and exit 2. */
static int prog_load(const struct load *l, int mapfd)
{
	struct bpf_insn prog[32];
	union bpf_attr a;
	int n, fd, e;

	if (!strcmp(progname, "empty"))
		n = emit_exit0(prog);
	else if (!strcmp(progname, "count") && sysnr >= 0)
		n = emit_count_if_id(prog, mapfd, sysnr);
	else if (!strcmp(progname, "count"))
		n = emit_count(prog, mapfd, 1);
	else if (!strcmp(progname, "nullderef"))
		n = emit_count(prog, mapfd, 0);
	else if (!strcmp(progname, "uninit")) {
		/* r0 = r5, never written: the verifier knows it is unset. */
		prog[0] = insn(BPF_ALU64 | BPF_MOV | BPF_X, R0, R5, 0, 0);
		prog[1] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
		n = 2;
	} else
		die("unknown program '%s' (empty, count, nullderef, uninit)",
		    progname);

	memset(&a, 0, sizeof(a));
	a.prog_type = l->type;
	a.expected_attach_type = l->expected;
	a.attach_btf_id = l->btf_id;
	a.attach_btf_obj_fd = l->btf_obj_fd;
	a.insns = ptr(prog);
	a.insn_cnt = n;
	a.license = ptr("GPL");
	strncpy(a.prog_name, "xdtb_prog", sizeof(a.prog_name) - 1);
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0)
		goto loaded;
	e = errno;
	/* Only now ask for the log: logging slows every load down. */
	a.log_level = 1;
	a.log_buf = ptr(vlog);
	a.log_size = sizeof(vlog);
	vlog[0] = 0;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0)
		goto loaded;		/* a transient failure the first time */
	if (e == KERNEL_ENOTSUPP || e == EOPNOTSUPP || e == EINVAL) {
		if (!vlog[0] && l->type != BPF_PROG_TYPE_KPROBE)
			unsupported("BPF_PROG_LOAD of a %s program: %s",
				    mech, errstr(e));
	}
	fprintf(stderr, "xdt-bpfbench: BPF_PROG_LOAD '%s' refused: %s\n"
		"--- verifier log ---\n%s%s", progname, errstr(e),
		vlog[0] ? vlog : "(empty)\n",
		vlog[0] && vlog[strlen(vlog) - 1] != '\n' ? "\n" : "");
	fflush(stderr);
	exit(EX_VERIFIER);
loaded:
	jit = jit_of(fd);
	return fd;
}

/*
 * Was @fd's program JIT-compiled?  (bpf_jit_enable lives under
 * /proc/sys/net, which a kernel without CONFIG_NET lacks; the program's own
 * info says it either way.)
 */
static int jit_of(int fd)
{
	struct bpf_prog_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = ptr(&info);
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return -1;
	return info.jited_prog_len > 0;
}

/* ---- BTF: find a FUNC by name ---------------------------------------- */
/* (libxdt reads the BTF: compiler/btf.c, xdt_btf_func.) */

/* The BTF object fd of module @name (for attach_btf_obj_fd). */
static int btf_module_fd(const char *name)
{
	union bpf_attr a;
	uint32_t id = 0;

	for (;;) {
		struct bpf_btf_info info;
		char nm[64];
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_BTF_GET_NEXT_ID, &a) < 0)
			die("no BTF object for module %s (BPF_BTF_GET_NEXT_ID: "
			    "%s)", name, errstr(errno));
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.btf_id = id;
		fd = sys_bpf(BPF_BTF_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;	/* gone meanwhile */
		memset(&info, 0, sizeof(info));
		memset(nm, 0, sizeof(nm));
		info.name = ptr(nm);
		info.name_len = sizeof(nm);
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = ptr(&info);
		if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) == 0 &&
		    info.kernel_btf && !strcmp(nm, name))
			return fd;
		close(fd);
	}
}

/* Find @func in vmlinux's BTF, else in a module's; fill @l. */
static void btf_find_func(const char *func, struct load *l)
{
	char mod[64];
	unsigned id;
	int r = xdt_btf_func(func, &id, mod, sizeof(mod));

	if (r < 0)
		unsupported("no /sys/kernel/btf/vmlinux: kernel built "
			    "without CONFIG_DEBUG_INFO_BTF");
	if (!r)
		unsupported("%s: no BTF FUNC of that name in vmlinux or any "
			    "module (pahole left it out: static, inlined, or "
			    "an alias), so no fentry/fexit", func);
	l->btf_id = id;
	l->btf_obj_fd = strcmp(mod, "vmlinux") ? (uint32_t)btf_module_fd(mod) : 0;
}

/* ---- what the kernel used --------------------------------------------- */

static unsigned long kallsyms_addr(const char *name);

/*
 * Flags of the kprobe at @func+@o in debugfs' kprobes/list, whose lines
 * read "<addr>  k  <sym>+0x<off>  <module> [FTRACE]...".  Matched by
 * address: a module's kallsyms may name the address after another symbol
 * there (riscv64 modules carry ISA mapping symbols such as $xrv64i2p1...).
 */
static const char *kprobe_via(const char *func, unsigned long o)
{
	char *list = slurp("/sys/kernel/debug/kprobes/list", NULL), *ln;
	unsigned long addr = kallsyms_addr(func);
	const char *via = "unknown";
	char want[200];

	if (!list)
		return "unknown";
	snprintf(want, sizeof(want), " %s+0x%lx ", func, o);
	for (ln = strtok(list, "\n"); ln; ln = strtok(NULL, "\n")) {
		if (addr ? strtoul(ln, NULL, 16) != addr + o
			 : !strstr(ln, want))
			continue;
		if (strstr(ln, "[FTRACE]"))
			via = "ftrace";
		else if (strstr(ln, "[OPTIMIZED]"))
			via = "optprobe";
		else
			via = TRAP_NAME;
		break;
	}
	free(list);
	return via;
}

/*
 * Does tracefs' enabled_functions show @func's ftrace site calling a direct
 * trampoline?  Its line reads "func [mod] (1) R I D ..." with a
 * "\tdirect-->" line after it.
 */
static int ftrace_direct(const char *func)
{
	char *s = slurp(TRACEFS "/enabled_functions", NULL), *ln;
	size_t n = strlen(func);
	int direct = 0, mine = 0;

	if (!s)
		return 0;
	for (ln = strtok(s, "\n"); ln; ln = strtok(NULL, "\n")) {
		if (ln[0] == '\t') {
			if (mine && !strncmp(ln, "\tdirect-->", 10))
				direct = 1;
			continue;
		}
		mine = !strncmp(ln, func, n) && ln[n] == ' ';
		if (mine) {
			const char *flags = strchr(ln, ')');

			if (flags && strstr(flags, " D"))
				direct = 1;
		}
	}
	free(s);
	return direct;
}

/* ---- attachments ------------------------------------------------------ */

static char **funcs;
static int nfuncs, capfuncs;
static char via[256];

/* Add @v to via=, a comma list of the distinct mechanisms seen. */
static void add_via(const char *v)
{
	char have[sizeof(via) + 2], key[72];

	snprintf(have, sizeof(have), ",%s,", via);
	snprintf(key, sizeof(key), ",%s,", v);
	if (strstr(have, key))
		return;
	if (via[0])
		strncat(via, ",", sizeof(via) - strlen(via) - 1);
	strncat(via, v, sizeof(via) - strlen(via) - 1);
}

static int pmu_value(const char *path, const char *prefix)
{
	char *s = slurp(path, NULL);
	int v;

	if (!s)
		return -1;
	v = atoi(s + (prefix && !strncmp(s, prefix, strlen(prefix))
		      ? strlen(prefix) : 0));
	free(s);
	return v;
}

/*
 * @pa for the kprobe or uprobe PMU (@pmu), with its retprobe bit when
 * @ret: its type and format/retprobe ("config:N") from sysfs.
 */
static void pmu_attr(struct perf_event_attr *pa, const char *pmu, int ret,
		     const char *why_none)
{
	char path[128];
	int type, bit;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	type = pmu_value(path, NULL);
	if (type < 0)
		unsupported("no %s PMU (%s%s)", pmu, path, why_none);
	memset(pa, 0, sizeof(*pa));
	pa->size = sizeof(*pa);
	pa->type = type;
	if (ret) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/"
			 "format/retprobe", pmu);
		bit = pmu_value(path, "config:");
		if (bit < 0)
			unsupported("%s PMU has no retprobe format bit", pmu);
		pa->config = 1ULL << bit;
	}
}

static int kprobe_open(const char *func, unsigned long o, int ret, int progfd)
{
	struct perf_event_attr pa;
	int fd;

	pmu_attr(&pa, "kprobe", ret, "");
	pa.kprobe_func = ptr(func);
	pa.probe_offset = o;
	pa.sample_period = 1;
	pa.wakeup_events = 1;
	fd = sys_perf_event_open(&pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	/* An instruction the ISA's kprobes cannot single-step or simulate:
	 * arch_prepare_kprobe() says EINVAL (decoder rejects it) or EILSEQ
	 * (not an instruction boundary, or not allowed there). */
	if (fd < 0 && o && (errno == EINVAL || errno == EILSEQ))
		unsupported("kprobe refuses %s+%#lx: %s (the ISA's kprobe "
			    "decoder rejects the instruction there)", func, o,
			    errstr(errno));
	if (fd < 0)
		die("perf_event_open(kprobe PMU, %s%s+%#lx): %s", ret ? "ret " : "",
		    func, o, errstr(errno));
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, progfd) < 0)
		die("PERF_EVENT_IOC_SET_BPF on %s: %s", func, errstr(errno));
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		die("PERF_EVENT_IOC_ENABLE on %s: %s", func, errstr(errno));
	return fd;
}

static int tracing_open(int progfd)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = 0;	/* a tracing program: its BTF target */
	a.raw_tracepoint.prog_fd = progfd;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (fd < 0 && (errno == KERNEL_ENOTSUPP || errno == EOPNOTSUPP))
		unsupported("BPF trampoline attach: %s: this kernel cannot "
			    "call a trampoline from the function's ftrace site "
			    "(6.1 needs DYNAMIC_FTRACE_WITH_DIRECT_CALLS, which "
			    "only x86_64 has)", errstr(errno));
	if (fd < 0)
		die("BPF_RAW_TRACEPOINT_OPEN (%s): %s", mech, errstr(errno));
	return fd;
}

/*
 * Syscall numbers by name, for raw-tp's :SYSCALL filter: this ISA's own
 * (the cross uapi's __NR_*: x86_64 getppid is 110, the generic table of
 * arm64 and riscv64 173).  A number is taken as it is.
 */
static long syscall_nr(const char *name)
{
	static const struct { const char *name; long nr; } tab[] = {
		{ "getppid", __NR_getppid }, { "getpid", __NR_getpid },
		{ "gettid", __NR_gettid }, { "getuid", __NR_getuid },
		{ "read", __NR_read }, { "write", __NR_write },
		{ "openat", __NR_openat }, { "close", __NR_close },
		{ "nanosleep", __NR_nanosleep },
	};
	char *end;
	long nr = strtol(name, &end, 0);
	size_t i;

	if (name[0] && !*end && nr >= 0)
		return nr;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, name))
			return tab[i].nr;
	die("syscall '%s': not in this tool's table; give its number", name);
	return -1;
}

/*
 * raw-tp: BPF_RAW_TRACEPOINT_OPEN of a BPF_PROG_TYPE_RAW_TRACEPOINT
 * program on tracepoint @tp by name (bpf_get_raw_tracepoint(): the
 * kernel's __bpf_raw_tp_map, every TRACE_EVENT of a CONFIG_BPF_EVENTS
 * kernel).  Attached on return; close() detaches.
 */
static int raw_tp_open(const char *tp, int progfd)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = ptr(tp);
	a.raw_tracepoint.prog_fd = progfd;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (fd < 0 && errno == ENOENT)
		unsupported("no raw tracepoint '%s' (BPF_RAW_TRACEPOINT_OPEN: "
			    "ENOENT; sys_enter needs HAVE_SYSCALL_TRACEPOINTS "
			    "and CONFIG_BPF_EVENTS)", tp);
	if (fd < 0)
		die("BPF_RAW_TRACEPOINT_OPEN '%s': %s", tp, errstr(errno));
	return fd;
}

/*
 * tracepoint: the perf tracepoint event GROUP:EVENT (id from tracefs'
 * events/GROUP/EVENT/id, or debugfs' tracing/ when tracefs is not mounted
 * at /sys/kernel/tracing), PERF_EVENT_IOC_SET_BPF with a
 * BPF_PROG_TYPE_TRACEPOINT program, PERF_EVENT_IOC_ENABLE.  As for a
 * kprobe, the program is the event's (trace_event_call's), so it runs on
 * every CPU although the perf event is opened on CPU 0.
 */
static int tracepoint_open(const char *ev, int progfd)
{
	static const char *const roots[] = {
		TRACEFS, "/sys/kernel/debug/tracing" };
	struct perf_event_attr pa;
	char grp[128], path[400];
	const char *name = strchr(ev, ':');
	int id = -1, fd;
	size_t i;

	if (!name || name == ev || !name[1] ||
	    (size_t)(name - ev) >= sizeof(grp))
		die("--mech tracepoint: --func is GROUP:EVENT, not '%s'", ev);
	memcpy(grp, ev, name - ev);
	grp[name - ev] = 0;
	name++;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i],
			 grp, name);
		id = pmu_value(path, NULL);
	}
	if (id < 0)
		unsupported("no tracepoint event %s (no events/%s/%s/id in "
			    TRACEFS " or /sys/kernel/debug/tracing; syscalls "
			    "events need CONFIG_FTRACE_SYSCALLS)", ev, grp,
			    name);
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_TRACEPOINT;
	pa.config = id;
	pa.sample_period = 1;
	pa.wakeup_events = 1;
	fd = sys_perf_event_open(&pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP))
		unsupported("perf_event_open(tracepoint %s, id %d): %s", ev, id,
			    errstr(errno));
	if (fd < 0)
		die("perf_event_open(tracepoint %s, id %d): %s", ev, id,
		    errstr(errno));
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, progfd) < 0)
		die("PERF_EVENT_IOC_SET_BPF on %s: %s", ev, errstr(errno));
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		die("PERF_EVENT_IOC_ENABLE on %s: %s", ev, errstr(errno));
	return fd;
}

/* ---- user space: uprobes on an ELF file -------------------------------- */

/*
 * The uprobe PMU takes a probe as (path, file offset), so the tool reads
 * the binary itself: a function's address from its symbol table, a USDT
 * site's from its .note.stapsdt note, each turned into a file offset
 * through the program headers.  Static binaries only need that much (the
 * bench's loop is one); every read is bounds-checked against the file.
 */
struct elf_img {
	const char *path;
	char *data;
	size_t len;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
};

/* @len bytes at @off of the image, or NULL when they are not all in it. */
static const void *elf_at(const struct elf_img *e, uint64_t off, uint64_t len)
{
	if (off > e->len || len > e->len - off)
		return NULL;
	return e->data + off;
}

static void elf_open(struct elf_img *e, const char *path)
{
	const Elf64_Ehdr *eh;

	memset(e, 0, sizeof(*e));
	e->path = path;
	e->data = slurp(path, &e->len);
	if (!e->data)
		die("%s: %s", path, strerror(errno));
	eh = elf_at(e, 0, sizeof(*eh));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		die("%s: not an ELF64 little-endian file", path);
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr))
		die("%s: unexpected ELF header entry sizes", path);
	e->sh = elf_at(e, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr));
	if (!e->sh || eh->e_shstrndx >= eh->e_shnum)
		die("%s: section headers out of the file", path);
	e->eh = eh;
}

/* The NUL-terminated string at @off of string table section @strndx. */
static const char *elf_str(const struct elf_img *e, unsigned strndx,
			   uint64_t off)
{
	const Elf64_Shdr *s;
	const char *p;

	if (strndx >= e->eh->e_shnum)
		return NULL;
	s = &e->sh[strndx];
	if (off >= s->sh_size)
		return NULL;
	p = elf_at(e, s->sh_offset + off, 1);
	if (!p || !memchr(p, 0, s->sh_size - off))
		return NULL;
	return p;
}

static const Elf64_Shdr *elf_section(const struct elf_img *e, const char *name)
{
	unsigned i;

	for (i = 0; i < e->eh->e_shnum; i++) {
		const char *n = elf_str(e, e->eh->e_shstrndx, e->sh[i].sh_name);

		if (n && !strcmp(n, name))
			return &e->sh[i];
	}
	return NULL;
}

/* The address of FUNC symbol @name (.symtab, else .dynsym), or 0. */
static uint64_t elf_func(const struct elf_img *e, const char *name)
{
	static const unsigned types[] = { SHT_SYMTAB, SHT_DYNSYM };
	unsigned t, i;
	uint64_t k;

	for (t = 0; t < 2; t++)
		for (i = 0; i < e->eh->e_shnum; i++) {
			const Elf64_Shdr *s = &e->sh[i];
			const Elf64_Sym *sym;

			if (s->sh_type != types[t] || !s->sh_entsize)
				continue;
			sym = elf_at(e, s->sh_offset, s->sh_size);
			if (!sym)
				die("%s: symbol table out of the file", e->path);
			for (k = 0; k < s->sh_size / sizeof(*sym); k++) {
				const char *n = elf_str(e, s->sh_link,
							sym[k].st_name);

				if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC &&
				    sym[k].st_shndx != SHN_UNDEF && n &&
				    !strcmp(n, name))
					return sym[k].st_value;
			}
		}
	return 0;
}

/*
 * The sites of USDT probe @prov:@name: the .note.stapsdt notes (owner
 * "stapsdt", type 3) whose description is pc, base, semaphore (8 bytes
 * each in a 64-bit object), then "provider\0name\0arguments\0".  pc is
 * the link-time address; if the object was moved after linking (prelink)
 * .stapsdt.base's address differs from the note's base by as much, which
 * is how systemtap, bcc and xdt read it.  A probe written more than once
 * (or inlined) has a note per site.  Returns the number of sites (at most
 * @max) and puts the first semaphore's address in *@sem.
 */
static int elf_usdt(const struct elf_img *e, const char *prov,
		    const char *name, uint64_t *pcs, int max, uint64_t *sem)
{
	const Elf64_Shdr *ns = elf_section(e, ".note.stapsdt");
	const Elf64_Shdr *bs = elf_section(e, ".stapsdt.base");
	uint64_t o = 0;
	int n = 0;

	if (!ns)
		return 0;
	while (o + sizeof(Elf64_Nhdr) <= ns->sh_size) {
		const Elf64_Nhdr *nh = elf_at(e, ns->sh_offset + o, sizeof(*nh));
		uint64_t dsc = o + sizeof(*nh) + ((nh ? nh->n_namesz : 0) + 3) / 4 * 4;
		const char *owner, *d, *p, *end;
		uint64_t a[3];

		if (!nh)
			die("%s: .note.stapsdt out of the file", e->path);
		owner = elf_at(e, ns->sh_offset + o + sizeof(*nh), nh->n_namesz);
		d = elf_at(e, ns->sh_offset + dsc, nh->n_descsz);
		if (!owner || !d || dsc + nh->n_descsz > ns->sh_size)
			die("%s: a .note.stapsdt note runs past its section",
			    e->path);
		o = dsc + ((uint64_t)nh->n_descsz + 3) / 4 * 4;
		if (nh->n_type != 3 || nh->n_namesz != sizeof("stapsdt") ||
		    memcmp(owner, "stapsdt", sizeof("stapsdt")) ||
		    nh->n_descsz < sizeof(a) + 2)
			continue;
		memcpy(a, d, sizeof(a));
		p = d + sizeof(a);
		end = d + nh->n_descsz;
		if (!memchr(p, 0, end - p))
			continue;
		if (strcmp(p, prov))
			continue;
		p += strlen(p) + 1;
		if (p >= end || !memchr(p, 0, end - p) || strcmp(p, name))
			continue;
		if (bs)
			a[0] += bs->sh_addr - a[1];
		if (!n)
			*sem = a[2];
		if (n < max)
			pcs[n] = a[0];
		n++;
	}
	return n < max ? n : max;
}

/* The file offset of virtual address @va: through the PT_LOAD holding it. */
static uint64_t elf_file_offset(const struct elf_img *e, uint64_t va)
{
	const Elf64_Phdr *ph = elf_at(e, e->eh->e_phoff,
				      (uint64_t)e->eh->e_phnum * sizeof(*ph));
	unsigned i;

	if (!ph)
		die("%s: program headers out of the file", e->path);
	for (i = 0; i < e->eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
		    va - ph[i].p_vaddr < ph[i].p_filesz)
			return va - ph[i].p_vaddr + ph[i].p_offset;
	die("%s: address %#llx is in no PT_LOAD segment", e->path,
	    (unsigned long long)va);
	return 0;
}

/*
 * --func BIN:FUNC (uprobe, uretprobe) or BIN:PROVIDER:NAME (usdt): the
 * sites' addresses and file offsets.  Returns how many (usdt: one a
 * note; the others: one).
 */
#define MAX_USITES 16
static char upath[4096];
static uint64_t uaddr[MAX_USITES], uoff[MAX_USITES], usem;

static int usites(const char *arg, int usdt)
{
	char buf[sizeof(upath)], *f1, *f2 = NULL;
	struct elf_img e;
	uint64_t sem = 0;
	int n, i;

	if (strlen(arg) >= sizeof(buf))
		die("--func %.40s...: too long", arg);
	memcpy(buf, arg, strlen(arg) + 1);
	f1 = strchr(buf, ':');
	if (f1) {
		*f1++ = 0;
		f2 = usdt ? strchr(f1, ':') : NULL;
		if (f2)
			*f2++ = 0;
	}
	if (!f1 || !*f1 || (usdt && (!f2 || !*f2)))
		die("--mech %s takes --func %s, not '%s'", mech,
		    usdt ? "BINARY:PROVIDER:NAME" : "BINARY:FUNCTION", arg);
	memcpy(upath, buf, strlen(buf) + 1);
	elf_open(&e, upath);
	if (usdt) {
		n = elf_usdt(&e, f1, f2, uaddr, MAX_USITES, &sem);
		if (!n)
			die("%s: no USDT probe %s:%s in .note.stapsdt", upath,
			    f1, f2);
		/* A semaphore (is-enabled probe) goes to uprobes as a file
		 * offset too: it counts it up in the process while the probe
		 * is in (uprobe_open).  The bench's probe has none. */
		if (sem)
			usem = elf_file_offset(&e, sem);
	} else {
		uaddr[0] = elf_func(&e, f1);
		if (!uaddr[0])
			die("%s: no function symbol %s", upath, f1);
		n = 1;
	}
	for (i = 0; i < n; i++)
		uoff[i] = elf_file_offset(&e, uaddr[i]);
	free(e.data);
	return n;
}

/*
 * One uprobe (or uretprobe) through the uprobe PMU at @path + file
 * offset @o, in process @pid only, running BPF program @progfd.  A
 * per-task event (pid, cpu -1): uprobes' perf filter then lets the
 * breakpoint into that process's mm only, as xdt's pid provider filters
 * by mm; the process is held before its exec (spawn_held), and the
 * breakpoint goes in when the exec maps the file (uprobe_mmap).
 */
static int uprobe_open(const char *path, uint64_t o, int ret, int pid,
		       int progfd)
{
	struct perf_event_attr pa;
	int fd, bit;

	pmu_attr(&pa, "uprobe", ret, ": kernel without CONFIG_UPROBE_EVENTS");
	if (usem) {
		/* format/ref_ctr_offset reads "config:32-63" (4.20 on). */
		bit = pmu_value("/sys/bus/event_source/devices/uprobe/format/"
				"ref_ctr_offset", "config:");
		if (bit < 0)
			unsupported("uprobe PMU has no ref_ctr_offset format "
				    "field (the probe has a semaphore)");
		pa.config |= usem << bit;
	}
	pa.uprobe_path = ptr(path);
	pa.probe_offset = o;
	pa.sample_period = 1;
	pa.wakeup_events = 1;
	fd = sys_perf_event_open(&pa, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open(uprobe PMU, %s%s+%#llx, pid %d): %s",
		    ret ? "ret " : "", path, (unsigned long long)o, pid,
		    errstr(errno));
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, progfd) < 0)
		die("PERF_EVENT_IOC_SET_BPF on %s+%#llx: %s", path,
		    (unsigned long long)o, errstr(errno));
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		die("PERF_EVENT_IOC_ENABLE on %s+%#llx: %s", path,
		    (unsigned long long)o, errstr(errno));
	return fd;
}

/* Address of @name (text symbol) from /proc/kallsyms, or 0. */
static unsigned long kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long addr, found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &type, sym) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(sym, name)) {
			found = addr;
			break;
		}
	fclose(f);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int kprobe_multi_open(int progfd)
{
	const char **syms = calloc(nfuncs, sizeof(*syms));
	unsigned long *addrs = calloc(nfuncs, sizeof(*addrs));
	union bpf_attr a;
	int fd, i;

	if (!syms || !addrs)
		die("out of memory");
	/* 6.1 looks symbols up with a binary search: give them sorted. */
	for (i = 0; i < nfuncs; i++)
		syms[i] = funcs[i];
	qsort(syms, nfuncs, sizeof(*syms), cmp_str);
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = progfd;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	a.link_create.kprobe_multi.cnt = nfuncs;
	a.link_create.kprobe_multi.syms = ptr(syms);
	fd = sys_bpf(BPF_LINK_CREATE, &a);
	if (fd < 0 && errno == EOPNOTSUPP)
		unsupported("kprobe_multi link: EOPNOTSUPP (kernel built "
			    "without CONFIG_FPROBE; 6.1 has it on x86_64 only)");
	if (fd >= 0) {
		add_via("fprobe");
		free(syms);
		free(addrs);
		return fd;
	}
	if (errno != ESRCH)
		die("BPF_LINK_CREATE kprobe_multi: %s", errstr(errno));
	/* 6.1 resolves only vmlinux symbols (module symbols came in 6.3):
	 * give addresses from /proc/kallsyms instead. */
	for (i = 0; i < nfuncs; i++) {
		addrs[i] = kallsyms_addr(funcs[i]);
		if (!addrs[i])
			die("kprobe_multi: %s not in /proc/kallsyms", funcs[i]);
	}
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = progfd;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	a.link_create.kprobe_multi.cnt = nfuncs;
	a.link_create.kprobe_multi.addrs = ptr(addrs);
	fd = sys_bpf(BPF_LINK_CREATE, &a);
	if (fd < 0)
		die("BPF_LINK_CREATE kprobe_multi (addresses): %s",
		    errstr(errno));
	add_via("fprobe-addrs");
	free(syms);
	free(addrs);
	return fd;
}

/*
 * kprobe_events: a trace kprobe per function, no BPF.  Event I is
 * xdtb/xdtbfI (function names can be longer than an event name may be);
 * definitions are written one a line, as perf probe does, and each event
 * is switched on and off through its own enable file.  (The group's
 * enable file would do all of them in one write, but that is one loop in
 * the kernel that never reschedules: with 1000 ftrace-based kprobes on
 * x86_64 it ran for minutes and set off the RCU stall detector.)
 */
#define KEV_GROUP "xdtb"
static uint64_t kev_define_ns, kev_arm_ns, kev_disarm_ns, kev_remove_ns;

/* Remove every event of our group (an earlier run's leftovers, or a
 * half-made set after an error). */
static void kev_cleanup(void)
{
	char *s, *ln, *save, cmd[128];
	const char *pfx = "p:" KEV_GROUP "/";

	s = slurp(TRACEFS "/kprobe_events", NULL);
	if (!s)
		return;
	for (ln = strtok_r(s, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save))
		if (!strncmp(ln, pfx, strlen(pfx))) {
			ln += strlen(pfx);
			ln[strcspn(ln, " ")] = 0;
			snprintf(cmd, sizeof(cmd), TRACEFS "/events/" KEV_GROUP
				 "/%s/enable", ln);
			write_str(cmd, "0", O_TRUNC);
			snprintf(cmd, sizeof(cmd), "-:" KEV_GROUP "/%s\n", ln);
			write_str(TRACEFS "/kprobe_events", cmd, O_APPEND);
		}
	free(s);
}

static void kev_prepare(void)
{
	if (access(TRACEFS "/kprobe_events", F_OK))
		unsupported("no " TRACEFS "/kprobe_events (tracefs not "
			    "mounted, or no CONFIG_KPROBE_EVENTS)");
	kev_cleanup();
}

static void kev_attach(unsigned long o)
{
	char cmd[600];
	uint64_t t;
	int fd, i, n, err;

	t = now_ns();
	fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		die(TRACEFS "/kprobe_events: %s", strerror(errno));
	for (i = 0; i < nfuncs; i++) {
		n = snprintf(cmd, sizeof(cmd), "p:" KEV_GROUP "/xdtbf%d %s+%lu\n",
			     i, funcs[i], o);
		if (write(fd, cmd, n) != n) {
			err = errno;
			close(fd);
			kev_cleanup();
			die("kprobe_events '%.*s': %s (see " TRACEFS
			    "/error_log)", n - 1, cmd, strerror(err));
		}
	}
	close(fd);
	kev_define_ns = now_ns() - t;
	t = now_ns();
	for (i = 0; i < nfuncs; i++) {
		snprintf(cmd, sizeof(cmd), TRACEFS "/events/" KEV_GROUP
			 "/xdtbf%d/enable", i);
		err = write_str(cmd, "1", O_TRUNC);
		if (err) {
			kev_cleanup();
			die("%s (%s): %s", cmd, funcs[i], strerror(-err));
		}
	}
	kev_arm_ns = now_ns() - t;
}

static void kev_detach(void)
{
	char cmd[128];
	uint64_t t = now_ns();
	int fd, i, n;

	for (i = 0; i < nfuncs; i++) {
		snprintf(cmd, sizeof(cmd), TRACEFS "/events/" KEV_GROUP
			 "/xdtbf%d/enable", i);
		write_str(cmd, "0", O_TRUNC);
	}
	kev_disarm_ns = now_ns() - t;
	t = now_ns();
	fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	for (i = 0; fd >= 0 && i < nfuncs; i++) {
		n = snprintf(cmd, sizeof(cmd), "-:" KEV_GROUP "/xdtbf%d\n", i);
		if (write(fd, cmd, n) != n)
			fprintf(stderr, "xdt-bpfbench: removing %s: %s\n",
				cmd, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	kev_remove_ns = now_ns() - t;
}

/* Hits of our events in kprobe_profile: "  name   hits   misses". */
static long long kev_hits(void)
{
	char *s = slurp(TRACEFS "/kprobe_profile", NULL), *ln, *save;
	long long hits = 0;
	int seen = 0;

	if (!s)
		die(TRACEFS "/kprobe_profile: %s", strerror(errno));
	for (ln = strtok_r(s, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		char nm[128];
		long long h;
		int idx;

		if (sscanf(ln, "%127s %lld", nm, &h) == 2 &&
		    sscanf(nm, "xdtbf%d", &idx) == 1 && idx >= 0 &&
		    idx < nfuncs) {
			hits += h;
			seen++;
		}
	}
	free(s);
	if (seen != nfuncs)
		die("%d of %d events in kprobe_profile", seen, nfuncs);
	return hits;
}

/*
 * The mechanisms of every kprobe in kprobes/list, read once: with
 * thousands of attachments a lookup per function would be quadratic.
 */
static void kprobes_via_summary(const char *suffix)
{
	char *list = slurp("/sys/kernel/debug/kprobes/list", NULL), *ln, *save;
	char v[64];

	if (!list) {
		add_via("unknown");
		return;
	}
	for (ln = strtok_r(list, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		snprintf(v, sizeof(v), "%s%s", strstr(ln, "[FTRACE]") ? "ftrace"
			 : strstr(ln, "[OPTIMIZED]") ? "optprobe" : TRAP_NAME,
			 suffix);
		add_via(v);
	}
	free(list);
}

/*
 * xdt through its raw ioctls: one clause per function, each
 * `fbt::F:entry { @ = count(); }` (all share the one count() action and
 * aggregation), or the description as given when F has colons.
 */
static uint64_t xdt_enable_ns, xdt_go_ns, xdt_stop_ns, xdt_free_ns;
static unsigned int xdt_nprobes;
static unsigned long long xdt_traps;

static void xdt_desc(struct xdt_probedesc *d, const char *f)
{
	char buf[512], *field[4] = { 0 }, *p = buf;
	int i;

	memset(d, 0, sizeof(*d));
	if (!strchr(f, ':')) {
		strcpy(d->prov, "fbt");
		snprintf(d->func, sizeof(d->func), "%s", f);
		strcpy(d->name, "entry");
		return;
	}
	snprintf(buf, sizeof(buf), "%s", f);
	for (i = 0; i < 4; i++) {
		field[i] = p;
		p = strchr(p, ':');
		if (!p && i < 3)
			die("%s: a description is PROV:MOD:FUNC:NAME", f);
		if (p)
			*p++ = 0;
	}
	snprintf(d->prov, sizeof(d->prov), "%s", field[0]);
	snprintf(d->mod, sizeof(d->mod), "%s", field[1]);
	snprintf(d->func, sizeof(d->func), "%s", field[2]);
	snprintf(d->name, sizeof(d->name), "%s", field[3]);
}

static int xdt_attach(void)
{
	/* one count() clause per function, one action, one aggregation */
	static const struct xdt_action act = {
		.kind = XDT_ACT_AGG, .difo = -1, .arg0 = 0, .arg1 = XDT_AGG_COUNT,
	};
	static const struct xdt_aggdesc agg = { XDT_AGG_COUNT, 1, 0 };
	struct xdt_clause *c = calloc((size_t)nfuncs + 1, sizeof(*c));
	struct xdt_prog h = { 0 };
	struct xdt_pobj_sections sect = { .actions = &act, .aggs = &agg };
	struct xdt_enable req;
	size_t size;
	uint64_t t;
	void *p;
	int fd, i;

	if (!c)
		die("out of memory");
	h.nclauses = nfuncs;
	h.nactions = 1;
	h.naggs = 1;
	/* XDT_FBTMODE=breakpoint|ftrace|trampoline: -x fbtmode */
	if (getenv("XDT_FBTMODE")) {
		static const char *const names[] = XDT_FBTMODE_NAMES;

		for (i = 0; i < XDT_FBTMODE_NMODES; i++)
			if (!strcmp(getenv("XDT_FBTMODE"), names[i]))
				h.fbtmode = (uint32_t)i;
	}
	for (i = 0; i < nfuncs; i++) {
		xdt_desc(&c[i].desc, funcs[i]);
		c[i].pred = -1;
		c[i].action0 = 0;
		c[i].nactions = 1;
	}
	sect.clauses = c;
	size = xdt_pobj_layout(&h);
	p = calloc(1, size);
	if (!p)
		die("out of memory");
	xdt_pobj_write(p, &h, &sect);
	free(c);
	fd = open(XDT_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		unsupported("no " XDT_DEVICE " (xdt.ko not loaded)");
	if (fd < 0)
		die(XDT_DEVICE ": %s", strerror(errno));
	memset(&req, 0, sizeof(req));
	req.prog = ptr(p);
	req.size = size;
	t = now_ns();
	if (ioctl(fd, XDT_IOC_ENABLE, &req) < 0)
		die("XDT_IOC_ENABLE: %s: %.*s", strerror(errno),
		    (int)sizeof(req.err), req.err);
	xdt_enable_ns = now_ns() - t;
	if (req.unmatched >= 0)
		die("xdt clause %d (%s) matched no probe", req.unmatched,
		    funcs[req.unmatched]);
	xdt_nprobes = req.nprobes;
	t = now_ns();
	if (ioctl(fd, XDT_IOC_GO) < 0)
		die("XDT_IOC_GO: %s", strerror(errno));
	xdt_go_ns = now_ns() - t;
	free(p);
	add_via(TRAP_NAME);
	return fd;
}

/* Stop (timed), read the count and the trap counter, close (timed). */
static long long xdt_detach(int fd)
{
	static char buf[1 << 16];
	struct xdt_aggsnap snap;
	struct xdt_status st;
	long long n = 0;
	uint64_t t = now_ns();

	if (ioctl(fd, XDT_IOC_STOP) < 0)
		die("XDT_IOC_STOP: %s", strerror(errno));
	xdt_stop_ns = now_ns() - t;
	memset(&snap, 0, sizeof(snap));
	snap.size = sizeof(buf);
	snap.buf = ptr(buf);
	if (ioctl(fd, XDT_IOC_AGGSNAP, &snap) < 0)
		die("XDT_IOC_AGGSNAP: %s", strerror(errno));
	if (snap.count) {
		struct xdt_aggent *e = (struct xdt_aggent *)buf;

		memcpy(&n, (char *)(e + 1) + e->keylen, 8);
	}
	memset(&st, 0, sizeof(st));
	if (ioctl(fd, XDT_IOC_STATUS, &st) == 0)
		xdt_traps = st.traps;
	t = now_ns();
	close(fd);		/* frees the program and its state */
	xdt_free_ns = now_ns() - t;
	return n;
}

/* ---- main ------------------------------------------------------------- */

static void add_func(char *f)
{
	if (nfuncs == capfuncs) {
		capfuncs = capfuncs ? 2 * capfuncs : 64;
		funcs = realloc(funcs, capfuncs * sizeof(*funcs));
		if (!funcs)
			die("out of memory");
	}
	funcs[nfuncs++] = f;
}

/* F,F,... or @FILE (one function, or xdt description, a line). */
static void split_funcs(const char *arg)
{
	char *s, *f, *save;
	const char *sep = ",";

	if (arg[0] == '@') {
		s = slurp(arg + 1, NULL);
		if (!s)
			die("%s: %s", arg + 1, strerror(errno));
		sep = "\n";
	} else if (!(s = strdup(arg)))
		die("out of memory");
	for (f = strtok_r(s, sep, &save); f; f = strtok_r(NULL, sep, &save)) {
		f += strspn(f, " \t\r");
		f[strcspn(f, " \t\r")] = 0;
		if (f[0] && f[0] != '#')
			add_func(f);
	}
	if (!nfuncs)
		die("--func needs a function name");
}

static int usage(void)
{
	fprintf(stderr,
		"usage: xdt-bpfbench attach --mech MECH [--prog PROG] "
		"--func F[,F...]|@FILE [--off N] -- CMD [ARG...]\n"
		"       xdt-bpfbench load --prog PROG "
		"[--type kprobe|fentry|raw-tp|tracepoint] [--func F]\n"
		"MECH: kprobe kprobe-off kretprobe fentry fexit kprobe-multi "
		"kprobe-events xdt\n"
		"      raw-tp (--func TP[:SYSCALL], e.g. sys_enter:getppid)\n"
		"      tracepoint (--func GROUP:EVENT, e.g. "
		"syscalls:sys_enter_getppid)\n"
		"      uprobe uretprobe (--func BINARY:FUNCTION), usdt "
		"(--func BINARY:PROVIDER:NAME)\n"
		"PROG: empty count (valid), nullderef uninit (malformed)\n");
	return EX_ERR;
}

static int run_cmd(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "xdt-bpfbench: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

/*
 * The command, forked but held before its exec until release(): a
 * uprobe's perf event is opened for that process (its pid) before it
 * runs, so the exec's mapping of the binary brings the breakpoint in and
 * every call of the loop is counted.  The child waits on a pipe; if this
 * program dies before the release (an error, "unsupported"), the pipe
 * closes unwritten and the child exits without running the command.
 */
static pid_t spawn_held(char **argv, int *gate)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		close(p[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "xdt-bpfbench: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*gate = p[1];
	return pid;
}

/* Let the held command run, and wait for it: its exit status. */
static int release(pid_t pid, int gate)
{
	int status;

	if (write(gate, "g", 1) != 1)
		die("releasing the command: %s", strerror(errno));
	close(gate);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *type = "kprobe";
	char *funclist = NULL, **cmd = NULL;
	int *fds, nfds = 0, mapfd = -1, progfd = -1, i, status;
	int is_load, uses_bpf, ret = 0, kev, xdt, rawtp, tp, nprobes;
	int up, uret, usdt, nus = 0, gate = -1;
	pid_t child = -1;
	char tpname[128] = "";
	uint64_t t0, load_ns = 0, attach_ns, detach_ns;
	long long count = -1;
	struct load l = { .type = BPF_PROG_TYPE_KPROBE };

	if (argc < 2)
		return usage();
	is_load = !strcmp(argv[1], "load");
	if (!is_load && strcmp(argv[1], "attach"))
		return usage();
	for (i = 2; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--")) {
			cmd = argv + i + 1;
			break;
		}
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(o, "--mech"))
			mech = argv[++i];
		else if (!strcmp(o, "--prog"))
			progname = argv[++i];
		else if (!strcmp(o, "--func"))
			funclist = argv[++i];
		else if (!strcmp(o, "--off"))
			off = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(o, "--type"))
			type = argv[++i];
		else
			return usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (is_load) {
		/* Load only: the verifier's verdict, nothing attached. */
		mech = type;
		if (!strcmp(type, "fentry")) {
			l.type = BPF_PROG_TYPE_TRACING;
			l.expected = BPF_TRACE_FENTRY;
			btf_find_func(funclist ? funclist : "vfs_read", &l);
		} else if (!strcmp(type, "raw-tp")) {
			const char *c = funclist ? strchr(funclist, ':') : NULL;

			l.type = BPF_PROG_TYPE_RAW_TRACEPOINT;
			if (c)
				sysnr = syscall_nr(c + 1);
		} else if (!strcmp(type, "tracepoint"))
			l.type = BPF_PROG_TYPE_TRACEPOINT;
		else if (strcmp(type, "kprobe"))
			return usage();
		mapfd = map_create();
		progfd = prog_load(&l, mapfd);
		printf("loaded prog=%s type=%s jit=%d\n", progname, type, jit);
		return EX_OK;
	}

	if (!funclist || !cmd || !cmd[0] || !mech[0])
		return usage();
	funcarg = funclist;
	split_funcs(funclist);
	uret = !strcmp(mech, "uretprobe");
	usdt = !strcmp(mech, "usdt");
	up = uret || usdt || !strcmp(mech, "uprobe");
	if (up && nfuncs != 1)
		die("--mech %s takes one --func", mech);
	fds = calloc(nfuncs > MAX_USITES ? nfuncs : MAX_USITES, sizeof(*fds));
	if (!fds)
		die("out of memory");
	kev = !strcmp(mech, "kprobe-events");
	xdt = !strcmp(mech, "xdt");
	rawtp = !strcmp(mech, "raw-tp");
	tp = !strcmp(mech, "tracepoint");
	if ((rawtp || tp) && nfuncs != 1)
		die("--mech %s takes one --func (%s)", mech,
		    rawtp ? "TP[:SYSCALL]" : "GROUP:EVENT");
	if (rawtp) {
		/* TP[:SYSCALL]: the syscall's number goes into the program. */
		char *c = strchr(funcs[0], ':');

		snprintf(tpname, sizeof(tpname), "%.*s",
			 c ? (int)(c - funcs[0]) : (int)strlen(funcs[0]),
			 funcs[0]);
		if (c)
			sysnr = syscall_nr(c + 1);
		l.type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	}
	if (tp)
		l.type = BPF_PROG_TYPE_TRACEPOINT;
	uses_bpf = !kev && !xdt;
	if (kev)
		progname = "none";
	if (xdt)
		progname = "count";
	if (!strcmp(mech, "kprobe") && off)
		die("--mech kprobe attaches at entry; use kprobe-off with --off");
	if (!strcmp(mech, "fentry") || !strcmp(mech, "fexit")) {
		l.type = BPF_PROG_TYPE_TRACING;
		l.expected = mech[1] == 'e' ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
	} else if (!strcmp(mech, "kprobe-multi"))
		l.expected = BPF_TRACE_KPROBE_MULTI;
	else if (strcmp(mech, "kprobe") && strcmp(mech, "kprobe-off") &&
		 strcmp(mech, "kretprobe") && !kev && !xdt && !rawtp && !tp &&
		 !up)
		die("unknown mechanism '%s'", mech);
	if (up && off)
		die("--mech %s takes its site from the binary, not --off",
		    mech);
	if (up) {
		/* The sites first (reading the binary is not attaching), then
		 * the command, held, so the events can name its pid. */
		nus = usites(funcs[0], usdt);
		child = spawn_held(cmd, &gate);
	}

	/* Load: one map and one program shared by every attachment (a
	 * trampoline program is bound to one BTF target: one per function). */
	t0 = now_ns();
	if (uses_bpf && strcmp(progname, "empty"))
		mapfd = map_create();
	if (uses_bpf && l.type != BPF_PROG_TYPE_TRACING)
		progfd = prog_load(&l, mapfd);
	load_ns = now_ns() - t0;
	if (kev)
		kev_prepare();

	t0 = now_ns();
	if (!strcmp(mech, "kprobe-multi")) {
		fds[nfds++] = kprobe_multi_open(progfd);
	} else if (xdt) {
		fds[nfds++] = xdt_attach();
	} else if (rawtp) {
		char v[160];

		fds[nfds++] = raw_tp_open(tpname, progfd);
		snprintf(v, sizeof(v), "raw_tp:%s", tpname);
		add_via(v);
	} else if (tp) {
		char v[160];

		fds[nfds++] = tracepoint_open(funcs[0], progfd);
		snprintf(v, sizeof(v), "tracepoint:%s", funcs[0]);
		add_via(v);
	} else if (kev) {
		kev_attach(off);
	} else if (up) {
		for (i = 0; i < nus; i++)
			fds[nfds++] = uprobe_open(upath, uoff[i], uret, child,
						  progfd);
		add_via(uret ? "uprobe+ret" : usdt ? "uprobe@usdt" : "uprobe");
	} else {
		for (i = 0; i < nfuncs; i++) {
			if (l.type == BPF_PROG_TYPE_TRACING) {
				uint64_t tl = now_ns();
				int pfd;

				btf_find_func(funcs[i], &l);
				pfd = prog_load(&l, mapfd);
				load_ns += now_ns() - tl;
				t0 += now_ns() - tl;
				fds[nfds++] = tracing_open(pfd);
				close(pfd);	/* the link holds it */
				if (l.btf_obj_fd)
					close(l.btf_obj_fd);
			} else {
				fds[nfds++] = kprobe_open(funcs[i], off,
					!strcmp(mech, "kretprobe"), progfd);
			}
		}
	}
	attach_ns = now_ns() - t0;
	/* The mechanisms' own phases, without this program's bookkeeping. */
	if (kev)
		attach_ns = kev_define_ns + kev_arm_ns;
	if (xdt)
		attach_ns = xdt_enable_ns + xdt_go_ns;

	/* What the kernel used, read while everything is attached. */
	if (nfuncs > 8 && !xdt && l.type != BPF_PROG_TYPE_TRACING &&
	    strcmp(mech, "kprobe-multi"))
		kprobes_via_summary(strcmp(mech, "kretprobe") ? "" : "+ret");
	for (i = 0; i < nfuncs && nfuncs <= 8 && !xdt && !rawtp && !tp && !up;
	     i++) {
		if (l.type == BPF_PROG_TYPE_TRACING)
			add_via(ftrace_direct(funcs[i])
				? "trampoline-ftrace-direct" : "trampoline");
		else if (strcmp(mech, "kprobe-multi")) {
			const char *v = kprobe_via(funcs[i], off);

			if (!strcmp(mech, "kretprobe")) {
				char rv[64];

				snprintf(rv, sizeof(rv), "%s+ret", v);
				add_via(rv);
			} else
				add_via(v);
		}
	}

	status = up ? release(child, gate) : run_cmd(cmd);

	if (kev)
		count = kev_hits();
	else if (mapfd >= 0)
		count = map_sum(mapfd);
	nprobes = xdt ? (int)xdt_nprobes : kev ? nfuncs :
		  !strcmp(mech, "kprobe-multi") ? nfuncs : nfds;

	t0 = now_ns();
	if (kev)
		kev_detach();
	if (xdt) {
		count = xdt_detach(fds[0]);
		nfds = 0;
	}
	for (i = 0; i < nfds; i++) {
		if (!strcmp(mech, "kprobe") || !strcmp(mech, "kprobe-off") ||
		    !strcmp(mech, "kretprobe") || tp || up)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
		close(fds[i]);
	}
	detach_ns = now_ns() - t0;
	if (kev)
		detach_ns = kev_disarm_ns + kev_remove_ns;
	if (xdt)
		detach_ns = xdt_stop_ns + xdt_free_ns;

	printf("mech=%s prog=%s func=%s off=%lu via=%s ", mech, progname,
	       funcarg, off, via[0] ? via : "unknown");
	if (count >= 0)
		printf("count=%lld ", count);
	else
		printf("count=- ");
	printf("jit=%d load_ns=%llu attach_ns=%llu detach_ns=%llu nprobes=%d ",
	       jit, (unsigned long long)load_ns,
	       (unsigned long long)attach_ns, (unsigned long long)detach_ns,
	       nprobes);
	if (kev)
		printf("define_ns=%llu arm_ns=%llu disarm_ns=%llu remove_ns=%llu ",
		       (unsigned long long)kev_define_ns,
		       (unsigned long long)kev_arm_ns,
		       (unsigned long long)kev_disarm_ns,
		       (unsigned long long)kev_remove_ns);
	if (sysnr >= 0)
		printf("sysnr=%ld ", sysnr);
	if (up)
		/* the (first) site, as read from the binary, and the process */
		printf("uaddr=%#llx uoff=%#llx upid=%d ",
		       (unsigned long long)uaddr[0],
		       (unsigned long long)uoff[0], (int)child);
	if (xdt)
		printf("enable_ns=%llu go_ns=%llu stop_ns=%llu free_ns=%llu "
		       "traps=%llu ", (unsigned long long)xdt_enable_ns,
		       (unsigned long long)xdt_go_ns,
		       (unsigned long long)xdt_stop_ns,
		       (unsigned long long)xdt_free_ns, xdt_traps);
	printf("status=%d\n", status);
	if (progfd >= 0)
		close(progfd);
	if (mapfd >= 0)
		close(mapfd);
	if (status)
		ret = EX_CMD;
	return ret;
}
