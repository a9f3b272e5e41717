"""Smoke test of the overhead benchmark (bench/run.py, issue 6).

Runs `bench/run.py --quick` for one ISA (the first XDT_ISAS selects) into a
temporary directory and checks that the outputs exist, are complete (every
variant measured, or marked unsupported with the kernel's reason) and sane
(firing counts exact, per-firing costs positive) -- not the numbers.
The default trigger only (the bench module's in-kernel loop); the getppid
trigger is experimental (bench/README.md).

The bench boots its own two guests (TCG, then icount) one after the other;
it does not use the session's `vm` fixture, whose guest for the current ISA
may still be up (idle) while this runs: the guests share no port or socket
(the agent sockets live in per-VM temporary directories), and the figures
are not checked, so the idle guest's CPU share does not matter here.
"""
import json
import os
import subprocess
import sys

import pytest

import xdtvm
from conftest import selected_isas

sys.path.insert(0, os.path.join(xdtvm.TOP, "bench"))
import run as bench  # noqa: E402

COUNTED = {"xdt-fbt-entry", "xdt-fbt-return", "kprobe", "kprobe-off",
           "kretprobe", "fentry", "fexit", "kprobe-multi", "kprobe-events"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    isa = selected_isas()[0]
    out = tmp_path_factory.mktemp("bench-quick")
    p = subprocess.run([sys.executable, os.path.join(xdtvm.TOP, "bench",
                                                     "run.py"),
                        "--quick", "--isas", isa, "--out", str(out)],
                       capture_output=True, text=True, timeout=1200)
    return isa, out, p


def test_bench_quick_outputs_complete_and_sane(quick):
    isa, out, p = quick
    log = p.stdout[-4000:] + p.stderr[-4000:]
    assert p.returncode == 0, log
    for f in ("results.json", "results.csv", "table.md"):
        assert (out / f).is_file(), f"{f} missing\n{log}"
    res = json.loads((out / "results.json").read_text())
    samples = res["samples"]
    assert {(b["isa"], b["boot"]) for b in res["boots"]} == {
        (isa, "tcg"), (isa, "icount")}
    # A boot the guest died in is retried once by run.py; the last
    # attempt of each boot must be clean.
    final = {(b["isa"], b["boot"]): b for b in res["boots"]}
    for b in final.values():
        assert b["failures"] == 0 and b["clean_poweroff"], b
    unsupported = {k for b in res["boots"] for k in b["unsupported"]}
    for boot in ("tcg", "icount"):
        mine = [s for s in samples if s["boot"] == boot]
        assert not [s for s in mine if not s["ok"] and not s["unsupported"]]
        for trig in res["meta"]["triggers"]:
            for v in bench.VARIANT_NAMES:
                if (trig, v) in bench.SKIP:
                    continue
                vs = [s for s in mine if s["variant"] == v
                      and s["trigger"] == trig]
                assert vs, f"{boot}: no {trig} sample of {v}"
                if any(s["unsupported"] for s in vs):
                    assert all(s["unsupported"].strip() for s in vs), vs
                    assert v not in ("none", "xdt-fbt-entry",
                                     "xdt-fbt-return", "kprobe",
                                     "kprobe-empty", "kprobe-events")
                    continue
                for s in vs:
                    assert s["calls"] == s["n"] and s["last_ns"] > 0, s
                    if v in COUNTED:
                        assert s["count"] == s["n"], s
                    if v.startswith("xdt-"):
                        assert s["traps"] == s["n"] and s["errors"] == 0, s
            # Both repeats of the determinism check were made.
            if boot == "icount":
                for v in ("none", "xdt-fbt-entry"):
                    assert len([s for s in mine if s["variant"] == v
                                and s["trigger"] == trig]) >= 2
    figs = res["figures"]
    table = (out / "table.md").read_text()
    for trig in res["meta"]["triggers"]:
        for v in bench.VARIANT_NAMES:
            f = figs.get(f"{isa}/{trig}/{v}")
            if v != "none" and f is not None:
                assert f["ns"] > 0 and f["insns"] > 0, (trig, v, f)
        section = table.split(f"## Trigger: {trig}\n", 1)[1].split("## ")[0]
        rows = [ln for ln in section.splitlines()
                if ln.startswith("| ") and f"| {isa} |" in ln]
        for v in bench.VARIANT_NAMES:
            row = [r for r in rows if r.startswith(f"| {bench.DESCR[v]} |")]
            assert len(row) == 1, f"{trig} table row for {v}:\n{table}"
            if f"{trig}/{v}" in unsupported:
                assert "unsupported: " in row[0], row
            elif (trig, v) in bench.SKIP:
                assert "not run" in row[0], row
            else:
                assert "FAILED" not in row[0], row
    assert "AsiaBSDCon 2024" in table and "280 ns" in table
    assert "Plots:" in table
