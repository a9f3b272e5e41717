"""A short run of the DIF verifier/VM fuzzer (guest/xdt-fuzz.c) in every
guest: a couple of seconds of random and mutated program objects through
the raw ioctl, the accepted ones run on BEGIN/END/ERROR, a syscall and an
fbt probe.  The kernel must refuse the malformed ones with EINVAL and log
no BUG, Oops or WARNING (conftest also watches the console).  `make fuzz`
is the long run (100 000 programs per ISA)."""
import re
import time

from test_xdt_kernel import xdt  # noqa: F401 (fixture)


def test_fuzz_short_run_leaves_kernel_clean(xdt):
    seed = int(time.time())
    r = xdt.run(["xdt-fuzz", "-t", "2", "-s", str(seed)], timeout=300)
    assert r.code == 0, r
    m = re.search(r"programs (\d+) accepted (\d+) refused (\d+) goerr (\d+)",
                  r.stdout)
    assert m, r.stdout
    progs, acc, ref, goerr = map(int, m.groups())
    from conftest import REPORT
    REPORT.append(f"xdt-fuzz {xdt.isa} seed {seed}: {progs} programs, "
                  f"{acc} accepted, {ref} refused in 2 s")
    # (A host busy with other guests runs fewer: the bounds are loose.)
    assert progs >= 10 and acc >= 3 and ref >= 3, (seed, r.stdout)
    assert goerr == 0, (seed, r.stdout)
    dmesg = xdt.run(["dmesg"], check=True).stdout
    bad = [ln for ln in dmesg.splitlines()
           if re.search(r"BUG|Oops|WARNING", ln)]
    assert not bad, (seed, bad)


def test_two_fuzzers_at_once(xdt):
    """Two consumers fuzzing at the same time: their enablings link into
    and out of the same probes' ECB lists (BEGIN, END, ERROR, getppid,
    vfs_read) while the other's clauses fire."""
    seed = int(time.time())
    r = xdt.run(f"xdt-fuzz -n 40 -s {seed} > /tmp/f1.out 2>&1 & "
                f"xdt-fuzz -n 40 -s {seed + 1} > /tmp/f2.out 2>&1; wait; "
                "cat /tmp/f1.out /tmp/f2.out", timeout=300, check=True)
    sums = re.findall(r"programs (\d+) accepted (\d+) refused (\d+) "
                      r"goerr (\d+)", r.stdout)
    assert len(sums) == 2, (seed, r.stdout)
    for progs, acc, ref, goerr in sums:
        assert int(progs) == 40 and int(acc) >= 5 and int(goerr) == 0, \
            (seed, r.stdout)
    dmesg = xdt.run(["dmesg"], check=True).stdout
    bad = [ln for ln in dmesg.splitlines()
           if re.search(r"BUG|Oops|WARNING", ln)]
    assert not bad, (seed, bad)
