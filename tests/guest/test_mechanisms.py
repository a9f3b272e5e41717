"""fbt's insertion mechanisms (-x fbtmode, docs/mechanisms.md), each on every
ISA: exact counts, arg0..arg9, stack(), the bytes gdb sees while a probe is
in and after it is out, coexistence with a kprobe on the same function, and
what `dtrace -l -v` says.  The known-shape functions are xdt_hello's (see
its source): a ten-argument function and a three-deep call chain."""
import re

import pytest

import xdtvm
from test_dtrace_guest import dtrace, load_hello, script
from test_xdt_kernel import (bg, gated, need_fbtmode, open_gate,  # noqa: F401
                             wait_started, xdt)  # noqa: F401

MODES = ["breakpoint", "ftrace", "trampoline"]


@pytest.fixture
def hello(xdt):
    load_hello(xdt)
    yield xdt
    xdt.run(["rmmod", "xdt_hello"])


def lines(r):
    return [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]


@pytest.mark.parametrize("mode", MODES)
def test_exact_count(xdt, mode):
    need_fbtmode(xdt.isa, mode)
    n = 200
    r = dtrace(xdt, "-x", f"fbtmode={mode}", "-n",
               'fbt::read_zero:entry /execname == "dd"/ { @ = count(); }',
               "-c", f"dd if=/dev/zero of=/dev/null bs=1 count={n}")
    assert r.ok, r
    assert lines(r)[-1] == str(n), r.stdout


@pytest.mark.parametrize("mode", MODES)
def test_arguments(hello, mode):
    """Register and stack arguments at entry (x86_64 passes six in
    registers, arm64 and riscv64 eight) and the return value, under each
    mechanism: the registers each one saves are the ones fbt reads."""
    need_fbtmode(hello.isa, mode)
    r = dtrace(hello, "-x", f"fbtmode={mode}", "-qn",
               "fbt:xdt_hello:xdt_hello_args:entry "
               "{ printf(\"%d %d %d %d %d %d %d %d %d %d\\n\", arg0, "
               "arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9); } "
               "fbt:xdt_hello:xdt_hello_args:return "
               "{ printf(\"rv %d\\n\", arg1); }",
               "-c", script(hello, "args", "echo 100 > "
                            "/sys/module/xdt_hello/parameters/args\n"))
    assert r.ok, r
    rv = 0
    for i in range(10):
        rv ^= 100 + i
    assert lines(r) == [" ".join(str(100 + i) for i in range(10)),
                        f"rv {rv}"], r.stdout


@pytest.mark.parametrize("mode", MODES)
def test_stack(hello, mode):
    need_fbtmode(hello.isa, mode)
    r = dtrace(hello, "-x", f"fbtmode={mode}", "-qn",
               "fbt:xdt_hello:xdt_hello_c:entry { stack(); }", "-c",
               script(hello, "chain",
                      "echo 4 > /sys/module/xdt_hello/parameters/chain\n"))
    assert r.ok, r
    frames = [f.split("+")[0] for f in lines(r)]
    assert frames[:3] == ["xdt_hello`xdt_hello_b", "xdt_hello`xdt_hello_a",
                          "xdt_hello`chain_set"], r.stdout
    assert "kernel`vfs_write" in frames[3:], r.stdout


@pytest.mark.parametrize("mode", [None, "breakpoint"])
def test_demo_view_is_the_real_patch(xdt, gdb, mode):
    """`make demo`'s view (xdtvm.fbt_patch_view) of fbt::vfs_read:entry
    under the default mechanism and the breakpoint, as the demo shows them
    (the other named mechanisms' bytes: the next test): the bytes gdb reads
    while dtrace holds the probe in are the mechanism's, the mechanism is
    the one dtrace -l -v names, and the original comes back."""
    v = xdtvm.fbt_patch_view(xdt, gdb, "vfs_read", mode)
    assert not v["problems"], (v["problems"], v["before"].hex(),
                               v["during"].hex(), v["dis"])
    if mode is None:
        # The default is the cheapest mechanism the function can take.
        best = "trampoline" if xdtvm.HAVE_TRAMP[xdt.isa] else "ftrace"
        assert v["mech"] == best, v


@pytest.mark.parametrize("mode", MODES)
def test_gdb_sees_the_mechanism_then_the_original(xdt, gdb, mode):
    """While fbt::read_zero:entry is in, gdb (QEMU's gdbstub) sees the
    mechanism's bytes at the entry and nothing else changed; after, the
    original bytes, under every mechanism."""
    need_fbtmode(xdt.isa, mode)
    func = gdb.addr("read_zero")
    before = gdb.read(func, 16)
    xdt.run(f"XDT_FBTMODE={mode} xdt-rawprog count fbt read_zero entry "
            f"{gated(xdt, 'mech')} > /tmp/raw.out 2>&1 {bg('mech')}", check=True)
    try:
        wait_started(xdt, "mech", tracer="xdt-rawprog")
        during = gdb.read(func, 16)
    finally:
        open_gate(xdt, "mech")
    xdt.run("while pidof xdt-rawprog >/dev/null; do sleep 0.2; done",
            timeout=60, check=True)
    assert xdtvm.fbt_entry_written(xdt.isa, mode, before, during), \
        f"{before.hex()} -> {during.hex()}"
    assert gdb.read(func, 16) == before


def test_ftrace_mode_shares_the_function_with_a_kprobe(xdt):
    """ftrace_ops share a call site: a kprobe (kprobes-on-ftrace on x86_64
    and riscv64, a brk on arm64) on the function xdt traces in ftrace mode
    counts every call too, and both go cleanly."""
    ev = "/sys/kernel/tracing"
    n = 50
    xdt.run(f"echo 'p:xdtm/rz read_zero' >> {ev}/kprobe_events && "
            f"echo 1 > {ev}/events/xdtm/rz/enable", check=True)
    try:
        r = dtrace(xdt, "-x", "fbtmode=ftrace", "-n",
                   'fbt::read_zero:entry /execname == "dd"/ '
                   '{ @ = count(); }', "-c",
                   f"dd if=/dev/zero of=/dev/null bs=1 count={n}")
        prof = xdt.run(["cat", f"{ev}/kprobe_profile"]).stdout
    finally:
        xdt.run(f"echo 0 > {ev}/events/xdtm/rz/enable; "
                f"echo '-:xdtm/rz' >> {ev}/kprobe_events")
    assert r.ok, r
    assert lines(r)[-1] == str(n), r.stdout
    hits = int(re.search(r"\brz\s+(\d+)", prof).group(1))
    assert hits >= n, prof
