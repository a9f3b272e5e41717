"""Both fuzzers on the host, in libxdt's host VM (-V: dtrace:::BEGIN/END/ERROR
only), built with ASan and UBSan (`make host-san`): xdt.ko's portable core --
the verifier and DIF machine the module is built from -- and all of libxdt
under the compiler's checkers, where any report aborts the run.

The D-level fuzzer (guest/xdt-dfuzz.c): thousands of random D programs,
right and wrong ones, compiled, enabled, run and closed in one process as
dtrace(1) drives libxdt.  A failure names its seed and program index, and
`xdt-dfuzz -V -s SEED -i INDEX -p` shows the program again.  The object
fuzzer (guest/xdt-fuzz.c -V): random and mutated program objects through
the same ioctls as /dev/xdt's.  (This found an overlapping copy in DIF's
copys and bcopy(), undefined in C and smeared bytes in the kernel, and a
signed overflow in the printer's column widths.)

The run is a fixed number of programs from fixed seeds (the same programs
every run), and the generator must not degenerate: every outcome class --
compile errors, refusals at enable, runs, runs with runtime faults -- has
to occur, over a spread of DTrace error tags, and no right program may be
refused by the compiler or the verifier."""
import os
import re
import subprocess

import pytest

import xdtvm

pytestmark = pytest.mark.host

SEEDS = (20261127, 7)
N = 2500
SUMMARY = re.compile(r"xdt-dfuzz: programs (\d+) compiled (\d+) refused (\d+) "
                     r"ran (\d+) faults (\d+) failures (\d+)")


SAN = os.path.join(xdtvm.CACHE, "build", "host-san")
FUZZ = re.compile(r"xdt-fuzz: programs (\d+) accepted (\d+) refused (\d+) goerr (\d+)"
                  r" firings (\d+) errors (\d+)")


@pytest.fixture(scope="module")
def san():
    r = subprocess.run(["make", "-s", "-C", xdtvm.TOP, "host-san"],
                       capture_output=True, text=True)
    assert r.returncode == 0, "make host-san failed:\n" + r.stdout + r.stderr
    return SAN


@pytest.fixture(scope="module")
def dfuzz(san):
    return os.path.join(san, "xdt-dfuzz")


def test_fuzzers_are_sanitized(san):
    """The checkers are really in (a build without them would pass every
    run below): ASan's and UBSan's runtime entry points are linked."""
    for name in ("xdt-fuzz", "xdt-dfuzz"):
        syms = subprocess.run(["nm", os.path.join(san, name)], capture_output=True,
                              text=True).stdout
        assert "__asan_init" in syms and "__ubsan_handle_" in syms, name


@pytest.mark.parametrize("seed", (20261127, 3))
def test_fuzz_objects_host_vm(san, seed):
    """20 000 program objects per seed through the host VM's ioctls under
    ASan/UBSan: the run ends with its summary and status 0 (any report
    aborts it), and the programs are not degenerate: a good share is
    accepted and runs, with faults of several kinds."""
    r = subprocess.run([os.path.join(san, "xdt-fuzz"), "-V", "-n", "20000",
                        "-s", str(seed)], capture_output=True, text=True,
                       timeout=600)
    m = FUZZ.search(r.stdout)
    assert r.returncode == 0 and m, (r.stdout[-2000:], r.stderr[-8000:])
    progs, acc, ref, goerr, firings, errors = map(int, m.groups())
    assert progs == 20000 and goerr == 0, r.stdout
    assert acc >= 4000 and ref >= 4000 and firings >= acc, r.stdout
    kinds = re.search(r"ERROR records by fault: (.*)", r.stdout).group(1).split()
    assert sum(int(n) > 0 for n in kinds[1::2]) >= 5, r.stdout


def _run(dfuzz, *args, timeout=600):
    return subprocess.run([dfuzz, "-V"] + list(args), capture_output=True,
                          text=True, timeout=timeout)


def _summary(r):
    m = SUMMARY.search(r.stdout)
    assert m, (r.stdout, r.stderr[-4000:])
    return dict(zip(("programs", "compiled", "refused", "ran", "faults",
                     "failures"), map(int, m.groups())))


@pytest.mark.parametrize("seed", SEEDS)
def test_dfuzz_host_vm(dfuzz, seed):
    r = _run(dfuzz, "-n", str(N), "-s", str(seed))
    s = _summary(r)
    assert s["failures"] == 0 and r.returncode == 0, (seed, r.stderr[-8000:])
    assert s["programs"] == N, (seed, r.stdout)
    # every class, in a proportion that says the generator is healthy:
    # most programs compile, a good share are refused by the compiler
    # (one in six is written wrong), some are refused at enable, most of
    # those enabled run, and some of those fault at run time
    cerr = s["programs"] - s["compiled"]
    assert s["compiled"] >= N * 0.6 and cerr >= N * 0.08, (seed, r.stdout)
    assert s["refused"] >= 10, (seed, r.stdout)
    assert s["ran"] == s["compiled"] - s["refused"], (seed, r.stdout)
    assert s["faults"] >= s["ran"] * 0.1, (seed, r.stdout)
    # the compile errors are of many kinds, each tagged
    tags = re.search(r"compile errors by tag:(.*)", r.stdout).group(1).split()[::2]
    assert len(tags) >= 15 and "(none)" not in tags, (seed, r.stdout)
    for t in ("D_SYNTAX", "D_IDENT_UNDEF", "D_AGG_REDEF", "D_PRINTF_ARG_PROTO"):
        assert t in tags, (seed, t, r.stdout)
    m = re.search(r"right programs refused: by the compiler (\d+), at enable (\d+)",
                  r.stdout)
    assert m and m.groups() == ("0", "0"), (seed, r.stdout)


def test_dfuzz_failures_are_reported(dfuzz):
    """With no work() call allowed (-I 0) a program that exits cannot: the
    fuzzer must call that a failure, name the seed and program, and exit
    non-zero -- the path every real failure takes."""
    r = _run(dfuzz, "-n", "20", "-s", "3", "-I", "0")
    s = _summary(r)
    assert r.returncode == 1 and s["failures"] > 0, (r.stdout, r.stderr)
    assert re.search(r"FAIL seed 3 program \d+ .*must exit", r.stderr), r.stderr
    assert "---- program" in r.stderr, r.stderr


def test_dfuzz_program_reproduces(dfuzz):
    """Program I of seed S is the same text alone (-i) as in a run: what a
    failure message says to rerun is the program that failed."""
    run = _run(dfuzz, "-n", "6", "-s", "11", "-p", "-b", "0")
    alone = _run(dfuzz, "-s", "11", "-i", "5", "-p")
    prog = re.compile(r"---- program 5 \(seed 11\) ----\n(.*?)---- end", re.S)
    a, b = prog.search(run.stderr), prog.search(alone.stderr)
    assert a and b and a.group(1) == b.group(1) and a.group(1).strip(), \
        (run.stderr[-3000:], alone.stderr[-3000:])
    assert _summary(alone)["programs"] == 1
