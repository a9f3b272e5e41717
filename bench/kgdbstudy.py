#!/usr/bin/env python3
"""The kgdb probe-insertion study (docs/kgdb-study.md): `make study`.

    bench/kgdbstudy.py [--quick] [--isas x86_64,aarch64,riscv64] [--out DIR]
                       [--no-icount]

For each ISA it boots the lab guest with two debuggers reachable at once:
the guest kernel's own kgdb stub (kgdboc on the console UART, through the
launcher's kgdb port, see xdtvm.VM(kgdb=True)) and QEMU's gdbstub, which
reads guest memory without the kernel's cooperation.  On the bench
module's xdt_bench_target (the function `make bench` measures) it then

1. reads the whole function through both, once, as the "before";
2. for each mechanism -- xdt fbt entry by each insertion mechanism
   (breakpoint, ftrace, trampoline), xdt fbt return, xdt kinst at a
   mid-function offset, a kprobe at the entry and at that offset (tracefs
   kprobe_events) -- puts the probe in from a guest process that holds it,
   reads the function through QEMU and through kgdb (sysrq-g, gdb attaches,
   reads, detaches) while it is in, calls the function N times for its
   cost, takes the probe out and reads it again ("after" must equal
   "before");
3. does the same with gdb breakpoints as the probes: a gdb Python script
   (bench/kgdb_count.py) that counts each hit and continues, through kgdb
   and through QEMU's gdbstub -- the debugger round trip per hit beside a
   DTrace-style firing -- and shows what each debugger's breakpoint is in
   memory, from the other debugger's side;
4. writes the ISA's patch value into the function through kgdb's memory
   write (gdb `set {...}`), and where kgdb refuses (read-only kernel text),
   through QEMU's, then calls the function once: what the kernel does with
   a breakpoint nobody registered.

Then (without --no-icount) a second boot under -icount repeats the cost
runs: guest time is instructions, so the figures are instructions per hit.

Output: DIR/<isa>.md (report with transcripts and the table), DIR/<isa>.json,
DIR/README.md (index); DIR defaults to docs/study.  ISAs: --isas, else
XDT_ISAS (make's ISAS), else all.  Exit 1 if a check failed: a
count that is not the number of calls, an "after" that differs from the
"before", a guest that did not survive.
"""
import argparse
import json
import os
import re
import statistics
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "bench"))
import xdtvm  # noqa: E402
import benchlib  # noqa: E402
import benchreport  # noqa: E402
from kgdb_count import STEP_IRQ_MASK  # noqa: E402

TARGET = benchlib.TARGET
DBG = benchlib.DBG
BPFBENCH = benchlib.BPFBENCH
COUNT_SCRIPT = os.path.join(TOP, "bench", "kgdb_count.py")

SIZES = {
    # n: calls per cost sample of a DTrace-style probe; reps: samples;
    # dn: calls while a debugger breakpoint counts (each hit is a round
    # trip over the serial line or through QEMU's gdbstub).
    # bound: seconds the debugger-counted calls may take.
    "full": dict(n=1000, reps=3, dn=100, lat_reps=5, bound=900),
    "quick": dict(n=500, reps=2, dn=40, lat_reps=3, bound=300),
}

# Who writes each mechanism's bytes, and how, in Linux 6.1.
WRITER = {
    "fbt-entry/breakpoint": "xdt.ko through the kernel's text poke",
    "fbt-entry/ftrace": "ftrace (ftrace_ops: the mcount/patchable-entry site)",
    "fbt-entry/trampoline": "x86_64: ftrace direct call; arm64/riscv64: "
                            "xdt.ko's text poke under stop_machine",
    "fbt-return": "xdt.ko through the kernel's text poke",
    "kinst": "xdt.ko through the kernel's text poke",
    "kprobe-entry": "kprobes (on the ftrace site where the ISA has "
                    "KPROBES_ON_FTRACE)",
    "kprobe-off": "kprobes (arch_arm_kprobe; x86_64 may optimise to a jump)",
    "kgdb-break": "kgdb (kgdb_arch_set_breakpoint at resume)",
    "kgdb-break-cli": "kgdb (kgdb_arch_set_breakpoint at resume)",
    "kgdb-step": "kgdb (kgdb_arch_set_breakpoint at resume)",
    "qemu-break": "QEMU (a TCG breakpoint: guest memory untouched)",
    "kgdb-write": "gdb memory write through kgdb's 'M' packet",
    "ref-trampoline": "x86_64: ftrace direct call; arm64/riscv64: "
                      "xdt.ko's text poke under stop_machine",
    "ref-breakpoint": "xdt.ko through the kernel's text poke",
}

# (row, bpfbench --mech, probe description or None, XDT_FBTMODE, offset key)
HELD = [
    ("fbt-entry/breakpoint", "xdt", "fbt::{f}:entry", "breakpoint", None),
    ("fbt-entry/ftrace", "xdt", "fbt::{f}:entry", "ftrace", None),
    ("fbt-entry/trampoline", "xdt", "fbt::{f}:entry", "trampoline", None),
    ("fbt-return", "xdt", "fbt::{f}:return", None, None),
    ("kinst", "xdt", "kinst::{f}:{off}", None, "xol"),
    ("kprobe-entry", "kprobe-events", "{f}", None, None),
    ("kprobe-off", "kprobe-events", "{f}", None, "xol"),
]
# xdt on the debugger rows' function, for their ratio: row -> -x fbtmode.
REF_ROWS = {"ref-trampoline": "trampoline", "ref-breakpoint": "breakpoint"}

# Debugger breakpoints as probes through kgdb (bench/kgdb_count.py): row ->
# (the command that sets the breakpoint, the one that runs the target).
DEBUG_ROWS = {
    "kgdb-break": ("count-break", "continue"),       # Python stop() -> False
    "kgdb-break-cli": ("count-break-cli", "continue"),   # `commands`
    "kgdb-step": ("count-step", "count-run"),        # its own step-over
}

# The vmlinux function of the debugger rows.  Not the bench module's
# target: riscv64 6.1 hangs when kgdb writes a breakpoint into module text
# (read-only under STRICT_MODULE_RWX; its page-fault handler sends every
# fault in the module area to vmalloc_fault(), which finds the page present,
# flushes the TLB and returns -- to the same faulting store, forever; the
# study shows it last).  read_zero runs once per one-byte read of
# /dev/zero (bench/read-loop.c), which nothing else in the guest reads.
ZERO = "read_zero"
READLOOP = "/tmp/read-loop"

# The reference for the ratios: an xdt fbt entry firing with the default
# mechanism (the trampoline, docs/mechanisms.md).
REF = "fbt-entry/trampoline"


class Fail(Exception):
    pass


def hexs(b):
    return " ".join(f"{x:02x}" for x in b)


def diff_runs(a, b):
    """[(start, end)] of the byte ranges where @a and @b differ."""
    runs, i = [], 0
    while i < len(a):
        if a[i] != b[i]:
            j = i
            while j < len(a) and a[j] != b[j]:
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def insn_starts(isa, obj, func):
    body = xdtvm.function_body(isa, obj, func)
    out = []
    for ln in body.splitlines():
        head = ln.split(":")[0].strip()
        if ln.strip() and head and all(c in "0123456789abcdef" for c in head):
            out.append(int(head, 16))
    return sorted(out)


class Study:
    def __init__(self, isa, size, outdir, icount):
        self.isa, self.size, self.icount = isa, size, icount
        self.outdir = outdir
        b = xdtvm.build_dir(isa)
        self.xdt_ko = os.path.join(b, "xdt", "xdt.ko")
        self.bench_ko = os.path.join(b, "modules", "xdt_bench",
                                     "xdt_bench.ko")
        # + "emul", "xol": where kinst says it runs an instruction each
        # way (start(), from its listing)
        self.offs = {"entry": (0, "")}
        # The two functions probed: the bench module's target (the
        # DTrace-style mechanisms, as `make bench` measures them) and
        # read_zero in vmlinux (the debugger breakpoints, with xdt on the
        # same function for the ratio; see ZERO).  name -> facts.
        vml = xdtvm.vmlinux(isa)
        self.targets = {
            "bench": dict(func=TARGET,
                          size=xdtvm.elf_function_sizes(self.bench_ko)[TARGET],
                          starts=insn_starts(isa, self.bench_ko, TARGET)),
            "zero": dict(func=ZERO, size=xdtvm.elf_function_sizes(vml)[ZERO],
                         starts=insn_starts(isa, vml, ZERO)),
        }
        self.zcalls = 0
        # Console logs and the guest tool's build stay in the cache: the
        # output directory holds only the reports.
        self.work = os.path.join(xdtvm.CACHE, "logs", "study")
        # One TCG thread on every ISA: QEMU 7.2's gdbstub can lose a
        # riscv64 guest at a breakpoint hit after the guest has been in kgdb
        # or has had xdt.ko's probes (MTTCG: 4 of 5 tries; one thread: 1 of
        # 4, on a loaded host), and the study compares the two debuggers.
        # run_qemu_break bounds the wait either way.
        self.vm = xdtvm.VM(isa, gdb=True, kgdb=True, icount=icount,
                           accel=xdtvm.TCG_ACCEL["single"],
                           logdir=os.path.join(self.work, isa + (
                               "-icount" if icount else "")), disk=False)
        self.rows = {}
        self.transcripts = []
        self.checks = []
        self.unit = "insns" if icount else "ns"

    # ---- guest -----------------------------------------------------------
    def start(self):
        v = self.vm
        v.start(timeout=300)
        v.put(self.bench_ko, "/tmp/xdt_bench.ko")
        v.run(["insmod", "/tmp/xdt_bench.ko"], check=True, timeout=120)
        v.put(self.xdt_ko, "/tmp/xdt.ko")
        v.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
        self.offs.update(benchlib.kinst_offsets(
            self.isa, self.bench_ko, benchlib.kinst_listing(v)["how"]))
        v.put(benchlib.guest_tool(self.isa, os.path.join(
            self.work, "bin")), BPFBENCH, mode="755")
        v.put(benchlib.build_static(self.isa, os.path.join(
            self.work, "bin"), "read-loop"), READLOOP, mode="755")
        syms = v.run(["cat", "/proc/kallsyms"], timeout=120).stdout
        for t in self.targets.values():
            t["addr"] = next(int(ln.split()[0], 16) for ln in syms.splitlines()
                             if ln.split()[2:3] == [t["func"]])
        self.use("bench")

    def use(self, name):
        """Work on target @name from here on (addr, fsize, before, ...)."""
        t = self.targets[name]
        self.target, self.func = name, t["func"]
        self.addr, self.fsize, self.insn_starts = (t["addr"], t["size"],
                                                   t["starts"])
        self.before = t.get("before")

    def calls(self):
        """Calls of the current target so far (read_zero: the loops'
        reports, counted here)."""
        if self.target == "zero":
            return self.zcalls
        return int(self.vm.run(["cat", f"{DBG}/calls"], check=True,
                               watch=False).stdout.strip())

    def trigger(self, n, timeout=600):
        """Call the target @n times; (guest ns or insns for the loop)."""
        if self.target == "zero":
            r = self.vm.run([READLOOP, str(n)], timeout=timeout, check=True)
            f = benchlib.fields(r.stdout.strip())
            self.zcalls += int(f["n"])
            return int(f["ns"])
        r = self.vm.run(f"echo {n} > {DBG}/trigger && cat {DBG}/last_ns",
                        timeout=timeout, check=True)
        return int(r.stdout.split()[-1])

    def samples(self, n, reps):
        return [self.trigger(n) for _ in range(reps)]

    # ---- views -------------------------------------------------------------
    def qemu_bytes(self):
        return xdtvm.gdb_read(self.vm.gdb_port, self.addr, self.fsize)

    def qemu_insns(self, off, count=2):
        out = xdtvm.gdb_disassemble(self.vm.gdb_port, self.addr + off, count)
        return [ln.strip() for ln in out.splitlines() if ":\t" in ln][:count]

    def kgdb_session(self):
        k = xdtvm.Kgdb(self.vm)
        k.enter()
        k.attach()
        return k

    def kgdb_view(self, offs, label):
        """Stop the kernel in kgdb, read the function (raw 'm' packet) and
        disassemble at @offs, detach."""
        k = self.kgdb_session()
        try:
            raw = k.raw_read(self.addr, self.fsize)
            dis = {o: k.cmd(f"x/2i {self.addr + o:#x}") for o in offs}
        finally:
            k.detach()
        self.transcripts.append((f"kgdb, {label}", k.transcript))
        return raw, dis

    def insn_start(self, off):
        return max([s for s in self.insn_starts if s <= off] or [off])

    # ---- held probes -------------------------------------------------------
    def hold(self, mech, desc, mode):
        env = f"XDT_FBTMODE={mode} " if mode else ""
        off = ""
        if mech == "kprobe-events" and "+" in desc:
            desc, off = desc.split("+")
            off = f" --off {off}"
        cmd = (f"{env}{BPFBENCH} attach --mech {mech} --prog count "
               f"--func {desc}{off} -- sh -c 'touch /tmp/in; "
               "while [ ! -e /tmp/out ]; do sleep 0.1; done'")
        self.vm.run(f"rm -f /tmp/in /tmp/out /tmp/res; ({cmd}) "
                    "</dev/null >/tmp/res 2>&1 &", check=True)
        for _ in range(600):
            r = self.vm.run("test -e /tmp/in && echo in; "
                            "grep -q status= /tmp/res && cat /tmp/res")
            if r.stdout.startswith("in"):
                return
            if "status=" in r.stdout:
                raise Fail(f"{desc}: the probe did not go in: {r.stdout}")
            time.sleep(0.1)
        raise Fail(f"{desc}: the probe did not go in within 60 s")

    def release(self):
        self.vm.run("touch /tmp/out", check=True)
        for _ in range(600):
            r = self.vm.run("cat /tmp/res")
            line = next((ln for ln in r.stdout.splitlines()
                         if ln.startswith("mech=") and "status=" in ln), None)
            if line:
                return benchlib.fields(line)
            time.sleep(0.1)
        raise Fail("the probe holder did not finish: " + r.stdout)

    def check(self, ok, what):
        self.checks.append((bool(ok), what))
        if not ok:
            print(f"[{self.isa}] CHECK FAILED: {what}", file=sys.stderr)

    def per_hit(self, ts, n):
        return (statistics.median(ts) - self.none) / n

    def run_held(self, row, mech, desc, mode, offkey, observe):
        if offkey and offkey not in self.offs:
            raise Fail(f"kinst says it runs no instruction of {self.func} "
                       f"the {offkey} way (dtrace -l -v)")
        off = self.offs[offkey][0] if offkey else 0
        desc = desc.format(f=self.func, off=off)
        if mech == "kprobe-events" and offkey:
            desc = f"{self.func}+{off}"
        n, reps = self.size["n"], self.size["reps"]
        c0 = self.calls()
        self.hold(mech, desc, mode)
        r = dict(row=row, desc=desc, mode=mode, writer=WRITER[row])
        if observe:
            q = self.qemu_bytes()
            runs = diff_runs(self.before, q)
            starts = sorted({self.insn_start(a) for a, _ in runs})
            r["qemu_while"] = {o: self.qemu_insns(o) for o in starts}
            raw, dis = self.kgdb_view(starts, f"{row} in")
            r.update(bytes_written=sum(b - a for a, b in runs),
                     runs=[(a, hexs(self.before[a:b]), hexs(q[a:b]))
                           for a, b in runs],
                     kgdb_same_as_qemu=raw == q, kgdb_while=dis)
            self.check(runs, f"{row}: the probe changed no byte of {self.func}")
            self.check(raw == q, f"{row}: kgdb and QEMU read different bytes"
                       " while the probe is in")
        ts = self.samples(n, reps)
        res = self.release()
        made = self.calls() - c0
        r.update(samples=ts, per_hit=self.per_hit(ts, n), n=n,
                 count=int(res.get("count", "-1").replace("-", "-1")),
                 calls=made, via=res.get("via"),
                 attach_ns=int(res.get("attach_ns", 0)),
                 detach_ns=int(res.get("detach_ns", 0)))
        self.check(r["count"] == made == n * reps,
                   f"{row}: count {r['count']} for {made} calls "
                   f"({n * reps} triggered)")
        if mech == "xdt":
            traps = int(res.get("traps", 0))
            r["exceptions"] = f"{traps / made:g} (xdt's counter)"
        else:
            v = res.get("via", "")
            r["exceptions"] = benchreport.structural_traps(
                self.isa, "kprobe-off" if offkey else "kprobe", [v])
        if observe:
            after = self.qemu_bytes()
            kafter, _ = self.kgdb_view([], f"{row} out")
            r["after_ok"] = after == self.before and kafter == self.before
            self.check(r["after_ok"], f"{row}: bytes after removal differ "
                       "from before")
        self.rows[row] = r
        print(f"[{self.isa}] {row}: {r['per_hit']:.0f} {self.unit}/hit, "
              f"count {r['count']}/{made}, exceptions {r['exceptions']}",
              file=sys.stderr)

    # ---- debugger breakpoints as probes --------------------------------------
    def z_latency(self, k, kind):
        """Round trips of kgdb's Z0 (insert) and z0 (remove) packets, host
        side, median ms (kgdb records the breakpoint at Z0 and writes it
        into the text when the kernel resumes)."""
        ins, rem = [], []
        for _ in range(self.size["lat_reps"]):
            t = time.monotonic()
            a = k.cmd(f"maintenance packet Z0,{self.addr:x},{kind:x}")
            ins.append(time.monotonic() - t)
            t = time.monotonic()
            b = k.cmd(f"maintenance packet z0,{self.addr:x},{kind:x}")
            rem.append(time.monotonic() - t)
            self.check('"OK"' in a and '"OK"' in b,
                       f"Z0/z0 through gdb: {a} {b}")
        return (statistics.median(ins) * 1e9, statistics.median(rem) * 1e9)

    def background_trigger(self, n):
        """Call the target @n times from a background guest process (its
        calls may stop in the debugger; while a debugger loops on a
        breakpoint the agent barely runs, so the end is told on the
        console, not asked through the agent); done() -> the loop's last_ns
        once it has finished, else None."""
        self._trigs = getattr(self, "_trigs", 0) + 1
        tag = f"xdt-study-done-{self._trigs}"
        mark = self.vm.console_mark()
        if self.target == "zero":
            loop = f"{READLOOP} {n} | sed 's/.*ns=//'"
        else:
            loop = f"echo {n} > {DBG}/trigger; cat {DBG}/last_ns"
        self.vm.run(f"(sleep 0.3; echo {tag} $({loop}) > /dev/kmsg) "
                    "</dev/null >/dev/null 2>&1 &", check=True)
        seen = []

        def done():
            m = re.search(tag + r" (\d+)", self.vm.console(mark))
            if not m:
                return None
            if self.target == "zero" and not seen:
                self.zcalls += n
                seen.append(1)
            return int(m.group(1))
        return done

    def run_kgdb_break(self, row, observe):
        """A gdb breakpoint through kgdb as the probe: @row picks how it
        counts (DEBUG_ROWS).  The calls run in the background, bounded in
        time: a counting scheme that never finishes (gdb's own step-over on
        arm64, see bench/kgdb_count.py) is stopped by sysrq-g, recorded as
        such, and the calls then complete without it."""
        n = self.size["dn"]
        setup, go = DEBUG_ROWS[row]
        kind = len(xdtvm.XDT_PATCH[self.isa][1])
        k = self.kgdb_session()
        r = dict(row=row, writer=WRITER[row], n=n)
        t = None
        try:
            k.cmd(f"source {COUNT_SCRIPT}")
            r["attach_ns"], r["detach_ns"] = self.z_latency(k, kind)
            k.cmd(f"{setup} *{self.addr:#x}")
            # A scheme that loops stops for real after 10 hits a call.
            k.cmd(f"count-limit {10 * n}")
            if observe:
                before_raw = k.raw_read(self.addr, 8)
            k.send(go)
            time.sleep(1)
            if observe:
                q = self.qemu_bytes()
                runs = diff_runs(self.before, q)
                r.update(bytes_written=sum(b - a for a, b in runs),
                         runs=[(a, hexs(self.before[a:b]), hexs(q[a:b]))
                               for a, b in runs],
                         qemu_while={o: self.qemu_insns(o)
                                     for o in sorted({self.insn_start(a)
                                                      for a, _ in runs})},
                         kgdb_stopped_raw=hexs(before_raw))
            s0, c0 = dict(self.vm.kgdb_stats), self.calls()
            done = self.background_trigger(n)
            deadline = time.monotonic() + self.size["bound"]
            while t is None and time.monotonic() < deadline \
                    and not k.ready():
                time.sleep(0.2)
                t = done()
            s1 = dict(self.vm.kgdb_stats)
            r["finished"] = t is not None
            if not k.ready():
                k.enter()
            stop = k.wait(timeout=300)
            rep = k.cmd("count-report")
            hits = [int(ln.split()[-1]) for ln in rep.splitlines()
                    if "hits" in ln]
            r["count"] = hits[0] if hits else -1
            if observe:
                # Stopped in kgdb with the breakpoint still set in gdb:
                # what kgdb returns for the text now (it lifts its
                # breakpoints when the kernel stops), and what QEMU sees.
                r["kgdb_stopped_raw_after"] = hexs(k.raw_read(self.addr, 8))
                r["qemu_stopped"] = hexs(self.qemu_bytes()[:8])
                r["stop_report"] = stop
            k.cmd("delete")
        finally:
            k.detach()
        self.transcripts.append((f"gdb over kgdb: {row}", k.transcript))
        if t is None:
            # Without the debugger the calls complete.
            for _ in range(240):
                t = done()
                if t is not None:
                    break
                time.sleep(0.5)
        made = self.calls() - c0
        stops = s1["stops"] - s0["stops"]
        hits = max(r["count"], 1)
        r.update(samples=[t], calls=made,
                 per_hit=(t - self.none) / n if r["finished"] else None,
                 exceptions=f"{stops / hits:g} (kgdb stop replies counted "
                 "on the line)",
                 packets=(s1["packets_in"] - s0["packets_in"]) / hits)
        loops = row != "kgdb-step" and self.isa in STEP_IRQ_MASK
        if loops:
            # Each step that lands in the interrupt handler re-hits the
            # breakpoint: always under TCG (the timer is due after every
            # stop: the limit ends it), some of the time under icount.
            r["exceptions"] += (
                f"; overcounts: {r['count']} hits for {n} calls"
                + ("" if r["finished"] else ", never finishes (stopped at "
                   "the limit)"))
            self.check(r["count"] > n,
                       f"{row}: gdb's own step-over was expected to step "
                       f"into the IRQ handler on {self.isa} and overcount "
                       f"({r['count']} hits, {n} calls, finished "
                       f"{r['finished']})")
        else:
            self.check(r["finished"], f"{row}: {n} calls did not finish "
                       f"within {self.size['bound']} s ({r['count']} hits)")
            self.check(r["count"] == made == n,
                       f"{row}: {r['count']} hits for {made} calls ({n})")
        self.check(made == n, f"{row}: {made} calls for {n} after detach")
        if observe:
            after = self.qemu_bytes()
            r["after_ok"] = after == self.before
            self.check(r["after_ok"], f"{row}: bytes after detach differ")
        self.rows[row] = r
        ph = "–" if r["per_hit"] is None else f"{r['per_hit']:.0f}"
        print(f"[{self.isa}] {row}: {ph} {self.unit}/hit, {r['count']}/{made} hits, "
              f"{r['exceptions']}, {r['packets']:.1f} packets/hit",
              file=sys.stderr)

    def run_qemu_break(self, observe):
        row, n = "qemu-break", self.size["dn"]
        k = xdtvm.Kgdb(self.vm, port=self.vm.gdb_port)
        k.attach()
        r = dict(row=row, writer=WRITER[row], n=n)
        try:
            k.cmd(f"source {COUNT_SCRIPT}")
            ins, rem = [], []
            for _ in range(self.size["lat_reps"]):
                t = time.monotonic()
                k.cmd(f"maintenance packet Z0,{self.addr:x},1")
                ins.append(time.monotonic() - t)
                t = time.monotonic()
                k.cmd(f"maintenance packet z0,{self.addr:x},1")
                rem.append(time.monotonic() - t)
            r["attach_ns"] = statistics.median(ins) * 1e9
            r["detach_ns"] = statistics.median(rem) * 1e9
            k.cmd(f"count-break *{self.addr:#x}")
            k.resume()
            time.sleep(1)
            if observe:
                # The guest's own view while QEMU's breakpoint is in.
                raw, _ = self.kgdb_view([], "QEMU breakpoint in")
                r["kgdb_while_raw"] = hexs(raw[:8])
                r["bytes_written"] = sum(
                    b - a for a, b in diff_runs(self.before, raw))
                r["runs"] = []
            c0 = self.calls()
            done = self.background_trigger(n)
            # Each hit stops the machine for a few ms: a lost guest shows
            # long before the kgdb rows' bound.
            deadline = time.monotonic() + 120
            t = None
            while t is None and time.monotonic() < deadline:
                time.sleep(0.2)
                t = done()
            r["finished"] = t is not None
            k.interrupt()
            r["stop_report"] = k.wait(timeout=120)
            if t is None:
                # Where the vCPUs are when the calls never came back.
                r["lost_bt"] = k.cmd("thread apply all bt 6")
            rep = k.cmd("count-report")
            hits = [int(ln.split()[-1]) for ln in rep.splitlines()
                    if "hits" in ln]
            r["count"] = hits[0] if hits else -1
            k.cmd("delete")
        finally:
            k.detach()
        self.transcripts.append(("gdb over QEMU's gdbstub: qemu-break",
                                 k.transcript))
        for _ in range(100):
            if t is not None:
                break
            time.sleep(0.2)
            t = done()
        made = self.calls() - c0
        r.update(samples=[t], calls=made,
                 per_hit=None if not r["finished"] else (t - self.none) / n,
                 exceptions="0 (the guest takes none: QEMU stops the VM)")
        if not r["finished"]:
            r["exceptions"] += (f"; lost: {r['count']} hits, the {n} calls "
                                "never returned within 120 s")
        self.check(r["finished"] and r["count"] == made == n,
                   f"{row}: {r['count']} hits for {made} calls ({n}), "
                   f"finished {r['finished']}")
        self.rows[row] = r
        if not r["finished"]:
            self.hung = True        # the rest of this boot would wait too
        ph = "–" if r["per_hit"] is None else f"{r['per_hit']:.0f}"
        print(f"[{self.isa}] {row}: {ph} {self.unit}/hit, "
              f"{r['count']}/{made} hits", file=sys.stderr)

    # ---- a patch value nobody registered ---------------------------------
    def run_write(self):
        """Write the ISA's patch value (xdt's) at the function's entry
        through kgdb; if kgdb refuses, through QEMU; call the function once
        and show what happens; put the original back."""
        off, patch, mnem = xdtvm.XDT_PATCH[self.isa]
        o = self.insn_start(off)
        orig = self.before[o:o + len(patch)]
        comp = xdtvm.FACTS[self.isa]["patch"].get("compressed")
        if comp and (orig[0] & 3) != 3:
            # a 16-bit instruction there: the compressed breakpoint
            patch = bytes.fromhex(comp)
            orig = orig[:len(patch)]
        a = self.addr + o
        vals = ", ".join(f"{x:#04x}" for x in patch)
        r = dict(row="kgdb-write", writer=WRITER["kgdb-write"], off=o,
                 patch=hexs(patch), orig=hexs(orig), mnem=mnem)
        k = self.kgdb_session()
        try:
            out = k.cmd(f"set {{unsigned char[{len(patch)}]}}{a:#x} = "
                        f"{{{vals}}}")
            now = k.raw_read(a, len(patch))
            r["kgdb_write_output"] = out
            r["kgdb_wrote"] = now == patch
        finally:
            k.detach()
        self.transcripts.append(("kgdb memory write", k.transcript))
        if not r["kgdb_wrote"]:
            # QEMU writes guest RAM whatever the guest's page tables say.
            xdtvm.gdb_batch(self.vm.gdb_port, [
                f"set {{unsigned char[{len(patch)}]}}{a:#x} = {{{vals}}}"])
            r["writer_used"] = "QEMU gdbstub (kgdb refused)"
        else:
            r["writer_used"] = "kgdb"
        self.check(self.qemu_bytes()[o:o + len(patch)] == patch,
                   "kgdb-write: the patch value is not in memory")
        mark = self.vm.console_mark()
        c0 = self.calls()
        k = xdtvm.Kgdb(self.vm)
        done = self.background_trigger(1)
        # The call traps into a breakpoint no kernel subsystem owns.  kgdb,
        # on the trap/die notifiers, takes it and waits for a debugger,
        # silently (only sysrq-g prints "Entering KGDB") -- if the trap
        # comes as SIGTRAP: an oops (arm64's die() for an unclaimed BRK
        # passes SIGSEGV) it declines while panic_timeout is set, as the
        # lab's panic=-1 sets it (kgdb_handle_exception), and the oops runs
        # its course.  Give the call time to get there.
        time.sleep(3)
        con = self.vm.console(mark)
        orig_vals = ", ".join(f"{x:#04x}" for x in orig)
        if xdtvm.OOPS_RE.search(con):
            r["outcome"] = "oops"
            xdtvm.gdb_batch(self.vm.gdb_port, [
                f"set {{unsigned char[{len(orig)}]}}{a:#x} = {{{orig_vals}}}"])
            r["restored_by"] = "QEMU gdbstub"
            time.sleep(2)
        else:
            r["outcome"] = "kgdb"
            try:
                r["attach"] = k.attach(timeout=120)
                r["pc"] = k.cmd("x/i $pc")
                r["bt"] = k.cmd("bt 4")
                k.cmd(f"set {{unsigned char[{len(orig)}]}}{a:#x} = "
                      f"{{{orig_vals}}}")
                restored = k.raw_read(a, len(orig)) == orig
                if not restored:
                    xdtvm.gdb_batch(self.vm.gdb_port, [
                        f"set {{unsigned char[{len(orig)}]}}{a:#x} = "
                        f"{{{orig_vals}}}"])
                r["restored_by"] = "kgdb" if restored else "QEMU gdbstub"
                # The trap left the PC at (x86_64: one past) the
                # breakpoint; nothing in the kernel rewinds it: the
                # debugger must.
                k.cmd(f"set $pc = {a:#x}")
            finally:
                k.detach()
            self.transcripts.append(("the unregistered breakpoint is hit",
                                     k.transcript))
            time.sleep(1)
        con = self.vm.console(mark)
        r["console"] = [ln for ln in con.splitlines()
                        if ln.strip() and "$" not in ln
                        and not ln.startswith("+")][:40]
        alive = self.vm.run("echo alive", watch=False).stdout.strip()
        r["alive"] = alive == "alive"
        self.check(self.qemu_bytes() == self.before,
                   "kgdb-write: the original bytes are not back")
        self.check(r["alive"], f"kgdb-write: guest after the trap: {alive!r}")
        for _ in range(100):
            if done() is not None:
                break
            time.sleep(0.2)
        r["calls"] = made = self.calls() - c0
        if r["outcome"] == "kgdb":
            self.check(made == 1, f"kgdb-write: {made} calls completed "
                       "after the debugger put the bytes back")
        else:
            self.check(made == 0, f"kgdb-write: {made} calls completed "
                       "after an oops")
        self.rows["kgdb-write"] = r
        print(f"[{self.isa}] kgdb-write: written by {r['writer_used']}, "
              f"{r['outcome']}, alive {r['alive']}", file=sys.stderr)

    # ---- the whole study -----------------------------------------------------
    def observe_before(self):
        """The current target as both debuggers read it before anything."""
        b = self.qemu_bytes()
        kb, _ = self.kgdb_view([], f"{self.func}, before")
        self.check(kb == b, f"{self.func} before: kgdb and QEMU differ")
        t = self.targets[self.target]
        t["before"] = self.before = b
        t["before_dis"] = self.qemu_insns(0, 6)

    def guarded(self, row, fn, *args):
        try:
            fn(*args)
        except (Fail, xdtvm.XdtError) as e:
            self.rows[row] = dict(row=row, error=str(e)[:2000])
            self.check(False, f"{row}: {str(e)[:300]}")

    def run_module_break(self):
        """A kgdb breakpoint in module text (the bench module's target),
        the last step of the boot: riscv64's kgdb writes it with
        copy_to_kernel_nofault(), whose fault on the read-only page never
        returns there (ZERO's comment).  QEMU's gdbstub shows where the
        vCPUs are when kgdb does not answer."""
        t = self.targets["bench"]
        kind = len(xdtvm.XDT_PATCH[self.isa][1])
        r = dict(row="module-break", func=t["func"], addr=t["addr"])
        k = self.kgdb_session()
        try:
            r["reply"] = k.cmd(f"maintenance packet Z0,{t['addr']:x},"
                               f"{kind:x}", timeout=30)
            r["outcome"] = "accepted"
            k.cmd(f"maintenance packet z0,{t['addr']:x},{kind:x}")
            k.detach()
        except xdtvm.XdtError:
            r["outcome"] = "hang"
            self.hung = True
            k.close()
            r["qemu_bt"] = xdtvm.gdb_batch(
                self.vm.gdb_port, ["info threads", "thread apply all bt 8"],
                vmlinux=xdtvm.vmlinux(self.isa), timeout=120)
        self.transcripts.append(("a kgdb breakpoint in module text",
                                 k.transcript))
        self.rows["module-break"] = r
        print(f"[{self.isa}] module-break: {r['outcome']}", file=sys.stderr)

    def run(self):
        observe = not self.icount
        self.hung = False
        self.start()
        t0 = time.monotonic()
        n, reps, dn = self.size["n"], self.size["reps"], self.size["dn"]
        # self.none: the unprobed loop's median total for the calls of the
        # row that follows, measured again before each row (the "none"
        # variant of make bench); a row's per-hit figure subtracts it.
        self.use("bench")
        if observe:
            self.observe_before()
        for row, mech, desc, mode, offkey in HELD:
            self.none = statistics.median(self.samples(n, reps))
            self.guarded(row, self.run_held, row, mech, desc, mode, offkey,
                         observe)
        self.use("zero")
        if observe:
            self.observe_before()
        for row, mode in REF_ROWS.items():
            self.none = statistics.median(self.samples(n, reps))
            self.guarded(row, self.run_held, row, "xdt", "fbt::{f}:entry",
                         mode, None, observe)
        for row in DEBUG_ROWS:
            self.none = statistics.median(self.samples(dn, reps))
            self.guarded(row, self.run_kgdb_break, row, observe)
        self.none = statistics.median(self.samples(dn, reps))
        self.guarded("qemu-break", self.run_qemu_break, observe)
        if observe and not self.hung:
            self.guarded("kgdb-write", self.run_write)
            self.guarded("module-break", self.run_module_break)
        self.seconds = time.monotonic() - t0
        if self.hung:
            self.vm.kill()
        else:
            self.vm.poweroff()
        return self


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isas", default=",".join(
        xdtvm.env_isas()))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-icount", dest="icount", action="store_false")
    ap.add_argument("--out")
    a = ap.parse_args()
    size = SIZES["quick" if a.quick else "full"]
    # The reports are documents (README links them): by default they go
    # to docs/study/, replacing the last run's.
    out = a.out or os.path.join(TOP, "docs", "study")
    os.makedirs(out, exist_ok=True)
    command = " ".join(["bench/kgdbstudy.py"] + sys.argv[1:])
    ok = True
    for isa in a.isas.split(","):
        res = {"isa": isa, "command": command, "size": size,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        for icount in ([False, True] if a.icount else [False]):
            print(f"[{isa}] {'icount' if icount else 'tcg'} boot",
                  file=sys.stderr)
            st = Study(isa, size, out, icount)
            try:
                st.run()
            except BaseException:
                st.vm.kill()
                raise
            key = "icount" if icount else "tcg"
            res[key] = dict(rows=st.rows, checks=st.checks,
                            seconds=st.seconds,
                            transcripts=st.transcripts)
            if not icount:
                res["targets"] = {
                    k: dict(func=t["func"], addr=t.get("addr", 0),
                            size=t["size"],
                            before=hexs(t.get("before") or b""),
                            before_dis=t.get("before_dis", []))
                    for k, t in st.targets.items()}
                res["offs"] = {k: list(v) for k, v in st.offs.items()}
            ok &= all(c for c, _ in st.checks)
        with open(os.path.join(out, f"{isa}.json"), "w") as f:
            json.dump(res, f, indent=1, default=str)
        import studyreport
        studyreport.write(out, res)
    print(f"study: {out}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
