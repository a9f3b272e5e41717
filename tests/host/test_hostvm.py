"""D semantics on the host VM (`dtrace -x hostvm`): xdt.ko's portable core
(DIF verifier and machine, variables, firing, buffers) built into libxdt and
run in this process, BEGIN/END/ERROR only.  No guest: milliseconds a test.

  compiler/tests/vm/NAME.d   C's arithmetic in DIF (signed and unsigned
                             division, shifts, comparisons, promotions),
                             string compares, faults and ERROR
  tests/guest/d/NAME.d      every guest test that needs no probe but
                             BEGIN/END (no `cmd:` header): the host VM must
                             print what the guests print, byte for byte
                             (`/* hostvm: why not */` opts out: kernel types)

Each NAME.d.out is the exact stdout; `/* flags: */` adds dtrace arguments,
`/* env: */` the host VM's inputs (XDT_HOSTVM_STACKS: the stacks stack()
returns).
XDT_BLESS=1 writes the .out files of compiler/tests/vm from what ran.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import check_expected

import xdtvm
from test_compiler import dtrace  # noqa: F401 (fixture)
from test_d import SCRIPTS, header

pytestmark = pytest.mark.host

TOP = xdtvm.TOP
VM = sorted(glob.glob(os.path.join(TOP, "compiler", "tests", "vm", "*.d")))
# the guest scripts whose probes the host VM has (BEGIN, END, ERROR)
GUEST = [s for s in SCRIPTS
         if header(s, "cmd") is None and header(s, "hostvm") is None and not re.search(
             r"^(tick|profile|fbt|syscall|kinst|sdt|tp)\b", open(s).read(), re.M)]


def _run(dtrace, script):
    argv = [dtrace, "-x", "hostvm"] + shlex.split(header(script, "flags") or "")
    # printf's %Y/%T are local time and %a names kernel symbols: fix both
    env = dict(os.environ, TZ="UTC",
               XDT_KALLSYMS=os.path.join(TOP, "compiler", "tests", "kallsyms.fake"))
    # `/* env: K=V */`: the host VM's own inputs (XDT_HOSTVM_STACKS)
    for kv in shlex.split(header(script, "env") or ""):
        k, _, v = kv.partition("=")
        env[k] = v
    return subprocess.run(argv + ["-s", script], capture_output=True, text=True,
                          timeout=60, env=env)


@pytest.mark.parametrize("script", VM, ids=os.path.basename)
def test_vm(dtrace, script):
    r = _run(dtrace, script)
    assert r.returncode == 0, r.stderr
    check_expected(r.stdout, script + ".out", f"stdout ({r.stderr})")


@pytest.mark.parametrize("script", GUEST, ids=os.path.basename)
def test_same_as_guest(dtrace, script):
    r = _run(dtrace, script)
    assert r.returncode == 0, r.stderr
    want_err = header(script, "stderr")
    if want_err:
        assert re.search(want_err, r.stderr, re.M), r.stderr
    else:
        assert "error" not in r.stderr.lower(), r.stderr
    with open(script + ".out") as f:
        assert r.stdout == f.read(), f"stdout differs:\n{r.stdout}"


def test_records(dtrace, tmp_path):
    """printf conversions and the default CPU/ID/FUNCTION:NAME layout, then
    the same records with -q (%p is DTrace's: hex without 0x, as %x of the
    value's size)."""
    d = tmp_path / "r.d"
    d.write_text('BEGIN { printf("%d|%5i|%-5u|%x|%X|%o|%s|%-6s|%c|%p|%8p|%%|%05d\\n", '
                 '-42, 7, 3, 255, 255, 8, "hi", "ab", 65, 4096, 16, 42); }\n'
                 'BEGIN { trace(5); trace("cat"); }\n'
                 'END { printf("%s", "no newline"); }\n')
    conv = "-42|    7|3    |ff|FF|10|hi|ab    |A|1000|      10|%|00042\n"
    r = subprocess.run([dtrace, "-x", "hostvm", "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "CPU     ID                    FUNCTION:NAME\n"
        "  0      1                           :BEGIN " + conv +
        # trace() as DTrace's: an int (4 bytes) in 8 columns, a string
        # after two spaces, left-justified in 33
        "  0      1                           :BEGIN         5  cat"
        "                              \n"
        "  0      2                             :END no newline\n"
        "\n")
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == conv + "5catno newline\n"


def test_fault_reaches_error(dtrace, tmp_path):
    """Memory the VM did not allocate is unreadable (as in the kernel only
    RAM is): a load from a stale pointer past a string faults, and an
    ERROR clause sees DTrace's fault number and the address."""
    d = tmp_path / "f.d"
    d.write_text('BEGIN { p = (char *)alloca(8); trace(*(p + (1 << 30))); }\n'
                 'ERROR { printf("%d %d", arg4, arg5 == (uint64_t)p + (1 << 30)); '
                 'exit(0); }\n')
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1 1", (r.stdout, r.stderr)
    assert "invalid address" in r.stderr


def test_strsize_64k(dtrace, tmp_path):
    """The largest strsize (XDT_STRSIZE_MAX, 64k) end to end: ten strjoin()s
    of a doubling piece reach 65536 characters, kept at strsize - 1 (DTrace's
    rule) in a global, a thread-local, an array's key and value and an
    aggregation's key, and printed whole."""
    d = tmp_path / "s.d"
    d.write_text('#pragma D option strsize=64k\n'
                 'string a[string];\n'
                 'BEGIN { s = "0123456789abcdef0123456789abcdef0123456789abcdef'
                 '0123456789abcdef";\n' +
                 's = strjoin(s, s);\n' * 10 +
                 'g = s; self->t = s; a[s] = s; @[s] = count(); }\n'
                 'BEGIN { printf("%d %d %d %d\\n", strlen(g), strlen(self->t), '
                 'strlen(a[g]), strlen(a["x"]));\n'
                 'printa("%s\\n", @); exit(0); }\n')
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    first, key = r.stdout.split("\n")[:2]
    assert first == "65535 65535 65535 0"
    assert key == ("0123456789abcdef" * 4096)[:65535]


def test_other_probes_match_nothing(dtrace):
    """The host VM has the dtrace provider only: anything else is refused
    the way an unknown probe is, never silently ignored."""
    r = subprocess.run([dtrace, "-x", "hostvm", "-n", "fbt::vfs_read:entry"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "does not match any probes" in r.stderr, r.stderr


def test_unmatched_probe_in_a_script_names_the_file(dtrace, tmp_path):
    """In a script the message names the file and the description, as
    DTrace's does: the script's whole text in it once filled the message
    buffer and cut the reason off."""
    d = tmp_path / "big.d"
    d.write_text("".join(f"BEGIN /{i} == 0/ {{ trace({i}); }}\n"
                         for i in range(200)) + "fbt::nosuch:entry { }\n")
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert r.stderr.strip() == (
        f"dtrace: failed to compile script {d}: probe description "
        "fbt::nosuch:entry does not match any probes"), r.stderr


def test_no_limit_on_clauses_descriptions_or_options(dtrace, tmp_path):
    """DTrace sets no limit on clauses, on a clause's probe descriptions or
    on -n/-s/-D options; xdt once stopped at 256, 16 and 64."""
    d = tmp_path / "many.d"
    d.write_text("".join(f"BEGIN /{i} == N/ {{ printf(\"clause %d\\n\", {i}); }}\n"
                         for i in range(600)) +
                 ",\n".join(["BEGIN"] * 40) + " { @n = count(); }\n" +
                 "BEGIN { printa(\"%@d descriptions\\n\", @n); exit(0); }\n")
    args = [dtrace, "-x", "hostvm", "-q", "-C", "-D", "N=599", "-s", str(d)]
    for i in range(100):
        args += ["-D", f"UNUSED{i}=1", "-n", f"BEGIN /{i} == 1000/ {{ }}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["clause 599", "40 descriptions"], \
        r.stdout


def test_setenv_unsetenv(dtrace):
    """-x setenv/unsetenv shape the environment commands start with
    (system() here, -c in a guest); from a #pragma they are refused with
    DTrace's D_PRAGMA_OPTSET, and unsetenv takes a name, not NAME=VALUE."""
    env = dict(os.environ, XDT_GONE="x")
    r = subprocess.run([dtrace, "-x", "hostvm", "-w", "-q", "-x", "setenv=XDT_SET=a b",
                        "-x", "unsetenv=XDT_GONE", "-n",
                        'BEGIN { system("echo [$XDT_SET] [$XDT_GONE]"); exit(0); }'],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[a b] []", r.stdout
    r = subprocess.run([dtrace, "-x", "errtags", "-e", "-n",
                        "#pragma D option setenv=A=b\nBEGIN {}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "[D_PRAGMA_OPTSET]" in r.stderr, r.stderr
    assert "cannot be used from within a D program" in r.stderr, r.stderr
    r = subprocess.run([dtrace, "-x", "unsetenv=A=b", "-e", "-n", "BEGIN"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "Invalid value" in r.stderr, r.stderr


def test_output_that_cannot_be_written_is_an_error(dtrace):
    """A write that fails (a full disk here; a pipe page the kernel could
    not allocate in the soak's fail_page_alloc run, which lost END's line
    and exited 0) stops dtrace with a message and exit status 1, to
    stdout and to -o's file alike."""
    prog = 'BEGIN { printf("x\\n"); } END { printf("done\\n"); } BEGIN { exit(0); }'
    with open("/dev/full", "w") as full:
        r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-n", prog],
                           stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    assert r.returncode == 1, r.stderr
    assert "dtrace: failed to write output: No space left on device" in \
        r.stderr, r.stderr
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-o", "/dev/full",
                        "-n", prog], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and "failed to write output" in r.stderr, r
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-n", prog],
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "x\ndone\n\n"), r



def _dlib(tmp_path):
    """A D library directory as the guests' /usr/lib/xdt has it, less the
    files that need kernel types: the constants make generates
    (host-dlib: from the build machine's uapi headers) and dlib/unistd.d."""
    from test_compiler import _build
    gen = os.path.dirname(_build("host-dlib", os.path.join("dlib", "signal.d")))
    d = tmp_path / "lib"
    d.mkdir()
    for f in glob.glob(os.path.join(gen, "*.d")) + [
            os.path.join(TOP, "dlib", "unistd.d")]:
        with open(f) as src:
            (d / os.path.basename(f)).write_text(src.read())
    return str(d)


def test_d_library_constants(dtrace, tmp_path):
    """DTrace's D library names (signal.d, errno.d, unistd.d, io.d's O_*,
    procfs.d's si_code values) with Linux's values; without the library
    they are unknown names, as before."""
    prog = ('BEGIN { printf("%d %d %d %d %d %d %d %d %d|", SIGHUP, SIGINT, '
            'SIGKILL, SIGUSR1, SIGSEGV, SIGTERM, SIGCHLD, SIGPOLL, SIGRTMIN); '
            'printf("%d %d %d %d %d %d %d|", EPERM, ENOENT, EAGAIN, '
            'EWOULDBLOCK, EINVAL, ENOSYS, ETIMEDOUT); '
            'printf("%d %d %d %d|", O_RDONLY, O_WRONLY, O_RDWR, O_CREAT | O_EXCL); '
            'printf("%d %d %d %d\\n", SI_USER, SI_QUEUE, CLD_EXITED, SEGV_MAPERR); '
            'exit(0); }')
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-L", _dlib(tmp_path),
                        "-n", prog], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # Linux's uapi values (asm-generic/signal.h, errno-base.h, errno.h,
    # fcntl.h, siginfo.h), the same on the three lab ISAs
    assert r.stdout == ("1 2 9 10 11 15 17 29 32|1 2 11 11 22 38 110|"
                        "0 1 2 192|0 -1 1 1\n\n"), r.stdout
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-n", "BEGIN { trace(SIGINT); }"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "failed to resolve SIGINT" in r.stderr, r.stderr


def test_fault_constants(dtrace, tmp_path):
    """unistd.d's DTRACEFLT_* are the numbers ERROR's arg4 carries: each
    name against a fault of that kind, and the file against the one
    table xdt numbers its faults by (core/uapi/xdt.h)."""
    d = tmp_path / "f.d"
    d.write_text('BEGIN { x = 0; y = 1 / x; } BEGIN { trace(*(int *)8); } '
                 'ERROR { printf("%d %d %d\\n", arg4, arg4 == DTRACEFLT_DIVZERO, '
                 'arg4 == DTRACEFLT_BADADDR); }\n')
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-L", _dlib(tmp_path),
                        "-s", str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "4 1 0\n1 0 1\n\n", (r.stdout, r.stderr)
    with open(os.path.join(TOP, "core", "uapi", "xdt.h")) as f:
        enum = dict(re.findall(r"XDT_FAULT_(\w+) = (\d+)", f.read()))
    with open(os.path.join(TOP, "dlib", "unistd.d")) as f:
        lib = dict(re.findall(r"inline int DTRACEFLT_(\w+) = (\d+);", f.read()))
    enum["UNKNOWN"] = enum.pop("NONE")      # DTrace's name for 0
    assert lib == enum


@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_d_library_constants_per_isa(tmp_path, isa):
    """Each ISA's constants come from its own compiler's uapi headers:
    signal and errno numbers are asm-generic's on all three lab ISAs, and
    open(2) flags are not (arm64 has its own asm/fcntl.h)."""
    cc = xdtvm.ISAS[isa]["cross"] + "gcc"
    r = subprocess.run([sys.executable, os.path.join(TOP, "tools", "xdt-dconsts.py"),
                        "--cc", cc, "--isa", isa, str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr

    def consts(name):
        with open(tmp_path / name) as f:
            return dict(re.findall(r"inline int (\w+) = (-?\d+);", f.read()))
    sig, err, fcntl = consts("signal.d"), consts("errno.d"), consts("fcntl.d")
    assert (sig["SIGINT"], sig["SIGKILL"], sig["SIGUSR1"], sig["SIGSTKFLT"],
            sig["SIGSYS"], sig["SIGRTMIN"]) == ("2", "9", "10", "16", "31", "32")
    assert (err["EPERM"], err["EAGAIN"], err["EDEADLOCK"], err["EHWPOISON"]) == \
        ("1", "11", "35", "133")
    assert len(err) > 130 and "SIGSTKSZ" not in sig
    assert fcntl["O_DIRECTORY"] == ("16384" if isa == "aarch64" else "65536")


def _dt(dtrace, *args):
    return subprocess.run([dtrace, *args], capture_output=True, text=True,
                          timeout=60)


def test_flag_V(dtrace):
    """-V: the D version in DTrace's format (dtrace.c: "%s: %s\\n" of
    _dtrace_version), the one -C's __SUNW_D_VERSION encodes; a mode of its
    own, as in DTrace."""
    r = _dt(dtrace, "-V")
    assert (r.returncode, r.stdout, r.stderr) == (0, "dtrace: Sun D 1.13\n", "")
    r = _dt(dtrace, "-V", "-l")
    assert r.returncode == 2
    assert r.stderr == ("dtrace: only one of the [-AGhlV] options can be "
                        "specified at a time\n"), r.stderr


def test_flag_Z(dtrace, tmp_path):
    """-Z (-x zdefs, #pragma D option zdefs): a description that matches
    no probe is not enabled instead of failing the run; the others run,
    and each description says how many probes it matched."""
    prog = ["-n", "fbt::nosuch:entry { trace(1); }", "-n", "BEGIN { trace(2); }"]
    r = _dt(dtrace, "-x", "hostvm", *prog)
    assert r.returncode == 1 and r.stdout == ""
    assert "probe description fbt::nosuch:entry does not match any probes" \
        in r.stderr, r.stderr
    for z in (["-Z"], ["-x", "zdefs"]):
        r = _dt(dtrace, "-x", "hostvm", *z, *prog)
        assert r.returncode == 0, r.stderr
        assert r.stdout == ("CPU     ID                    FUNCTION:NAME\n"
                            "  0      1                           :BEGIN"
                            "         2\n\n"), r.stdout
        assert r.stderr == ("dtrace: description 'fbt::nosuch:entry ' matched 0 probes\n"
                            "dtrace: description 'BEGIN ' matched 1 probe\n"), r.stderr
    d = tmp_path / "z.d"
    d.write_text("#pragma D option zdefs\n#pragma D option quiet\n"
                 "fbt::nosuch:entry { trace(1); }\nBEGIN { trace(2); }\n")
    r = _dt(dtrace, "-x", "hostvm", "-s", str(d))
    assert (r.returncode, r.stdout, r.stderr) == (0, "2\n", ""), r
    # nothing matched at all: DTrace's -Z still traces (until interrupted,
    # or, in the host VM, until its BEGIN is over)
    r = _dt(dtrace, "-x", "hostvm", "-Z", "-q", "-n", "fbt::nosuch:entry { trace(1); }")
    assert (r.returncode, r.stdout, r.stderr) == (0, "\n", ""), r


def test_flag_b(dtrace):
    """-b SIZE is -x bufsize=SIZE, suffixes and all: a clause's record
    that does not fit is refused the same way by both."""
    prog = "BEGIN { " + " ".join(f"trace({i});" for i in range(100)) + " }"
    small = [_dt(dtrace, "-x", "hostvm", "-q", *f, "-n", prog)
             for f in (["-b", "512"], ["-x", "bufsize=512"])]
    for r in small:
        assert r.returncode == 1
        assert r.stderr == ("dtrace: could not enable tracing: Enabling "
                            "exceeds size of buffer\n"), r.stderr
    r = _dt(dtrace, "-x", "hostvm", "-q", "-b", "1k", "-n", prog)
    assert r.returncode == 0 and r.stdout == "".join(map(str, range(100))) + "\n", r
    r = _dt(dtrace, "-b", "1q", "-n", "BEGIN")
    assert r.returncode == 1
    assert r.stderr == ("dtrace: failed to set -b 1q: Invalid value for "
                        "specified option\n"), r.stderr


def test_flag_F_other_probes(dtrace):
    """-F's layout for probes that are neither entry nor return: DTrace's
    "CPU FUNCTION" header and "| func:name" at the current depth, the
    header even under -q (dtrace.c chew()).  Entry and return: the guests'
    fbt (tests/guest/test_dtrace_guest.py)."""
    r = _dt(dtrace, "-x", "hostvm", "-F", "-n", "BEGIN { trace(1); } END { trace(2); }")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("CPU FUNCTION                                 \n"
                        "  0 | :BEGIN                                          1\n"
                        "  0 | :END                                            2\n"
                        "\n"), r.stdout
    r = _dt(dtrace, "-x", "hostvm", "-F", "-q", "-n", 'BEGIN { printf("x\\n"); }')
    assert r.stdout == ("CPU FUNCTION                                 \n"
                        "  0 | :BEGIN                                  x\n\n"), r.stdout


def test_errtags_pdesc_zero(dtrace, tmp_path):
    """A description matching no probe is DTrace's compile error
    D_PDESC_ZERO; xdt finds it at enabling, and tags it there too under
    -x errtags, with the description's place (the suite's dtest.pl wants
    ": [D_PDESC_ZERO] line N:" of its err.D_PDESC_ZERO.* tests)."""
    want = "probe description fbt::nosuch:entry does not match any probes\n"
    r = _dt(dtrace, "-x", "hostvm", "-x", "errtags", "-n", "fbt::nosuch:entry { }")
    assert r.returncode == 1
    assert r.stderr == ("dtrace: invalid probe specifier fbt::nosuch:entry { }: "
                        "[D_PDESC_ZERO] line 1:1: " + want), r.stderr
    d = tmp_path / "z.d"
    d.write_text("#pragma D option errtags\nfbt::nosuch:entry { }\n")
    r = _dt(dtrace, "-x", "hostvm", "-s", str(d))
    assert r.returncode == 1
    assert r.stderr == (f"dtrace: failed to compile script {d}: "
                        "[D_PDESC_ZERO] line 2:1: " + want), r.stderr
    r = _dt(dtrace, "-x", "hostvm", "-n", "fbt::nosuch:entry { }")
    assert r.stderr == ("dtrace: invalid probe specifier fbt::nosuch:entry { }: "
                        + want), r.stderr


def test_empty_script_after_the_library(dtrace, tmp_path):
    """An empty script is D_EMPTY even when the D library was compiled
    for its second attempt: the library's inlines are not the script's
    (it once ran as "no probes specified", where the guests' library is)."""
    d = tmp_path / "empty.d"
    d.write_text("/* nothing */\n")
    r = _dt(dtrace, "-x", "hostvm", "-x", "errtags", "-L", _dlib(tmp_path), "-s", str(d))
    assert r.returncode == 1
    assert r.stderr.startswith(f"dtrace: failed to compile script {d}: [D_EMPTY] "
                               "line 2:1: empty D program translation unit\n"), r.stderr
