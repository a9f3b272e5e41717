"""Host tests of the D compiler and dtrace(1)'s printers: no guest needed.

Data-driven, from compiler/tests/:
  tst.*.d  with tst.*.d.out: the exact `dtrace -S -e -s file` output
  err.*.d  with err.*.d.err: the exact compile error on stderr (exit 1)
A first line `/* args: a b c */` passes macro arguments ($1 ...).
Set XDT_BLESS=1 to (re)write the expected files from the current output.
"""
import glob
import os
import re
import subprocess

import pytest

from conftest import check_expected
import xdtvm

TOP = xdtvm.TOP
TESTS = os.path.join(TOP, "compiler", "tests")
pytestmark = pytest.mark.host


def _build(target="host-dtrace", name="dtrace"):
    """A host artifact of the Makefile (dtrace, libxdt.a): the one build."""
    built = os.path.join(xdtvm.CACHE, "build", "host", name)
    r = subprocess.run(["make", "-s", "-C", TOP, target],
                       capture_output=True, text=True)
    assert r.returncode == 0 and os.path.exists(built), \
        f"make {target} failed:\n" + r.stdout + r.stderr
    return built


@pytest.fixture(scope="module")
def dtrace():
    return _build()


def _args(path):
    with open(path) as f:
        m = re.match(r"/\* args: (.*) \*/", f.readline())
    return m.group(1).split() if m else []


def _check(actual, expected_path):
    check_expected(actual, expected_path)


def _rel(path):
    return os.path.relpath(path, TOP)


@pytest.mark.parametrize("src", sorted(glob.glob(os.path.join(TESTS, "tst.*.d"))),
                         ids=os.path.basename)
def test_compile(dtrace, src):
    r = subprocess.run([dtrace, "-S", "-e", "-s", _rel(src)] + _args(src),
                       capture_output=True, text=True, cwd=TOP)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    _check(r.stdout, src + ".out")


@pytest.mark.parametrize("src", sorted(glob.glob(os.path.join(TESTS, "err.*.d"))),
                         ids=os.path.basename)
def test_compile_error(dtrace, src):
    r = subprocess.run([dtrace, "-e", "-s", _rel(src)] + _args(src),
                       capture_output=True, text=True, cwd=TOP)
    assert r.returncode == 1
    assert r.stdout == ""
    _check(r.stderr, src + ".err")


@pytest.mark.parametrize("opt,msg", [
    ("bufsize=", "failed to set -x bufsize: Invalid value for specified option"),
    ("bufsize=4q", "failed to set -x bufsize=4q: Invalid value for specified option"),
    ("bufsize=-1", "failed to set -x bufsize=-1: Invalid value for specified option"),
    ("bufsize=0", "failed to set -x bufsize=0: Invalid value for specified option"),
    ("switchrate=fast", "failed to set -x switchrate=fast: Invalid value"),
    ("strsize=0", "failed to set -x strsize=0: Invalid value"),
    # past what xdt.ko takes (XDT_STRSIZE_MAX): refused with the option's name
    ("strsize=65537", "failed to set -x strsize=65537: Invalid value"),
    ("nosuch=1", "failed to set -x nosuch: Invalid option name"),
])
def test_bad_options(dtrace, opt, msg):
    r = subprocess.run([dtrace, "-x", opt, "-e", "-n", "BEGIN"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert msg in r.stderr


@pytest.mark.parametrize("opt", ["bufsize=4m", "bufsize=512k", "bufsize=1g",
                                 "switchrate=10hz", "switchrate=50ms",
                                 "strsize=32,bufsize=8192", "strsize=64k"])
def test_good_options(dtrace, opt):
    r = subprocess.run([dtrace, "-x", opt, "-e", "-n", "BEGIN { trace(execname); }"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_strsize_changes_layout(dtrace):
    r = subprocess.run([dtrace, "-x", "strsize=32", "-S", "-e", "-n",
                        "BEGIN { trace(probefunc); trace(1); }"],
                       capture_output=True, text=True)
    assert "REC 1 int at 40" in r.stdout and "recsize 48" in r.stdout, r.stdout
    assert "(string) by ref (size 32)" in r.stdout


@pytest.mark.parametrize("strsize,slot", [(256, 16), (32, 16), (8, 8)])
def test_execname_takes_its_own_slot(dtrace, strsize, slot):
    """execname is a task's comm, 16 bytes with its NUL: recorded in a slot
    that size when strsize is larger (the record, and so the buffer, holds
    only what can be there), in strsize's when it is smaller."""
    r = subprocess.run([dtrace, "-x", f"strsize={strsize}", "-S", "-e", "-n",
                        "BEGIN { trace(execname); trace(1); }"],
                       capture_output=True, text=True)
    assert f"REC 1 int at {8 + slot}" in r.stdout, r.stdout
    assert f"recsize {16 + slot}" in r.stdout, r.stdout


def test_cmdline_error_names_cmdline(dtrace):
    r = subprocess.run([dtrace, "-e", "-n", "BEGIN { trace(1) trace(2); }"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == ('dtrace: failed to compile script <cmdline>:1:18: '
                        'syntax error near "trace"\n'
                        'BEGIN { trace(1) trace(2); }\n'
                        '                 ^\n')


def test_unreadable_library_file_is_an_error(dtrace, tmp_path):
    """A D library file that is there but cannot be read fails the compile
    with its name and the reason, instead of being skipped (its translators
    and inlines would then be reported missing, far from the cause: what
    the debug kernels' allocation-failure soak saw); a library directory
    that does not exist is no library, not an error."""
    (tmp_path / "broken.d").mkdir()   # read(2) fails: EISDIR
    r = subprocess.run([dtrace, "-e", "-L", str(tmp_path), "-n",
                        "BEGIN { trace(nosuch); }"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.startswith(f"dtrace: failed to compile script "
                               f"{tmp_path}/broken.d: cannot read D library "
                               f"file: Is a directory\n"), r.stderr
    r = subprocess.run([dtrace, "-e", "-L", str(tmp_path / "none"), "-n",
                        "BEGIN { trace(nosuch); }"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "Unknown variable name" in r.stderr, r.stderr


# printf()'s compile-time checks: DTrace's tag (-x errtags) and message.
PRINTF_ERRORS = [
    ('printf()', "D_PROTO_LEN", "printf( ) prototype mismatch: 0 args passed, at least 1 expected"),
    ('printf(execname)', "D_PRINTF_ARG_FMT",
     "printf( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n"
     "\t argument: string"),
    ('printf("")', "D_PRINTF_FMT_EMPTY", "printf( ) format string is empty"),
    ('printf("%s")', "D_PRINTF_ARG_PROTO",
     "printf( ) prototype mismatch: conversion #1 (%s) is missing a corresponding value argument"),
    ('printf("%d %d", 1, 2, 3)', "D_PRINTF_ARG_EXTRA",
     "printf( ) prototype mismatch: only 2 arguments required by this format string"),
    ('printf("%d", "x")', "D_PRINTF_ARG_TYPE",
     "printf( ) argument #2 is incompatible with conversion #1 prototype:\n\tconversion: %d\n"
     "\t prototype: char, short, int, long, or long long\n\t  argument: string"),
    ('printf("%s", (char *)0)', "D_PRINTF_ARG_TYPE", "argument: char *"),
    ('printf("%x", (char *)0)', "D_PRINTF_ARG_TYPE", "conversion: %x"),
    ('printf("%f", 1)', "D_PRINTF_ARG_TYPE", "prototype: float, double, or long double"),
    ('printf("%c", 1LL)', "D_PRINTF_ARG_TYPE", "prototype: char, short, or int"),
    ('printf("%hd", 1)', "D_PRINTF_ARG_TYPE", "prototype: short\n"),
    ('printf("%hu", (short)1)', "D_PRINTF_ARG_TYPE", "prototype: unsigned short"),
    ('printf("%ld", 1)', "D_PRINTF_ARG_TYPE", "prototype: long\n"),
    ('printf("%lx", 1LL)', "D_PRINTF_ARG_TYPE", "conversion: %lx"),
    ('printf("%Lf", 1)', "D_PRINTF_ARG_TYPE", "prototype: long double"),
    ('printf("%Y", 1)', "D_PRINTF_ARG_TYPE", "prototype: int64_t"),
    ('printf("%k", 1)', "D_PRINTF_ARG_TYPE", "prototype: stack"),
    ('printf("%d", stack())', "D_PRINTF_ARG_TYPE", "argument: stack"),
    ('printf("%A", 0)', "D_PRINTF_ARG_TYPE",
     "pointer or integer (with -p/-c) or _usymaddr (without -p/-c)"),
    ('@a = count(); printf("%d", @a)', "D_PRINTF_ARG_TYPE", "argument: aggregation"),
    ('printf("%s", printf("x"))', "D_PRINTF_ARG_TYPE", "argument: void"),
    ('printf("%*d")', "D_PRINTF_DYN_PROTO",
     'printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding "*" argument'),
    ('printf("%.*d")', "D_PRINTF_DYN_PROTO", 'missing a corresponding ".*" argument'),
    ('printf("%*d", "w", 1)', "D_PRINTF_DYN_TYPE",
     "printf( ) argument #2 is incompatible with conversion #1 prototype:\n"
     "\tconversion: % * d\n\t prototype: int\n\t  argument: string"),
    ('printf("%.*s", "p", "s")', "D_PRINTF_DYN_TYPE", "conversion: % .* s"),
    ('printf("%@d", 1)', "D_PRINTF_AGG_CONV",
     "%@ conversion requires an aggregation and is not for use with printf( )"),
    ('printf("%3", 1)', "D_SYNTAX", "format conversion #1 name expected before end of format string"),
    ('printf("%hhd", 1)', "D_SYNTAX", "format conversion #1 is undefined: %hhd"),
    ('printf("%d %z", 1, 2)', "D_SYNTAX", "format conversion #2 is undefined: %z"),
    ('printf("%5%")', "D_SYNTAX", "format conversion #1 cannot be combined with other format flags: %%"),
    ('printf("%1$d", 1)', "D_SYNTAX", "format conversion #1 uses unsupported positional format (%n$)"),
    ('printf("%..d", 1)', "D_SYNTAX", "format conversion #1 has more than one '.' specified"),
    ('printf("%**d", 1, 2)', "D_SYNTAX", "has more than one '*' specified for the output width"),
]


@pytest.mark.parametrize("prog,tag,msg", PRINTF_ERRORS, ids=[p for p, _, _ in PRINTF_ERRORS])
def test_printf_errors(dtrace, prog, tag, msg):
    r = subprocess.run([dtrace, "-x", "errtags", "-e", "-n", "BEGIN { %s; }" % prog],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert f"[{tag}]" in r.stderr and msg in r.stderr, r.stderr


def test_dis_matches_isa(dtrace):
    """Every mnemonic -S prints is one of dif.h's DIF_OPS."""
    with open(os.path.join(TOP, "core", "uapi", "dif.h")) as f:
        mnems = set(re.findall(r'X\(\w+,\s*0x[0-9a-f]+,\s*DIF_F_\w+,\s*"(\w+)",', f.read()))
    assert len(mnems) > 30
    for src in glob.glob(os.path.join(TESTS, "tst.*.d")):
        r = subprocess.run([dtrace, "-S", "-e", "-s", src] + _args(src),
                           capture_output=True, text=True)
        for line in r.stdout.splitlines():
            m = re.match(r"\d\d: ([0-9a-f]{8})    (\w+)", line)
            if m:
                assert m.group(2) in mnems, line
                assert int(m.group(1), 16) >> 24 < 0x26, line


@pytest.fixture(scope="module")
def libxdt_driver(tmp_path_factory):
    """libxdt/tests/test_libxdt.c, built against libxdt.a: it links the
    compiler's sources as any libxdt user would, libxdt.h alone."""
    lib = _build("host-libxdt", "libxdt.a")
    return _cc_driver(str(tmp_path_factory.mktemp("libxdt") / "test_libxdt"),
                      "test_libxdt.c", lib)


def _cc_driver(exe, src, lib, *flags):
    """libxdt/tests/@src built against @lib as any libxdt user would."""
    r = subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", *flags,
                        "-I" + os.path.join(TOP, "core", "uapi"),
                        "-I" + os.path.join(TOP, "libxdt"), "-o", exe,
                        os.path.join(TOP, "libxdt", "tests", src), lib],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return exe


def test_libxdt_errors_are_values(libxdt_driver):
    """libxdt: a compile error comes back as a value (file, line, column,
    tag, message, source line) and the handle compiles again after it; a
    bad option is an error value too; on the host VM, the aggregations
    come back raw (xdt_aggwalk) and decoded in DTrace's order
    (xdt_aggsnapshot); the buffer read interval follows the buffers' fill
    (dt_drain_next)."""
    exe = libxdt_driver
    r = subprocess.run([exe], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        'bad: -1 D_SYNTAX bad.d:3:9: syntax error near ";" | \tx = 1 +;',
        'undef: -1 D_IDENT_UNDEF 1:15 failed to resolve nosuch: Unknown variable name',
        "pragma: -1 D_PRAGMA_OPTSET 1 failed to set option 'nosuchopt': Invalid option name",
        'setopt: -1 failed to set -x bufsize=0: Invalid value for specified option',
        'setopt ok: 0',
        'good: 0',
        'second: 0',
        'program: 2 clauses',
        'raw: @a x 1 1',
        'raw: @a y 1 2',
        'raw: @b  1 5',
        'entry: @a count 1 x 1',
        'entry: @a count 1 y 2',
        'entry: @b sum 0 - 5',
        # the read interval in ms under load (dt_drain_next): the first
        # at 100, doubling while light, a quarter per half-full read, 10
        # at the floor however it drops, kept between 1/8 and 1/2 full,
        # doubling back to the switchrate (1 s) when quiet
        'drain: 100 200 50 12 10 10 10 10 20 40 80 160 320 640 1000 1000'
        ' | 5 5',
        'done',
    ], r.stdout


def _mem_driver(tmp_path, lib, *flags):
    return _cc_driver(str(tmp_path / "test_libxdt_mem"), "test_libxdt_mem.c",
                      lib, *flags)


def test_libxdt_memory_stays_flat(tmp_path):
    """A long-lived libxdt user compiles and discards program after
    program: the heap must not grow (it grew ~27 KB a program, every
    handle's trees and base types kept until exit).  The kernel's types,
    cached for the whole process, must not take a handle's declarations
    (a script's `struct task_struct` was another handle's kernel
    task_struct, after), nor outlive what they point at."""
    from test_btf import vmlinux
    exe = _mem_driver(tmp_path, _build("host-libxdt", "libxdt.a"))
    vml = vmlinux("x86_64")
    for args, n in ((["plain"], 2000),
                    (["kernel"], 400)):
        extra = [vml, os.path.join(TOP, "dlib")] if args[0] == "kernel" else []
        # glibc's mallinfo2 counts the chunks its per-thread cache holds
        # as in use: without the cache, what is in use is exact
        env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
        r = subprocess.run([exe, *args, str(n), *extra], capture_output=True,
                           text=True, timeout=300, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        m = re.search(r"grew (-?\d+) bytes", r.stdout)
        # the caches are warm by the second half: nothing more is kept
        assert m and int(m.group(1)) <= 0, r.stdout


def test_libxdt_zones_under_sanitizers(tmp_path):
    """The same loops under ASan and UBSan (make host-san's libxdt.a): a
    closed handle's zone freed while the process's caches or another
    handle still pointed into it is a use after free here."""
    r = subprocess.run(["make", "-s", "-C", TOP, "host-san"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    from test_btf import vmlinux
    exe = _mem_driver(tmp_path, os.path.join(xdtvm.CACHE, "build", "host-san", "libxdt.a"),
                      "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g")
    for args in (["plain", "50"],
                 ["kernel", "40", vmlinux("x86_64"), os.path.join(TOP, "dlib")]):
        r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "Sanitizer" not in r.stderr, r.stdout + r.stderr


def test_libxdt_out_of_memory_is_an_error_value(libxdt_driver, tmp_path):
    """Every allocation the library makes, failed in turn (fail-nth for
    user space: tests/host/progs/failnth.c, preloaded), in the driver of
    the test above (compile errors, options, a host VM run, both
    aggregation walks): each run ends normally and reaches its last line
    -- the failure came back from a call as an error value, never an
    exit(), a crash or a hang -- and the run whose failure hit nothing
    prints what the normal run prints.  (This found a parser table whose
    size was counted before its allocation, the NULL pointer the aarch64
    soak's failslab stage met in lex_probedesc.)"""
    so = str(tmp_path / "failnth.so")
    r = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared",
                        "-fPIC", "-o", so,
                        os.path.join(TOP, "tests", "host", "progs",
                                     "failnth.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

    def run(n):
        env = dict(os.environ, LD_PRELOAD=so, XDT_FAILNTH=str(n))
        return subprocess.run([libxdt_driver], capture_output=True,
                              text=True, env=env, timeout=60)

    normal = run(0)
    assert normal.returncode == 0, normal
    m = re.search(r"failnth: (\d+) allocations", normal.stderr)
    total = int(m.group(1))
    assert total > 100, normal.stderr  # the driver's own work, and more
    bad, errors = [], 0
    for n in range(1, total + 1):
        r = run(n)
        lines = r.stdout.splitlines()
        if r.returncode != 0 or not lines or lines[-1] != "done":
            bad.append(f"allocation {n}: status {r.returncode}, last "
                       f"lines {lines[-3:]}, stderr {r.stderr[-300:]!r}")
        elif r.stdout != normal.stdout:
            errors += 1
    assert not bad, f"{len(bad)} of {total} failed allocations:\n" + \
        "\n".join(bad[:20])
    # most failures show: an error value somewhere in the output
    assert errors > total // 4, (errors, total)
    # one past the last: nothing failed, the normal output
    assert run(total + 1).stdout == normal.stdout


def test_iregs(dtrace):
    """-x iregs (DTrace's dtc_difintregs): the registers the code generator
    may hand out, 8 by default as in the kernel's DIF.  Fewer make a
    smaller expression D_NOREG; more let the compiler emit DIF with
    registers past the kernel's, which its verifier refuses at enabling
    (the host VM runs the same verifier), as DTrace's kernel does
    (illumos cg/err.baddif.d)."""
    deep = ("BEGIN { trace(arg1 + (arg2 + (arg3 + (arg4 + (arg5 + "
            "(arg6 + (arg7 + arg8))))))); }")
    small = "BEGIN { trace(arg1 + (arg2 + (arg3 + arg4))); }"

    def run(*args):
        return subprocess.run([dtrace, "-x", "errtags", *args],
                              capture_output=True, text=True)
    r = run("-e", "-n", deep)
    assert r.returncode == 1 and "[D_NOREG]" in r.stderr, r.stderr
    r = run("-x", "iregs=9", "-e", "-n", deep)
    assert r.returncode == 0, r.stderr
    r = run("-x", "iregs=9", "-x", "hostvm", "-n", deep)
    assert r.returncode == 1 and re.search(
        r"failed to enable.*(register out of range|bad destination register)",
        r.stderr), r.stderr
    r = run("-x", "iregs=4", "-e", "-n", small)
    assert r.returncode == 1 and "[D_NOREG]" in r.stderr, r.stderr
    r = run("-x", "iregs=5", "-x", "hostvm", "-q", "-n",
            small.replace("}", "exit(0); }"))
    assert r.returncode == 0, r.stderr


def test_cpp_options_are_dtrace_flags(dtrace, tmp_path):
    """-x cpp, define, undef and incdir are DTrace's options behind -C, -D,
    -U and -I (its dtrace.c sets them): the preprocessor gets them after
    the command line's own."""
    d = tmp_path / "def.d"
    d.write_text('#include "bar.h"\n#ifdef FOO\n'
                 'BEGIN { printf("%d %d\\n", FOO, BAR); exit(0); }\n#else\n'
                 'BEGIN { printf("nofoo %d\\n", BAR); exit(0); }\n#endif\n')
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "bar.h").write_text("inline int BAR = 42;\n")
    inc = f"incdir={tmp_path / 'inc'}"

    def run(*args):
        r = subprocess.run([dtrace, "-x", "hostvm", "-q", *args, "-s", str(d)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()
    assert run("-x", "cpp", "-x", "define=FOO=7", "-x", inc) == "7 42"
    assert run("-C", "-x", inc) == "nofoo 42"
    assert run("-C", "-I", str(tmp_path / "inc"), "-D", "FOO=3",
               "-x", "undef=FOO") == "nofoo 42"


def test_data_model_flags(dtrace):
    """-64 is DTrace's flag for LP64 D programs, which is all xdt makes;
    -32 is refused with the reason, not taken for something else."""
    r = subprocess.run([dtrace, "-64", "-x", "hostvm", "-q", "-n",
                        'BEGIN { printf("%d\\n", sizeof (long)); exit(0); }'],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "8", r
    r = subprocess.run([dtrace, "-32", "-n", "BEGIN"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "ILP32 data model is not supported" in r.stderr


# Stability attributes (compiler/attr.c): compiler/tests/attr/NAME.d is run
# as `dtrace -e -v FLAGS -s NAME.d`, FLAGS from its `/* flags: */` line;
# tst.* print dtrace -v's report (NAME.d.out, exit 0), err.* fail to
# compile (NAME.d.err, exit 1).
ATTR = sorted(glob.glob(os.path.join(TESTS, "attr", "*.d")))


def _flags(path):
    with open(path) as f:
        m = re.search(r"/\* flags: (.*?) \*/", f.read())
    return m.group(1).split() if m else []


@pytest.mark.parametrize("src", ATTR, ids=os.path.basename)
def test_attributes(dtrace, src):
    err = os.path.basename(src).startswith("err.")
    r = subprocess.run([dtrace, "-e", "-v"] + _flags(src) + ["-s", _rel(src)],
                       capture_output=True, text=True, cwd=TOP)
    if err:
        assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
        _check(r.stderr, src + ".err")
    else:
        assert r.returncode == 0 and r.stderr == "", r.stderr
        _check(r.stdout, src + ".out")
