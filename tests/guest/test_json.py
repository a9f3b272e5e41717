"""-x oformat=json (docs/json.md) in every guest: the output is JSON Lines
that Python's json module reads, and the values in it are the ones the
workload makes (exact counts, exact buckets), not merely valid JSON."""
import json

from test_xdt_kernel import xdt  # noqa: F401 (fixture)
from test_providers import sysc  # noqa: F401 (fixture)


def objects(text):
    objs = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
    assert objs, "no JSON objects"
    for o in objs:
        assert o["type"] in ("probe", "aggregation", "error", "drop"), o
    return objs


def test_records_and_aggregations(xdt, sysc):
    """4 threads x 250 reads, then 7 getppid calls: the aggregations'
    values and buckets and the records' values are exact."""
    prog = (
        'syscall::read:entry /execname == "sysc"/ { @n = count(); '
        '@q = lquantize(self->i++, 0, 250, 50); @s["reads", 2] = sum(2); '
        '@m = max(self->i); @a = avg(4); } '
        'syscall::getppid:entry /execname == "sysc"/ '
        '{ printf("%d %s\\n", 42, execname); trace(-3); }')
    r = xdt.run(["dtrace", "-q", "-x", "oformat=json", "-n", prog,
                 "-c", f"{sysc} threads 4 250"], timeout=240)
    assert r.ok, r.stderr
    aggs = {o["name"]: o for o in objects(r.stdout) if o["type"] == "aggregation"}
    assert aggs["n"]["function"] == "count"
    assert aggs["n"]["entries"] == [{"keys": [], "value": 1000}]
    assert aggs["s"]["entries"] == [{"keys": ["reads", 2], "value": 2000}]
    assert aggs["m"]["entries"][0]["value"] == 250
    assert aggs["a"]["entries"][0] == {"keys": [], "value": 4, "count": 1000,
                                       "sum": 4000}
    # 0..249 per thread: 50 of each thread in each of the five rows
    assert aggs["q"]["entries"][0]["buckets"] == [
        {"value": v, "count": 200} for v in (0, 50, 100, 150, 200)]

    r = xdt.run(["dtrace", "-q", "-x", "oformat=json", "-n", prog,
                 "-c", f"{sysc} getppid 7"], timeout=240)
    assert r.ok, r.stderr
    recs = [o for o in objects(r.stdout) if o["type"] == "probe"]
    assert len(recs) == 7, recs
    for o in recs:
        assert (o["provider"], o["function"], o["name"]) == \
            ("syscall", "getppid", "entry")
        assert o["values"] == [42, "sysc", -3]
        assert o["output"].startswith("42 sysc\n"), o["output"]


def test_errors_and_drops(xdt):
    """A fault is an error object with DTrace's fault number; a failed
    speculation and a double error are drop objects with DTrace's tags."""
    prog = ('BEGIN { s = speculation(); t = speculation(); '
            'trace(*(int *)8); } '
            'ERROR { trace(*(int *)16); } '
            'BEGIN { exit(0); }')
    r = xdt.run(["dtrace", "-q", "-x", "oformat=json", "-n", prog],
                timeout=120)
    assert r.ok, r.stderr
    objs = objects(r.stdout)
    errs = [o for o in objs if o["type"] == "error"]
    assert len(errs) == 1 and errs[0]["kind"] == 1 and \
        errs[0]["addr"] == 8 and errs[0]["fault"] == "invalid address", errs
    drops = {o["kind"]: o["count"] for o in objs if o["type"] == "drop"}
    assert drops == {"DTRACEDROP_SPECUNAVAIL": 1, "DTRACEDROP_DBLERROR": 1}, objs
    assert "failed speculation (no speculative buffer available)" in r.stderr


def test_strings_are_valid_json(xdt):
    """Quotes, backslashes, control bytes and bytes that are not UTF-8
    still make valid JSON, and the text comes back as it was."""
    prog = ('BEGIN { printf("a\\"b\\\\c\\td\\001"); '
            'trace("caf\\303\\251"); trace("\\377x"); exit(0); }')
    r = xdt.run(["dtrace", "-q", "-x", "oformat=json", "-n", prog],
                timeout=120)
    assert r.ok, r.stderr
    (o,) = [o for o in objects(r.stdout) if o["type"] == "probe"]
    assert o["output"].startswith('a"b\\c\td\x01'), o
    assert o["values"][0] == "caf\u00e9" and o["values"][1] == "\u00ffx", o
