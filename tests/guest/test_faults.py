"""Allocation failures aimed at xdt.ko (guest/xdt-failnth.c, docs/reliability.md):
each fault-injection site one step of an enabling reaches is failed in
turn, and every such run must fail cleanly (ENOMEM with libxdt's message)
or absorb the fault, leave nothing behind, and let the next enabling run.

Only a kernel with CONFIG_FAULT_INJECTION has fail-nth: the debug variant
(make test-debug) runs these, the normal kernels skip them with that
reason.  make soak sweeps every phase; here only the phases whose failure
would hurt the next consumer and take seconds: STOP (a STOP that met an
allocation failure used to leave a breakpoint in the kernel, and every
later enabling there was refused as 'already patched') and the other
calls of a running consumer."""
import os
import re

import pytest

import xdtvm
from test_xdt_kernel import xdt  # noqa: F401 (fixture)

SUMMARY_RE = re.compile(r"xdt-failnth: trials (\d+) injected (\d+) failed "
                        r"(\d+) absorbed (\d+) clean (\d+) bad (\d+)")


@pytest.fixture
def failnth(xdt):
    if not xdt.run(["sh", "-c", "test -e /proc/self/task/$$/fail-nth"]).ok:
        pytest.skip("this kernel has no fail-nth (CONFIG_FAULT_INJECTION: "
                    "the debug variant's kernels have it, make test-debug)")
    xdt.run(["sh", "-c", xdtvm.fault_setup_cmd()], check=True)
    out = os.path.join(xdtvm.build_dir(xdt.isa), "xdt-failnth")
    assert os.path.isfile(out), "xdt-failnth not built (make all)"
    xdt.put(out, "/tmp/xdt-failnth", mode="755")
    # warn_alloc's report of each injected failure is what it should be
    # (conftest's kernel watch turns this off again after the test)
    xdt.expect_alloc_failures = True
    return "/tmp/xdt-failnth"


# the phases after GO: a handful of sites each, seconds per trial
PHASES = ["bufsnap", "stop", "aggsnap", "status", "close"]


def test_allocation_failures_after_go_leave_nothing_behind(xdt, failnth):
    r = xdt.run([failnth, "-p", ",".join(PHASES)], timeout=900)
    m = SUMMARY_RE.search(r.stdout)
    assert m, f"no summary ({r.how} {r.code}):\n{r.stdout}\n{r.stderr}"
    trials, injected, failed, absorbed, clean, bad = map(int, m.groups())
    bad_lines = [ln for ln in r.stdout.splitlines() if ln.startswith("BAD ")]
    assert bad == 0 and not bad_lines, "\n".join(bad_lines) or r.stdout
    sites = dict(re.findall(r"^(\w+): (\d+) sites", r.stdout, re.M))
    assert sorted(sites) == sorted(PHASES), r.stdout
    # the sweep reached STOP's allocations, and each injected run was
    # followed by a clean enabling that counted its probes
    assert int(sites["stop"]) >= 1, r.stdout
    # (one clean enabling more: the one before the sweep)
    assert injected >= int(sites["stop"]) and clean == injected + 1, r.stdout
