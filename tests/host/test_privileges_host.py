"""The read rule of who may use /dev/xdt (core/portable/vars.c, Reads;
docs/privileges.md) on the host, in milliseconds: the host VM runs the same
core as xdt.ko, and XDT_HOSTVM_PRIV=perfmon makes its consumer a
CAP_PERFMON-only one.  The guests check the rest
(tests/guest/test_privileges.py)."""
import os
import re
import subprocess

import pytest

from test_compiler import dtrace  # noqa: F401 (fixture: the host's dtrace)


# Everything a D program may read of its own: literals, variables of every
# scope, scratch (string subroutines, alloca), the built-in strings (also
# from their middle), string keys and aggregations, tracemem.
OWN = r"""
BEGIN {
    x = "lit"; self->s = execname; this->t = probename;
    a[probefunc, "k"] = 7;
    this->b = (char *)alloca(8); this->b[0] = 'o'; this->b[1] = 'k';
    this->c = (char *)alloca(8); bcopy(this->b, this->c, 3);
    printf("%s %s %s %s %s %d\n", x, strjoin(self->s, "!"), substr(this->t, 2),
           strchr(probeprov, 't'), stringof(this->c), a[probefunc, "k"]);
    printf("%s %s %s %s %d %s\n", strtok("a,b", ","), strtok(NULL, ","),
           tolower("ABC"), lltostr(42), index(probename, "GIN"),
           json("{\"a\":{\"b\":7}}", "a.b"));
    printf("%s %d %s\n", inet_ntoa((ipaddr_t *)this->b), strlen(x),
           basename("/x/y"));
    tracemem(this->b, 2);
    @[execname, probename, x] = count();
    exit(0);
}
"""

# ... and what it may not: kernel memory, by a load, a string action, a
# subroutine (the host VM's curthread is 0: no kernel there at all).
FOREIGN = r"""
BEGIN { trace(*(int *)curthread); }
BEGIN { trace(stringof(12345)); }
BEGIN { trace(strlen(stringof(curthread + 8))); }
BEGIN { exit(0); }
ERROR { printf("fault %d\n", arg4); }
"""


def hostvm(dtrace, prog, priv):  # noqa: F811
    env = dict(os.environ)
    env.pop("XDT_HOSTVM_PRIV", None)
    if priv:
        env["XDT_HOSTVM_PRIV"] = priv
    return subprocess.run([dtrace, "-x", "hostvm", "-qn", prog],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.host
def test_hostvm_perfmon_reads_its_own_memory(dtrace):  # noqa: F811
    full = hostvm(dtrace, OWN, None)
    perfmon = hostvm(dtrace, OWN, "perfmon")
    assert full.returncode == 0 and full.stderr == "", full.stderr
    assert perfmon.returncode == 0 and perfmon.stderr == "", perfmon.stderr
    assert perfmon.stdout == full.stdout, (perfmon.stdout, full.stdout)
    lines = full.stdout.splitlines()
    assert lines[0] == "lit dtrace! GIN trace ok 7", full.stdout
    assert lines[1] == "a b abc 42 2 7", full.stdout
    assert lines[2] == "111.107.0.0 3 y", full.stdout


@pytest.mark.host
def test_hostvm_perfmon_kernel_reads_are_kpriv(dtrace):  # noqa: F811
    full = hostvm(dtrace, FOREIGN, None)
    perfmon = hostvm(dtrace, FOREIGN, "perfmon")
    assert full.returncode == 0 and perfmon.returncode == 0, (full, perfmon)
    # unprivileged: KPRIV (6) everywhere, whatever the address; the string
    # action's fault is the action's, not DIF's (no DIF offset)
    assert perfmon.stdout.split() == ["fault", "6"] * 3, perfmon.stdout
    got = re.findall(r"\(ID \d+: dtrace:::BEGIN\): invalid kernel access in "
                     r"action #1( at DIF offset \d+)?\n", perfmon.stderr)
    assert [bool(g) for g in got] == [True, False, True], perfmon.stderr
    # privileged: what the addresses are, not mapped here (BADADDR, 1)
    assert full.stdout.split() == ["fault", "1"] * 3, full.stdout
    assert "invalid kernel access" not in full.stderr, full.stderr
