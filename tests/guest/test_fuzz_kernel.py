"""A short run of the DIF verifier/VM fuzzer (guest/xdt-fuzz.c) in every
guest: random and mutated program objects through the raw ioctl, the
accepted ones run on BEGIN/END/ERROR, a syscall and an fbt probe.  The
kernel must refuse the malformed ones with EINVAL and log no BUG, Oops or
WARNING (conftest's console watch fails the test on any).

The run is a fixed number of programs from fixed seeds, not a time slice
from the clock: the same programs every run, so a failure reproduces with
the seed in its message and a slow host runs exactly what a fast one does.
`make fuzz` and `make soak` are the long runs with other seeds."""
import re

from conftest import REPORT
from test_xdt_kernel import xdt  # noqa: F401 (fixture)

SEED = 20261127
SUMMARY = re.compile(r"programs (\d+) accepted (\d+) refused (\d+) goerr (\d+)")


def kernel_log_since(vm, before):
    """The kernel log lines after the line @before (log_lines()): the check
    is about this test's programs, not whatever ran earlier in the boot.
    Lines carry their timestamp, so the last one is unique; if the ring
    buffer wrapped past it, the whole buffer is this test's."""
    lines = vm.run(["dmesg"], check=True).stdout.splitlines()
    if before in lines:
        return lines[len(lines) - lines[::-1].index(before):]
    return lines


def log_lines(vm):
    lines = vm.run(["dmesg"], check=True).stdout.splitlines()
    return lines[-1] if lines else None


def test_fuzz_short_run_leaves_kernel_clean(xdt):
    n = 150
    before = log_lines(xdt)
    r = xdt.run(["xdt-fuzz", "-n", str(n), "-s", str(SEED)], timeout=300)
    assert r.code == 0, r
    m = SUMMARY.search(r.stdout)
    assert m, r.stdout
    progs, acc, ref, goerr = map(int, m.groups())
    REPORT.append(f"xdt-fuzz {xdt.isa} seed {SEED}: {progs} programs, "
                  f"{acc} accepted, {ref} refused")
    # The same seed gives the same programs on every ISA; the bounds only
    # say both verdicts are exercised (the exact split is the verifier's).
    assert progs == n and acc >= 15 and ref >= 15, (SEED, r.stdout)
    assert goerr == 0, (SEED, r.stdout)
    bad = [ln for ln in kernel_log_since(xdt, before)
           if re.search(r"BUG|Oops|WARNING", ln)]
    assert not bad, (SEED, bad)


def test_two_fuzzers_at_once(xdt):
    """Two consumers fuzzing at the same time: their enablings link into
    and out of the same probes' ECB lists (BEGIN, END, ERROR, getppid,
    vfs_read) while the other's clauses fire."""
    before = log_lines(xdt)
    r = xdt.run(f"xdt-fuzz -n 40 -s {SEED + 1} > /tmp/f1.out 2>&1 & "
                f"xdt-fuzz -n 40 -s {SEED + 2} > /tmp/f2.out 2>&1; wait; "
                "cat /tmp/f1.out /tmp/f2.out", timeout=300, check=True)
    sums = SUMMARY.findall(r.stdout)
    assert len(sums) == 2, (SEED, r.stdout)
    for progs, acc, ref, goerr in sums:
        assert int(progs) == 40 and int(acc) >= 5 and int(goerr) == 0, \
            (SEED, r.stdout)
    bad = [ln for ln in kernel_log_since(xdt, before)
           if re.search(r"BUG|Oops|WARNING", ln)]
    assert not bad, (SEED, bad)


DSUMMARY = re.compile(r"xdt-dfuzz: programs (\d+) compiled (\d+) refused (\d+) "
                      r"ran (\d+) faults (\d+) failures (\d+)")


def test_dfuzz_d_programs_through_the_kernel(xdt):
    """Random D programs (guest/xdt-dfuzz.c) through libxdt and xdt.ko:
    compiled, enabled on BEGIN/END/ERROR, tick/profile, syscall, fbt,
    kinst and rawtp probes, run until they exit, stopped and closed, all
    in one process.  Right programs must compile, be accepted by the
    verifier and end; wrong ones must be refused with a tagged error;
    nothing may crash, hang or leak a descriptor, and the kernel must log
    no BUG, Oops or WARNING.  Every outcome class must occur, or the
    generator has degenerated and the test tests nothing."""
    n = 200
    before = log_lines(xdt)
    # The watchdog catches a program that never ends, not a slow one: one
    # of these (a syscall probe on the fuzzer's own pid that faults, so
    # every error the consumer writes fires it again) took 146 s of its 20
    # rounds on aarch64's KCSAN kernel, past the default 120.
    r = xdt.run(["xdt-dfuzz", "-n", str(n), "-s", str(SEED), "-w", "600"],
                timeout=900)
    m = DSUMMARY.search(r.stdout)
    assert m, (SEED, r.stdout, r.stderr[-4000:])
    progs, comp, ref, ran, faults, fails = map(int, m.groups())
    rate = re.search(r"([\d.]+) programs/s", r.stdout)
    REPORT.append(f"xdt-dfuzz {xdt.isa} seed {SEED}: {progs} programs, {comp} "
                  f"compiled, {ref} refused, {ran} ran, {faults} faulted"
                  f"{', %s/s' % rate.group(1) if rate else ''}")
    assert fails == 0 and r.code == 0, (SEED, r.stderr[-8000:])
    assert progs == n and comp < progs and ref > 0 and ran > 0 and faults > 0, \
        (SEED, r.stdout)
    assert ran == comp - ref, (SEED, r.stdout)
    bad = [ln for ln in kernel_log_since(xdt, before)
           if re.search(r"BUG|Oops|WARNING", ln)]
    assert not bad, (SEED, bad)
