"""Shared fixtures and helpers of host/ (tests that boot no guest) and
guest/ (tests that do): one booted guest per ISA for the whole session.

XDT_ISAS selects the ISAs (default: arch/isas' default set).  Each guest boots once
with a gdbstub, is reused by every test of its ISA, and is powered off when
pytest moves on to the next ISA; a guest that does not power off cleanly fails
the session.  Any Oops/BUG/panic/WARNING on the console fails the test during
which it appeared, with the excerpt; every failing guest test gets the tail of
the console in its report.
"""
import contextlib
import fcntl
import os
import pathlib
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import xdtvm  # noqa: E402

HOST_DIR = pathlib.Path(__file__).resolve().parent / "host"
LOGDIR = os.environ.get("XDT_LOGDIR") or os.path.join(
    xdtvm.CACHE, "logs", time.strftime("%Y%m%d-%H%M%S"))
# pytest-xdist's workers (tools/run-tests runs one per ISA) inherit the
# environment: one run, one log directory, whenever each worker started.
os.environ["XDT_LOGDIR"] = LOGDIR


def selected_isas():
    isas = xdtvm.env_isas()
    for i in isas:
        xdtvm.check_isa(i)
    return isas


def pytest_configure(config):
    # An expected output is a claim about D, written by a person who read
    # the diff; CI blessing would turn every failure into a pass.
    if os.environ.get("XDT_BLESS") and os.environ.get("CI"):
        raise pytest.UsageError(
            "XDT_BLESS is refused when CI is set: expected outputs are "
            "rewritten by hand, never by a CI run")


def blessing():
    """True when XDT_BLESS=1 asks to rewrite expected outputs from what ran
    (refused under CI by pytest_configure)."""
    return bool(os.environ.get("XDT_BLESS"))


def check_expected(actual, path, what=None):
    """Compare @actual with the expected file @path (rewriting it first
    under XDT_BLESS); the failure names the file and shows what ran."""
    if blessing():
        with open(path, "w") as f:
            f.write(actual)
    with open(path) as f:
        want = f.read()
    assert actual == want, (f"{what or os.path.basename(path)} differs from "
                            f"{os.path.basename(path)}:\n{actual}")


def missing(what):
    """A prerequisite of a test is not there.  `make test` builds and
    installs everything the tests use before it runs them, so this is a
    failure, never a skip: a skipped check is a check that did not run and
    a green run that hid it."""
    pytest.fail(f"missing prerequisite: {what} (make test builds and "
                "installs it; run make)", pytrace=False)


def pytest_report_header(config):
    v = f"; kernel variant: {xdtvm.KVARIANT}" if xdtvm.KVARIANT else ""
    return [f"xdt ISAs: {' '.join(selected_isas())}{v}; console logs: {LOGDIR}"]


def _boots(item):
    """Whether @item needs a booted guest: the session's (the vm fixture)
    or one of its own (the isa fixture, session-scoped, without vm; or
    the boots marker)."""
    names = getattr(item, "fixturenames", ())
    if item.get_closest_marker("boots"):
        return True
    return "vm" in names or ("isa" in names and
                             item.get_closest_marker("host") is None)


def _group(item):
    """The worker group of a test under pytest-xdist's loadgroup: its
    ISA's for a test that boots (the isa parameter; a boots test without
    one runs on the first selected ISA, as test_bench_quick does), "host"
    for the rest."""
    if not _boots(item):
        return "host"
    cs = getattr(item, "callspec", None)
    isa = cs.params.get("isa") if cs else None
    return isa or selected_isas()[0]


def pytest_itemcollected(item):
    """Under tools/run-tests' parallel run (pytest-xdist, --dist loadgroup)
    each ISA's tests go to one worker, in order, with its one guest boot:
    the ISAs' guests run side by side, the host tests beside them.  Marked
    here, before xdist's pytest_collection_modifyitems reads the marker."""
    item.add_marker(pytest.mark.xdist_group(_group(item)))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """A test that boots a guest in host/, or one that boots none in
    guest/, is refused: make test-host must boot nothing, and host/ runs
    first so that a compiler failure shows in seconds rather than after
    the guests.  On a kernel variant (make test-debug) only the tests that
    boot a guest run: the host-only ones test nothing the variant changes."""
    misplaced = [it.nodeid for it in items
                 if _boots(it) == (it.path.resolve().parent == HOST_DIR)]
    if misplaced:
        raise pytest.UsageError(
            "host/ holds the tests that boot no guest and guest/ those that "
            "do; in the wrong directory:\n  " + "\n  ".join(misplaced))
    if xdtvm.KVARIANT:
        host = [it for it in items if not _boots(it)]
        if host:
            config.hook.pytest_deselected(items=host)
        items[:] = _kgdb_last([it for it in items if _boots(it)])


def _kgdb_last(items):
    """Each ISA's kgdb tests after its other tests.  On x86_64's debug
    kernel kgdb's own breakpoint write makes lockdep report (a known
    kernel report, xdtvm.KERNEL_REPORTS), and lockdep turns itself off
    after its first report: every later test of that boot would run
    unchecked."""
    groups, key, group = {}, {}, 0
    for n, it in enumerate(items):
        cs = getattr(it, "callspec", None)
        isa = cs.params.get("isa") if cs else None
        if isa is not None:
            group = groups.setdefault(isa, len(groups))
        key[it] = (group, "test_kgdb" in it.nodeid, n)
    return sorted(items, key=lambda it: key[it])


@pytest.fixture(scope="session", params=selected_isas())
def isa(request):
    return request.param


BOOT_TIMES = {}


@contextlib.contextmanager
def _one_boot_at_a_time():
    """The session guests of a parallel run boot one after the other (a
    lock file in the run's log directory): each boot takes seconds, and
    three at once on two cores beside the host tests' compiles starved an
    aarch64 guest's vCPU long enough for an RCU stall report in early boot
    (SLOB's global lock held by the starved vCPU, 2026-11-28)."""
    os.makedirs(LOGDIR, exist_ok=True)
    with open(os.path.join(LOGDIR, ".boot.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def vm(isa):
    guest = xdtvm.VM(isa, gdb=True, kgdb=True, logdir=LOGDIR)
    # Whatever happens in between, QEMU does not outlive the fixture.
    try:
        try:
            with _one_boot_at_a_time():
                guest.start()
        except xdtvm.BootTimeout as e:
            # A boot that never reaches the agent has not loaded xdt.ko:
            # it is the kernel's or the emulator's, and a second boot is
            # the same kernel's test.  The one cause seen, riscv64 silent
            # after OpenSBI with the ISAs side by side on a loaded host,
            # was OpenSBI 1.1's hart-start race, which the lab kernel now
            # survives (docs/reliability.md).  Any other is kept, not
            # hidden: the console and each vCPU's registers go beside the
            # logs and into the summary.
            hung = os.path.join(LOGDIR, f"{isa}.hung-boot.console.log")
            os.replace(guest.console_path, hung)
            with open(hung, "a") as f:
                f.write(f"\n--- xdt: {e}\n")
            REPORT.append(f"{isa}: a boot hung before the guest agent "
                          f"answered; booted again (evidence: {hung})")
            guest = xdtvm.VM(isa, gdb=True, kgdb=True, logdir=LOGDIR)
            with _one_boot_at_a_time():
                guest.start()
        BOOT_TIMES[isa] = guest.boot_seconds
        # Problems during boot belong to no test; test_boot_clean reports
        # them.
        guest.console_sync()
        guest.boot_problems = guest.oopses(0)
        guest._checked = guest.console_mark()
        yield guest
        clean = guest.poweroff()
        assert clean, (f"{isa}: guest did not power off cleanly "
                       f"(QEMU status {guest.proc.returncode})\n"
                       + guest.console_tail())
    finally:
        guest.kill()


@pytest.fixture(autouse=True)
def _kernel_watch(request):
    """Fail the test during which the kernel complained on the console."""
    if "vm" not in request.fixturenames:
        yield
        return
    guest = request.getfixturevalue("vm")
    # What the kernel printed since the last check belongs to no test (a
    # periodic kmemleak scan, or a test that does not use this guest): it
    # fails this test's setup, named as such, instead of being skipped.
    early = guest.oopses(guest._checked)
    guest._checked = guest.console_mark()
    early = guest.kmemleak_details(early)
    if early:
        pytest.fail(f"{guest.isa}: kernel problem on the console before this "
                    f"test, since the last one checked:\n{early}",
                    pytrace=False)
    yield
    # Let the console catch up with what the kernel logged during the test,
    # however slowly the guest prints: otherwise a late Oops would be blamed
    # on the next test.  (A guest that is gone has printed all it will.)
    if not guest.console_sync() and guest.proc.poll() is None:
        time.sleep(0.2)
    excerpt = guest.oopses(guest._checked)
    guest._checked = guest.console_mark()
    guest.expect_alloc_failures = False
    excerpt = guest.kmemleak_details(excerpt)
    if excerpt:
        pytest.fail(f"{guest.isa}: kernel problem on the console:\n{excerpt}",
                    pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    guest = getattr(item, "funcargs", {}).get("vm")
    if rep.failed and guest is not None:
        rep.sections.append((f"{guest.isa} console", guest.console_tail(60)))


def pytest_runtest_logreport(report):
    """Each failure's report goes to LOGDIR/failures.txt the moment it
    happens, beside the console logs: a long run (make test-debug, hours
    on the debug kernels) that is interrupted or times out keeps what it
    found -- pytest itself prints the details only at the end."""
    if report.failed:
        os.makedirs(LOGDIR, exist_ok=True)
        with open(os.path.join(LOGDIR, "failures.txt"), "a") as f:
            f.write(f"==== {report.nodeid} ({report.when})\n"
                    f"{report.longreprtext}\n")


@pytest.fixture
def gdb(vm):
    """gdb-multiarch attached (per command, batch mode) to @vm's gdbstub."""
    return xdtvm.Gdb(vm)


@pytest.fixture(scope="session")
def host_vmlinux(isa):
    return xdtvm.vmlinux(isa)


# Figures tests measure on the way (coverage, traps per firing), printed in
# the run's summary so they reach the log and the issue notes.
REPORT = []


def pytest_sessionfinish(session):
    """An xdist worker hands its figures to the controller, which prints
    the summary (pytest_testnodedown)."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["xdt"] = dict(report=REPORT, known=list(xdtvm.KNOWN_SEEN),
                          boots=BOOT_TIMES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    got = getattr(node, "workeroutput", {}).get("xdt")
    if got:
        REPORT.extend(got["report"])
        xdtvm.KNOWN_SEEN.extend(got["known"])
        BOOT_TIMES.update(got["boots"])


def pytest_terminal_summary(terminalreporter):
    for line in REPORT:
        terminalreporter.write_line(line)
    for line in sorted(set(xdtvm.KNOWN_SEEN)):
        terminalreporter.write_line(
            f"known kernel report (docs/reliability.md): {line}")
    if BOOT_TIMES:
        terminalreporter.write_line(
            "xdt boot to agent (TCG): " + ", ".join(
                f"{i} {t:.1f} s" for i, t in BOOT_TIMES.items()))
