"""D variables in xdt.ko, without the D compiler: xdt-rawprog vars-CASE
hand-assembles programs that store with DIFEXPR actions and record loads,
so every test here checks the kernel's side of the ABI (core/portable/vars.c,
docs/variables.md) on its own.  Parametrized over the ISAs like the other
guest suites (one booted VM per ISA)."""
import collections
import re

import pytest

from test_xdt_kernel import xdt, rawprog  # noqa: F401 (fixture)


def run(vm, case, timeout=180):
    r = rawprog(vm, *f"vars-{case}".split(), timeout=timeout)
    assert r.code == 0, r
    return r.stdout


def records(out, clause):
    return [line.split(":", 1)[1].strip() for line in out.splitlines()
            if line.startswith(f"c{clause}:")]


def status(out):
    m = re.search(r"status errors (\d+) drops (\d+) dyndrops (\d+) "
                  r"dirty (\d+)", out)
    assert m, out
    return dict(zip(["errors", "drops", "dyndrops", "dirty"],
                    map(int, m.groups())))


def errors(out):
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3), 16))
            for m in re.finditer(r"error c(\d+) act \d+ pc \d+ fault (\d+) "
                                 r"addr (0x[0-9a-f]+|0)", out)}


def test_globals_and_clause_locals(xdt):
    """Globals persist; this-> values set in one BEGIN clause are seen by
    the next clause of the same firing and are zero again in END (another
    firing); a byte store, scratch + copy and strlen() work on the
    program's own storage."""
    out = run(xdt, "global")
    assert records(out, 1) == [
        '42 "hello" 7 "this" "Jello" "copied" 5'], out
    assert records(out, 2) == ['0 "" 42'], out
    assert status(out)["errors"] == 0, out


def thread_records(out):
    by_tid = collections.defaultdict(list)
    for rec in records(out, 0):
        tid, x, s = rec.split(" ", 2)
        by_tid[int(tid)].append((int(x), s))
    return by_tid


def test_thread_locals_are_per_thread(xdt):
    """Three live threads each call getppid twice: each first sees self->
    zero, then its own tid and name, never another thread's."""
    out = run(xdt, "thread")
    by_tid = thread_records(out)
    assert len(by_tid) == 3, out
    for tid, recs in by_tid.items():
        assert sorted(recs) == [(0, '""'), (tid, '"xdtvar"')], out
    st = status(out)
    assert st["errors"] == 0 and st["dyndrops"] == 0, out


def test_thread_locals_freed_when_thread_exits(xdt):
    """dynvarsize holds one thread's two variables only (a 1 KiB string
    each in 4 KiB): four threads one after another all get theirs, because
    each exiting thread's variables are reclaimed (sched_process_exit, then
    the cleaner)."""
    out = run(xdt, "thread-exit")
    by_tid = thread_records(out)
    assert len(by_tid) == 4, out
    for tid, recs in by_tid.items():
        assert sorted(recs) == [(0, '""'), (tid, '"xdtvar"')], out
    assert status(out)["dyndrops"] == 0, out


def test_global_associative_arrays(xdt):
    """a[int, string] keys tell elements apart by both elements; a missing
    one reads 0 (a missing string: ""); storing 0 frees an element."""
    out = run(xdt, "array")
    assert records(out, 1) == ['10 20 30 0 "xyz" ""'], out
    assert records(out, 3) == ['0 20 ""'], out
    st = status(out)
    assert st["errors"] == 0 and st["dyndrops"] == 0, out


def test_dynamic_variable_exhaustion_is_counted(xdt):
    """In 512 bytes of dynamic variable space, 64 stores: those that found
    no room are dyndrops, the rest are there.  A freed element waits for
    the cleaner, so a store right after it is a drop with a non-empty dirty
    list; after the cleaner has run, a store succeeds."""
    out = run(xdt, "exhaust")
    present = int(records(out, 1)[0])
    assert 1 <= present < 64, out
    assert records(out, 2) == ["0"], out
    st = status(out)
    assert st["dyndrops"] == 64 - present + 1, out
    assert st["dirty"] == 1, out
    assert st["errors"] == 0, out
    assert records(out, 3) == ["101"], out


# DTrace's DTRACEFLT_* numbers, as core/uapi/xdt.h has them
BADADDR, BADALIGN, ILLOP, DIVZERO, NOSCRATCH, TUPOFLOW = 1, 2, 3, 4, 5, 8


def test_faults(xdt):
    """Stores outside the program's storage (kernel memory, the read-only
    zero area) and misaligned ones fault; so do scratch exhaustion, tuple
    overflow, a subroutine or key with the wrong arguments, args[10] and a
    by-reference store from a bad address -- and none stored anything."""
    out = run(xdt, "fault")
    errs = errors(out)
    faults = {c: f for c, (f, _) in errs.items()}
    assert faults == {0: BADADDR, 1: BADALIGN, 2: BADADDR, 3: NOSCRATCH,
                      4: TUPOFLOW, 5: ILLOP, 6: ILLOP, 7: ILLOP,
                      8: BADADDR}, out
    assert errs[0][1] >= 1 << 32, out   # the kernel address itself
    assert errs[8][1] == 8, out
    assert records(out, 9) == ['"" 0'], out
    assert status(out)["errors"] == 9, out


@pytest.mark.parametrize("case,reason", [
    ("bad-id", "insn 0 (ldgs): variable 5 beyond table of 1"),
    ("wrong-scope", "insn 0 (ldts): variable 0 (g) is a global scalar"),
    ("array-op", "insn 0 (ldgaa): variable 0 (g) is a global scalar"),
    ("no-keys", "variable 0 (g): array of other than 1..8 keys"),
    ("keykinds", "variable 0 (g): key kinds beyond its keys"),
    ("keysize", "variable 0 (g): key size out of range (1 to 4096)"),
    ("keysize-string", "variable 0 (g): key both a string and sized"),
    ("keysize-beyond", "variable 0 (g): key size beyond its keys"),
    ("memkey", "clause 0 action 0: key of 4097 bytes (1 to 4096)"),
    ("local-array", "variable 0 (g): clause-local associative array"),
    ("int-size", "variable 0 (g): integer not of 8 bytes"),
    ("scope", "variable 0 (g): unknown scope"),
    ("subr", "insn 0 (call): unknown subroutine 99"),
    ("stray", "insn 0 (flushts): stray rd operand"),
])
def test_verifier_refuses_variable_misuse(xdt, case, reason):
    r = rawprog(xdt, f"vars-refuse-{case}")
    assert r.code == 1, r
    assert r.stdout.startswith("refused: Invalid argument: "), r.stdout
    assert reason in r.stdout, r.stdout
    ok = rawprog(xdt, "vars-refuse-none")
    assert ok.stdout.startswith("accepted: 1 probes"), ok


def test_two_consumers_at_once(xdt):
    """Two consumers trace syscall::getppid:entry at the same time (the
    second enables a probe the first switched on; either may stop first):
    each sees both workloads' ten calls, with its own variable in its own
    records, its own count() and exit status.  Then the probe works for a
    consumer alone again."""
    xdt.run("rm -f /tmp/ca.* /tmp/cb.*", check=True)
    xdt.run("xdt-rawprog vars-multi 111 ca cb exit > /tmp/ca.out 2>&1 & "
            "xdt-rawprog vars-multi 222 cb ca > /tmp/cb.out 2>&1; wait",
            timeout=300, check=True)
    a = xdt.run(["cat", "/tmp/ca.out"], check=True).stdout
    b = xdt.run(["cat", "/tmp/cb.out"], check=True).stdout
    assert records(a, 1) == ["111"] * 10, a
    assert records(b, 1) == ["222"] * 10, b
    assert records(a, 2) == ["111 0"], a
    assert records(b, 2) == ["222"], b
    assert "agg 10" in a and "agg 10" in b, (a, b)
    assert re.search(r"errors 0 .* exited 1", a), a
    assert re.search(r"errors 0 .* exited 0", b), b
    out = run(xdt, "thread")
    assert len(thread_records(out)) == 3, out


def test_device_memory_is_not_read(xdt):
    """A load from an ioremap()ed address (device registers: side effects,
    and on arm64 a synchronous external abort no fixup catches -- found by
    the fuzzer) faults "invalid address" instead of touching the device."""
    # kptr_restrict 1: %pK shows root the real addresses.
    old = xdt.run(["cat", "/proc/sys/kernel/kptr_restrict"],
                  check=True).stdout.strip()
    xdt.run("echo 1 > /proc/sys/kernel/kptr_restrict", check=True)
    try:
        info = xdt.run(["cat", "/proc/vmallocinfo"], check=True).stdout
    finally:
        xdt.run(f"echo {old} > /proc/sys/kernel/kptr_restrict", check=True)
    # Device registers, not RAM mapped with ioremap (x86's ACPI tables):
    # physical addresses below all RAM or well above it.
    ram = [tuple(int(x, 16) for x in ln.split(" : ")[0].split("-"))
           for ln in xdt.run(["cat", "/proc/iomem"], check=True)
           .stdout.splitlines() if ln.endswith(" : System RAM")]
    assert ram
    lo, hi = min(r[0] for r in ram), max(r[1] for r in ram)
    areas = []
    for ln in info.splitlines():
        m = re.match(r"(0x[0-9a-f]+)-.* phys=(0x[0-9a-f]+) ioremap$",
                     ln.rstrip())
        if m and (int(m.group(2), 16) < lo or
                  int(m.group(2), 16) > hi + (256 << 20)):
            areas.append(m.group(1))
    if not areas:
        pytest.skip(f"{xdt.isa}: no ioremap area in /proc/vmallocinfo")
    for addr in areas[:4]:
        out = run(xdt, f"load {addr}")
        errs = errors(out)
        assert errs.get(0, (None,))[0] == BADADDR, (addr, out)
        assert errs[0][1] == int(addr, 16), (addr, out)
