#!/usr/bin/env python3
"""Where a firing's instructions go: single-step one firing in QEMU's gdbstub.

    bench/stepprof.py --isa ISA [--variant V] [--fires N] [--json F]

Boots the ISA's guest (one vCPU, a gdbstub), loads the bench module and
xdt.ko, attaches the variant to the bench module's xdt_bench_target, then
puts a gdbstub breakpoint (TCG: no guest memory is written) on the
function's first instruction and, each time the trigger calls it,
single-steps until the CPU, having left the function, is back inside it
past where it stopped, recording every PC.  QEMU masks interrupts and timers while it
single-steps, so the trace is the firing alone.  The last of N firings is
reported (the first may take one-off paths: a lazily filled cache line of
per-CPU data costs nothing under TCG, but a first-use branch does), as:

  * the instruction count of the whole detour, which is what -icount
    measures per firing in bench/run.py (they should agree within a few
    instructions: the loop's own call and return are not in this one);
  * per function, in order of first execution, with the number of
    separate visits -- the stage table of bench/README.md;
  * with --trace, every PC and its symbol.

Variants: xdt-empty / xdt-count (fbt entry, an empty clause / count()),
with --fbtmode MODE for xdt's insertion mechanisms; kprobe-empty /
kprobe-count (kprobe + BPF through xdt-bpfbench), fentry-count (x86_64).
"""
import argparse
import bisect
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "bench"))
import xdtvm  # noqa: E402

TARGET = "xdt_bench_target"
DBG = "/sys/kernel/debug/xdt_bench"

# The gdb side: runs inside gdb-multiarch (its Python), writes one JSON
# line per firing: the PCs from the breakpoint until the CPU is back in
# [lo, hi) at an address other than where it stopped.
GDB_SCRIPT = r'''
import gdb, json
lo, hi, fires, out, limit = %(lo)d, %(hi)d, %(fires)d, %(out)r, %(limit)d
vec, traps = %(vec)d, %(traps)r
M = 2**64 - 1
inf = gdb.selected_inferior()
def pc():
    return int(gdb.parse_and_eval("$pc")) & M
def is_trap(at):
    w = int.from_bytes(bytes(inf.read_memory(at, 4)), "little")
    return any(w & m == v for m, v in traps)
gdb.execute("set pagination off")
with open(out, "w") as f:
    for n in range(fires):
        gdb.execute("hbreak *%%#x" %% lo, to_string=True)
        gdb.execute("continue", to_string=True)
        gdb.execute("delete", to_string=True)
        pc0 = pc()
        pcs, left, at = [], False, pc0
        while len(pcs) < limit:
            pcs.append(at)
            if is_trap(at):
                # Run it: the exception enters at the vector.
                gdb.execute("hbreak *%%#x" %% vec, to_string=True)
                gdb.execute("continue", to_string=True)
                gdb.execute("delete", to_string=True)
            else:
                gdb.execute("stepi", to_string=True)
            at = pc()
            inside = lo <= at < hi
            if inside and left and at > pc0:
                break
            left = left or not inside
        f.write(json.dumps({"fire": n, "pcs": pcs, "back": at}) + "\n")
        f.flush()
'''


class Syms:
    """/proc/kallsyms of the guest, for naming PCs (module symbols too)."""

    def __init__(self, text):
        rows = []
        for line in text.splitlines():
            p = line.split()
            # riscv64 modules keep their assembler's local labels (.L*,
            # for linker relaxation) in kallsyms: not functions, and one
            # inside the target would end its range after an instruction
            # or two, so a firing's return was never seen.
            if len(p) >= 3 and p[1] in "tTwW" and \
                    not p[2].startswith(".L"):
                mod = p[3].strip("[]") if len(p) > 3 else ""
                rows.append((int(p[0], 16), p[2], mod))
        rows.sort()
        self.addrs = [r[0] for r in rows]
        self.rows = rows

    def name(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            return "?"
        a, n, m = self.rows[i]
        return f"{n} [{m}]" if m else n

    def next_after(self, addr):
        i = bisect.bisect_right(self.addrs, addr)
        return self.addrs[i] if i < len(self.addrs) else addr + 64

    def lookup(self, name):
        for a, n, m in self.rows:
            if n == name:
                return a
        raise SystemExit(f"{name} not in kallsyms")


def attach_cmd(variant, fbtmode, secs):
    """The guest command that keeps the variant attached for @secs."""
    hold = f"sleep {secs}"
    if variant in ("xdt-empty", "xdt-count"):
        mode = "empty" if variant == "xdt-empty" else "count"
        env = f"XDT_FBTMODE={fbtmode} " if fbtmode else ""
        return f"{env}xdt-rawprog {mode} fbt {TARGET} entry {hold}"
    mech, prog = variant.split("-")
    return (f"xdt-bpfbench attach --mech {mech} --prog {prog} "
            f"--func {TARGET} -- {hold}")


def profile(isa, variant, fires, fbtmode=None, limit=20000):
    b = xdtvm.build_dir(isa)
    xdt_ko = os.path.join(b, "xdt", "xdt.ko")
    bench_ko = os.path.join(b, "modules", "xdt_bench", "xdt_bench.ko")
    vm = xdtvm.VM(isa, smp=1, gdb=True, disk=False)
    with vm:
        vm.put(open(bench_ko, "rb").read(), "/tmp/xdt_bench.ko")
        vm.run(["insmod", "/tmp/xdt_bench.ko"], check=True, timeout=120)
        vm.put(open(xdt_ko, "rb").read(), "/tmp/xdt.ko")
        vm.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
        syms = Syms(vm.run(["cat", "/proc/kallsyms"], timeout=120).stdout)
        lo = syms.lookup(TARGET)
        hi = syms.next_after(lo)
        vec = syms.lookup(xdtvm.ISAS[isa]["trapvec"])
        vm.run(["sh", "-c", attach_cmd(variant, fbtmode, 600) +
                " > /tmp/att.out 2>&1 &"], check=True)
        time.sleep(3)
        tmp = tempfile.mkdtemp(prefix="stepprof-")
        out = os.path.join(tmp, "pcs.jsonl")
        script = os.path.join(tmp, "prof.py")
        with open(script, "w") as f:
            f.write(GDB_SCRIPT % dict(lo=lo, hi=hi, fires=fires, out=out,
                                      limit=limit, vec=vec,
                                      traps=xdtvm.TRAP_INSNS[isa]))
        gdb = subprocess.Popen(
            ["gdb-multiarch", "-nx", "-batch",
             "-ex", f"target remote 127.0.0.1:{vm.gdb_port}",
             "-ex", f"source {script}", "-ex", "detach"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(2)           # the breakpoint is in before the trigger
        trig = threading.Thread(target=lambda: vm.run(
            ["sh", "-c", f"echo {fires} > {DBG}/trigger"], timeout=600))
        trig.start()
        gout, _ = gdb.communicate(timeout=900)
        trig.join()
        runs = [json.loads(x) for x in open(out)] if os.path.exists(out) else []
        if len(runs) != fires:
            raise SystemExit(f"gdb recorded {len(runs)} of {fires} firings:"
                             f"\n{gout[-2000:]}")
        vm.run(["sh", "-c", "kill %1 2>/dev/null; pkill -INT xdt-rawprog;"
                " pkill xdt-bpfbench; true"])
        return syms, runs


def stages(syms, pcs):
    """[(function, instructions, visits)] in order of first execution."""
    order, count, visits, last = [], {}, {}, None
    for pc in pcs:
        n = syms.name(pc)
        if n not in count:
            order.append(n)
            count[n] = visits[n] = 0
        count[n] += 1
        if n != last:
            visits[n] += 1
        last = n
    return [(n, count[n], visits[n]) for n in order]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isa", required=True)
    ap.add_argument("--variant", default="xdt-empty")
    ap.add_argument("--fbtmode")
    ap.add_argument("--fires", type=int, default=3)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    syms, runs = profile(a.isa, a.variant, a.fires, a.fbtmode)
    pcs = runs[-1]["pcs"]
    st = stages(syms, pcs)
    print(f"# {a.isa} {a.variant}{' ' + a.fbtmode if a.fbtmode else ''}: "
          f"{len(pcs)} instructions in firing {len(runs)} of {len(runs)}"
          f" (firings: {', '.join(str(len(r['pcs'])) for r in runs)})")
    print(f"{'function':48} {'insns':>6} {'visits':>6}")
    for n, c, v in st:
        print(f"{n:48} {c:6} {v:6}")
    if a.trace:
        for pc in pcs:
            print(f"{pc:#x} {syms.name(pc)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"isa": a.isa, "variant": a.variant,
                       "fbtmode": a.fbtmode, "firings": [len(r["pcs"])
                                                         for r in runs],
                       "stages": st, "pcs": pcs}, f)


if __name__ == "__main__":
    main()
