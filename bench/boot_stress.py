#!/usr/bin/env python3
"""Boot one ISA's lab guest many times, several at once beside busy loops,
and count the boots that never reach the agent.

Not a benchmark and not part of `make test`: the reproducer of a boot that
hangs only when the host is loaded (docs/reliability.md, "riscv64 guests
that never got past OpenSBI").  A hung boot's console and each vCPU's
registers (VM.vcpu_pcs: PC, backtrace, the ISA's [gdb] hang registers) are
kept under --logdir/<n>/ and its first lines printed.

    bench/boot_stress.py --isa riscv64 --boots 90 --parallel 3 --hogs 2
"""
import argparse
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import xdtvm  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--isa", default="riscv64", choices=sorted(xdtvm.FACTS))
    ap.add_argument("--boots", type=int, default=30)
    ap.add_argument("--parallel", type=int, default=3,
                    help="guests booting at once")
    ap.add_argument("--hogs", type=int, default=2,
                    help="host busy loops beside them (the load of a "
                         "test run side by side)")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds to the agent's hello before a boot counts "
                         "as hung (a healthy loaded boot takes 10-20)")
    ap.add_argument("--append", default="", help="more kernel command line")
    ap.add_argument("--logdir", default="/tmp/xdt-boot-stress")
    a = ap.parse_args()

    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
            for _ in range(a.hogs)]
    results, lock = [], threading.Lock()

    def one(i):
        vm = xdtvm.VM(a.isa, gdb=True, append=a.append,
                      logdir=os.path.join(a.logdir, str(i)))
        t = time.monotonic()
        try:
            vm.start(timeout=a.timeout)
            ok, why = True, ""
        except xdtvm.XdtError as e:
            ok, why = False, str(e)
        finally:
            vm.kill()
        dt = time.monotonic() - t
        with lock:
            results.append((i, ok, dt))
            print(f"{i:4d} {'booted' if ok else 'FAILED'} {dt:6.1f} s",
                  flush=True)
            if not ok:
                with open(os.path.join(a.logdir, str(i), "why.txt"),
                          "w") as f:
                    f.write(why)
                print("     " + "\n     ".join(why.splitlines()[:3]),
                      flush=True)

    try:
        for b in range(0, a.boots, a.parallel):
            ts = [threading.Thread(target=one, args=(i,))
                  for i in range(b, min(a.boots, b + a.parallel))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
    finally:
        for h in hogs:
            h.kill()
    good = [dt for _, ok, dt in results if ok]
    bad = [i for i, ok, _ in results if not ok]
    print(f"{a.isa}: {len(good)} of {len(results)} booted "
          f"({a.parallel} at once, {a.hogs} busy loops); "
          f"boot {min(good, default=0):.1f}-{max(good, default=0):.1f} s; "
          f"failed: {bad or 'none'} (evidence under {a.logdir})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
