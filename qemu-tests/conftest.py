"""Shared fixtures: one booted guest per ISA for the whole session.

XDT_ISAS selects the ISAs (default: all in arch/isas).  Each guest boots once
with a gdbstub, is reused by every test of its ISA, and is powered off when
pytest moves on to the next ISA; a guest that does not power off cleanly fails
the session.  Any Oops/BUG/panic/WARNING on the console fails the test during
which it appeared, with the excerpt; every failing guest test gets the tail of
the console in its report.
"""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import xdtvm  # noqa: E402

LOGDIR = os.environ.get("XDT_LOGDIR") or os.path.join(
    xdtvm.CACHE, "logs", time.strftime("%Y%m%d-%H%M%S"))


def selected_isas():
    raw = os.environ.get("XDT_ISAS", "").replace(",", " ").split()
    isas = raw or list(xdtvm.ISAS)
    for i in isas:
        xdtvm.check_isa(i)
    return isas


def pytest_report_header(config):
    return [f"xdt ISAs: {' '.join(selected_isas())}; console logs: {LOGDIR}"]


@pytest.fixture(scope="session", params=selected_isas())
def isa(request):
    return request.param


BOOT_TIMES = {}


@pytest.fixture(scope="session")
def vm(isa):
    guest = xdtvm.VM(isa, gdb=True, kgdb=True, logdir=LOGDIR)
    # Whatever happens in between, QEMU does not outlive the fixture.
    try:
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
    guest._checked = guest.console_mark()
    yield
    # Let the console catch up with what the kernel logged during the test,
    # however slowly the guest prints: otherwise a late Oops would be blamed
    # on the next test.  (A guest that is gone has printed all it will.)
    if not guest.console_sync() and guest.proc.poll() is None:
        time.sleep(0.2)
    excerpt = guest.oopses(guest._checked)
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


def pytest_terminal_summary(terminalreporter):
    for line in REPORT:
        terminalreporter.write_line(line)
    if BOOT_TIMES:
        terminalreporter.write_line(
            "xdt boot to agent (TCG): " + ", ".join(
                f"{i} {t:.1f} s" for i, t in BOOT_TIMES.items()))
