"""The pid provider in shared libraries (libxdt/uproc.c): a dynamically
linked program, guest/xdt-udyn.c, against xdt's own libxdtu.so.1
(guest/xdt-ulib.c) and Debian's libc, which the guests carry with its
loader.  Modules by soname, base name, a.out and the loader; -c of a
dynamic command sees the libraries the loader maps before main (dtrace
runs it to its entry point); -p of a running one; ustack() through the
library; libc's functions; a library dlopen()ed later (no probes: a clear
error, or -Z); a stripped library."""
import os
import re
import subprocess

import pytest

import xdtvm
from test_pid import aggs, dtrace, frames, funcs_of, wait_tracing  # noqa: F401
from test_xdt_kernel import xdt  # noqa: F401

UD = "/usr/bin/xdt-udyn"
LIB = "libxdtu.so.1"


def lib_build(isa, name=LIB):
    return os.path.join(xdtvm.build_dir(isa), name)


def sum_calls(n):
    """What `xdt-udyn calls N` prints: xu_mid(i) is 20 i + 3, xu_pid 1."""
    return sum(20 * i + 3 for i in range(1, n + 1)) + n


def test_library_functions_count_exactly(xdt):
    """Every call into libxdtu.so.1, mapped by the loader before main,
    under the module name that is its soname."""
    r = dtrace(xdt, "-qn", f"pid$target:{LIB}:xu_*:entry "
               "{ @[probemod, probefunc] = count(); }",
               "-c", f"{UD} calls 5")
    assert r.ok, r
    got = {(m.group(1), m.group(2)): int(m.group(3)) for m in re.finditer(
        r"^\s+(\S+)\s+(\S+)\s+(\d+)\s*$", r.stdout, re.M)}
    assert got == {(LIB, "xu_mid"): 5, (LIB, "xu_leaf"): 10,
                   (LIB, "xu_hidden"): 5, (LIB, "xu_pid"): 5}, r.stdout
    assert f"sum {sum_calls(5)}" in r.stdout, r.stdout


@pytest.mark.parametrize("mod", ["", "libxdtu", "libxdtu*", "*.so.1",
                                 "libxdtu.so.1.0"])
def test_probemod_is_the_soname(xdt, mod):
    """The guests' libxdtu.so.1 is a link to libxdtu.so.1.0, the file the
    process maps.  An empty or glob module field names the library by its
    soname; `libxdtu` (up to a '.') and the file's base name match it too
    and are the probes' module as written, as a module field that is not a
    glob always is."""
    r = dtrace(xdt, "-qn", f"pid$target:{mod}:xu_leaf:entry "
               "{ @[probemod] = count(); }", "-c", f"{UD} calls 3")
    assert r.ok, (mod, r)
    want = mod if mod and "*" not in mod else LIB
    assert aggs(r.stdout) == {want: 6}, (mod, r.stdout)


@pytest.mark.parametrize("mod", ["xdt-udyn", "a.out"])
def test_the_executable_by_name_and_as_a_out(xdt, mod):
    r = dtrace(xdt, "-qn", f"pid$target:{mod}:main:entry "
               "{ @[probemod] = count(); }", "-c", f"{UD} calls 1")
    assert r.ok, (mod, r)
    assert aggs(r.stdout) == {mod: 1}, r.stdout


def test_the_loader_is_a_module(xdt):
    """The dynamic loader, by its soname (isa.toml [debian] loader): its
    exported functions (Debian ships it with .dynsym only)."""
    ld = xdtvm.FACTS[xdt.isa]["debian"]["loader"]
    for mod, least in ((ld, 5), ("ld-linux-*", 5), (LIB, 4)):
        r = dtrace(xdt, "-l", "-n", f"pid$target:{mod}::entry",
                   "-c", f"{UD} calls 1")
        assert r.ok, (mod, r)
        rows = [ln.split() for ln in r.stdout.splitlines()
                if ln.split()[1:2] and ln.split()[1].startswith("pid")]
        assert len(rows) >= least, (mod, r.stdout)
        assert {f[2] for f in rows} == {ld if mod != LIB else LIB}, \
            (mod, r.stdout)


def test_libc_function(xdt):
    """libc's getpid(), N times from xu_pid(); by soname and by libc."""
    for mod in ("libc.so.6", "libc"):
        r = dtrace(xdt, "-qn", f"pid$target:{mod}:getpid:entry "
                   "{ @ = count(); }", "-c", f"{UD} calls 7")
        assert r.ok, (mod, r)
        assert re.search(r"^\s+7\s*$", r.stdout, re.M), (mod, r.stdout)


def check_frame(fn, frame, mod, func):
    m, _, rest = frame.partition("`")
    name, _, off = rest.partition("+")
    assert (m, name) == (mod, func), (frame, mod, func)
    assert int(off or "0", 16) < fn[func][1], (frame, fn[func])


def test_ustack_through_the_library(xdt):
    """At xu_leaf's entry: xu_leaf, xu_mid (libxdtu.so.1`, offsets inside
    the functions by the library's own symbol sizes), then main
    (xdt-udyn`): the executable is a PIE, the library anywhere.  Then
    libc's __libc_start_call_main, which libc's .dynsym does not name: a
    PC past every symbol's size is libc.so.6`0x..., as DTrace prints it,
    not the exported function below it."""
    lib = funcs_of(lib_build(xdt.isa))
    exe = funcs_of(lib_build(xdt.isa, "xdt-udyn"))
    r = dtrace(xdt, "-qn", f"pid$target:{LIB}:xu_leaf:entry /arg1 == 2/ "
               "{ ustack(); }", "-c", f"{UD} calls 2")
    assert r.ok, r
    st = frames(r.stdout)
    assert len(st) == 2, r.stdout
    for s in st:
        assert s[0] == f"{LIB}`xu_leaf", s
        check_frame(lib, s[1], LIB, "xu_mid")
        check_frame(exe, s[2], "xdt-udyn", "main")
        assert len(s) < 4 or re.match(r"libc\.so\.6`0x[0-9a-f]+$", s[3]), s


def test_dtrace_p_on_a_running_dynamic_process(xdt):
    xdt.run(f"rm -f /tmp/dynp.ut; {UD} wait calls 4 > /tmp/dynp.ut 2>&1 &",
            check=True)
    r = xdt.run("while ! grep -q waiting /tmp/dynp.ut; do sleep 0.1; done; "
                "cat /tmp/dynp.ut", timeout=60, check=True)
    pid = int(r.stdout.split()[1])
    xdt.run(f"dtrace -qn 'pid$target:{LIB}:xu_leaf:entry {{ @ = count(); }} "
            f"pid$target:libc.so.6:getpid:entry {{ @g = count(); }}' "
            f"-p {pid} > /tmp/dynp.out 2>&1 &", check=True)
    wait_tracing(xdt, 1)
    xdt.run(["kill", "-USR1", str(pid)], check=True)
    xdt.run("while pidof dtrace >/dev/null; do sleep 0.2; done", timeout=120,
            check=True)
    out = xdt.run(["cat", "/tmp/dynp.out"], check=True).stdout
    assert re.findall(r"^\s+(\d+)\s*$", out, re.M) == ["8", "4"], out


def test_a_library_dlopened_later(xdt):
    """libxdtu2.so.1 is not there when the probes are made (at the entry
    point): a clear error that says so; with -Z the description matches
    nothing then, and its probes are made when the process dlopen()s the
    library -- the kernel holds the thread at the loader's r_brk until
    they are in, so the calls right after dlopen() are all counted, at
    the default switchrate of 1 s as at 20 Hz; ustack() names the late
    library's frames."""
    prog = ("pid$target:libxdtu2.so.1:xu2_late:entry { @l = count(); } "
            "pid$target:libc.so.6:getpid:entry { @[ustack(2)] = count(); }")
    r = dtrace(xdt, "-qn", prog, "-c", f"{UD} dlopen 3")
    assert r.code == 1, r
    assert "has no module matching 'libxdtu2.so.1'" in r.stderr and \
        "-Z" in r.stderr, r.stderr
    assert "loaded" not in r.stdout, r.stdout
    for rate in ("20hz", "1hz"):
        r = dtrace(xdt, "-Z", "-x", f"switchrate={rate}", "-qn", prog,
                   "-c", f"{UD} dlopen 3")
        assert r.ok, r
        assert "loaded" in r.stdout and "sum 12" in r.stdout, r.stdout
        # (at 1 Hz the process, which lingers 1 s, may be gone before
        # the consumer reads ustack()'s names: addresses, as DTrace's)
        st = frames(r.stdout)
        assert rate == "1hz" or (
            len(st) == 1 and st[0][0].startswith("libc.so.6`") and
            st[0][1].startswith("libxdtu2.so.1`xu2_late+0x")), r.stdout
        # @l (xu2_late's entries, probes made at the dlopen) and the
        # stack's count: 3 each
        assert len(re.findall(r"^\s+3\s*$", r.stdout, re.M)) == 2, r.stdout


def test_stripped_library(xdt):
    """A library stripped of .symtab keeps its exported functions
    (.dynsym): they are probed; its hidden xu_hidden is gone, which the
    error says."""
    cross = xdtvm.ISAS[xdt.isa]["cross"]
    out = lib_build(xdt.isa) + ".stripped"
    subprocess.run([f"{cross}strip", "-o", out, lib_build(xdt.isa)],
                   check=True)
    xdt.run(["mkdir", "-p", "/tmp/xs"], check=True)
    xdt.put(out, f"/tmp/xs/{LIB}", mode="755")
    # the command inherits dtrace's environment (dtrace is static)
    cmd = (f"LD_LIBRARY_PATH=/tmp/xs dtrace -qn 'pid$target:{LIB}:%s:entry "
           f"{{ @ = count(); }}' -c '{UD} calls 2'")
    r = xdt.run(cmd % "xu_leaf", timeout=180)
    assert r.ok, r
    assert re.search(r"^\s+4\s*$", r.stdout, re.M), r.stdout
    r = xdt.run(cmd % "xu_hidden", timeout=180)
    assert r.code == 1, r
    assert "'xu_hidden' is not a function the matching module exports, " \
        "and it is stripped of its other symbols (no .symtab)" in r.stderr, \
        r.stderr
    assert "sum " not in r.stdout, r.stdout


def dlopen_waiter_traced(xdt, tag):
    """A running `xdt-udyn wait dlopen 5` (it dlopen()s libxdtu2 and calls
    xu2_late 5 times on SIGUSR1), and `dtrace -p` of it counting
    xu2_late's calls into /tmp/TAG.out, past GO; the process's pid."""
    xdt.run(f"rm -f /tmp/{tag}.ut; {UD} wait dlopen 5 > /tmp/{tag}.ut 2>&1 &",
            check=True)
    r = xdt.run(f"while ! grep -q waiting /tmp/{tag}.ut; do sleep 0.1; "
                f"done; cat /tmp/{tag}.ut", timeout=60, check=True)
    pid = int(r.stdout.split()[1])
    xdt.run("dtrace -Z -qn 'pid$target:libxdtu2.so.1:xu2_late:entry "
            f"{{ @ = count(); }}' -p {pid} > /tmp/{tag}.out 2>&1 &",
            check=True)
    wait_tracing(xdt, 1)
    return pid


def test_dtrace_p_sees_a_library_the_process_dlopens(xdt):
    """-p of a running dynamic process, which then dlopen()s a library:
    the hold at its loader's r_brk (set at GO in a process that has run
    for a while, so its _r_debug is read from memory) makes the late
    library's probes before its calls, at the default switchrate."""
    pid = dlopen_waiter_traced(xdt, "dynl")
    xdt.run(["kill", "-USR1", str(pid)], check=True)
    xdt.run("while pidof dtrace >/dev/null; do sleep 0.2; done", timeout=120,
            check=True)
    out = xdt.run(["cat", "/tmp/dynl.out"], check=True).stdout
    assert re.findall(r"^\s+(\d+)\s*$", out, re.M) == ["5"], out


def test_a_stopped_consumer_holds_the_process_only_for_the_bound(xdt):
    """The hold is bounded for a consumer that never looks: with dtrace
    stopped (SIGSTOP) when the process dlopen()s, the process goes on
    after XDT_UHOLD_MS, the kernel says why, and nothing hangs; the
    consumer, continued, still ends with the process."""
    xdt.run("dmesg -c > /dev/null", check=True)
    pid = dlopen_waiter_traced(xdt, "dyns")
    xdt.run("kill -STOP $(pidof dtrace)", check=True)
    try:
        xdt.run(["kill", "-USR1", str(pid)], check=True)
        # the process ends on its own: held at most the bound per call
        xdt.run(f"while [ -d /proc/{pid} ]; do sleep 0.2; done", timeout=120,
                check=True)
    finally:
        xdt.run("kill -CONT $(pidof dtrace)", check=True)
    xdt.run("while pidof dtrace >/dev/null; do sleep 0.2; done", timeout=120,
            check=True)
    log = xdt.run(["dmesg"], check=True).stdout
    assert re.search(rf"xdt: pid {pid}: loader hold let go after "
                     rf"2000 ms, the consumer never looked",
                     log), log
