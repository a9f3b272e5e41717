"""Smoke test of the consumer study (bench/consumer.py, `make
bench-consumer`; bench/README.md, "Issue 36: the consumer against
bpftrace").

Runs `bench/consumer.py --quick` for one ISA (the first XDT_ISAS selects)
into a temporary directory and checks that every row was measured and is
sane -- every record written, every key printed, a first firing after the
exec, probes counted -- not the figures (TCG times: no timed assertion).
The bpftrace column is measured when bench/bpftrace.py's disk for the ISA
is already in the cache (this test does not download it); else the study
must say why there is none.

Like test_bench_quick.py, the study boots its own guest.
"""
import json
import os
import subprocess
import sys

import pytest

import xdtvm
from conftest import selected_isas

pytestmark = pytest.mark.boots

sys.path.insert(0, os.path.join(xdtvm.TOP, "bench"))
import bpftrace  # noqa: E402
import consumer  # noqa: E402


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    if xdtvm.KVARIANT:
        pytest.skip(f"the consumer study measures the normal kernels, not "
                    f"the {xdtvm.KVARIANT} kernel's checkers")
    isa = selected_isas()[0]
    cur = os.path.join(bpftrace.CACHE, f"{isa}.current")
    bt = isa if os.path.isfile(os.path.realpath(cur)) and \
        isa not in consumer.NO_BPFTRACE else ""
    out = tmp_path_factory.mktemp("bench-consumer")
    p = subprocess.run([sys.executable, os.path.join(xdtvm.TOP, "bench",
                                                     "consumer.py"),
                        "--quick", "--isas", isa, "--bpftrace", bt,
                        "--out", str(out)],
                       capture_output=True, text=True, timeout=1800)
    return isa, bt, out, p


def test_consumer_study_runs_every_row(quick):
    isa, bt, out, p = quick
    log = p.stdout[-4000:] + p.stderr[-4000:]
    assert p.returncode == 0, log
    r = json.loads((out / "results.json").read_text())
    size = consumer.SIZES["quick"]
    [res] = r["results"]
    assert res["isa"] == isa and not res.get("error"), res.get("error")
    assert res["clean_poweroff"], log
    tools = ["dtrace"] + (["bpftrace"] if bt else [])
    if not bt:
        assert res["bpftrace"], "no bpftrace column and no reason"
    runs = res["runs"]
    s16 = consumer.STRSIZE_VARIANT[0]
    assert {x["tool"] for x in runs} == set(tools) | {s16}, log
    # row 1's dtrace -x strsize=16 variant: no drop at the quick rates
    rate = [x for x in runs if x["tool"] == s16]
    assert [x["rate"] for x in rate] == consumer.SIZES["quick"]["rates"]
    assert all(x["ok"] and x["records"] == x["calls"] > 0 for x in rate)
    for t in tools:
        mine = [x for x in runs if x["tool"] == t]
        # row 1: at the quick rates nothing may drop: one line a call
        rate = [x for x in mine if x["row"] == "rate"]
        assert [x["rate"] for x in rate] == size["rates"], rate
        for x in rate:
            assert x["ok"] and x["records"] == x["calls"] > 0, x
            assert x["maxrss_kb"] > 0 and x["cpu_us"] > 0, x
        # row 2: every key printed once, the print after the signal
        agg = [x for x in mine if x["row"] == "agg"]
        assert len(agg) == size["rounds"], agg
        for x in agg:
            assert x["ok"] and x["lines"] == size["keys"], x
            assert x["print_ms"] > 0, x
        # row 3: the first firing after the exec, the exit after that
        st = [x for x in mine if x["row"] == "start"]
        assert len(st) == size["starts"] + 1, st
        for x in st:
            assert x["ok"] and 0 < x["first_ms"] < x["exit_ms"], x
        # row 4: the wildcard enables more probes than the single one
        mem = {x["pattern"]: x for x in mine if x["row"] == "mem"}
        assert set(mem) == set(consumer.MEM_SET), mem
        assert all(x["ok"] for x in mem.values()), mem
        wide, one = (mem[p_] for p_ in consumer.MEM_SET)
        assert one["nprobes"] == 1 and wide["nprobes"] > 1, mem
        assert wide["rss_kb"] > 0 and wide["maxrss_kb"] > 0, wide
    f = res["figures"]
    for t in tools:
        for k in ("rate", "print_ms", "first_ms", "first_cold_ms",
                  "kmem_per_probe", "kmem_marginal"):
            assert f[t].get(k) is not None, (t, k, f[t])
    table = (out / "table.md").read_text()
    rows = [ln for ln in table.splitlines() if ln.startswith(f"| {isa} |")]
    assert len(rows) == 14, table
    for ln in rows:
        cols = [c.strip() for c in ln.split("|")[1:-1]]
        assert len(cols) == 6, ln
        assert cols[2] != "–", ln          # dtrace measured every row
        assert (cols[3] != "–") == bool(bt), ln
