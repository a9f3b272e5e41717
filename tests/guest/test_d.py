"""Data-driven D tests in a booted guest: each tests/guest/d/NAME.d runs with
`dtrace -s` and its stdout must equal NAME.d.out byte for byte.

Header comments on the first lines configure a test:
  /* flags: ... */    more dtrace arguments (shell words)
  /* cmd: ... */      a command for -c (so $target is its pid); the
                      guest's /tmp/sysc is tests/guest/progs/sysc.c
  /* args: ... */     macro arguments ($1 ...) after the script
  /* stderr: RE */    a regular expression stderr must match
  /* stderr-not: RE */  one it must not (per line); without either, stderr
                      must name no error and no drop
  /* cpu: N */        run dtrace on CPU N only (taskset): for output
                      whose order across CPUs' buffers matters
Parametrized over the ISAs like every guest suite: one boot per ISA, every
script copied once.  XDT_BLESS=1 writes the .out files from what ran (then
read the diff: an expected output is a claim about D, not a recording).
"""
import glob
import os
import re
import shlex

import pytest

from conftest import blessing, check_expected

from test_xdt_kernel import xdt  # noqa: F401 (fixture)
from test_providers import sysc  # noqa: F401 (fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "d", "*.d")))
_copied = set()


def header(path, key):
    with open(path) as f:
        for ln in f.read().splitlines()[:6]:
            m = re.match(rf"/\* {key}: (.*) \*/$", ln.strip())
            if m:
                return m.group(1)
    return None


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_d(xdt, sysc, script):
    name = os.path.basename(script)
    if (xdt.isa, name) not in _copied:
        xdt.put(script, f"/tmp/d/{name}") if xdt.run(
            ["mkdir", "-p", "/tmp/d"]).code == 0 else None
        _copied.add((xdt.isa, name))
    cpu = header(script, "cpu")
    argv = (["taskset", f"{1 << int(cpu):#x}"] if cpu else []) + \
        ["dtrace"] + shlex.split(header(script, "flags") or "")
    cmd = header(script, "cmd")
    if cmd:
        argv += ["-c", cmd]
    argv += ["-s", f"/tmp/d/{name}"] + shlex.split(header(script, "args") or "")
    r = xdt.run(argv, timeout=240)
    assert r.how == "exited" and r.code == 0, (r, r.stderr)
    with open(script + ".out") as f:
        want = f.read()
    want_err = header(script, "stderr")
    not_err = header(script, "stderr-not")
    if want_err:
        assert re.search(want_err, r.stderr, re.M), r.stderr
    elif not_err:
        assert not re.search(not_err, r.stderr, re.M), r.stderr
    else:
        assert "error" not in r.stderr.lower(), r.stderr
        assert "drop" not in r.stderr.lower(), r.stderr
    check_expected(r.stdout, script + ".out", f"{name}: stdout")


def test_two_consumers_at_once(xdt, sysc):
    """Two dtrace(1) processes with different programs on the same probe at
    the same time: each gets its own variables, aggregations and exit
    status (every open of /dev/xdt is its own consumer)."""
    # fbt, one breakpoint site both consumers' ECBs hang on (the syscall
    # provider's tracepoint has been seen never called for seconds on
    # riscv64 under TCG: test_providers.py skips that case by name)
    a = ("dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ { @ = count(); }' "
         f"-c '{sysc} threads 1 300' > /tmp/two.a 2>&1")
    b = ("dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ { n++; } "
         "END { printf(\"%d\\n\", n); exit(3); }' "
         f"-c '{sysc} threads 1 500' > /tmp/two.b 2>&1")
    r = xdt.run(f"{a} & {b}; sb=$?; wait $!; sa=$?; echo $sa $sb; "
                "cat /tmp/two.a; echo --; cat /tmp/two.b", timeout=240)
    assert r.ok, r
    lines = r.stdout.split("\n")
    assert lines[0] == "0 3", r.stdout
    out_a, out_b = "\n".join(lines[1:]).split("--\n")
    def data(out):
        return [ln.strip() for ln in out.splitlines()
                if ln.strip() and not ln.startswith("dtrace:")]
    if data(out_a) != ["300"] or data(out_b) != ["500"]:
        # Both counting nothing was QEMU's MTTCG running vfs_read's old
        # bytes after ftrace patched the trampoline call in (the test
        # below; arch/isas).  Should it come back, say what the kernel
        # had on the function.
        why = xdt.run("dtrace -l -v -n fbt::vfs_read:entry | tail -4; "
                      "grep -w vfs_read /sys/kernel/tracing/"
                      "enabled_functions; dmesg | tail -15", timeout=120)
        pytest.fail(f"{r.stdout}\n-- state after:\n{why.stdout}"
                    f"{why.stderr}")


def test_two_consumers_starting_together_repeatedly(xdt, sysc):
    """The pair above, 20 times in a row on x86_64 (5 elsewhere), each
    consumer's count exact.
    With fbt's default mechanism (the trampoline; on x86_64 a direct call
    ftrace patches in with text_poke_bp while the other vCPU runs) this
    caught QEMU's multi-threaded TCG running vfs_read's old bytes: about
    one pair in 36 counted nothing (docs/mechanisms.md).  The lab's x86_64
    guests run single-threaded TCG for it (arch/isas); this keeps it so."""
    a = ("dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ "
         "{ @ = count(); }' -c '" + sysc + " threads 1 100'")
    b = ("dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ { n++; } "
         "END { printf(\"%d\\n\", n); }' -c '" + sysc + " threads 1 200'")
    # The 20 repetitions guard against the emulator case, which is x86_64's
    # (its text_poke_bp under MTTCG); elsewhere a few check the pairing.
    reps = 20 if xdt.isa == "x86_64" else 5
    # one line per pair: A's count, B's count
    show = "grep -v dtrace: /tmp/rep.{} | tr -d ' \\n'"
    loop = (f"i=0; while [ $i -lt {reps} ]; do i=$((i+1)); "
            f"{a} > /tmp/rep.a 2>&1 & {b} > /tmp/rep.b 2>&1; wait $!; "
            f"echo \"$({show.format('a')}) $({show.format('b')})\"; done")
    r = xdt.run(loop, timeout=600)
    assert r.ok, r
    pairs = r.stdout.split("\n")
    pairs = [p for p in pairs if p.strip()]
    assert len(pairs) == reps, r.stdout
    bad = [(i, p) for i, p in enumerate(pairs) if p != "100 200"]
    assert not bad, f"{len(bad)} of {reps} pairs miscounted: {bad}"


def test_c_child_starts_exactly_at_go(xdt, sysc):
    """-c holds the command stopped until GO and then lets it exec: a
    $target predicate sees none of dtrace's own set-up (no read(2) of a
    gate) and every call of the command; run it several times, since the
    old gate raced GO."""
    for _ in range(3):
        r = xdt.run(["dtrace", "-q", "-n", "syscall:::entry /pid == $target/ "
                     "{ @[probefunc] = count(); }", "-c", f"{sysc} getppid 7"],
                    timeout=240)
        assert r.ok, r
        got = {ln.split()[0]: int(ln.split()[1]) for ln in r.stdout.splitlines()
               if len(ln.split()) == 2}
        assert got.get("getppid") == 7, r.stdout
        assert got.get("execve") == 1, r.stdout
        assert "read" not in got, r.stdout
