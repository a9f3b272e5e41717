"""bench/benchreport.py's verdicts, on made-up figures (no guest): issue
36's goal cells and the check against the previous run.  A table that
says "met" for a miss, or misses a regression, would mislead every reader
of bench/README.md, so the arithmetic is tested here."""
import json
import os
import sys

import pytest

import xdtvm

sys.path.insert(0, os.path.join(xdtvm.TOP, "bench"))
import benchreport  # noqa: E402

pytestmark = pytest.mark.host

FENTRY = [("fentry", 1.0), ("kprobe", 0.5)]


def figs(**rows):
    """{(isa, trigger, variant): {"insns": n, "ns": t}} from
    variant=(insns, ns) on isa "a", kernel trigger."""
    return {("a", "kernel", v): dict(insns=i, ns=t)
            for v, (i, t) in rows.items()}


def test_goal_uses_fentry_when_the_kernel_has_it():
    f = figs(**{"xdt-fbt-entry": (214, 500), "fentry": (130, 180),
                "kprobe": (345, 1700)})
    text, state = benchreport.goal_cell(f, "a", "kernel", "xdt-fbt-entry",
                                        FENTRY)
    assert state == "missed"
    assert "×1.65" in text and "fentry 130" in text
    # TCG agrees in direction (500 > 180): not named
    assert "disagree" not in text


def test_goal_falls_back_to_half_the_kprobe():
    f = figs(**{"xdt-fbt-entry": (222, 870), "kprobe": (883, 8786)})
    text, state = benchreport.goal_cell(f, "a", "kernel", "xdt-fbt-entry",
                                        FENTRY)
    assert state == "met", text
    assert "0.5× kprobe 442" in text
    f = figs(**{"xdt-fbt-entry": (274, 100), "kprobe": (502, 1000)})
    text, state = benchreport.goal_cell(f, "a", "kernel", "xdt-fbt-entry",
                                        FENTRY)
    assert state == "missed" and "×1.09" in text
    # ... and the TCG ns say the opposite: named
    assert "TCG ns disagree" in text


def test_goal_not_measured_is_neither_met_nor_missed():
    f = figs(**{"fentry": (130, 180)})
    assert benchreport.goal_cell(f, "a", "kernel", "xdt-fbt-entry",
                                 FENTRY)[1] is None
    assert benchreport.goal_cell({}, "a", "kernel", "xdt-fbt-entry",
                                 FENTRY)[1] is None


def test_goal_table_counts_cells():
    f = figs(**{"xdt-fbt-entry": (100, 1), "fentry": (130, 2),
                "xdt-fbt-return": (300, 1), "kretprobe": (400, 2)})
    t = "\n".join(benchreport.goal36_table(
        dict(isas=["a"], triggers=["kernel"]), f))
    assert "1 met, 1 missed." in t
    assert "| fbt return | **missed by ×1.50**" in t


def test_regressions_flag_only_more_than_five_percent():
    now = figs(**{"none": (0, 1), "kprobe": (363, 1), "fentry": (136, 1),
                  "xdt-fbt-entry": (200, 1)})
    prev = {"a/kernel/kprobe": {"insns": 345}, "a/kernel/fentry":
            {"insns": 130}, "a/kernel/none": {"insns": 0}}
    worse = benchreport.regressions(now, prev)
    # kprobe +5.2 % flagged, fentry +4.6 % not, xdt-fbt-entry has no
    # previous figure, none is the baseline
    assert worse == [("a/kernel/kprobe", 345, 363)]


def test_previous_run_is_the_newest_earlier_run_of_the_same_size(tmp_path):
    def run(stamp, size, triggers=True):
        d = tmp_path / stamp
        d.mkdir()
        m = dict(started=stamp, size=size)
        if triggers:
            m["triggers"] = ["kernel"]
        (d / "results.json").write_text(json.dumps(dict(meta=m)))
        return str(d)
    run("20261201-000000", "full")
    want = run("20261202-000000", "full")
    run("20261203-000000", "quick")
    run("20261204-000000", "full", triggers=False)   # bpftrace.py's kind
    run("20261209-000000", "full")                   # later than this run
    cur = run("20261205-000000", "full")
    got = benchreport.previous_run(cur, dict(started="20261205-000000",
                                             size="full"))
    assert got == want
    assert benchreport.previous_run(
        cur, dict(started="20261201-000000", size="full")) is None
