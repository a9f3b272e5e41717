"""kgdb in the lab (docs/kgdb-study.md): gdb-multiarch with the vmlinux's symbols,
attached to the guest kernel's own kgdb stub (kgdboc on the console UART,
through the launcher's kgdb port: xdtvm.VM(kgdb=True), xdtvm.Kgdb) -- not
to QEMU's gdbstub.  The quick half of `make study` (bench/kgdbstudy.py):
kgdb reads a function, sees xdt's patch value while a probe is in and the
original after; a debugger breakpoint that counts (bench/kgdb_count.py)
counts exactly the calls made; the guest carries on after every detach."""
import os

import pytest

import xdtvm
from test_xdt_kernel import bg, gated, open_gate, wait_started, xdt  # noqa: F401

FUNC = "read_zero"
COUNT_SCRIPT = os.path.join(xdtvm.TOP, "bench", "kgdb_count.py")


def kallsyms(vm, sym):
    out = vm.run(f"grep -m1 ' {sym}\\b' /proc/kallsyms", check=True).stdout
    return int(out.split()[0], 16)


def kgdb_look(vm, addr, length, start):
    """Stop the kernel in kgdb, read @length bytes at @addr exactly as
    kgdb returns them, disassemble from @start (FUNC's kallsyms address:
    arm64's DWARF puts the function after ftrace's two NOPs, so gdb's own
    `read_zero` would skip the patched one), let the kernel go."""
    k = xdtvm.Kgdb(vm)
    k.enter()
    hello = k.attach()
    try:
        assert "kgdb_breakpoint" in hello, hello   # stopped in sysrq-g
        # enough instructions to reach the site (ppc64le's is the 4th)
        n = max(3, xdtvm.FACTS[vm.isa]["bench"]["show_insns"])
        return k.raw_read(addr, length), k.cmd(f"x/{n}i {start:#x}")
    finally:
        k.detach()


def dd_count(vm, n):
    r = vm.run(["dtrace", "-n", f'fbt::{FUNC}:entry /execname == "dd"/ '
                "{ @ = count(); }", "-c",
                f"dd if=/dev/zero of=/dev/null bs=1 count={n}"], timeout=180)
    assert r.ok, r
    return r.stdout.split()[-1]


def test_kgdb_sees_xdt_patch_value_then_original(xdt):
    """Before, while fbt::read_zero:entry is in (the breakpoint mechanism,
    whose bytes are the ISA's patch value) and after, as kgdb reads them;
    afterwards the guest traces normally."""
    off, patch, mnem = xdtvm.XDT_PATCH[xdt.isa]
    start = kallsyms(xdt, FUNC)
    addr = start + off
    before, dis = kgdb_look(xdt, addr, len(patch), start)
    assert f"<{FUNC}" in dis, dis           # gdb has the vmlinux symbols
    assert before != patch
    name = "kgdbfbt"
    xdt.run(f"dtrace -x fbtmode=breakpoint -qn 'fbt::{FUNC}:entry {{}}' "
            f"-c '{gated(xdt, name)}' > /tmp/{name}.out 2>&1 {bg(name)}", check=True)
    try:
        wait_started(xdt, name)
        during, dis = kgdb_look(xdt, addr, len(patch), start)
    finally:
        open_gate(xdt, name)
        xdt.run("while pidof dtrace >/dev/null; do sleep 0.2; done",
                timeout=120)
    assert during == patch, (during.hex(), dis)
    assert mnem in dis, dis
    after, _ = kgdb_look(xdt, addr, len(patch), start)
    assert after == before
    assert dd_count(xdt, 40) == "40"


def dd(vm, n, timeout=120):
    """@n one-byte reads of /dev/zero: @n calls of read_zero (nothing else
    in the guest reads /dev/zero)."""
    r = vm.run(["dd", "if=/dev/zero", "of=/dev/null", "bs=1", f"count={n}"],
               timeout=timeout)
    assert r.ok and f"{n}+0 records in" in r.stderr, r
    return r


def test_kgdb_breakpoint_counts_every_call(vm):
    """bench/kgdb_count.py's counting breakpoint through kgdb on read_zero
    (count-step + count-run: its own step-over, which masks interrupts for
    the step where the ISA's kgdb needs it -- gdb's own step-over never
    finishes on arm64, see kgdb_count.py): hits == calls; after detach the
    guest runs undisturbed.  read_zero, not a module function: riscv64's
    kgdb hangs writing a breakpoint into read-only module text
    (bench/kgdbstudy.py, ZERO)."""
    addr = kallsyms(vm, FUNC)
    n = 12
    st0 = dict(vm.kgdb_stats)
    k = xdtvm.Kgdb(vm)
    k.enter()
    k.attach()
    try:
        k.cmd(f"source {COUNT_SCRIPT}")
        assert "count-step 1" in k.cmd(f"count-step *{addr:#x}")
        k.send("count-run")
        dd(vm, n, timeout=600)
        k.enter()
        stop = k.wait(timeout=300)
        assert "count-run: stopped at" in stop, stop
        assert "kgdb_breakpoint" in k.cmd("frame"), stop
        report = k.cmd("count-report")
        k.cmd("delete")
    finally:
        k.detach()
    assert f"hits {n}" in report, report
    # Each hit is the breakpoint and the single-step over it: two stop
    # replies on the line (plus the two sysrq entries).
    stops = vm.kgdb_stats["stops"] - st0["stops"]
    assert stops == 2 * n + 2, (stops, vm.kgdb_stats)
    dd(vm, n)
    assert vm.run("echo alive").stdout.strip() == "alive"
