#!/usr/bin/env python3
"""xdt's probe-overhead benchmark: `make bench` (bench/README.md).

For each ISA, two boots of the project's Linux 6.1 guest:

1. a TCG timing boot (default SMP): xdt.ko and the bench module loaded,
   every variant (no probe; xdt fbt entry/return and kinst count(), and an
   fbt entry clause with no action; the
   eBPF and ftrace baselines of guest/xdt-bpfbench) attached in turn, on
   two triggers: the bench module's noinline xdt_bench_target, which the
   debugfs trigger calls N times, and getppid(2) called N times from user
   space (bench/getppid-loop.c), probed on the syscall's function, and
   with the syscall trigger only, the syscall itself counted three more
   ways (xdt's syscall::getppid:entry; BPF on the raw tracepoint sys_enter
   filtering on the ISA's __NR_getppid; BPF on the tracepoint
   syscalls:sys_enter_getppid); variants interleaved round-robin
   (shuffled per round, fixed seed), R rounds.
   ns per firing = (median t_variant - median t_none) / N.  Then the
   enable/disable scaling test: N = 1, 100, 1000, 10000 and all fbt entry
   functions, for xdt, kprobe_multi and kprobe_events (bench/README.md).
2. an icount boot (-icount shift=0,sleep=off, one vCPU): guest time is
   guest instructions, so (I_variant - I_none) / N is instructions per
   firing; `none` and `xdt-fbt-entry` run at least three times to show whether
   the counts repeat exactly.

Every sample's firing count is checked (xdt and BPF count == N, the
module's `calls` delta == N); a sample that fails the check is recorded and
left out of the figures.  Mechanisms a kernel lacks (xdt-bpfbench exit 3)
are recorded with their reason.

Output: bench/results/<timestamp>/{results.json,results.csv,scale.csv,
table.md,*.png} and the bench/results/latest symlink.  Exit status 0 when
every sample was good, 1 when some failed (the outputs are written either
way); a scaling cell skipped for the time budget is not a failure.

    bench/run.py [--quick] [--isas x86_64,aarch64,riscv64] [--out DIR]
"""
import argparse
import csv
import json
import os
import random
import re
import statistics
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
]
VARIANT_NAMES = [v[0] for v in VARIANTS]
# The per-ISA mechanism plot (mech-ISA.png): xdt's ways in, then the
# kernel's, entry before return; kernel trigger.
MECH_MATRIX = ["xdt-fbt-entry-bp", "xdt-fbt-entry-ftrace",
               "xdt-fbt-entry-tramp", "xdt-fbt-entry-empty-bp",
               "xdt-fbt-entry-empty", "kprobe", "kprobe-empty", "fentry",
               "kprobe-multi", "xdt-fbt-return", "kretprobe", "fexit"]
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
# xdt's fbt entry mechanisms (rawprog's "mech", -x fbtmode) as a via; the
# breakpoint is the ISA's trap (TRAP).
MECH_VIA = {"ftrace": "ftrace_ops", "trampoline": "xdt-trampoline"}

# Triggers: "kernel" = the bench module's debugfs loop over the noinline
# target; "syscall" = bench/getppid-loop.c, N getppid(2) calls from user
# space, probed at the getppid syscall's function (getppid_function()).
TRIGGERS = ["kernel", "syscall"]
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
           for v in SYSCALL_VARIANTS}}

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
}

SIZES = {
    # n: calls per sample; reps: TCG rounds; icount_reps: icount rounds of
    # every variant (none and xdt-fbt-entry get at least three).
    # sn / icount_sn: getppid calls per syscall-trigger sample.
    # scale: the enable/disable test's N (int, or "all"), its repetitions
    # per N, and its time budget per ISA in seconds (bench/README.md).
    # The getppid loop is long enough (tens of ms) that TCG's scheduling
    # noise does not swamp the cheap mechanisms (10 000 calls gave
    # negative fentry figures).  The quick size too: with 2000 calls the
    # raw tracepoint's ≈ 150-250 ns on aarch64 came out negative in one
    # run of three; 20 000 calls cost ≈ 20 ms more a sample.
    "full": dict(n=50000, reps=5, icount_reps=2, icount_n=20000, sn=50000,
                 icount_sn=20000, scale=[1, 100, 1000, 10000, "all"],
                 scale_reps={1: 3, 100: 2}, scale_budget=200),
    "quick": dict(n=2000, reps=2, icount_reps=1, icount_n=1000, sn=20000,
                  icount_sn=1000, scale=[1, 100], scale_reps={},
                  scale_budget=60),
}


def log(msg):
    print(msg, flush=True)


def first_body_offset(isa, ko):
    return xdtvm.first_body_insn(isa, ko, TARGET)


# What each ISA's kinst emulates in its trap handler (the rest runs out of
# line): arch/<dir>/isa.toml [kinst], from arch/<dir>/kinst_isa.c.
def emulated(isa, mnem):
    """Whether kinst emulates @mnem (arch/<dir>/isa.toml [kinst])."""
    k = xdtvm.FACTS[isa]["kinst"]
    if k.get("strip_prefix") and mnem.startswith(k["strip_prefix"]):
        mnem = mnem[len(k["strip_prefix"]):]
    return mnem in k["emulated"] or \
        any(mnem.startswith(p) for p in k["emulated_prefixes"])


def kinst_offsets(isa, ko):
    """{"emul": (off, insn), "xol": (off, insn)} in xdt_bench_target: the
    first instruction after the entry site that kinst emulates, and the
    multiply at the middle of the function (run out of line); both run
    exactly once per call (the function has no branch)."""
    body = xdtvm.function_body(isa, ko, TARGET)
    start = first_body_offset(isa, ko)[0]
    insns = []
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if not m or int(m.group(1), 16) < start:
            continue
        insns.append((int(m.group(1), 16), m.group(2),
                      " ".join(line.split(":", 1)[1].split("#")[0].split())))
        if m.group(2) in ("ret", "c.jr", "retq"):
            break
    res = {}
    for off, mnem, text in insns:
        if "emul" not in res and emulated(isa, mnem):
            res["emul"] = (off, text)
    xol = [i for i in insns if not emulated(isa, i[1])]
    mul = [i for i in xol if i[1] in ("imul", "mul")]
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
    built here (statically, with the xdt uapi headers), so the bench never
    runs a stale copy from an old initramfs."""
    src = os.path.join(TOP, "guest", "xdt-bpfbench.c")
    deps = [src, os.path.join(TOP, "core", "uapi", "xdt.h")]
    made = os.path.join(xdtvm.build_dir(isa), "xdt-bpfbench")
    if _newer(made, deps):
        return made
    os.makedirs(bindir, exist_ok=True)
    out = os.path.join(bindir, f"xdt-bpfbench.{isa}")
    if not _newer(out, deps):
        subprocess.run([xdtvm.ISAS[isa]["cross"] + "gcc", "-std=c11", "-O2",
                        "-Wall", "-Wextra", "-Werror", "-I",
                        os.path.join(TOP, "core", "uapi"), "-static", "-o",
                        out, src], check=True)
    return out


class Bench:
    """One booted guest with xdt.ko and xdt_bench.ko loaded."""

    def __init__(self, isa, icount, n, sn, logdir, bindir):
        self.isa, self.icount, self.n, self.sn = isa, icount, n, sn
        self.gp_bin = build_getppid(isa, bindir)
        self.bpfbench = guest_tool(isa, bindir)
        self.boot = "icount" if icount else "tcg"
        b = xdtvm.build_dir(isa)
        self.xdt_ko = os.path.join(b, "xdt", "xdt.ko")
        self.bench_ko = os.path.join(b, "modules", "xdt_bench",
                                     "xdt_bench.ko")
        for f in (self.xdt_ko, self.bench_ko):
            if not os.path.isfile(f):
                raise SystemExit(f"{f} missing (run: make all)")
        self.off, self.off_insn = first_body_offset(isa, self.bench_ko)
        self.offs = {"body": (self.off, self.off_insn),
                     **kinst_offsets(isa, self.bench_ko)}
        self.vm = xdtvm.VM(isa, icount=icount, logdir=logdir)
        self.unsupported = {}
        # "trigger/variant" -> why it cannot be measured in this boot
        # (kinst missing, no fbt probe on the getppid function, ...).
        self.unavailable = {}
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
        """Are kinst's probes there, at the offsets the rows use?"""
        r = self.vm.run(["dtrace", "-l", "-v", "-n",
                         f"kinst::{TARGET}:"], timeout=120)
        probes, refused, how, name = set(), {}, {}, None
        for ln in r.stdout.splitlines()[1:]:
            # kinst says how each runs its instruction (its listing's
            # Insertion Mechanisms: "breakpoint; emulated" / "... out of line")
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
        self.kinst_listed = sorted(probes, key=lambda x: int(x)
                                   if x.isdigit() else -1)
        for v, key in KINST.items():
            off, insn = self.offs[key]
            if not probes:
                why = ("kinst lists no probe in "
                       f"{TARGET} on this ISA (dtrace -l: status "
                       f"{r.status}: {(r.stdout + r.stderr).strip()[-200:]})")
            elif str(off) not in probes:
                why = (f"kinst has no probe at offset {off} (`{insn}`): "
                       + refused.get(str(off), "not listed"))
            elif how.get(str(off)) != ("emulated" if key == "emul"
                                       else "out of line"):
                # the row's premise, from the kernel (arch/<dir>/isa.toml's
                # [kinst] list chose the offset and could be stale)
                why = (f"kinst runs `{insn}` at offset {off} "
                       f"{how.get(str(off), 'in a way it does not say')}, "
                       f"not as this row assumes")
            else:
                continue
            self.unavailable[f"kernel/{v}"] = " ".join(why.split())

    def stop(self):
        return self.vm.poweroff()

    def command(self, kind, detail, trigger):
        func = TARGET if trigger == "kernel" else self.gp_func
        # The getppid loop runs without a shell: sh calls getppid itself.
        trig, trigvia = (("sh /tmp/trig.sh", "sh /tmp/trig-via.sh")
                         if trigger == "kernel" else
                         (f"/tmp/getppid-loop {self.sn}",
                          f"/tmp/getppid-loop {self.sn} {func}"))
        if kind == "none":
            return trig
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
        n = self.n if trigger == "kernel" else self.sn
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


# ---- enable/disable scaling --------------------------------------------

# xdt once per insertion mechanism (-x fbtmode, through xdt-bpfbench's
# XDT_FBTMODE): what a mechanism costs to put in and take out is half of
# what a researcher compares them by (docs/mechanisms.md).
XDT_SCALE_MODES = {"xdt": None, "xdt-ftrace": "ftrace",
                   "xdt-tramp": "trampoline"}
SCALE_MECHS = ["xdt", "xdt-ftrace", "xdt-tramp", "kprobe-multi",
               "kprobe-events"]


def is_xdt(mech):
    return mech in XDT_SCALE_MODES


SCALE_DESCR = {
    "xdt": "xdt fbt entry, count() (default: breakpoint)",
    "xdt-ftrace": "xdt fbt entry, count(), -x fbtmode=ftrace",
    "xdt-tramp": "xdt fbt entry, count(), -x fbtmode=trampoline",
    "kprobe-multi": "kprobe_multi + BPF count",
    "kprobe-events": "kprobe_events (tracefs)",
}
SCALE_PHASES = {
    "xdt": "ENABLE ioctl (check + bind) + GO (patch) / STOP (unpatch, "
           "synchronize_rcu) + close (free)",
    "xdt-ftrace": "as xdt; GO / STOP set the ftrace_ops filter and "
                  "(un)register it",
    "xdt-tramp": "as xdt; GO / STOP write the trampoline calls (x86_64: "
                 "ftrace direct-call groups, at most XDT_TRAMP_MAX = 7680 "
                 "functions, the rest breakpoints)",
    "kprobe-multi": "BPF_LINK_CREATE / close(link) (program load not "
                    "included)",
    "kprobe-events": "`p:` lines into kprobe_events + group enable / group "
                     "disable + `-:` lines",
}
PHASE_KEYS = {"xdt": ["enable_ns", "go_ns", "stop_ns", "free_ns"],
              "xdt-ftrace": ["enable_ns", "go_ns", "stop_ns", "free_ns"],
              "xdt-tramp": ["enable_ns", "go_ns", "stop_ns", "free_ns"],
              "kprobe-events": ["define_ns", "arm_ns", "disarm_ns",
                                "remove_ns"],
              "kprobe-multi": []}
# xdt's "all": one glob clause, as a D user writes it.
XDT_ALL = "fbt:kernel::entry"
# kprobe_multi on thousands of functions (most of them hot: the list is
# sorted by name, and the first ones are __-prefixed core helpers) wedges
# the TCG guest now and then; the cells that did are skipped unless asked.
KMULTI_BIG = 10000
KMULTI_BIG_WHY = (
    "skipped: kprobe_multi on this many functions can wedge the TCG guest "
    "(x86_64: N = 10000 took 2-5 s in 3 runs and in a 4th the guest went "
    "silent, no console output, agent gone; every function (14685): the "
    "link was made, then close() sat in unregister_fprobe -> "
    "text_poke_bp_batch waiting for the other vCPU for over 8 min under "
    "RCU stalls); --scale-kmulti-big tries it (bench/README.md)")
# The same on x86_64 for xdt's ftrace mode over every function: an
# ftrace_ops on all of them, patched by text_poke_bp batches.
FTRACE_ALL_WHY = (
    "skipped: -x fbtmode=ftrace on every function (fbt:kernel::entry) "
    "left the x86_64 TCG guest silent, no console output, for over 6 min "
    "(2026-11-26, twice), as kprobe_multi on every function does; 10000 "
    "functions take 3 s; --scale-kmulti-big tries it too (bench/README.md)")


def scale_functions(vm):
    """The scaling test's function list: xdt fbt entry probes (vmlinux)
    that are also in available_filter_functions (so kprobe_multi can take
    them), have a kallsyms name of their own (kprobe_events refuses an
    ambiguous name; fbt names an address after its first symbol) and are
    not on the kprobe blacklist; sorted by name."""
    r = vm.run(["dtrace", "-l", "-n", "fbt:kernel::entry"], timeout=300,
               check=True)
    fbt = {ln.split()[3] for ln in r.stdout.splitlines()[1:]
           if len(ln.split()) >= 5}
    aff = {ln.strip() for ln in vm.run(
        ["cat", f"{TRACEFS}/available_filter_functions"], timeout=120,
        check=True).stdout.splitlines() if ln.strip() and " [" not in ln}
    count = {}
    for ln in vm.run(["cat", "/proc/kallsyms"], timeout=120,
                     check=True).stdout.splitlines():
        f = ln.split()
        if len(f) == 3 and f[1] in "tT":
            count[f[2]] = count.get(f[2], 0) + 1
    bl = {ln.split()[1] for ln in vm.run(
        ["cat", "/sys/kernel/debug/kprobes/blacklist"],
        timeout=60).stdout.splitlines() if len(ln.split()) > 1}
    both = fbt & aff
    cand = sorted(f for f in both if count.get(f) == 1 and f not in bl)
    return cand, dict(fbt_entry=len(fbt), ftrace=len(aff), both=len(both),
                      ambiguous=sum(1 for f in both if count.get(f, 0) != 1),
                      blacklisted=len(both & bl), candidates=len(cand))


def scale_phase(b, size, seed, tag, budget, kmulti_big):
    """Enable/disable time for N functions, per mechanism, in boot @b.
    Returns (cells, info); a cell is one measurement, or a skip with its
    reason."""
    t0 = time.monotonic()
    cells, last = [], {}
    try:
        cand, info = scale_functions(b.vm)
    except xdtvm.XdtError as e:
        return [dict(isa=b.isa, mech=m, n=n, rep=0, ok=False,
                     error="listing the functions failed: "
                     + " ".join(str(e).split())[-600:])
                for m in SCALE_MECHS for n in size["scale"]], {}
    log(f"{tag} scaling: {info['candidates']} candidate functions "
        f"({info['fbt_entry']} fbt entry, {info['ftrace']} ftrace, "
        f"{info['ambiguous']} ambiguous names, {info['blacklisted']} "
        f"blacklisted); budget {budget} s")
    for n in size["scale"]:
        if n != "all" and n <= len(cand):
            b.vm.put("\n".join(cand[:n]) + "\n", f"/tmp/scale-{n}")
    if "all" in size["scale"]:
        b.vm.put("\n".join(cand) + "\n", "/tmp/scale-all")
    rng = random.Random(seed + 1)
    decided, stopped = {}, None

    def probes_of(n, mech):
        if n == "all":
            return info["fbt_entry"] if is_xdt(mech) else len(cand)
        return n

    def skip_reason(mech, n):
        if stopped:
            return f"not run: the scaling test stopped after {stopped}"
        if "unsupported" in decided.get(mech, {}):
            return None
        if n != "all" and n > len(cand):
            return (f"skipped: only {len(cand)} functions qualify on this "
                    "kernel")
        if mech == "kprobe-multi" and not kmulti_big and \
                (n == "all" or n >= KMULTI_BIG):
            return KMULTI_BIG_WHY
        if mech == "xdt-ftrace" and n == "all" and b.isa == "x86_64" and \
                not kmulti_big:
            return FTRACE_ALL_WHY
        p = probes_of(n, mech)
        prev = last.get(mech)
        if not prev:
            return None
        if is_xdt(mech) and n == "all":
            # One glob clause: one pass of bind, then patching p sites.
            pred = (prev["wall_s"] - prev["enable_s"]) * p / prev["n"] \
                + prev["enable_s"] / prev["n"]
        else:
            pred = prev["wall_s"] * p / prev["n"]
        left = budget - (time.monotonic() - t0)
        # The linear prediction overshoots where fixed costs weigh on the
        # smaller N (the cost per probe can fall with N), so a cell runs
        # unless it needs more than twice what is left; the time left
        # still bounds it (the cell's timeout).
        if prev["n"] >= 10 and (pred > 2 * left or left < 5):
            return (f"skipped: predicted ≈ {pred:.0f} s (linear from "
                    f"{prev['wall_s']:.1f} s at N = {prev['n']}), over "
                    f"twice the {max(0, left):.0f} s left of the {budget} "
                    "s scaling budget per ISA")
        return None

    # Every cell of N <= 100 first (mechanisms shuffled per repetition),
    # then the big N of xdt and kprobe_multi, then kprobe_events' big N,
    # the slowest: what the budget cuts short is then the most costly;
    # kprobe_multi's risky sizes (--scale-kmulti-big) come last of all.
    plan = []
    for n in size["scale"]:
        for rep in range(size["scale_reps"].get(n, 1)):
            order = list(SCALE_MECHS)
            rng.shuffle(order)
            plan.extend((n, rep, m) for m in order)
    plan.sort(key=lambda p: 0 if p[0] != "all" and p[0] <= 100 else
              2 if p[2] == "kprobe-events" else
              3 if p[2] == "kprobe-multi" and (p[0] == "all" or
                                               p[0] >= KMULTI_BIG) else 1)
    for n, rep, mech in plan:
        key = f"{mech}/{n}"
        c = dict(isa=b.isa, mech=mech, n=n, rep=rep, ok=False,
                 error=None, unsupported=None, skipped=None)
        uns = decided.get(mech, {}).get("unsupported")
        if uns:
            if rep == 0:
                c["unsupported"] = uns
                cells.append(c)
            continue
        why = decided.get(key) or skip_reason(mech, n)
        if why:
            if key not in decided:
                decided[key] = why
                c["skipped"] = why
                cells.append(c)
                log(f"{tag} scale {mech} N={n}: {why}")
            continue
        # The rest of the budget (and some slack) bounds the cell:
        # past it the agent kills the command; the kprobe_events
        # writes are one per probe, so it dies between two.
        left = budget - (time.monotonic() - t0)
        tmo = int(max(60, left + 30))
        prev = last.get(mech)
        fa = (XDT_ALL if is_xdt(mech) and n == "all"
              else f"@/tmp/scale-{n}")
        cmd = [BPFBENCH, "attach", "--mech", "xdt" if is_xdt(mech) else mech]
        if XDT_SCALE_MODES.get(mech):
            cmd = ["env", f"XDT_FBTMODE={XDT_SCALE_MODES[mech]}"] + cmd
        if mech == "kprobe-multi":
            cmd += ["--prog", "count"]
        cmd += ["--func", fa, "--", "true"]
        c["command"] = " ".join(cmd)
        ts = time.monotonic()
        try:
            r = b.vm.run(cmd, timeout=tmo)
        except xdtvm.XdtError as e:
            c["wall_s"] = round(time.monotonic() - ts, 2)
            c["error"] = "guest: " + " ".join(str(e).split())[:1500]
            stopped = f"{mech} N = {n} ({c['error'][:120]} …)"
            cells.append(c)
            log(f"{tag} scale {mech} N={n}: FAILED: {c['error'][:300]}")
            continue
        c["wall_s"] = round(time.monotonic() - ts, 2)
        line = next((ln for ln in r.stdout.splitlines()
                     if ln.startswith("mech=")), "")
        f = fields(line)
        if r.status == 3:
            uns = (line.split("unsupported=", 1)[1].strip().strip('"')
                   if "unsupported=" in line else r.stderr.strip())
            decided.setdefault(mech, {})["unsupported"] = uns
            c["unsupported"] = uns
            cells.append(c)
            log(f"{tag} scale {mech}: unsupported: {uns}")
            continue
        if r.timed_out:
            # Not a failure: the cell outran its time budget.
            c["skipped"] = (f"stopped: not finished after {tmo} s, "
                            "the rest of the scaling budget (the "
                            "command was killed)")
            stopped = (f"{mech} N = {n} outran the budget (killed "
                       f"after {tmo} s)")
            decided[key] = c["skipped"]
            cells.append(c)
            log(f"{tag} scale {mech} N={n}: {c['skipped']}")
            continue
        if not r.ok or "attach_ns" not in f:
            c["error"] = (f"{r.how} {r.code}: {r.stdout[-300:]} "
                          f"{r.stderr[-500:]}")
            cells.append(c)
            log(f"{tag} scale {mech} N={n}: FAILED: {c['error'][:300]}")
            continue
        c.update(nprobes=int(f["nprobes"]),
                 attach_ns=int(f["attach_ns"]),
                 detach_ns=int(f["detach_ns"]),
                 load_ns=int(f.get("load_ns", 0)),
                 count=None if f.get("count", "-") == "-" else
                 int(f["count"]), via=f.get("via"),
                 phases={k: int(f[k]) for k in PHASE_KEYS[mech]
                         if k in f})
        want = probes_of(n, mech) if n != "all" or not is_xdt(mech) \
            else None
        if want is not None and c["nprobes"] != want:
            c["error"] = f"{c['nprobes']} probes attached, not {want}"
        elif c["attach_ns"] <= 0 or c["detach_ns"] <= 0:
            c["error"] = "attach/detach time not positive"
        else:
            c["ok"] = True
        cells.append(c)
        if c["ok"]:
            enable = c["phases"].get("enable_ns", 0) / 1e9
            if not prev or c["nprobes"] >= prev["n"]:
                last[mech] = dict(n=c["nprobes"], wall_s=c["wall_s"],
                                  enable_s=enable)
            log(f"{tag} scale {mech} N={n}: {c['nprobes']} probes, "
                f"enable {c['attach_ns'] / 1e6:.1f} ms, disable "
                f"{c['detach_ns'] / 1e6:.1f} ms ({c['wall_s']:.1f} s)")
        else:
            log(f"{tag} scale {mech} N={n}: FAILED: {c['error']}")
    info["wall_s"] = round(time.monotonic() - t0, 1)
    info["budget_s"] = budget
    return cells, info


def run_boot(isa, icount, size, logdir, samples, seed, triggers,
             scale=None, variants=None):
    n = size["icount_n"] if icount else size["n"]
    sn = size["icount_sn"] if icount else size["sn"]
    reps = size["icount_reps"] if icount else size["reps"]
    tag = f"[{isa} {'icount' if icount else 'tcg'}]"
    log(f"{tag} booting (N={n}, getppid N={sn}, rounds={reps})")
    b = Bench(isa, icount, n, sn, logdir,
              os.path.join(os.path.dirname(logdir), "bin"))
    t0 = time.monotonic()
    b.start()
    log(f"{tag} booted and modules loaded in {b.setup_s:.1f} s; kprobe-off "
        f"at +{b.off:#x} ({' '.join(b.off_insn.split())}); kinst/kprobe "
        f"emulated at +{b.offs['emul'][0]:#x} ({b.offs['emul'][1]}), out "
        f"of line at +{b.offs['xol'][0]:#x} ({b.offs['xol'][1]}); getppid "
        f"probed at {b.gp_func}; clocksource {b.clocksource}")
    for k, why in sorted(b.unavailable.items()):
        log(f"{tag} {k}: unavailable: {why}")
    rng = random.Random(seed)
    rounds = []
    every = [(t, *v) for t in triggers for v in VARIANTS
             if (t, v[0]) not in SKIP and
             (variants is None or v[0] in variants)]
    for rep in range(reps):
        order = list(every)
        rng.shuffle(order)
        rounds.append(order)
    # The baseline is subtracted from every figure of its trigger, so
    # `none` (and the reference, xdt fbt entry) get at least three
    # samples: the median then survives one outlier.  Two x86_64 getppid
    # loops of the same binary once differed by 10 % (4.66 M vs 5.16 M
    # instructions: deferred work in a timer tick that landed in one);
    # on a busy host one TCG `none` sample of the quick size's two was
    # tens of ms slow, and the mean of two (their median) made every
    # figure of that trigger negative.
    for _ in range(max(0, 3 - reps)):
        rounds.append([v for v in every
                       if v[1] in ("none", "xdt-fbt-entry")])
    failures = 0
    try:
        for rep, order in enumerate(rounds):
            for trigger, name, kind, detail in order:
                if f"{trigger}/{name}" in b.unsupported or \
                        f"{trigger}/{name}" in b.unavailable:
                    continue
                s = b.sample(trigger, name, kind, detail, rep)
                samples.append(s)
                if s["unsupported"]:
                    b.unsupported[f"{trigger}/{name}"] = s["unsupported"]
                    what = f"unsupported: {s['unsupported']}"
                elif not s["ok"]:
                    failures += 1
                    what = f"FAILED: {s['error']}"
                else:
                    what = f"{s['last_ns']} {'insns' if icount else 'ns'}"
                    if "count" in s and s["count"] is not None:
                        what += f", count {s['count']}"
                    if "traps" in s:
                        what += f", traps {s['traps']}"
                    if s.get("via"):
                        what += f", via {s.get('via_at_trigger') or s['via']}"
                log(f"{tag} round {rep + 1}/{len(rounds)} {trigger} {name}: {what} "
                    f"({s['wall_s']:.1f} s)")
        cells, info = [], {}
        if scale:
            cells, info = scale_phase(b, size, seed, tag, scale["budget"],
                                      scale["kmulti_big"])
    finally:
        clean = b.stop()
    wall = time.monotonic() - t0
    log(f"{tag} done in {wall:.0f} s{'' if clean else ' (unclean poweroff)'}")
    return dict(isa=isa, boot="icount" if icount else "tcg", n=n, sn=sn,
                getppid_func=b.gp_func, getppid_listed=b.gp_listed,
                triggers=triggers, offs=b.offs, kinst_listed=b.kinst_listed,
                unavailable=b.unavailable, scale=cells, scale_info=info,
                scale_failures=sum(1 for c in cells if c.get("error")),
                rounds=len(rounds), wall_s=round(wall, 1),
                setup_s=round(b.setup_s, 1), off=b.off, off_insn=b.off_insn,
                clocksource=b.clocksource,
                unsupported=b.unsupported, clean_poweroff=clean,
                failures=failures, console=b.vm.console_path)


# ---- figures ----------------------------------------------------------

def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def per_firing(good, key, fig):
    """Samples grouped by variant (each with its loop's "n" and "last_ns"),
    "none" among them: each variant's cost per firing over the median of
    "none", as fig(variant)[key] with its spread (_min, _max, _q1, _q3),
    _samples and _raw.  Yields (variant, samples, loop times)."""
    base = statistics.median(x["last_ns"] for x in good["none"])
    for v, ss in good.items():
        n = ss[0]["n"]
        t = [x["last_ns"] for x in ss]
        per = [(x - base) / n for x in t]
        f = fig(v)
        f[key] = (statistics.median(t) - base) / n
        f[key + "_min"], f[key + "_max"] = min(per), max(per)
        f[key + "_q1"], f[key + "_q3"] = quartiles(per)
        f[key + "_samples"] = len(ss)
        f[key + "_raw"] = t
        yield v, ss, t


def figures(samples, boots):
    """{(isa, trigger, variant): {...}} from the good samples."""
    out = {}
    for isa, trig, boot in sorted({(s["isa"], s["trigger"], s["boot"])
                                   for s in samples}):
            good = {}
            for s in samples:
                if (s["isa"], s["trigger"], s["boot"]) == (isa, trig, boot) \
                        and s["ok"]:
                    good.setdefault(s["variant"], []).append(s)
            if "none" not in good:
                continue
            key = "ns" if boot == "tcg" else "insns"
            for v, ss, t in per_firing(
                    good, key, lambda v: out.setdefault((isa, trig, v), {})):
                f = out[(isa, trig, v)]
                n = ss[0]["n"]
                if boot == "icount" and len(t) > 1:
                    f["icount_spread"] = max(t) - min(t)
                if boot == "tcg":
                    f["loop_ns_per_call"] = statistics.median(t) / n
                tr = [x["traps"] / x["n"] for x in ss if "traps" in x]
                if tr:
                    f["traps"] = statistics.median(tr)
                via = [x.get("via_at_trigger") or x.get("via") for x in ss
                       if x.get("via")]
                if via:
                    f.setdefault("via", sorted(set(via)))
                jit = {x.get("jit") for x in ss if x.get("jit") not in
                       (None, "-")}
                if jit:
                    f["jit"] = sorted(jit)
    for isa, trig in {k[:2] for k in out}:
        ref = out.get((isa, trig, "xdt-fbt-entry"), {})
        for v in VARIANT_NAMES:
            f = out.get((isa, trig, v))
            if not f:
                continue
            # kprobe at a kinst offset: also against xdt kinst there.
            kref = out.get((isa, trig, "xdt-kinst-" + v.split("-")[-1]), {}) \
                if v in ("kprobe-off-emul", "kprobe-off-xol") else {}
            for key in ("ns", "insns"):
                if key in f and ref.get(key):
                    f[key + "_ratio"] = f[key] / ref[key]
                if key in f and kref.get(key):
                    f[key + "_kinst_ratio"] = f[key] / kref[key]
    return out


def scale_figures(cells):
    """{(isa, mech, n): {...}} from the good scaling cells."""
    out = {}
    for c in cells:
        if not c.get("ok"):
            continue
        out.setdefault((c["isa"], c["mech"], c["n"]), []).append(c)
    figs = {}
    for k, cs in out.items():
        att = [c["attach_ns"] / 1e6 for c in cs]
        det = [c["detach_ns"] / 1e6 for c in cs]
        p = statistics.median(c["nprobes"] for c in cs)
        f = dict(nprobes=int(p), samples=len(cs),
                 enable_ms=statistics.median(att), enable_min=min(att),
                 enable_max=max(att), disable_ms=statistics.median(det),
                 disable_min=min(det), disable_max=max(det))
        f["enable_us_per_probe"] = f["enable_ms"] * 1000 / p
        f["disable_us_per_probe"] = f["disable_ms"] * 1000 / p
        f["phases_ms"] = {ph: statistics.median(c["phases"][ph] for c in cs)
                          / 1e6 for ph in cs[0].get("phases", {})}
        figs[k] = f
    return figs


def structural_traps(isa, variant, via):
    """Traps per firing of the kernel's own mechanisms, from the 6.1 source
    (kprobe single-step slots) and the `via` the attachment reported."""
    if variant in ("none",):
        return "0"
    if variant in ("fentry", "fexit", "kprobe-multi"):
        return "0 (ftrace call)"
    if variant in ("raw-tp", "tracepoint"):
        # kernel/entry/common.c syscall_trace_enter() (arm64:
        # arch/arm64/kernel/ptrace.c): trace_sys_enter() calls the
        # tracepoint's probes, no exception.
        return "0 (tracepoint call)"
    v = (via or [""])[0].replace("+ret", "")
    if variant.startswith("xdt-"):
        return "?"
    if v == "ftrace":
        return "0 (ftrace call)"
    if v == "optprobe":
        return "0 (jump-optimised)"
    if variant == "kprobe-off-emul":
        # The kprobe simulates these instead of single-stepping them:
        # x86 prepare_emulation() (ret/jmp/call/jcc/loop), arm64
        # simulate_* (branches, adr/adrp, ldr literal), riscv64
        # simulate_* (jal, jalr, auipc, branches) in 6.1.
        return f"1 ({v}; the kprobe simulates the insn)"
    if v == TRAP[isa]:
        # the kprobe's single-step slot (arch/<dir>/isa.toml [bench])
        return xdtvm.FACTS[isa]["bench"]["kprobe_traps"]
    return "?"


def fmt(x, nd=0):
    if x is None:
        return "–"
    return f"{x:.{nd}f}"


def final_boots(boots):
    """The last attempt of each (isa, boot)."""
    final = {}
    for b in boots:
        final[(b["isa"], b["boot"])] = b
    return list(final.values())


def scale_cells(boots):
    return [c for b in final_boots(boots) for c in b.get("scale", [])]


def write_outputs(outdir, meta, samples, boots, discarded=()):
    os.makedirs(outdir, exist_ok=True)
    figs = figures(samples, boots)
    cells = scale_cells(boots)
    sfigs = scale_figures(cells)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, boots=boots, samples=samples,
                       discarded_samples=list(discarded),
                       figures={"/".join(k): v for k, v in figs.items()},
                       scale_figures={f"{i}/{m}/{n}": v for (i, m, n), v
                                      in sfigs.items()}),
                  f, indent=1)
    cols = ["isa", "boot", "trigger", "variant", "rep", "n", "ok", "unsupported",
            "error", "last_ns", "calls", "count", "probes", "firings",
            "traps", "errors", "off", "insn", "via", "via_at_trigger", "jit",
            "sysnr",
            "attach_ns", "detach_ns", "exit", "wall_s", "command"]
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for s in samples:
            w.writerow(s)
    cols = ["isa", "mech", "n", "rep", "ok", "skipped", "unsupported",
            "error", "nprobes", "attach_ns", "detach_ns", "load_ns",
            "enable_ns", "go_ns", "stop_ns", "free_ns", "define_ns",
            "arm_ns", "disarm_ns", "remove_ns", "count", "via", "wall_s",
            "command"]
    with open(os.path.join(outdir, "scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for c in cells:
            w.writerow({**c, **c.get("phases", {})})
    plots = make_plots(outdir, figs, meta["isas"], sfigs)
    table = make_table(meta, figs, boots, plots, sfigs,
                       sample_errors(samples, boots))
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(table)
    return figs, table


TRIGGER_TEXT = {
    "kernel": ("In-kernel trigger: the bench module's debugfs loop calls the "
               "noinline `xdt_bench_target` N times (no syscall in the "
               "measured loop). The kinst rows probe one instruction "
               "inside it, and the kprobe rows after them the same "
               "instruction (offsets per ISA in the boot list above)."),
    "syscall": ("Syscall trigger: `bench/getppid-loop.c` calls getppid(2) N "
                "times from user space through syscall(2) (CLOCK_MONOTONIC "
                "around the loop; run without a shell, which would call "
                "getppid itself); xdt and every baseline probe the same "
                "function ({funcs}): the first of "
                + ", ".join(f"`{g}`" for g in GETPPID) + " that xdt's fbt "
                "lists. The last three rows count the syscall itself "
                "instead: xdt's `syscall::getppid:entry` (its syscall "
                "provider, fired from the raw_syscalls:sys_enter "
                "tracepoint), a BPF_PROG_TYPE_RAW_TRACEPOINT program on "
                "sys_enter that counts when the id argument is the ISA's "
                "`__NR_getppid` (the number is in via), and a "
                "BPF_PROG_TYPE_TRACEPOINT program on the perf event "
                "`syscalls:sys_enter_getppid`. The figure includes the "
                "user/kernel transitions' interaction with the probe, the "
                "realistic case."),
}


def boot_line(b):
    offs = b.get("offs") or {}
    kin = ""
    if offs.get("emul"):
        kin = (f", kinst/kprobe insns: emulated +{offs['emul'][0]:#x} "
               f"(`{offs['emul'][1]}`), out of line +{offs['xol'][0]:#x} "
               f"(`{offs['xol'][1]}`)")
    sc = ""
    if b.get("scale_info"):
        si = b["scale_info"]
        sc = (f", scaling test {si.get('wall_s', 0):.0f} s of a "
              f"{si.get('budget_s', '?')} s budget")
    return (f"- {b['isa']} {b['boot']} boot: N = {b['n']} (getppid "
            f"N = {b.get('sn', '–')}, probed at "
            f"`{b.get('getppid_func') or '–'}`), {b['rounds']} rounds, "
            f"{b['wall_s']:.0f} s wall (boot + load {b['setup_s']:.0f}"
            f" s), kprobe-off at +{b['off']:#x} "
            f"(`{' '.join(b['off_insn'].split())}`){kin}{sc}, clocksource "
            f"{b.get('clocksource', '?')}"
            + (f", **{b['failures']} failed samples**"
               if b['failures'] else "")
            + (f", **{b['scale_failures']} failed scaling cells**"
               if b.get('scale_failures') else "")
            + (f", **boot {b.get('attempt', 1)} failed** (retried "
               "once; its samples are set aside in results.json): "
               + " ".join(b['error'].split())[:160] + " … "
               + next((ln.strip() for ln in b['error'].splitlines()
                       if "unhandled signal" in ln or "panic" in ln
                       or "Oops" in ln), "")
               if b.get('error') else ""))


def sample_errors(samples, boots):
    """{(isa, trigger, variant): the first error} of the final boots'
    failed samples, so a row with no good sample says why."""
    final = {(b["isa"], b["boot"]) for b in final_boots(boots)
             if not b.get("error")}
    errs = {}
    for s in samples:
        if s.get("error") and (s["isa"], s["boot"]) in final:
            errs.setdefault((s["isa"], s["trigger"], s["variant"]),
                            " ".join(s["error"].split()))
    return errs


def make_table(meta, figs, boots, plots, sfigs=None, errs=None):
    errs = errs or {}
    L = []
    L.append(f"# xdt probe overhead, {meta['started']} ({meta['size']} "
             f"size)\n")
    L.append("ns/firing = (median loop time with the variant − median "
             "without) / N, TCG boot; spread = min–max of the per-sample "
             "figure over the rounds (the host is shared and TCG time is "
             "noisy: read the spread). instructions/firing: the same from "
             "a `-icount shift=0,sleep=off` boot (guest clock = instruction "
             "count; the loop's time includes any interrupt that lands in "
             "it, and the clocksource (listed per boot) bounds the "
             "resolution: x86 TSC 1 insn, arm64 generic timer 62.5 MHz = "
             "16 insns, riscv64 virt timebase 10 MHz = 100 insns). ratio = "
             "this ÷ xdt fbt entry, same boot and trigger (< 1: cheaper "
             "than xdt). traps/firing: xdt measured by its own counter; "
             "the kernel's mechanisms structural, from the 6.1 source and "
             "the attachment the kernel reported (kprobes/list read at "
             "trigger time, so an x86 optprobe shows as optimised). "
             "via: (JIT) / (interpreted) is the BPF program's own "
             "jited_prog_len.\n")
    for b in boots:
        L.append(boot_line(b))
    L.append(f"- total wall time {meta.get('wall_s', 0):.0f} s\n")
    fb = final_boots(boots)
    funcs = ", ".join(f"{b['isa']}: `{b.get('getppid_func')}`" for b in fb
                      if b["boot"] == "tcg" and b.get("getppid_func"))
    for trig in meta.get("triggers", ["kernel"]):
        L.append(f"## Trigger: {trig}\n")
        L.append(TRIGGER_TEXT[trig].format(funcs=funcs) + "\n")
        L.append("| mechanism | ISA | via | ns/firing (TCG) [min–max] | "
                 "ratio to xdt fbt entry (TCG) | instructions/firing "
                 "(icount) | icount repeats identical | ratio to xdt fbt "
                 "entry (insns) | traps/firing |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for v in meta.get("variants") or VARIANT_NAMES:
            for isa in meta["isas"]:
                L.append(table_row(trig, v, isa, figs, boots, errs))
        L.append("")
        if trig == "kernel" and set(meta.get("variants") or
                                    VARIANT_NAMES) & set(KINST):
            L.extend(kinst_table(meta, figs, boots))
        if trig == "syscall":
            L.extend(syscall_table(meta, figs, boots, errs))
    L.extend(goal_table(meta, figs))
    if meta.get("scale"):
        L.extend(scale_table(meta, sfigs or {}, boots))
    L.append("## Published real-hardware anchor (context, not measured "
             "here)\n")
    L.append("| source | FreeBSD DTrace fbt | bpftrace kprobe |\n"
             "|---|---|---|\n| Xeon Gold 6226R, Piotrowski, AsiaBSDCon "
             "2024 | ≈ 280 ns/firing | ≈ 56 ns/firing |\n")
    if plots:
        L.append("Plots: " + ", ".join(f"`{p}`" for p in plots) + "\n")
    else:
        L.append("Plots: not generated (python3-matplotlib is not "
                 "installed on the host).\n")
    return "\n".join(L) + "\n"


def row_reason(trig, v, isa, boots):
    """Why (trig, v) has no figure on @isa by design, or None."""
    reason = SKIP.get((trig, v))
    for b in final_boots(boots):
        if b["isa"] != isa:
            continue
        if f"{trig}/{v}" in b.get("unavailable", {}):
            reason = "unavailable: " + b["unavailable"][f"{trig}/{v}"]
        if f"{trig}/{v}" in b["unsupported"]:
            reason = "unsupported: " + b["unsupported"][f"{trig}/{v}"]
    return reason


def failed_cell(err):
    """The cell of a row with no good sample: FAILED and the first error
    (table cells cannot hold a bar)."""
    if not err:
        return "no good sample (FAILED)"
    err = err.replace("|", "/")
    return ("no good sample (FAILED: " + (err[:200] + " …" if len(err) > 200
                                          else err) + ")")


def table_row(trig, v, isa, figs, boots, errs=None):
    f = figs.get((isa, trig, v))
    reason = row_reason(trig, v, isa, boots)
    if reason and not f:
        return f"| {DESCR[v]} | {isa} | – | {reason} | | | | | |"
    if not f:
        err = (errs or {}).get((isa, trig, v))
        return f"| {DESCR[v]} | {isa} | – | {failed_cell(err)} | | | | | |"
    via = ",".join(f.get("via", [])) or "–"
    if f.get("jit") and v != "kprobe-events":
        via += " (JIT)" if f["jit"] == ["1"] else \
            " (interpreted)" if f["jit"] == ["0"] else ""
    offkey = KINST.get(v) or {"kprobe-off-emul": "emul",
                              "kprobe-off-xol": "xol"}.get(v)
    if offkey:
        for b in final_boots(boots):
            if b["isa"] == isa and b["boot"] == "tcg" and b.get("offs"):
                off, insn = b["offs"][offkey]
                via += f" @+{off:#x} `{insn}`"
    if v == "none":
        ns = (f"loop {f['loop_ns_per_call']:.1f} ns/call"
              if "loop_ns_per_call" in f else "–")
        ins = "0 (baseline)"
    else:
        ns = (f"{f['ns']:.0f} [{f['ns_min']:.0f}–{f['ns_max']:.0f}]"
              if "ns" in f else "–")
        ins = fmt(f.get("insns"))
    if "icount_spread" not in f:
        det = "–"
    elif f["icount_spread"] == 0:
        det = "yes"
    else:
        det = (f"no: {', '.join(map(str, f['insns_raw']))} (spread "
               f"{f['icount_spread']})")
    if "traps" in f:
        traps = f"{f['traps']:g} (measured)"
    else:
        traps = structural_traps(isa, v, f.get("via"))
    none = v == "none"
    return (f"| {DESCR[v]} | {isa} | {via} | {ns} | "
            f"{fmt(None if none else f.get('ns_ratio'), 2)} | {ins} | {det} "
            f"| {fmt(None if none else f.get('insns_ratio'), 2)} | {traps} |")


def kinst_table(meta, figs, boots):
    """xdt kinst against a kprobe on the same instruction."""
    L = ["### kinst against kprobe on the same instruction (kernel "
         "trigger)\n",
         "ratio = kprobe + BPF count ÷ xdt kinst count(), same boot (> 1: "
         "the kprobe costs more). emulated = kinst runs the instruction's "
         "effect in its trap handler (1 trap); out of line = from a slot "
         "in xdt.ko's text (x86_64 and arm64 jump back: 1 trap; riscv64 "
         "returns with a second ebreak: 2 traps).\n",
         "| ISA | insn | offset | xdt kinst ns/firing | xdt traps/firing "
         "| kprobe ns/firing | kprobe via | kprobe traps/firing | ratio "
         "(TCG) | xdt kinst insns/firing | kprobe insns/firing | ratio "
         "(insns) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for isa in meta["isas"]:
        b = next((x for x in final_boots(boots) if x["isa"] == isa and
                  x["boot"] == "tcg" and x.get("offs")), None)
        for key, label in (("emul", "emulated"), ("xol", "out of line")):
            xv, kv = f"xdt-kinst-{key}", f"kprobe-off-{key}"
            off, insn = b["offs"][key] if b else ("?", "?")
            where = f"| {isa} | {label} `{insn}` | " + \
                (f"+{off:#x}" if isinstance(off, int) else off) + " |"
            xf, kf = figs.get((isa, "kernel", xv)), figs.get((isa, "kernel",
                                                             kv))
            xr, kr = (row_reason("kernel", xv, isa, boots),
                      row_reason("kernel", kv, isa, boots))
            xs = (f"{xf['ns']:.0f} [{xf['ns_min']:.0f}–{xf['ns_max']:.0f}]"
                  if xf and "ns" in xf else xr or "no good sample (FAILED)")
            xt = f"{xf['traps']:g}" if xf and "traps" in xf else "–"
            ks = (f"{kf['ns']:.0f} [{kf['ns_min']:.0f}–{kf['ns_max']:.0f}]"
                  if kf and "ns" in kf else kr or "no good sample (FAILED)")
            kvia = ",".join(kf.get("via", [])) if kf else "–"
            kt = structural_traps(isa, kv, kf.get("via")) if kf else "–"
            L.append(f"{where} {xs} | {xt} | {ks} | {kvia} | {kt} | "
                     f"{fmt(kf.get('ns_kinst_ratio') if kf else None, 2)} | "
                     f"{fmt(xf.get('insns') if xf else None)} | "
                     f"{fmt(kf.get('insns') if kf else None)} | "
                     f"{fmt(kf.get('insns_kinst_ratio') if kf else None, 2)}"
                     " |")
    L.append("")
    return L


def syscall_table(meta, figs, boots, errs):
    """Every way the syscall trigger measured to count one getppid, per
    ISA, cheapest first (by instructions/firing; by TCG ns where the icount
    boot has no figure)."""
    L = [f"### Counting a syscall ({SYSCALL}): cheapest first, per ISA\n",
         "The syscall trigger's rows again, ranked per ISA by "
         "instructions/firing (icount; TCG ns where there is none); × "
         "cheapest = this ÷ the ISA's cheapest. The function-probe rows "
         "count calls of the syscall's kernel function, the last three the "
         "syscall itself: xdt's syscall provider and the two BPF programs "
         "all hang off the raw_syscalls:sys_enter tracepoint, whose "
         "enabling turns on every task's syscall-tracepoint work (the "
         "entry slow path) for every syscall, a cost the other syscalls "
         "pay too while it is attached and which is part of the figure "
         "here. Rows with no figure follow, with the reason.\n",
         "| ISA | rank | mechanism | via | instructions/firing (icount) | "
         "× cheapest (insns) | ns/firing (TCG) | × cheapest (ns) |",
         "|---|---|---|---|---|---|---|---|"]
    vs = [v for v in meta.get("variants") or VARIANT_NAMES if v != "none"
          and ("syscall", v) not in SKIP]
    for isa in meta["isas"]:
        have = [(v, figs[(isa, "syscall", v)]) for v in vs
                if "insns" in figs.get((isa, "syscall", v), {}) or
                "ns" in figs.get((isa, "syscall", v), {})]
        have.sort(key=lambda vf: (vf[1].get("insns") is None,
                                  vf[1].get("insns", 0),
                                  vf[1].get("ns", 0)))
        best_i = min((f["insns"] for _, f in have if "insns" in f),
                     default=None)
        best_n = min((f["ns"] for _, f in have if "ns" in f), default=None)
        for rank, (v, f) in enumerate(have, 1):
            via = ",".join(f.get("via", [])) or "–"
            if f.get("jit") and v != "kprobe-events":
                via += " (JIT)" if f["jit"] == ["1"] else \
                    " (interpreted)" if f["jit"] == ["0"] else ""
            ri = (f"{f['insns'] / best_i:.2f}" if "insns" in f and best_i
                  and best_i > 0 else "–")
            rn = (f"{f['ns'] / best_n:.2f}" if "ns" in f and best_n
                  and best_n > 0 else "–")
            L.append(f"| {isa} | {rank} | {DESCR[v]} | {via} | "
                     f"{fmt(f.get('insns'))} | {ri} | {fmt(f.get('ns'))} | "
                     f"{rn} |")
        for v in vs:
            if any(v == h for h, _ in have):
                continue
            why = row_reason("syscall", v, isa, boots) or \
                failed_cell(errs.get((isa, "syscall", v)))
            L.append(f"| {isa} | – | {DESCR[v]} | – | {why} | | | |")
    L.append("")
    return L


XDT_HOW = {"xdt-trampoline": "xdt's entry probe is a call into its own "
           "trampoline (no exception; bench/stepprof.py: where the rest "
           "goes)",
           "ftrace_ops": "xdt's entry probe is an ftrace_ops behind ftrace's "
           "call (no exception)"}


def goal_why(kvia, xvia):
    """Why the kprobe costs what it does, from the attachment it reported,
    and how xdt's probe went in."""
    v = ",".join(kvia or [])
    x = ",".join(xvia or [])
    xhow = XDT_HOW.get(x, "xdt's entry probe is a breakpoint trap "
                       "(exception entry and return; it emulates the NOP "
                       "it replaces)")
    if v.startswith("ftrace"):
        return ("the kprobe rides ftrace's call at the entry NOP (a function "
                f"call, no exception); {xhow}")
    if v.startswith(("brk", "ebreak", "int3")):
        return ("the kprobe takes a breakpoint and then single-steps the "
                f"displaced instruction out of line (2 traps); {xhow}")
    return f"the kprobe went through `{v or '?'}`; {xhow}"


def goal_table(meta, figs):
    """The first goal: xdt fbt entry count() costs no more than kprobe +
    BPF count on the same ISA, by instructions and by the TCG ns ratio."""
    L = ["## Goal: xdt fbt entry ≤ kprobe + BPF count (same ISA, boot, "
         "function)\n",
         "met = xdt fbt entry with count() costs no more than the kprobe "
         "with a BPF count map, by instructions/firing (icount) and by "
         "ns/firing (TCG); why = the structural reason, from how the kprobe "
         "attached.\n",
         "| trigger | ISA | xdt insns | kprobe insns | met (insns) | xdt ns "
         "| kprobe ns | met (TCG ns) | why |",
         "|---|---|---|---|---|---|---|---|---|"]
    for trig in meta.get("triggers", ["kernel"]):
        for isa in meta["isas"]:
            x = figs.get((isa, trig, "xdt-fbt-entry"), {})
            k = figs.get((isa, trig, "kprobe"), {})
            if not x or not k:
                continue

            def met(key):
                if key not in x or key not in k:
                    return "–"
                return "yes" if x[key] <= k[key] else \
                    f"no (× {x[key] / k[key]:.2f})"
            L.append(f"| {trig} | {isa} | {fmt(x.get('insns'))} | "
                     f"{fmt(k.get('insns'))} | {met('insns')} | "
                     f"{fmt(x.get('ns'))} | {fmt(k.get('ns'))} | "
                     f"{met('ns')} | "
                     f"{goal_why(k.get('via'), x.get('via'))} |")
    L.append("")
    return L


def us(x):
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def scale_table(meta, sfigs, boots):
    L = ["## Enable/disable time for N fbt entry probes\n",
         "Functions: the xdt fbt entry probes of vmlinux that are also in "
         "`available_filter_functions`, have a kallsyms name of their own "
         "and are not on the kprobe blacklist, sorted by name; N = the "
         "first N (the same functions for every mechanism). Each cell is "
         "one `xdt-bpfbench attach --mech M --func @list -- true` in the "
         "TCG boot, timed in the guest (CLOCK_MONOTONIC): enable = "
         "attach until every probe is live, disable = detach until every "
         "probe is gone and freed. ms per operation (median [min–max] over "
         "the repetitions) and µs per probe (median ÷ probes). "
         "`all`: xdt takes one glob clause `" + XDT_ALL + "` (every fbt "
         "entry probe of vmlinux, more than the common list); the others "
         "the whole common list. Skipped cells say why (time budget, "
         "support).\n",
         "| mechanism | what is timed (enable / disable) |", "|---|---|"]
    for m in SCALE_MECHS:
        L.append(f"| {SCALE_DESCR[m]} | {SCALE_PHASES[m]} |")
    L.append("")
    L.append("| mechanism | ISA | N | probes | enable ms [min–max] | "
             "disable ms [min–max] | enable µs/probe | disable µs/probe | "
             "phases, median ms | samples |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    fb = final_boots(boots)
    for m in SCALE_MECHS:
        for isa in meta["isas"]:
            b = next((x for x in fb if x["isa"] == isa and x["boot"] ==
                      "tcg"), None)
            cells = [c for c in (b or {}).get("scale", []) if c["mech"] == m]
            uns = next((c["unsupported"] for c in cells
                        if c.get("unsupported")), None)
            if uns:
                L.append(f"| {SCALE_DESCR[m]} | {isa} | all N | – | "
                         f"unsupported: {uns} | | | | | |")
                continue
            if b and not b.get("scale") and b.get("scale_info") is not None:
                L.append(f"| {SCALE_DESCR[m]} | {isa} | – | – | not run | "
                         "| | | | |")
                continue
            for n in meta["scale"]:
                f = sfigs.get((isa, m, n))
                mine = [c for c in cells if c["n"] == n]
                if f:
                    ph = ", ".join(f"{k[:-3]} {v:.1f}" for k, v in
                                   f["phases_ms"].items())
                    errs = sum(1 for c in mine if c.get("error"))
                    L.append(
                        f"| {SCALE_DESCR[m]} | {isa} | {n} | {f['nprobes']} "
                        f"| {f['enable_ms']:.1f} [{f['enable_min']:.1f}–"
                        f"{f['enable_max']:.1f}] | {f['disable_ms']:.1f} "
                        f"[{f['disable_min']:.1f}–{f['disable_max']:.1f}] | "
                        f"{us(f['enable_us_per_probe'])} | "
                        f"{us(f['disable_us_per_probe'])} | {ph or '–'} | "
                        f"{f['samples']}"
                        + (f" (+{errs} FAILED)" if errs else "") + " |")
                    continue
                why = next((c.get("skipped") or
                            (("FAILED: " + c["error"][:300])
                             if c.get("error") else None)
                            for c in mine), None) or "not run"
                L.append(f"| {SCALE_DESCR[m]} | {isa} | {n} | – | "
                         f"{' '.join(why.split())} | | | | | |")
    L.append("")
    for b in fb:
        si = b.get("scale_info") or {}
        if "candidates" in si:
            L.append(f"- {b['isa']}: {si['candidates']} functions qualify "
                     f"({si['fbt_entry']} xdt fbt entry probes in vmlinux, "
                     f"{si['ftrace']} ftrace-able, {si['both']} both, of "
                     f"which {si['ambiguous']} have an ambiguous name and "
                     f"{si['blacklisted']} are kprobe-blacklisted); "
                     f"scaling test {si.get('wall_s', 0):.0f} s of its "
                     f"{si.get('budget_s')} s budget")
    L.append("")
    return L


def make_plots(outdir, figs, isas, sfigs=None):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    for trig in TRIGGERS:
        for key, label in (("ns", "ns per firing (TCG)"),
                           ("insns", "guest instructions per firing "
                            "(icount)")):
            fname = f"{trig}-{key}.png"
            vs = [v for v in VARIANT_NAMES if v != "none"
                  and any(key in figs.get((i, trig, v), {}) for i in isas)]
            if not vs:
                continue
            fig, ax = plt.subplots(figsize=(1.2 * len(vs) + 2, 4.5))
            w = 0.8 / len(isas)
            for j, isa in enumerate(isas):
                xs, ys, lo, hi = [], [], [], []
                for k, v in enumerate(vs):
                    f = figs.get((isa, trig, v), {})
                    if key not in f:
                        continue
                    xs.append(k + j * w)
                    ys.append(f[key])
                    lo.append(max(0, f[key] - f[key + "_min"]))
                    hi.append(max(0, f[key + "_max"] - f[key]))
                ax.bar(xs, ys, w, yerr=[lo, hi], label=isa, capsize=2)
            ax.set_xticks([k + w * (len(isas) - 1) / 2
                           for k in range(len(vs))])
            ax.set_xticklabels(vs, rotation=30, ha="right")
            ax.set_ylabel(label)
            ax.set_title(f"{trig} trigger: {label}")
            if ax.get_legend_handles_labels()[0]:
                ax.legend()
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, fname), dpi=120)
            plt.close(fig)
            made.append(fname)
    # The mechanism matrix, one figure per ISA: how each way
    # into the same function costs, entry and return, instructions beside
    # TCG ns, so a reader sees where the two measures disagree.
    for isa in isas:
        vs = [v for v in MECH_MATRIX
              if "insns" in figs.get((isa, "kernel", v), {})
              or "ns" in figs.get((isa, "kernel", v), {})]
        if not vs:
            continue
        fig, axes = plt.subplots(1, 2, figsize=(2 * (0.6 * len(vs) + 2), 4.5),
                                 squeeze=False)
        for ax, (key, label) in zip(axes[0], (
                ("insns", "instructions per firing (icount)"),
                ("ns", "ns per firing (TCG)"))):
            ys = [figs.get((isa, "kernel", v), {}).get(key, 0) for v in vs]
            ax.bar(range(len(vs)), ys, 0.7,
                   color=["C0" if v.startswith("xdt") else "C1" for v in vs])
            ax.set_xticks(range(len(vs)))
            ax.set_xticklabels(vs, rotation=40, ha="right", fontsize=8)
            ax.set_ylabel(label)
            ax.set_title(f"{isa}: {label}")
        fig.tight_layout()
        fname = f"mech-{isa}.png"
        fig.savefig(os.path.join(outdir, fname), dpi=120)
        plt.close(fig)
        made.append(fname)
    if sfigs:
        fig, axes = plt.subplots(1, len(isas), figsize=(5 * len(isas), 4.5),
                                 squeeze=False)
        for ax, isa in zip(axes[0], isas):
            for j, m in enumerate(SCALE_MECHS):
                col = f"C{j}"
                # xdt's "all" is one glob clause, not N exact ones: its
                # own markers, not on the line.
                for glob in (False, True):
                    pts = sorted((f["nprobes"], f["enable_ms"],
                                  f["disable_ms"])
                                 for (i, mm, n), f in sfigs.items()
                                 if i == isa and mm == m and
                                 (is_xdt(m) and n == "all") == glob)
                    if not pts:
                        continue
                    lab = f"{m} (one glob clause)" if glob else m
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            "*" if glob else "o-", color=col, ms=10 if glob
                            else 6, label=f"{lab} enable")
                    ax.plot([p[0] for p in pts], [p[2] for p in pts],
                            "x" if glob else "s--", color=col, ms=10 if glob
                            else 6, label=f"{lab} disable")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("probes")
            ax.set_ylabel("ms (TCG)")
            ax.set_title(f"{isa}: enable / disable time")
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "scale.png"), dpi=120)
        plt.close(fig)
        made.append("scale.png")
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small N and few rounds (smoke test)")
    ap.add_argument("--isas", default=",".join(
        os.environ.get("XDT_ISAS", "").split() or xdtvm.ISAS))
    ap.add_argument("--out", help="output directory (default "
                    "bench/results/<timestamp>, with a `latest` symlink)")
    ap.add_argument("--no-icount", action="store_true",
                    help="skip the icount boots")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--triggers", default="kernel,syscall",
                    help="kernel[,syscall] (default both)")
    ap.add_argument("--variants",
                    help="comma list of variants to run (default all: "
                    + ",".join(VARIANT_NAMES) + "); none and xdt-fbt-entry "
                    "(the baseline and the reference) are always run")
    ap.add_argument("--no-scale", action="store_true",
                    help="skip the enable/disable scaling test")
    ap.add_argument("--scale-budget", type=int,
                    help="seconds per ISA for the scaling test (default "
                    f"{SIZES['full']['scale_budget']}, quick "
                    f"{SIZES['quick']['scale_budget']}); a cell predicted "
                    "to overrun it is skipped and says so")
    ap.add_argument("--scale-sizes",
                    help="comma list of N for the scaling test (integers "
                    "and/or all); default 1,100,1000,10000,all (quick 1,100)")
    ap.add_argument("--scale-kmulti-big", action="store_true",
                    help="also try kprobe_multi on 10000 and on every "
                    "function (each has wedged the x86_64 TCG guest: "
                    "bench/README.md)")
    ap.add_argument("--retable", metavar="DIR",
                    help="rewrite DIR's tables and plots from its "
                    "results.json (no guest is booted)")
    a = ap.parse_args()
    if a.retable:
        with open(os.path.join(a.retable, "results.json")) as f:
            r = json.load(f)
        _, table = write_outputs(a.retable, r["meta"], r["samples"],
                                 r["boots"], r.get("discarded_samples", ()))
        print(table)
        return 0
    isas = [i for i in a.isas.replace(",", " ").split()]
    for i in isas:
        xdtvm.check_isa(i)
    size = dict(SIZES["quick" if a.quick else "full"])
    if a.scale_budget is not None:
        size["scale_budget"] = a.scale_budget
    if a.scale_sizes:
        size["scale"] = [x if x == "all" else int(x)
                         for x in a.scale_sizes.split(",") if x]
    if a.no_scale:
        size["scale"] = []
    triggers = [t for t in a.triggers.split(",") if t]
    for t in triggers:
        if t not in TRIGGERS:
            raise SystemExit(f"unknown trigger {t}; valid: {TRIGGERS}")
    variants = None
    if a.variants:
        want = set(a.variants.split(",")) - {""}
        bad = want - set(VARIANT_NAMES)
        if bad:
            raise SystemExit(f"unknown variant(s) {sorted(bad)}; valid: "
                             + ",".join(VARIANT_NAMES))
        want |= {"none", "xdt-fbt-entry"}
        variants = [v for v in VARIANT_NAMES if v in want]
    scale = (dict(budget=size["scale_budget"],
                  kmulti_big=a.scale_kmulti_big) if size["scale"] else None)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = a.out or os.path.join(TOP, "bench", "results", stamp)
    os.makedirs(outdir, exist_ok=True)
    logroot = os.path.join(outdir, "console")
    meta = dict(started=stamp, size="quick" if a.quick else "full",
                isas=isas, seed=a.seed, target=TARGET, triggers=triggers,
                variants=variants or VARIANT_NAMES,
                **{k: v for k, v in size.items() if k != "scale_reps"},
                scale_reps={str(k): v for k, v in size["scale_reps"].items()},
                host=os.uname().nodename, nproc=os.cpu_count())
    samples, boots, discarded = [], [], []
    t0 = time.monotonic()
    for isa in isas:
        for icount in ((False,) if a.no_icount else (False, True)):
            kind = "icount" if icount else "tcg"
            # A guest that dies (e.g. the riscv64 init SIGSEGV in the vDSO,
            # bench/README.md) is recorded, its samples set aside, and the
            # boot retried once.
            for attempt in (1, 2):
                logdir = os.path.join(logroot, f"{isa}-{kind}-{attempt}")
                mark = len(samples)
                try:
                    boots.append(run_boot(isa, icount, size, logdir, samples,
                                          a.seed, triggers,
                                          None if icount else scale,
                                          variants))
                    boots[-1]["attempt"] = attempt
                    break
                except xdtvm.XdtError as e:
                    log(f"[{isa} {kind}] boot {attempt} failed: {e}")
                    discarded.extend(samples[mark:])
                    del samples[mark:]
                    boots.append(dict(isa=isa, boot=kind, attempt=attempt,
                                      n=0, rounds=0, wall_s=0, setup_s=0,
                                      off=0, off_insn="", unsupported={},
                                      failures=1, error=str(e)[-3000:]))
            # Write after every boot: a later crash keeps what was measured.
            meta["wall_s"] = round(time.monotonic() - t0, 1)
            write_outputs(outdir, meta, samples, boots, discarded)
    if not a.out:
        latest = os.path.join(TOP, "bench", "results", "latest")
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(stamp, latest)
    meta["wall_s"] = round(time.monotonic() - t0, 1)
    _, table = write_outputs(outdir, meta, samples, boots, discarded)
    print(table)
    log(f"results in {outdir} ({meta['wall_s']:.0f} s)")
    return 1 if any(b["failures"] or b.get("scale_failures")
                    for b in final_boots(boots)) else 0


if __name__ == "__main__":
    sys.exit(main())
