"""What bench/run.py measures, and how one booted guest measures it.

The variants (VARIANTS, DESCR, and SKIP: which trigger leaves which out,
and why), the triggers and the syscall rows' names; the helpers that read
the bench module's disassembly (first_body_offset, kinst_offsets) and
build the guest programs (guest_tool, build_static); and Bench: one guest
with xdt.ko and the bench module loaded, and how it takes and checks one
sample of a variant.  Used by run.py, benchscale.py and benchreport.py, and by the
other studies (bpftrace.py, kgdbstudy.py).
"""
import os
import re
import shutil
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
import xdtvm  # noqa: E402

TARGET = "xdt_bench_target"
DBG = "/sys/kernel/debug/xdt_bench"
TRAP = {isa: p[2] for isa, p in xdtvm.XDT_PATCH.items()}   # int3, brk, ...
TRACEFS = "/sys/kernel/tracing"
BPFBENCH = "/tmp/xdt-bpfbench"     # pushed by run.py (see guest_tool())

# (name, kind, detail).  kind: none | xdt (detail = (provider, fbt probe
# name or kinst offset key; the syscall provider: probe name)) | bpf
# (detail = (mech, prog, offset key)).  Offset keys: "body" = first
# instruction after the entry site, "emul" / "xol" = the instructions the
# kinst rows probe (kinst_offsets()).  The order is the table's.  The last
# three (SYSCALL_VARIANTS) count the syscall itself rather than a kernel
# function, so they run with the syscall trigger only.
VARIANTS = [
    ("none", "none", None),
    ("xdt-fbt-entry", "xdt", ("fbt", "entry")),
    ("xdt-fbt-entry-bp", "xdt", ("fbt", "entry", "count", "breakpoint")),
    ("xdt-fbt-entry-ftrace", "xdt", ("fbt", "entry", "count", "ftrace")),
    ("xdt-fbt-entry-tramp", "xdt", ("fbt", "entry", "count", "trampoline")),
    ("xdt-fbt-entry-empty", "xdt", ("fbt", "entry", "empty")),
    ("xdt-fbt-entry-empty-bp", "xdt", ("fbt", "entry", "empty",
                                        "breakpoint")),
    ("xdt-fbt-return", "xdt", ("fbt", "return")),
    ("kprobe-empty", "bpf", ("kprobe", "empty", None)),
    ("kprobe", "bpf", ("kprobe", "count", None)),
    ("kprobe-off", "bpf", ("kprobe-off", "count", "body")),
    ("xdt-kinst-emul", "xdt", ("kinst", "emul")),
    ("kprobe-off-emul", "bpf", ("kprobe-off", "count", "emul")),
    ("xdt-kinst-xol", "xdt", ("kinst", "xol")),
    ("kprobe-off-xol", "bpf", ("kprobe-off", "count", "xol")),
    ("kretprobe", "bpf", ("kretprobe", "count", None)),
    ("fentry", "bpf", ("fentry", "count", None)),
    ("fexit", "bpf", ("fexit", "count", None)),
    ("kprobe-multi", "bpf", ("kprobe-multi", "count", None)),
    ("kprobe-events", "bpf", ("kprobe-events", None, None)),
    ("xdt-syscall-entry", "xdt", ("syscall", "entry")),
    ("raw-tp", "bpf", ("raw-tp", "count", None)),
    ("tracepoint", "bpf", ("tracepoint", "count", None)),
    # User space (the ucall trigger, UCALL_VARIANTS): xdt through dtrace
    # (kind dtrace, detail = the probe description; the pid provider's
    # probes are made by the consumer from the process's ELF symbols, so
    # xdt-rawprog cannot make them), each beside the uprobe + BPF count
    # on the same site (detail = (mech, prog, None)).
    ("xdt-pid-entry", "dtrace", "pid$target::ucall_target:entry"),
    ("uprobe", "bpf", ("uprobe", "count", None)),
    ("xdt-pid-return", "dtrace", "pid$target::ucall_target:return"),
    ("uretprobe", "bpf", ("uretprobe", "count", None)),
    ("xdt-usdt", "dtrace", "xdt_bench$target:::hit"),
    ("uprobe-usdt", "bpf", ("usdt", "count", None)),
]
VARIANT_NAMES = [v[0] for v in VARIANTS]
# The syscall the syscall trigger calls, and how each syscall mechanism
# names it: xdt's syscall provider by syscall name (probe
# syscall::getppid:entry, fired from raw_syscalls:sys_enter); BPF on the
# raw tracepoint sys_enter with the program testing the id argument
# (ctx->args[1]) against the ISA's __NR_getppid (x86_64 110, arm64 and
# riscv64 173: xdt-bpfbench compiles it in per ISA); BPF on the perf
# tracepoint event syscalls:sys_enter_getppid (CONFIG_FTRACE_SYSCALLS).
SYSCALL = "getppid"
SYSCALL_VARIANTS = {"xdt-syscall-entry", "raw-tp", "tracepoint"}
SYSCALL_FUNC = {"raw-tp": f"sys_enter:{SYSCALL}",
                "tracepoint": f"syscalls:sys_enter_{SYSCALL}"}
KINST = {"xdt-kinst-emul": "emul", "xdt-kinst-xol": "xol"}
# The user-space trigger: bench/ucall-loop.c calls the noinline
# ucall_target(a, b) N times; one USDT probe, xdt_bench:hit, sits inside
# it.  Its rows probe the function's entry, its return and the USDT site,
# with xdt's pid provider (and USDT) and with a uprobe + BPF count.
UCALL = "ucall_target"
UCALL_BIN = "/tmp/ucall-loop"
USDT_PROBE = ("xdt_bench", "hit")
UCALL_VARIANTS = {"xdt-pid-entry", "uprobe", "xdt-pid-return", "uretprobe",
                  "xdt-usdt", "uprobe-usdt"}
# The site each user-space row probes ("entry": ucall_target's first
# instruction; "usdt": the note's nop), and whether it is a return probe.
USITE = {"xdt-pid-entry": ("entry", False), "uprobe": ("entry", False),
         "xdt-pid-return": ("entry", True), "uretprobe": ("entry", True),
         "xdt-usdt": ("usdt", False), "uprobe-usdt": ("usdt", False)}
# What xdt's per-firing figures are compared with (ratio columns), per
# trigger: fbt entry in the kernel, the pid provider's entry in user space.
REF = {"kernel": "xdt-fbt-entry", "syscall": "xdt-fbt-entry",
       "ucall": "xdt-pid-entry"}
# xdt's fbt entry mechanisms (rawprog's "mech", -x fbtmode) as a via; the
# breakpoint is the ISA's trap (TRAP).
MECH_VIA = {"ftrace": "ftrace_ops", "trampoline": "xdt-trampoline"}

# Triggers: "kernel" = the bench module's debugfs loop over the noinline
# target; "syscall" = bench/getppid-loop.c, N getppid(2) calls from user
# space, probed at the getppid syscall's function (getppid_function());
# "ucall" = bench/ucall-loop.c, N calls of a user-space function, probed
# in user space (UCALL_VARIANTS).
TRIGGERS = ["kernel", "syscall", "ucall"]
# The function xdt and every baseline probe for the syscall trigger: the
# first of these that xdt's fbt lists.  fbt names a probe after the first
# kallsyms symbol at its address, so on x86_64 the syscall's entry point
# __x64_sys_getppid (an alias of __do_sys_getppid there) is listed as
# __do_sys_getppid; arm64 has __arm64_sys_getppid; riscv64 6.1 has no
# syscall wrappers (sys_getppid).  Whichever is found, the BPF variants
# use the same name.
GETPPID = ["__do_sys_getppid", "__x64_sys_getppid", "__arm64_sys_getppid",
           "__riscv_sys_getppid", "sys_getppid"]
_SYS_SKIP = ("not run with the syscall trigger (the kernel trigger has it; "
             "kept out of the time budget)")
SKIP = {("syscall", "kprobe-off"): "not run with the syscall trigger (the "
        "offsets are computed for xdt_bench_target only)",
        ("syscall", "kprobe-off-emul"): "not run with the syscall trigger "
        "(the offsets are computed for xdt_bench_target only)",
        ("syscall", "kprobe-off-xol"): "not run with the syscall trigger "
        "(the offsets are computed for xdt_bench_target only)",
        ("syscall", "xdt-kinst-emul"): "not run with the syscall trigger "
        "(the offsets are computed for xdt_bench_target only)",
        ("syscall", "xdt-kinst-xol"): "not run with the syscall trigger "
        "(the offsets are computed for xdt_bench_target only)",
        ("syscall", "kprobe-empty"): _SYS_SKIP,
        ("syscall", "xdt-fbt-entry-empty"): _SYS_SKIP,
        **{("syscall", f"xdt-fbt-entry-{m}"): _SYS_SKIP
           for m in ("bp", "ftrace", "tramp", "empty-bp")},
        ("syscall", "fexit"): _SYS_SKIP,
        **{("kernel", v): "not run with the kernel trigger (it counts the "
           f"{SYSCALL} syscall, which the syscall trigger makes)"
           for v in SYSCALL_VARIANTS},
        **{(t, v): f"not run with the {t} trigger (a user-space probe: "
           "the ucall trigger has it)"
           for t in ("kernel", "syscall") for v in UCALL_VARIANTS},
        **{("ucall", v): "not run with the ucall trigger (a kernel probe; "
           "the ucall trigger measures user-space probes)"
           for v, _, _ in VARIANTS
           if v != "none" and v not in UCALL_VARIANTS}}

DESCR = {
    "none": "no probe (baseline loop)",
    "xdt-fbt-entry": "xdt fbt entry, count() (default mechanism)",
    "xdt-fbt-entry-bp": "xdt fbt entry by breakpoint, count()",
    "xdt-fbt-entry-ftrace": "xdt fbt entry by ftrace_ops, count()",
    "xdt-fbt-entry-tramp": "xdt fbt entry by xdt trampoline, count()",
    "xdt-fbt-entry-empty": "xdt fbt entry, empty clause (default mechanism)",
    "xdt-fbt-entry-empty-bp": "xdt fbt entry by breakpoint, empty clause",
    "xdt-fbt-return": "xdt fbt return, count()",
    "kprobe-empty": "kprobe + BPF, empty program",
    "kprobe": "kprobe + BPF, count (per-CPU array)",
    "kprobe-off": "kprobe at +off (first body insn) + BPF count",
    "xdt-kinst-emul": "xdt kinst, emulated insn, count()",
    "kprobe-off-emul": "kprobe at the same insn + BPF count",
    "xdt-kinst-xol": "xdt kinst, out-of-line insn, count()",
    "kprobe-off-xol": "kprobe at the same out-of-line insn + BPF count",
    "kretprobe": "kretprobe + BPF count",
    "fentry": "fentry (BPF trampoline) count",
    "fexit": "fexit (BPF trampoline) count",
    "kprobe-multi": "kprobe_multi (fprobe) + BPF count",
    "kprobe-events": "kprobe_events (tracefs, no BPF), hit count",
    "xdt-syscall-entry": f"xdt syscall::{SYSCALL}:entry, count()",
    "raw-tp": "raw tracepoint sys_enter + BPF count if id == "
              f"__NR_{SYSCALL}",
    "tracepoint": f"tracepoint syscalls:sys_enter_{SYSCALL} + BPF count",
    "xdt-pid-entry": f"xdt pid{'$'}target::{UCALL}:entry, count()",
    "uprobe": f"uprobe + BPF count on {UCALL}",
    "xdt-pid-return": f"xdt pid{'$'}target::{UCALL}:return, count()",
    "uretprobe": f"uretprobe + BPF count on {UCALL}",
    "xdt-usdt": f"xdt USDT {USDT_PROBE[0]}{'$'}target:::{USDT_PROBE[1]}, "
                "count()",
    "uprobe-usdt": "uprobe + BPF count at the USDT note's address",
}


def log(msg):
    print(msg, flush=True)


def first_body_offset(isa, ko):
    return xdtvm.first_body_insn(isa, ko, TARGET)


def kinst_listing(vm):
    """kinst's own word on TARGET's instructions (`dtrace -l -v`): the
    offsets it has probes at, the ones it refused with why, and how each
    runs its instruction (its Insertion Mechanisms: "emulated" in the trap
    handler or "out of line"), so the bench asks the kernel instead of
    keeping its own copy of what each ISA's kinst emulates."""
    r = vm.run(["dtrace", "-l", "-v", "-n", f"kinst::{TARGET}:"],
               timeout=120)
    probes, refused, how, name = set(), {}, {}, None
    for ln in r.stdout.splitlines()[1:]:
        m = re.match(r"\t\tbreakpoint; (emulated|out of line)$", ln)
        if m and name:
            how[name] = m.group(1)
            continue
        f = ln.split(None, 4)
        if len(f) < 5 or f[1] != "kinst" or f[3] != TARGET:
            continue
        name = f[4].split()[0]
        if f[0] == "-":
            refused[name] = f[4].split("(refused:", 1)[-1].strip(" )")
        else:
            probes.add(name)
    return dict(probes=probes, refused=refused, how=how, status=r.status,
                text=(r.stdout + r.stderr).strip())


def kinst_offsets(isa, ko, how):
    """{"emul": (off, insn), "xol": (off, insn)} in xdt_bench_target,
    chosen by what kinst says it does at each offset (@how, from
    kinst_listing): the first instruction after the entry site that it
    emulates, and the multiply at the middle of the function (run out of
    line; else the middle out-of-line instruction).  Both run exactly once
    per call (the function has no branch).  A key is missing when kinst
    runs no instruction of the function that way."""
    body = xdtvm.function_body(isa, ko, TARGET)
    start = first_body_offset(isa, ko)[0]
    insns = []
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if not m or int(m.group(1), 16) < start:
            continue
        insns.append((int(m.group(1), 16), m.group(2),
                      " ".join(line.split(":", 1)[1].split("#")[0].split())))
    res = {}
    emul = [i for i in insns if how.get(str(i[0])) == "emulated"]
    if emul:
        res["emul"] = (emul[0][0], emul[0][2])
    xol = [i for i in insns if how.get(str(i[0])) == "out of line"]
    mul = [i for i in xol if i[1] in ("imul", "mul")]
    if xol:
        pick = mul[0] if mul else xol[len(xol) // 2]
        res["xol"] = (pick[0], pick[2])
    return res


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def _newer(out, srcs):
    return os.path.exists(out) and all(
        os.path.getmtime(out) >= os.path.getmtime(s) for s in srcs)


def guest_tool(isa, bindir):
    """xdt-bpfbench for @isa: the Makefile's when it is up to date, else
    built here (statically, as the Makefile builds it: the xdt uapi and
    libxdt headers, linked with the ISA's libxdt.a for its BTF reader), so
    the bench never runs a stale copy from an old initramfs."""
    src = os.path.join(TOP, "guest", "xdt-bpfbench.c")
    lib = os.path.join(xdtvm.build_dir(isa), "libxdt.a")
    deps = [src, os.path.join(TOP, "core", "uapi", "xdt.h"),
            os.path.join(TOP, "core", "uapi", "xdt_pobj.h")]
    made = os.path.join(xdtvm.build_dir(isa), "xdt-bpfbench")
    if _newer(made, deps):
        return made
    os.makedirs(bindir, exist_ok=True)
    out = os.path.join(bindir, f"xdt-bpfbench.{isa}")
    if not _newer(out, deps + [lib]):
        subprocess.run([xdtvm.ISAS[isa]["cross"] + "gcc", "-std=c11", "-O2",
                        "-Wall", "-Wextra", "-Werror", "-I",
                        os.path.join(TOP, "core", "uapi"), "-I",
                        os.path.join(TOP, "libxdt"), "-static", "-o",
                        out, src, lib], check=True)
    return out


class Bench:
    """One booted guest with xdt.ko and xdt_bench.ko loaded."""

    def __init__(self, isa, icount, n, sn, logdir, bindir, un=None):
        self.isa, self.icount, self.n, self.sn = isa, icount, n, sn
        # calls per ucall-trigger sample (the getppid loop's N unless given)
        self.un = un or sn
        self.gp_bin = build_getppid(isa, bindir)
        self.bpfbench = guest_tool(isa, bindir)
        # The ucall trigger's loop, and the sites its rows probe; without
        # them (no sdt.h on the host...) its rows are unavailable.
        self.uc_bin, self.usites, uc_why = None, {}, None
        try:
            self.uc_bin = build_ucall(isa, bindir)
            self.usites = ucall_sites(isa, self.uc_bin)
        except (xdtvm.XdtError, subprocess.CalledProcessError) as e:
            uc_why = " ".join(str(e).split())[:400]
        self.boot = "icount" if icount else "tcg"
        b = xdtvm.build_dir(isa)
        self.xdt_ko = os.path.join(b, "xdt", "xdt.ko")
        self.bench_ko = os.path.join(b, "modules", "xdt_bench",
                                     "xdt_bench.ko")
        for f in (self.xdt_ko, self.bench_ko):
            if not os.path.isfile(f):
                raise SystemExit(f"{f} missing (run: make all)")
        self.off, self.off_insn = first_body_offset(isa, self.bench_ko)
        # + "emul", "xol": kinst's, once it has said (check_kinst)
        self.offs = {"body": (self.off, self.off_insn)}
        self.vm = xdtvm.VM(isa, icount=icount, logdir=logdir)
        self.unsupported = {}
        # "trigger/variant" -> why it cannot be measured in this boot
        # (kinst missing, no fbt probe on the getppid function, ...).
        self.unavailable = {}
        if uc_why:
            for v in UCALL_VARIANTS:
                self.unavailable[f"ucall/{v}"] = uc_why
        self.gp_func = None

    def start(self):
        t0 = time.monotonic()
        self.vm.start(timeout=300)
        v = self.vm
        v.put(self.bench_ko, "/tmp/xdt_bench.ko")
        v.run(["insmod", "/tmp/xdt_bench.ko"], check=True, timeout=120)
        v.put(self.xdt_ko, "/tmp/xdt.ko")
        v.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
        v.put(f"echo {self.n} > {DBG}/trigger\n", "/tmp/trig.sh", mode="755")
        v.put(self.gp_bin, "/tmp/getppid-loop", mode="755")
        v.put(self.bpfbench, BPFBENCH, mode="755")
        if self.uc_bin:
            v.put(self.uc_bin, UCALL_BIN, mode="755")

        # For kprobes: what kprobes/list says at trigger time (an x86
        # optprobe is int3 until the optimiser's delayed work has run).
        v.put(f"sleep 0.2\ngrep ' {TARGET}+' /sys/kernel/debug/kprobes/list"
              f" > /tmp/via 2>/dev/null\necho {self.n} > {DBG}/trigger\n",
              "/tmp/trig-via.sh", mode="755")
        self.clocksource = v.run(
            ["cat", "/sys/devices/system/clocksource/clocksource0/"
             "current_clocksource"]).stdout.strip()
        self.find_getppid()
        self.check_kinst()
        self.setup_s = time.monotonic() - t0
        return self

    def find_getppid(self):
        r = self.vm.run(["dtrace", "-l", "-n", "fbt:kernel:*getppid*:entry"],
                        timeout=120)
        listed = {ln.split()[3] for ln in r.stdout.splitlines()[1:]
                  if len(ln.split()) >= 5}
        self.gp_listed = sorted(listed)
        for f in GETPPID:
            if f in listed:
                self.gp_func = f
                return
        # No fbt probe: the BPF rows still run, on the ISA's usual name.
        self.gp_func = xdtvm.FACTS[self.isa]["bench"]["sys_getppid"]
        why = (f"xdt fbt lists no probe on any of {', '.join(GETPPID)} "
               f"(dtrace -l -n 'fbt:kernel:*getppid*:entry' gave "
               f"{self.gp_listed or 'nothing'}; status {r.status})")
        for v in ("xdt-fbt-entry", "xdt-fbt-return"):
            self.unavailable[f"syscall/{v}"] = why

    def check_kinst(self):
        """The kinst rows' offsets, from what kinst says it does at each
        instruction; a row kinst cannot serve is unavailable with why."""
        k = kinst_listing(self.vm)
        self.offs.update(kinst_offsets(self.isa, self.bench_ko, k["how"]))
        self.kinst_listed = sorted(k["probes"], key=lambda x: int(x)
                                   if x.isdigit() else -1)
        for v, key in KINST.items():
            if key in self.offs:
                continue
            if not k["probes"]:
                why = (f"kinst lists no probe in {TARGET} on this ISA "
                       f"(dtrace -l: status {k['status']}: "
                       f"{k['text'][-200:]})")
            else:
                why = (f"kinst runs no instruction of {TARGET} "
                       + ("in its trap handler" if key == "emul" else
                          "out of line") + " (refused: "
                       + ("; ".join(f"+{o}: {w}" for o, w in
                                    sorted(k["refused"].items()))
                          or "none") + ")")
            self.unavailable[f"kernel/{v}"] = " ".join(why.split())
            # the kprobe rows at the same instruction go with it
            for name, kind, detail in VARIANTS:
                if kind == "bpf" and detail[2] == key:
                    self.unavailable[f"kernel/{name}"] = (
                        f"no {key} offset: " + " ".join(why.split()))

    def stop(self):
        return self.vm.poweroff()

    def command(self, kind, detail, trigger):
        func = TARGET if trigger == "kernel" else self.gp_func
        # The getppid loop runs without a shell: sh calls getppid itself.
        trig, trigvia = (("sh /tmp/trig.sh", "sh /tmp/trig-via.sh")
                         if trigger == "kernel" else
                         (f"/tmp/getppid-loop {self.sn}",
                          f"/tmp/getppid-loop {self.sn} {func}"))
        if trigger == "ucall":
            trig = trigvia = f"{UCALL_BIN} {self.un}"
        if kind == "none":
            return trig
        if kind == "dtrace":
            # dtrace -c holds the loop at its first instruction until the
            # probe is in (docs/d-language.md), so every call is traced and
            # the loop's own clock sees no attach; the aggregation prints
            # when the loop has exited.
            return f"dtrace -n '{detail} {{ @ = count(); }}' -c '{trig}'"
        if kind == "xdt":
            prov, what = detail[:2]
            if prov == "kinst":
                what = self.offs[what][0]
            if prov == "syscall":
                func = SYSCALL
            mode = detail[2] if len(detail) > 2 else "count"
            env = f"XDT_FBTMODE={detail[3]} " if len(detail) > 3 else ""
            return f"{env}xdt-rawprog {mode} {prov} {func} {what} {trig}"
        mech, prog, offkey = detail
        func = SYSCALL_FUNC.get(mech, func)
        if mech in ("uprobe", "uretprobe"):
            func = f"{UCALL_BIN}:{UCALL}"
        elif mech == "usdt":
            func = f"{UCALL_BIN}:{USDT_PROBE[0]}:{USDT_PROBE[1]}"
        a = f"{BPFBENCH} attach --mech {mech} --func {func}"
        if prog:
            a += f" --prog {prog}"
        if offkey:
            a += f" --off {self.offs[offkey][0]}"
        if mech.startswith("kprobe") or mech == "kretprobe":
            trig = trigvia
        return f"{a} -- {trig}"

    def sample(self, trigger, name, kind, detail, rep):
        cmd = self.command(kind, detail, trigger)
        n = {"kernel": self.n, "syscall": self.sn, "ucall": self.un}[trigger]
        script = (f"rm -f /tmp/via; b=$(cat {DBG}/calls); {cmd}; rc=$?; "
                  f"echo \"@@ rc=$rc last_ns=$(cat {DBG}/last_ns) "
                  f"calls=$(( $(cat {DBG}/calls) - b ))\"; "
                  f"cat /tmp/via 2>/dev/null | sed 's/^/@via /'")
        t0 = time.monotonic()
        r = self.vm.run(["sh", "-c", script], timeout=600)
        s = dict(isa=self.isa, boot=self.boot, trigger=trigger,
                 variant=name, rep=rep, n=n, command=cmd, wall_s=round(time.monotonic() - t0, 3),
                 ok=False, unsupported=None, error=None)
        if kind == "xdt" and detail[0] == "kinst":
            s["off"], s["insn"] = self.offs[detail[1]]
        elif kind == "bpf" and detail[2]:
            s["off"], s["insn"] = self.offs[detail[2]]
        out = r.stdout
        tail = [ln for ln in out.splitlines() if ln.startswith("@@ ")]
        if not r.ok or not tail:
            s["error"] = f"agent: {r.how} {r.code}: {out[-500:]} {r.stderr[-500:]}"
            return s
        t = fields(tail[-1])
        rc = int(t["rc"])
        s["last_ns"], s["calls"] = int(t["last_ns"]), int(t["calls"])
        s["exit"] = rc
        if trigger == "syscall":
            gp = [fields(ln) for ln in out.splitlines()
                  if ln.startswith("@gp ")]
            # the loop's own count and time replace the module's
            s["calls"] = int(gp[-1]["n"]) if gp else None
            s["last_ns"] = int(gp[-1]["ns"]) if gp else 0
        if trigger == "ucall":
            uc = [fields(ln) for ln in out.splitlines()
                  if ln.startswith("@uc ")]
            s["calls"] = int(uc[-1]["n"]) if uc else None
            s["last_ns"] = int(uc[-1]["ns"]) if uc else 0
            # ucall_target(i, 1) returns i + 1: a probe that disturbed
            # the registers or the stack would show in the sum.
            s["sum"] = int(uc[-1]["sum"]) if uc else None
            if name in USITE:
                where = USITE[name][0]
                s["site"] = where
                s["uaddr"], s["insn"] = self.usites[where]
        vias = [ln[5:] for ln in out.splitlines() if ln.startswith("@via ")]
        if vias:
            s["kprobes_list"] = vias[0].strip()
        if kind == "bpf":
            line = next((ln for ln in out.splitlines()
                         if ln.startswith("mech=")), "")
            f = fields(line)
            if rc == 3:
                s["unsupported"] = (line.split("unsupported=", 1)[1]
                                    .strip().strip('"') if "unsupported="
                                    in line else line or r.stderr.strip())
                return s
            s.update(via=f.get("via"), jit=f.get("jit"),
                     count=None if f.get("count", "-") == "-" else
                     int(f["count"]), attach_ns=f.get("attach_ns"),
                     detach_ns=f.get("detach_ns"))
            if f.get("uaddr"):
                s["bpf_uaddr"] = int(f["uaddr"], 16)
                s["uoff"] = int(f["uoff"], 16)
            if f.get("sysnr"):
                # raw-tp's filter: the syscall number it compiled in.
                s["sysnr"] = int(f["sysnr"])
                s["via"] = f"{s['via']} (id == {s['sysnr']})"
            if s.get("kprobes_list"):
                kl = s["kprobes_list"]
                s["via_at_trigger"] = ("ftrace" if "[FTRACE]" in kl else
                                       "optprobe" if "[OPTIMIZED]" in kl else
                                       TRAP[self.isa])
            if rc != 0:
                s["error"] = f"xdt-bpfbench exit {rc}: {line} {r.stderr[-400:]}"
                return s
            if prog_counts(detail) and s["count"] != n:
                s["error"] = f"count {s['count']} != N {n}"
                return s
            if "bpf_uaddr" in s and s["bpf_uaddr"] != s.get("uaddr"):
                s["error"] = (f"xdt-bpfbench probed {s['bpf_uaddr']:#x}, "
                              f"the host's binutils put the {s['site']} "
                              f"site at {s.get('uaddr', 0):#x}")
                return s
        elif kind == "dtrace":
            # The aggregation's one line (a lone number) after the loop's
            # own output; stderr has dtrace's "matched N probe(s)".
            m = re.search(r"matched (\d+) probes?", r.stderr)
            s["probes"] = int(m.group(1)) if m else None
            nums = re.findall(r"^\s+(\d+)\s*$", out, re.M)
            s["count"] = int(nums[-1]) if nums else None
            # The pid provider and USDT are uprobes (docs/mechanisms.md).
            s["via"] = "uprobe+ret" if USITE[name][1] else "uprobe"
            if rc != 0:
                s["error"] = (f"dtrace exit {rc}: {out[-300:]} "
                              f"{r.stderr[-500:]}")
                return s
            if s["probes"] != 1:
                s["error"] = (f"dtrace matched {s['probes']} probes, not "
                              f"1: {r.stderr[-300:]}")
                return s
            if s["count"] != n:
                s["error"] = (f"count {s['count']} != N {n}: {out[-200:]} "
                              f"{r.stderr[-200:]}")
                return s
        elif kind == "xdt":
            m = re.search(r"probes (\d+) count (\d+) firings (\d+) traps (\d+)"
                          r" errors (\d+)(?: mech (\S+))?", out)
            if rc != 0 or not m:
                s["error"] = f"xdt-rawprog exit {rc}: {out[-400:]} {r.stderr[-400:]}"
                if detail[0] == "syscall" and "no probe matched" in out:
                    s["error"] = (f"xdt-rawprog: no probe matched syscall::"
                                  f"{SYSCALL}:entry (no syscall provider in "
                                  "this xdt.ko?)")
                return s
            s.update(zip(["probes", "count", "firings", "traps", "errors"],
                         map(int, m.groups()[:5])))
            s["mech"] = m.group(6) or "-"
            # fbt and kinst trap; the syscall provider is called from
            # the raw_syscalls:sys_enter tracepoint and takes no trap.
            sysprov = detail[0] == "syscall"
            s["via"] = ("tracepoint:sys_enter" if sysprov else
                        MECH_VIA.get(s["mech"], TRAP[self.isa]))
            # An empty clause has no aggregation: xdt's own firing counter,
            # which counts BEGIN and END too (test_xdt_kernel.py).
            got = (s["firings"] - 2 if len(detail) > 2 and detail[2] == "empty"
                   else s["count"])
            if got != n or s["errors"]:
                s["error"] = (f"count/firings {got} != N {n} or "
                              f"{s['errors']} errors")
                return s
            # One trap a firing; two for a riscv64 kinst probe run out of
            # line (its slot ends in an ebreak that brings it back); none
            # for the entry mechanisms that call (ftrace, trampolines).
            calls = sysprov or s["mech"] in MECH_VIA
            if s["traps"] not in ((0,) if calls else (n, 2 * n)):
                s["error"] = f"traps {s['traps']} for N {n}"
                return s
        elif rc != 0:
            s["error"] = f"trigger exit {rc}"
            return s
        if s["calls"] != n:
            s["error"] = f"calls {s['calls']} != N {n}"
            return s
        if trigger == "ucall" and s["sum"] != n * (n + 1) // 2:
            s["error"] = (f"the loop's sum {s['sum']} != N(N+1)/2 = "
                          f"{n * (n + 1) // 2}: a probe changed what "
                          f"{UCALL} returned")
            return s
        if s["last_ns"] <= 0:
            s["error"] = "last_ns not positive"
            return s
        s["ok"] = True
        return s


def prog_counts(detail):
    mech, prog = detail[:2]
    return prog == "count" or mech == "kprobe-events"


def build_getppid(isa, bindir):
    return build_static(isa, bindir, "getppid-loop")


def sdt_headers(bindir):
    """systemtap's <sys/sdt.h> and <sys/sdt-config.h> (Debian's
    systemtap-sdt-dev, installed for the host's multiarch directory),
    copied to @bindir/sdt/sys/: the cross compilers do not search the
    host's multiarch include directory, and the rest of it must stay out
    of their way, so the build adds the copy alone with -idirafter.  The
    header is the same text for every ISA.  Returns the directory to pass,
    or raises XdtError saying what is missing."""
    multi = subprocess.run(["gcc", "-print-multiarch"], capture_output=True,
                           text=True).stdout.strip()
    cands = ([os.path.join("/usr/include", multi, "sys")] if multi
             else []) + ["/usr/include/sys"]
    src = next((d for d in cands
                if os.path.isfile(os.path.join(d, "sdt.h")) and
                os.path.isfile(os.path.join(d, "sdt-config.h"))), None)
    if not src:
        raise xdtvm.XdtError("no <sys/sdt.h> on the host (looked in "
                             + ", ".join(cands) + "; Debian package "
                             "systemtap-sdt-dev)")
    inc = os.path.join(bindir, "sdt")
    os.makedirs(os.path.join(inc, "sys"), exist_ok=True)
    for h in ("sdt.h", "sdt-config.h"):
        dst = os.path.join(inc, "sys", h)
        if not _newer(dst, [os.path.join(src, h)]):
            shutil.copy(os.path.join(src, h), dst)
    return inc


def build_ucall(isa, bindir):
    """bench/ucall-loop.c for @isa, static, into @bindir when stale: -O1
    (ucall_target stays a leaf of a few instructions, so a firing's cost
    is the probe's, not the function's) and -fno-omit-frame-pointer, as a
    program built to be profiled is (gcc still sets up no frame in that
    leaf on x86_64 and arm64; riscv64 does)."""
    inc = sdt_headers(bindir)
    out = os.path.join(bindir, f"ucall-loop.{isa}")
    src = os.path.join(TOP, "bench", "ucall-loop.c")
    if not _newer(out, [src, os.path.join(inc, "sys", "sdt.h")]):
        r = subprocess.run([xdtvm.ISAS[isa]["cross"] + "gcc", "-std=c11",
                            "-O1", "-fno-omit-frame-pointer", "-Wall",
                            "-Wextra", "-Werror", "-static", "-idirafter",
                            inc, "-o", out, src], capture_output=True,
                           text=True)
        if r.returncode:
            raise xdtvm.XdtError(f"building {src} for {isa}: {r.stderr}")
    return out


def ucall_sites(isa, path):
    """{"entry": (address, insn), "usdt": (address, insn)} of the ucall
    loop binary at @path: ucall_target's first instruction and the one at
    its USDT note's address, as the host's binutils read them (readelf -n
    for the note, the cross objdump for the instructions).  xdt-bpfbench
    reads the same binary itself in the guest; a sample whose uaddr=
    differs from these is a failure (two readers of one note)."""
    notes = subprocess.run(["readelf", "-n", path], capture_output=True,
                           text=True, check=True).stdout
    loc = None
    for blk in notes.split("stapsdt")[1:]:
        m = re.search(r"Provider: (\S+)\s+Name: (\S+)\s+Location: "
                      r"(0x[0-9a-f]+)", blk)
        if m and (m.group(1), m.group(2)) == USDT_PROBE:
            loc = int(m.group(3), 16)
    if loc is None:
        raise xdtvm.XdtError(f"{path}: readelf -n shows no stapsdt note "
                             f"{USDT_PROBE[0]}:{USDT_PROBE[1]}")
    body = xdtvm.function_body(isa, path, UCALL)
    insns = []
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            insns.append((int(m.group(1), 16),
                          " ".join(m.group(2).split("#")[0].split())))
    site = {"entry": insns[0]}
    at = [i for i in insns if i[0] == loc]
    if not at:
        raise xdtvm.XdtError(f"{path}: the USDT note's address {loc:#x} "
                             f"is not an instruction of {UCALL}:\n{body}")
    site["usdt"] = at[0]
    return site


def build_static(isa, bindir, name):
    """bench/NAME.c, built statically for @isa into @bindir when stale."""
    os.makedirs(bindir, exist_ok=True)
    out = os.path.join(bindir, f"{name}.{isa}")
    src = os.path.join(TOP, "bench", f"{name}.c")
    if not (os.path.exists(out) and
            os.path.getmtime(out) >= os.path.getmtime(src)):
        subprocess.run([xdtvm.ISAS[isa]["cross"] + "gcc", "-std=gnu11", "-O2",
                        "-Wall", "-Wextra", "-Werror", "-static", "-o", out,
                        src], check=True)
    return out


# Here rather than in benchreport.py: benchscale.py's table needs it too, and
# benchreport.py imports benchscale.py.
def final_boots(boots):
    """The last attempt of each (isa, boot)."""
    final = {}
    for b in boots:
        final[(b["isa"], b["boot"])] = b
    return list(final.values())
