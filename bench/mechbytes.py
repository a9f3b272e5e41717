#!/usr/bin/env python3
"""What each fbt insertion mechanism writes, as gdb on QEMU's gdbstub sees it.

    bench/mechbytes.py [--isas x86_64,aarch64,riscv64] [--func read_zero]

For each ISA: boots the guest with a gdbstub, loads xdt.ko, and for each
-x fbtmode (breakpoint, ftrace, trampoline) enables fbt::FUNC:entry with
xdt-rawprog, disassembles the function's first instructions while the
probe is in and again after it is out, and prints a Markdown section per
ISA (docs/mechanisms.md quotes it).  The after-bytes must equal the before
bytes; the script exits 1 if they do not.
"""
import argparse
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
import xdtvm  # noqa: E402

MODES = ["breakpoint", "ftrace", "trampoline"]
NINSN = {isa: f["bench"]["show_insns"] for isa, f in xdtvm.FACTS.items()}


def insns(text, func, base, syms):
    """gdb's x/Ni lines as '<func+off>: insn', a call target gdb cannot
    name (module text: gdb has only vmlinux) named from the guest's
    kallsyms."""
    out = []
    for ln in text.splitlines():
        m = re.search(r"(0x[0-9a-f]+)\s*(?:<[^>]*>)?:\s+(.*)", ln)
        if not m:
            continue
        off = int(m.group(1), 16) - base
        insn = m.group(2).strip()
        t = re.search(r"(0x[0-9a-f]{8,})\s*$", insn)
        if t and int(t.group(1), 16) in syms:
            insn += f" <{syms[int(t.group(1), 16)]}>"
        out.append(f"<{func}+{off}>: {insn}")
    return out


def one_isa(isa, func):
    ok = True
    vm = xdtvm.VM(isa, gdb=True, disk=False)
    lines = [f"### {isa}", ""]
    with vm:
        ko = os.path.join(xdtvm.build_dir(isa), "xdt", "xdt.ko")
        vm.put(ko, "/tmp/xdt.ko")
        vm.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
        g = xdtvm.Gdb(vm)
        a = g.addr(func)
        syms = {}
        for ln in vm.run(["cat", "/proc/kallsyms"], timeout=120).stdout \
                .splitlines():
            p = ln.split()
            if len(p) >= 3 and p[1] in "tT" and not p[2].startswith("$"):
                syms.setdefault(int(p[0], 16), p[2])
        n = NINSN[isa]
        before = g.read(a, 16)
        lines += ["| mechanism | first instructions while the probe is in |",
                  "|---|---|",
                  "| (none: original) | " +
                  "<br>".join(f"`{i}`" for i in insns(g.disassemble(a, n), func, a, syms))
                  + " |"]
        for mode in MODES:
            vm.run(["rm", "-f", "/tmp/mb.go", "/tmp/mb.started"])
            vm.put(b"touch /tmp/mb.started\nwhile [ ! -e /tmp/mb.go ]; do "
                   b"sleep 0.1; done\n", "/tmp/mb.sh", mode="755")
            vm.run(f"XDT_FBTMODE={mode} xdt-rawprog count fbt {func} entry "
                   "sh /tmp/mb.sh > /tmp/mb.out 2>&1 &", check=True)
            vm.run("while [ ! -e /tmp/mb.started ]; do sleep 0.1; done",
                   timeout=120, check=True)
            dis = insns(g.disassemble(a, n), func, a, syms)
            vm.run(["touch", "/tmp/mb.go"], check=True)
            vm.run("while pidof xdt-rawprog >/dev/null; do sleep 0.2; done",
                   timeout=60, check=True)
            mech = re.search(r"mech (\S+)",
                             vm.run(["cat", "/tmp/mb.out"]).stdout)
            after = g.read(a, 16)
            if after != before:
                ok = False
            lines.append(f"| {mode} (in use: "
                         f"{mech.group(1) if mech else '?'}) | " +
                         "<br>".join(f"`{i}`" for i in dis) + " |")
        lines += ["", f"After each, the {len(before)} bytes at `{func}` were "
                  + ("the original ones." if ok else "**not** the original "
                     "ones."), ""]
    return ok, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isas", default="x86_64,aarch64,riscv64")
    ap.add_argument("--func", default="read_zero")
    a = ap.parse_args()
    good = True
    print(f"<!-- bench/mechbytes.py --isas {a.isas} --func {a.func} -->\n")
    for isa in a.isas.split(","):
        ok, lines = one_isa(isa, a.func)
        good &= ok
        print("\n".join(lines))
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
