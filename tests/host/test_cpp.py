"""`dtrace -C`'s preprocessor: dt_cpp() (compiler/cpp.c) over mcpp.

A small driver (compiler/tests/cpp/driver.c) linked with cpp.c runs the
scripts of compiler/tests/cpp/ through Debian's mcpp; the guests run the
same driver, cross-built (tests/guest/test_cpp_guest.py).
Set XDT_BLESS=1 to rewrite the expected outputs.
"""
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import check_expected

import xdtvm
from test_compiler import dtrace  # noqa: F401 (fixture)

TOP = xdtvm.TOP
DIR = os.path.join(TOP, "compiler", "tests", "cpp")
SRCS = [os.path.join(DIR, "driver.c"), os.path.join(TOP, "compiler", "cpp.c")]
BASIC_ARGS = ["-DKEPT=7", "-DGONE", "-UGONE"]


def cflags(isa):
    """The driver's flags for @isa: libxdt's, with the ISA's macros that
    dtrace -C predefines (arch/<dir>/isa.toml [d], as the Makefile does)."""
    return ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
            "-I" + os.path.join(TOP, "compiler"),
            "-DXDT_CPP_ISA=" + xdtvm.cpp_defines(isa)]


# Each ISA's first own macro; ISA_PROBE prints which are defined.
ISA_MACRO = {i: f["d"]["cpp_predefined"][0].split("=")[0]
             for i, f in xdtvm.FACTS.items()}
ISA_PROBE = "".join(f"#ifdef {m}\nisa {i}\n#endif\n"
                    for i, m in ISA_MACRO.items())


@pytest.fixture(scope="module")
def driver():
    d = tempfile.mkdtemp(prefix="xdt-cpp-")
    out = os.path.join(d, "driver")
    r = subprocess.run(["gcc"] + cflags(os.uname().machine) + ["-o", out]
                       + SRCS,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    yield out
    shutil.rmtree(d, ignore_errors=True)


def run(driver, src, name, *args, cwd=DIR, env=None, text=True):
    """dt_cpp over @src (text, or a file name under @cwd) named @name."""
    tmp = None
    if "\n" in src:
        fd, tmp = tempfile.mkstemp(suffix=".d")
        with os.fdopen(fd, "w") as f:
            f.write(src)
        src = tmp
    try:
        return subprocess.run([driver, src, name, *args], cwd=cwd, env=env,
                              capture_output=True, text=text, timeout=60)
    finally:
        if tmp:
            os.unlink(tmp)


def check(actual, expected_path):
    check_expected(actual, expected_path)


def body(out):
    """The output's text lines, markers and blank lines left out, white
    space squeezed."""
    return [" ".join(ln.split()) for ln in out.splitlines()
            if ln.strip() and not ln.startswith("#line")]


@pytest.mark.host
def test_basic(driver):
    """Comments go, D's tokens pass, markers name the script and its header,
    DTrace's predefined macros and -D/-U hold, the #! line is blanked."""
    r = run(driver, "basic.d", "basic.d", *BASIC_ARGS)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    check(r.stdout, os.path.join(DIR, "basic.d.out"))


@pytest.mark.host
def test_directives_start_in_column_1(driver):
    """As in DTrace's cpp, a # after blanks or a comment is text (macros
    expanded, skipped in a false #if); strings, comments and a directive's
    continuation lines are left alone."""
    r = run(driver, "column1.d", "column1.d")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    check(r.stdout, os.path.join(DIR, "column1.d.out"))


@pytest.mark.host
def test_indented_control_lines_reach_the_d_compiler(dtrace, tmp_path):
    """dtrace -C: an indented #define is D_PRAGCTL_INVAL at its line and
    column (DTrace's preprocessor/err.D_PRAGCTL_INVAL.tabdefine.d); an
    indented #pragma is D's, with or without -C."""
    bad = tmp_path / "bad.d"
    bad.write_text("#define A 1\n\n\t#define VALUE 5\nBEGIN { exit(A); }\n")
    r = subprocess.run([dtrace, "-C", "-x", "errtags", "-e", "-s", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "[D_PRAGCTL_INVAL] line 3:2: invalid " \
        "control directive: #define\n" in r.stderr, r.stderr
    good = tmp_path / "good.d"
    good.write_text("#define V 5\n  #pragma D option quiet\n"
                    "BEGIN { trace(V); exit(0); }\n")
    r = subprocess.run([dtrace, "-x", "hostvm", "-C", "-s", str(good)],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "5\n"), r.stderr
    good.write_text("  #pragma D option quiet\nBEGIN { trace(5); exit(0); }\n")
    r = subprocess.run([dtrace, "-x", "hostvm", "-s", str(good)],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "5\n"), r.stderr


@pytest.mark.host
def test_error_names_the_script_line(driver):
    r = run(driver, "error.d", "error.d")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == ("error: error.d:11: error: End of input within #if "
                        "(#ifdef) section started at line 3\n"), r.stderr


@pytest.mark.host
def test_options_apply_in_order(driver):
    src = "A B C D E __linux __SUNW_D __unix__\n#include <hdr.h>\n"
    with tempfile.TemporaryDirectory() as inc:
        with open(os.path.join(inc, "hdr.h"), "w") as f:
            f.write("from_hdr\n")
        r = run(driver, src, "t.d", "-UA", "-DA=3", "-DB=1", "-UB",
                "-D", "C=5", "-DD(x)=x+1", "-U__linux", "-D__SUNW_D=2",
                "-U", "__unix__", "-I", inc, "-DE=")
    assert r.returncode == 0, r.stderr
    assert body(r.stdout) == ["3 B 5 D __linux 2 __unix__", "from_hdr"], \
        r.stdout


@pytest.mark.host
def test_line_markers(driver):
    """Every output line's script line is what the last marker says."""
    src = ("#define X 1\n/* two\nlines */\n\n\nfirst X\n#if 0\nno\n#endif\n"
           "second\n")
    r = run(driver, src, 'we"ird\\.d')
    assert r.returncode == 0, r.stderr
    where = {}
    line = None
    for ln in r.stdout.splitlines():
        if ln.startswith("#line "):
            n, name = ln[6:].split(" ", 1)
            assert name == '"we\\"ird\\\\.d"', ln
            line = int(n)
            continue
        if ln.strip():
            where[" ".join(ln.split())] = line
        line += 1
    assert where == {"first 1": 6, "second": 10}, r.stdout


@pytest.mark.host
def test_show_includes(driver):
    with tempfile.TemporaryDirectory() as d:
        for name, text in {"a.h": '#include "b.h"\n', "b.h": "b\n",
                           "m.d": '#include "a.h"\n#include "b.h"\nm\n'
                           }.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        r = run(driver, "m.d", "m.d", "-H", cwd=d)
    assert r.returncode == 0
    assert r.stderr == ". a.h\n.. b.h\n. b.h\n"
    assert body(r.stdout) == ["b", "b", "m"]


@pytest.mark.host
def test_big_output_does_not_deadlock(driver):
    """Far more than a pipe holds in both directions at once."""
    line = "tick-1s { @[probefunc] = count(); printf(\"%d\", N); }\n"
    src = "#define N 12345\n" + line * 100000
    r = run(driver, src, "big.d")
    assert r.returncode == 0, r.stderr[:500]
    assert r.stdout.count("printf(\"%d\",  12345 );") == 100000


@pytest.mark.host
def test_mcpp_not_found(driver):
    env = dict(os.environ, XDT_CPP="/nonexistent/mcpp")
    r = run(driver, "basic.d", "basic.d", env=env)
    assert r.returncode == 1
    assert r.stderr.startswith("error: mcpp not found: $XDT_CPP="), r.stderr
    env = dict(os.environ, PATH="/nonexistent")
    env.pop("XDT_CPP", None)
    r = run(driver, "basic.d", "basic.d", env=env)
    assert r.returncode == 1
    assert r.stderr.startswith("error: mcpp not found: no mcpp on $PATH"), \
        r.stderr


@pytest.mark.host
def test_host_isa_macro(driver):
    r = run(driver, ISA_PROBE, "isa.d")
    assert r.returncode == 0, r.stderr
    assert body(r.stdout) == ["isa " + os.uname().machine], r.stdout


def test_isa_macros_are_the_isa_compilers():
    """What isa.toml says dtrace -C predefines for each ISA, the ISA's own
    C compiler predefines, with the same value: the list is a fact about
    the ISA, checked against the compiler Debian ships for it."""
    for isa in xdtvm.HOST_ISAS:
        f = xdtvm.FACTS[isa]
        r = subprocess.run([xdtvm.ISAS[isa]["cross"] + "gcc", "-dM", "-E",
                            "-x", "c", "/dev/null"], capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        have = dict(ln.split(" ", 2)[1:] for ln in r.stdout.splitlines()
                    if ln.count(" ") >= 2)
        for m in f["d"]["cpp_predefined"]:
            name, _, value = m.partition("=")
            assert have.get(name) == (value or "1"), (isa, m, have.get(name))


# DTrace's -X letters (dtrace(1)): what each makes of __STDC__ (illumos'
# dt_preprocess passes -D__STDC__=0 for a and t, 1 for c, nothing for s),
# and of what only its mode does: # stringizes in the ISO C modes; a
# comment pastes in K&R's (s, the Reiser model); t's pre-Standard rescan
# lets NIL(G_1)(1) reach G_1 with the text after it, where a and c stop
# at NIL(1).
RESCAN = ("#define NIL(x) x\n#define G_1(a) NIL(a)\n#define G_0(a) NIL(G_1)(a)\n"
          "#define S(x) #x\n#define STR(x) S(x)\n", 'printf("%s", STR(G_0(1)));')
XMODES = {
    "a": RESCAN + ("__STDC__ 0 NIL(1)",),
    "c": RESCAN + ("__STDC__ 1 NIL(1)",),
    "s": ("", 'tra/**/ce("pasted");', "no __STDC__ pasted"),
    "t": RESCAN + ("__STDC__ 0 1",),
}
XPROG = ("{defs}BEGIN\n{{\n#ifdef __STDC__\n\tprintf(\"__STDC__ %d \", __STDC__);\n"
         "#else\n\tprintf(\"no __STDC__ \");\n#endif\n\t{use}\n\texit(0);\n}}\n")


@pytest.mark.parametrize("mode", sorted(XMODES))
@pytest.mark.parametrize("how", ["-X", "-x stdc="])
def test_X_conformance_modes(dtrace, tmp_path, mode, how):  # noqa: F811
    defs, use, stdc = XMODES[mode]
    d = tmp_path / "x.d"
    d.write_text(XPROG.format(defs=defs, use=use))
    opt = ["-X", mode] if how == "-X" else ["-x", "stdc=" + mode]
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-C", *opt, "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == stdc, r.stdout
    # every other mode refuses this mode's program or prints another line
    for other in sorted(set(XMODES) - {mode}):
        r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-C", "-X", other,
                            "-s", str(d)], capture_output=True, text=True, timeout=60)
        assert r.returncode != 0 or r.stdout.strip() != stdc, (other, r.stdout)


def test_X_default_is_a_and_last_wins(dtrace, tmp_path):  # noqa: F811
    d = tmp_path / "x.d"
    d.write_text(XPROG.format(defs="", use="trace(1);"))
    for opts, want in (([], "__STDC__ 0 1"), (["-Xc", "-Xs"], "no __STDC__ 1"),
                       (["-Xs", "-Xc"], "__STDC__ 1 1"),
                       (["-Xc", "-D__STDC__=2"], "__STDC__ 2 1")):
        r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-C", *opts, "-s", str(d)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == want, (opts, r.stdout)


@pytest.mark.parametrize("bad", ["q", "ac", ""])
def test_X_refuses_other_letters(dtrace, bad):  # noqa: F811
    r = subprocess.run([dtrace, "-X", bad, "-e", "-n", "BEGIN"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert f"failed to set -X {bad}: Invalid value for specified option" in r.stderr, r.stderr
