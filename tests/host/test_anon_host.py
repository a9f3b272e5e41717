"""Anonymous tracing (dtrace -A, dtrace -a) on the host VM: dtrace -A's
file goes through the very loader and claim xdt.ko uses
(core/portable/anon.c); $XDT_HOSTVM_ANON is the host VM's "module load"
of it.  The guest test (tests/guest/test_anon.py) does it with xdt.ko and
probes that fire between the load and the claim."""
import os
import struct
import subprocess

import pytest

from test_compiler import dtrace  # noqa: F401 (fixture)

pytestmark = pytest.mark.host

PROG = ('BEGIN { @n["begin"] = count(); trace("hello"); } '
        'END { printf("end %d\\n", 5); }')


def _dt(dtrace, *args, anon=None):
    env = dict(os.environ)
    env.pop("XDT_HOSTVM_ANON", None)
    if anon:
        env["XDT_HOSTVM_ANON"] = str(anon)
    return subprocess.run([dtrace, "-x", "hostvm", *args], capture_output=True,
                          text=True, timeout=60, env=env)


def _save(dtrace, path, *args):
    r = _dt(dtrace, "-A", "-o", str(path), *args)
    assert r.returncode == 0, r.stderr
    return r


def test_save_then_claim_prints_what_was_traced(dtrace, tmp_path):
    """-A saves, the load starts it (BEGIN fires with no consumer), -a
    claims: it prints what the same program run by dtrace prints, byte
    for byte (BEGIN's record, END's at the stop, the aggregation)."""
    f = tmp_path / "anon.xdt"
    r = _save(dtrace, f, "-n", PROG)
    assert r.stderr == (f"dtrace: saved anonymous enabling in {f}\n"
                        "dtrace: reload xdt.ko or reboot to enable changes\n")
    r = _dt(dtrace, "-a", anon=f)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert "hello" in r.stdout and "end 5" in r.stdout, r.stdout
    assert r.stdout == _dt(dtrace, "-n", PROG).stdout


def test_options_are_saved_with_the_enabling(dtrace, tmp_path):
    """-x bufsize lands in the program object the kernel loads; -q is the
    consumer's and comes back with the recipe: -a prints no header."""
    f = tmp_path / "anon.xdt"
    prog = 'BEGIN { printf("quiet\\n"); exit(0); }'
    _save(dtrace, f, "-q", "-x", "bufsize=96k", "-n", prog)
    data = f.read_bytes()
    magic, version, size, flags, prog_off = struct.unpack_from("<5I", data)
    assert (magic, size) == (0x58445441, len(data))
    # struct xdt_prog: bufsize is its 18th __u32
    assert struct.unpack_from("<I", data, prog_off + 17 * 4)[0] == 96 << 10
    r = _dt(dtrace, "-a", anon=f)
    assert r.returncode == 0 and r.stdout.startswith("quiet\n"), r
    assert r.stdout == _dt(dtrace, "-q", "-n", prog).stdout


def test_claim_with_e_exits_after_reading(dtrace, tmp_path):
    f = tmp_path / "anon.xdt"
    _save(dtrace, f, "-q", "-n", 'BEGIN { printf("once\\n"); }')
    r = _dt(dtrace, "-ae", anon=f)
    assert r.returncode == 0 and r.stdout.startswith("once\n"), r


def test_drops_are_reported_at_the_claim(dtrace, tmp_path):
    """The guide: drops and errors of the anonymous state are reported when
    it is claimed, in the words of any run.  Eight records of 2 KiB in a
    4 KiB buffer (the saved bufsize): the same drops a run has."""
    f = tmp_path / "anon.xdt"
    opts = ["-q", "-x", "bufsize=4k", "-x", "strsize=2k", "-n",
            "BEGIN { trace(probename); } " * 8]
    _save(dtrace, f, *opts)
    r = _dt(dtrace, "-a", anon=f)
    run = _dt(dtrace, *opts)
    assert "drops on CPU 0" in run.stderr, run
    assert (r.returncode, r.stdout, r.stderr) == (0, run.stdout, run.stderr)


def test_no_anonymous_state(dtrace):
    r = _dt(dtrace, "-a")
    assert r.returncode == 1
    assert r.stderr == ("dtrace: could not enable tracing: No anonymous "
                        "tracing state\n"), r.stderr


def test_replace_and_remove(dtrace, tmp_path):
    """-A over an existing one says it cleaned it up (DTrace's dof_prune);
    -A with no program removes it, and says so only if there was one."""
    f = tmp_path / "anon.xdt"
    _save(dtrace, f, "-n", "BEGIN { trace(1); }")
    r = _save(dtrace, f, "-n", "BEGIN { trace(2); }")
    assert r.stderr.startswith(
        f"dtrace: cleaned up old anonymous enabling in {f}\n"
        f"dtrace: saved anonymous enabling in {f}\n"), r.stderr
    r = _dt(dtrace, "-A", "-o", str(f))
    assert (r.returncode, r.stderr) == (
        0, f"dtrace: cleaned up old anonymous enabling in {f}\n"), r
    assert not f.exists()
    r = _dt(dtrace, "-A", "-o", str(f))
    assert (r.returncode, r.stderr) == (0, ""), r


def test_recipe_that_no_longer_compiles_to_the_object_is_refused(dtrace,
                                                                  tmp_path):
    """-a reads records by what it compiles from the saved sources: a
    source that gives another object (here edited in the file) must be
    refused, not used to misread the records."""
    f = tmp_path / "anon.xdt"
    _save(dtrace, f, "-n", 'BEGIN { trace("hello"); }')
    data = f.read_bytes()
    at = data.rindex(b'trace("hello")')   # the recipe's copy, not strtab's
    f.write_bytes(data[:at] + b'trace("jello")' + data[at + 14:])
    r = _dt(dtrace, "-a", anon=f)
    assert r.returncode == 1
    assert "no longer compiles to the program xdt.ko runs" in r.stderr, r


@pytest.mark.parametrize("cut", [8, 40])
def test_damaged_file_is_refused_at_load(dtrace, tmp_path, cut):
    """The loader checks the file as the kernel checks a program: a cut
    one is refused with its reason (the kernel log's line) and there is
    no anonymous state."""
    f = tmp_path / "anon.xdt"
    _save(dtrace, f, "-n", "BEGIN { trace(1); }")
    f.write_bytes(f.read_bytes()[:cut])
    r = _dt(dtrace, "-a", anon=f)
    assert r.returncode == 1
    assert f"xdt: anonymous enabling {f} refused: " in r.stderr, r.stderr
    assert "No anonymous tracing state" in r.stderr, r.stderr


# (arguments, what dtrace says): what cannot be anonymous, or is no mode
REFUSED = [
    (["-A", "-n", "pid123:::entry { trace(1); }"],
     "dtrace: failed to save anonymous enabling: probe description "
     "pid123:::entry: a process's probes (pid, USDT) are made in the live "
     "process by the consumer tracing it, and an anonymous enabling has "
     "none\n"),
    (["-A", "-c", "true", "-n", "BEGIN { trace(1); }"],
     "dtrace: -A cannot be used with -c or -p: an anonymous enabling starts "
     "as xdt.ko loads, before any process it could name\n"),
    (["-A", "-p", "1", "-n", "BEGIN { trace(1); }"],
     "dtrace: -A cannot be used with -c or -p: an anonymous enabling starts "
     "as xdt.ko loads, before any process it could name\n"),
    (["-a", "-n", "BEGIN { trace(1); }"],
     "dtrace: -a claims the anonymous enabling: it takes no program (-n, -s, "
     "-P, -m, -f, -i) of its own\n"),
    (["-a", "-A"],
     "dtrace: -a and -A cannot be used together: -A saves an enabling for "
     "the next load of xdt.ko, -a claims the one it started\n"),
    (["-A", "-l"],
     "dtrace: only one of the [-AGhlV] options can be specified at a time\n"),
]


@pytest.mark.parametrize("args,said", REFUSED, ids=lambda a: " ".join(a)
                         if isinstance(a, list) else None)
def test_refused(dtrace, tmp_path, args, said):
    f = tmp_path / "anon.xdt"
    r = _dt(dtrace, *args, "-o", str(f))
    assert r.returncode != 0
    assert r.stderr == said
    assert not f.exists()
