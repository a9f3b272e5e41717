"""Data-driven D tests in a booted guest: each qemu-tests/d/NAME.d runs with
`dtrace -s` and its stdout must equal NAME.d.out byte for byte.

Header comments on the first lines configure a test:
  /* flags: ... */    more dtrace arguments (shell words)
  /* cmd: ... */      a command for -c (so $target is its pid); the
                      guest's /tmp/sysc is qemu-tests/progs/sysc.c
  /* stderr: RE */    a regular expression stderr must match
Parametrized over the ISAs like every guest suite: one boot per ISA, every
script copied once.  XDT_BLESS=1 writes the .out files from what ran (then
read the diff: an expected output is a claim about D, not a recording).
"""
import glob
import os
import re
import shlex

import pytest

from test_xdt_kernel import xdt  # noqa: F401 (fixture)
from test_providers import sysc  # noqa: F401 (fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "d", "*.d")))
_copied = set()


def header(path, key):
    with open(path) as f:
        for ln in f.read().splitlines()[:6]:
            m = re.match(rf"/\* {key}: (.*) \*/$", ln.strip())
            if m:
                return m.group(1)
    return None


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_d(xdt, sysc, script):
    name = os.path.basename(script)
    if (xdt.isa, name) not in _copied:
        xdt.put(script, f"/tmp/d/{name}") if xdt.run(
            ["mkdir", "-p", "/tmp/d"]).code == 0 else None
        _copied.add((xdt.isa, name))
    argv = ["dtrace"] + shlex.split(header(script, "flags") or "")
    cmd = header(script, "cmd")
    if cmd:
        argv += ["-c", cmd]
    argv += ["-s", f"/tmp/d/{name}"]
    r = xdt.run(argv, timeout=240)
    assert r.how == "exited" and r.code == 0, (r, r.stderr)
    want_err = header(script, "stderr")
    if want_err:
        assert re.search(want_err, r.stderr), r.stderr
    else:
        assert "error" not in r.stderr.lower(), r.stderr
    out = script + ".out"
    if os.environ.get("XDT_BLESS"):
        with open(out, "w") as f:
            f.write(r.stdout)
    with open(out) as f:
        assert r.stdout == f.read(), f"{name}: stdout differs:\n{r.stdout}"
