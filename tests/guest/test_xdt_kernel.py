"""xdt.ko on a booted guest, driven without the D compiler (xdt-rawprog):
loading, /dev/xdt permissions, the DIF verifier through the raw ioctl, exact
fbt counts, one trap per firing, and the patch as gdb sees it.

Runs on every ISA; each has its arch layer."""
import contextlib
import os
import re
import time

import pytest

from conftest import missing

import xdtvm


def arch_layer(isa):
    d = xdtvm.ISAS[isa]["dir"]
    return os.path.isfile(os.path.join(xdtvm.TOP, "arch", d, "trap.c"))


@pytest.fixture
def xdt(vm):
    return load_xdt(vm)


def load_xdt(vm):
    """@vm with xdt.ko loaded (for fixtures of a wider scope than xdt)."""
    if not arch_layer(vm.isa):
        missing(f"arch layer of {vm.isa} (arch/*/trap.c)")
    if "xdt " not in vm.run(["cat", "/proc/modules"], check=True).stdout:
        ko = os.path.join(xdtvm.build_dir(vm.isa), "xdt", "xdt.ko")
        assert os.path.isfile(ko), "xdt.ko not built (make xdt-ko)"
        vm.put(ko, "/tmp/xdt.ko")
        vm.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
    return vm


def gated(vm, name):
    """A command (no shell quoting needed, for dtrace -c / xdt-rawprog) that
    says it has started, then waits until open_gate(vm, name).  Run by a
    tracer after GO, it holds tracing on for exactly as long as a test
    needs, however slow the host: no sleep has to outlast anything."""
    vm.run(["rm", "-f", f"/tmp/{name}.started", f"/tmp/{name}.go",
            f"/tmp/{name}.pid"], check=True)
    vm.put(f"touch /tmp/{name}.started\n"
           f"while [ ! -e /tmp/{name}.go ]; do sleep 0.1; done\n".encode(),
           f"/tmp/{name}.sh", mode="755")
    return f"sh /tmp/{name}.sh"


def bg(name):
    """What ends the command line of a tracer started in the background to
    run gated(vm, @name): `&`, and its pid kept for wait_started()."""
    return f"& echo $! > /tmp/{name}.pid"


def wait_started(vm, name, tracer="dtrace", timeout=300):
    """Block until the gated command @name runs (so tracing is on); fail at
    once if the @tracer process that should run it is gone (it refused).
    The tracer is known by the pid bg() kept, not by name: just after the
    shell forks it, the child is not yet called @tracer (pidof would miss
    it), and a tracer left over from before would be found by name."""
    r = vm.run(f"p=$(cat /tmp/{name}.pid) || exit 4; "
               f"while [ ! -e /tmp/{name}.started ]; do "
               f"kill -0 $p 2>/dev/null || exit 3; sleep 0.1; done",
               timeout=timeout)
    assert r.ok, f"{tracer} ended before tracing {name} ({r.code}): " + \
        vm.run(f"cat /tmp/{name}.out /tmp/raw.out 2>/dev/null").stdout


def open_gate(vm, name):
    vm.run(["touch", f"/tmp/{name}.go"], check=True)


@contextlib.contextmanager
def tracing(vm, prog, name):
    """dtrace -qn @prog running in the background for the body of the
    with-statement (it traces a gated command), stopped after it."""
    vm.run(f"dtrace -qn '{prog}' -c '{gated(vm, name)}' "
           f"> /tmp/{name}.out 2>&1 {bg(name)}", check=True)
    try:
        wait_started(vm, name)
        yield
    finally:
        open_gate(vm, name)
        vm.run("while pidof dtrace >/dev/null; do sleep 0.2; done",
               timeout=60)


def wait_refcnt(vm, module, timeout=300):
    """Block until @module is pinned (an enabling or an open device)."""
    vm.run(f"while [ \"$(cat /sys/module/{module}/refcnt)\" = 0 ]; do "
           "sleep 0.1; done", timeout=timeout, check=True)


def rawprog(vm, *args, check=False, timeout=120, fbtmode="breakpoint"):
    """xdt-rawprog; fbt entry probes by breakpoint unless told (-x fbtmode:
    XDT_FBTMODE), since these tests count its traps and read its bytes."""
    return vm.run(["env", f"XDT_FBTMODE={fbtmode}", "xdt-rawprog", *args],
                  timeout=timeout, check=check)


def test_module_loads_with_fbt_probes(xdt):
    dmesg = xdt.run(["dmesg"], check=True).stdout
    m = re.search(r"xdt: ready on (\S+), (\d+) probes", dmesg)
    assert m, dmesg[-2000:]
    assert m.group(1) == xdt.isa
    assert int(m.group(2)) > 10000
    m = re.search(r"xdt: fbt: (\d+) functions with probes", dmesg)
    assert m and int(m.group(1)) > 5000
    ls = xdt.run(["ls", "-l", "/dev/xdt"], check=True).stdout
    # open to all: the capability check at open is the gate
    # (docs/privileges.md)
    assert ls.startswith("crw-rw-rw-"), ls


def test_device_needs_a_capability(xdt):
    """A non-root opener without CAP_PERFMON or CAP_SYS_ADMIN gets EPERM
    (every level: test_privileges.py)."""
    r = xdt.run(["su", "nobody", "-s", "/bin/sh", "-c", "xdt-rawprog valid"])
    assert r.code == 1
    assert "Operation not permitted" in r.stderr, r


@pytest.mark.parametrize("case,reason", [
    ("backward-branch", "difo 0 insn 1 (bz): branch backwards to 0"),
    ("bad-opcode", "difo 0 insn 0: invalid opcode 0xee"),
    ("write-r0", "difo 0 insn 0 (mov): writes %r0"),
    ("bad-size", "program object says"),
])
def test_verifier_refuses_malformed_programs(xdt, case, reason):
    r = rawprog(xdt, case)
    assert r.code == 1, r
    assert r.stdout.startswith("refused: Invalid argument: "), r.stdout
    assert reason in r.stdout, r.stdout
    # The same device takes a good program right after.
    assert rawprog(xdt, "valid").stdout.startswith("accepted: 1 probes")


def need_fbtmode(isa, mode):
    """Skip, saying why, a test of a mechanism the ISA does not have yet
    (dtrace would quietly fall back to the breakpoint)."""
    why = xdtvm.no_tramp_reason(isa) if mode == "trampoline" else None
    if why:
        pytest.skip(why)


def counts(out):
    m = re.search(r"probes (\d+) count (\d+) firings (\d+) traps (\d+) "
                  r"errors (\d+)", out)
    assert m, out
    return dict(zip(["probes", "count", "firings", "traps", "errors"],
                    map(int, m.groups())))


@pytest.mark.parametrize("name,mode", [("entry", "breakpoint"),
                                       ("return", "breakpoint"),
                                       ("entry", "ftrace"),
                                       ("entry", "trampoline")])
def test_fbt_count_is_exact_and_costs_one_trap(xdt, name, mode):
    """read_zero runs once per read(2) of /dev/zero: dd bs=1 count=N gives
    exactly N firings, each from exactly one breakpoint trap -- or none,
    under the entry mechanisms that call (docs/mechanisms.md)."""
    need_fbtmode(xdt.isa, mode)
    n = 500
    r = rawprog(xdt, "count", "fbt", "read_zero", name, "dd",
                "if=/dev/zero", "of=/dev/null", "bs=1", f"count={n}",
                check=True, fbtmode=mode)
    c = counts(r.stdout)
    from conftest import REPORT
    REPORT.append(f"xdt traps per fbt {name} firing {xdt.isa} {mode}: "
                  f"{c['traps']} traps / {c['count']} firings")
    assert c["probes"] == 1
    assert c["count"] == n, r.stdout
    # BEGIN and END fire trap-free.
    traps = n if mode == "breakpoint" else 0
    assert c["traps"] == traps and c["firings"] == n + 2, r.stdout
    assert c["errors"] == 0


def test_unknown_probe_matches_nothing(xdt):
    r = rawprog(xdt, "count", "fbt", "no_such_function_xdt", "entry", "true")
    assert r.stdout.strip() == "no probe matched", r


def test_gdb_sees_the_patch_while_enabled_and_original_after(xdt, gdb):
    """The DTrace-internals picture, checked: while fbt::read_zero:entry is
    enabled, gdb (on QEMU's gdbstub) finds the ISA's breakpoint -- int3,
    brk, ebreak -- in place of the first patched instruction and every
    other byte unchanged; after tracing, the original bytes are back."""
    off, patch, mnemonic = xdtvm.XDT_PATCH[xdt.isa]
    func = gdb.addr("read_zero")
    site = func + off
    before = gdb.read(func, 16)
    assert before[off:off + len(patch)] != patch
    xdt.run(f"XDT_FBTMODE=breakpoint xdt-rawprog count fbt read_zero entry "
            f"{gated(xdt, 'gdb')} "
            f"> /tmp/raw.out 2>&1 {bg('gdb')}", check=True)
    try:
        wait_started(xdt, "gdb", tracer="xdt-rawprog")
        during = gdb.read(func, 16)
        insn = gdb.disassemble(site, 1)
    finally:
        open_gate(xdt, "gdb")
    assert during[off:off + len(patch)] == patch, during.hex()
    assert (during[:off] + during[off + len(patch):] ==
            before[:off] + before[off + len(patch):])
    where = f"read_zero+{off}" if off else "read_zero"
    assert re.search(rf"<{re.escape(where)}>:\s+{mnemonic}\b", insn), insn
    xdt.run("while pidof xdt-rawprog >/dev/null; do sleep 0.2; done",
            timeout=60, check=True)
    assert gdb.read(func, 16) == before
    assert counts(xdt.run(["cat", "/tmp/raw.out"]).stdout)["errors"] == 0


def test_unload_refused_while_tracing_then_clean(xdt):
    xdt.run(f"xdt-rawprog count fbt vfs_read entry {gated(xdt, 'unload')} "
            f"> /tmp/raw.out 2>&1 {bg('unload')}", check=True)
    try:
        wait_started(xdt, "unload", tracer="xdt-rawprog")
        r = xdt.run(["rmmod", "xdt"])
    finally:
        open_gate(xdt, "unload")
    # The open /dev/xdt pins the module: delete_module says EAGAIN.
    # (busybox rmmod reports it but exits 0, so check the outcome.)
    assert "Resource temporarily unavailable" in r.stderr, r
    assert "xdt " in xdt.run(["cat", "/proc/modules"]).stdout
    xdt.run("while pidof xdt-rawprog >/dev/null; do sleep 0.2; done",
            timeout=60, check=True)
    xdt.run(["rmmod", "xdt"], check=True)
    assert "xdt " not in xdt.run(["cat", "/proc/modules"]).stdout


KMEMLEAK = "/sys/kernel/debug/kmemleak"


def test_unload_leaves_nothing_allocated(xdt):
    """On a kernel with kmemleak (make test-debug): load, trace, unload,
    and nothing xdt.ko allocated is left -- the probe table was, at every
    unload, until kmemleak on riscv64 said so.  Two scans: kmemleak reports
    an object only once it is unreferenced and unchanged across two."""
    if xdt.run(["test", "-e", KMEMLEAK]).code != 0:
        pytest.skip("kernel without kmemleak (make test-debug runs this)")
    r = xdt.run("dtrace -qn 'kinst::vfs_read: { @ = count(); }' "
                "-c 'cat /proc/version'", timeout=600)
    assert r.ok, r
    xdt.run(f"echo scan > {KMEMLEAK}; echo clear > {KMEMLEAK}",
            timeout=1800, check=True)
    xdt.run(["rmmod", "xdt"], check=True)
    xdt.run(f"echo scan > {KMEMLEAK}; echo scan > {KMEMLEAK}",
            timeout=1800, check=True)
    rep = xdt.run(["cat", KMEMLEAK], check=True).stdout
    xdt.run(f"echo clear > {KMEMLEAK}")
    # An unloaded module's frames have no names left: every suspect counts.
    assert "unreferenced object" not in rep, rep

