"""Rows of docs/d-language.md's "The D reference, row by row" that are
small enough to test together, on the host (the host VM runs what needs
running; no guest):
  - built-in variables and D library names (gid, chip, lgrp, pset,
    zonename, DTRACEFLT_LIBRARY);
  - character and string constants (escapes, multi-character constants);
  - -x option values (time and size suffixes, as DTrace's dt_options.c);
  - compile errors with DTrace's tag (-x errtags) and message, one row of
    ERRORS each: the program, the tag, a piece of the message.
"""
import os
import re
import subprocess

import pytest

import xdtvm
from test_btf import vmlinux
from test_compiler import dtrace  # noqa: F401 (fixture)

pytestmark = pytest.mark.host

DLIB = os.path.join(xdtvm.TOP, "dlib")


def _run(dtrace, prog, *extra):  # noqa: F811
    return subprocess.run([dtrace, "-x", "hostvm", "-q", *extra, "-n", prog],
                          capture_output=True, text=True, timeout=60)


def test_gid_is_the_real_gid(dtrace):  # noqa: F811
    r = _run(dtrace, 'BEGIN { printf("%d %d\\n", uid, gid); exit(0); }')
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(os.getuid()), str(os.getgid())]


def test_cpu_inlines_and_zonename(dtrace):  # noqa: F811
    """sched.d's pset/chip/lgrp are curcpu's members, as DTrace's; Linux
    has no zones: zonename is "global"."""
    r = _run(dtrace, 'BEGIN { printf("%d %d %d %d %s %d\\n", pset, chip, lgrp, '
             'pset == curcpu->cpu_pset, zonename, DTRACEFLT_LIBRARY); exit(0); }',
             "-x", f"vmlinux={vmlinux('x86_64')}", "-L", DLIB)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["-1", "0", "0", "1", "global", "1000"]


def test_escapes_and_character_constants(dtrace):  # noqa: F811
    """C's escapes in strings and character constants, \\x taking every
    hex digit (low byte kept) and an escape C does not have keeping its
    backslash, as DTrace's stresc2chr(); a character constant is an int
    of its bytes, the first the most significant."""
    prog = r'''BEGIN {
        printf("%d %d %d %d %d %d %d %d\n", '\a', '\b', '\f', '\n', '\r', '\t', '\v', '\0');
        printf("%d %d %d %d %d %d %d\n", '\\', '\'', '\"', '\?', '\101', '\x41', '\x141');
        printf("%x %x %x %d\n", 'ab', 'abcdefgh', '\377', sizeof ('ab'));
        printf("[%s] [%s] [%s]\n", "\x41\x42c\x41-", "a\?\'\"\\", "\q");
        exit(0);
    }'''
    r = _run(dtrace, prog)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:4] == [
        "7 8 12 10 13 9 11 0", "92 39 34 63 65 65 65",
        "6162 6162636465666768 ff 4", "[A,A-] [a?'\"\\] [\\q]"], r.stdout



# -x values as DTrace's dt_options.c reads them: integers (base 0) with
# an optional suffix, either case; rates in time units or hz (a number
# alone is nanoseconds), sizes k m g t
GOOD_VALUES = ["switchrate=10ns", "switchrate=10nsec", "switchrate=5us",
               "switchrate=5usec", "switchrate=50ms", "switchrate=50MSEC",
               "switchrate=1s", "switchrate=1sec", "switchrate=1m",
               "switchrate=1min", "switchrate=1h", "switchrate=1hour",
               "switchrate=1d", "switchrate=1day", "switchrate=10hz",
               "switchrate=10Hz", "switchrate=1000", "switchrate=0x10ms",
               "aggrate=2min", "statusrate=1hour", "cleanrate=3000hz",
               "bufsize=4k", "bufsize=4K", "bufsize=2m", "bufsize=1g",
               "bufsize=0x1000", "aggsize=1M", "strsize=64"]
BAD_VALUES = ["switchrate=1.5s", "switchrate=.5s", "switchrate=1e3",
              "switchrate=10 ms", "switchrate=1week", "switchrate=-1s",
              "switchrate=0", "bufsize=1.5m", "bufsize=4kb", "bufsize=k",
              "bufsize=-4k"]


@pytest.mark.parametrize("opt", GOOD_VALUES)
def test_option_values_taken(dtrace, opt):  # noqa: F811
    r = subprocess.run([dtrace, "-x", opt, "-e", "-n", "BEGIN"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_cleanrate_is_held_to_the_kernels_range(dtrace):  # noqa: F811
    """A number alone is nanoseconds now: cleanrate=101 asks for 10^7 Hz,
    which is held to the kernel's most (as DTrace holds it), not refused."""
    for opt in ("cleanrate=101", "cleanrate=1day"):
        r = _run(dtrace, "BEGIN { self->a[1] = 1; exit(0); }", "-x", opt)
        assert r.returncode == 0, (opt, r.stderr)


@pytest.mark.parametrize("opt", BAD_VALUES)
def test_option_values_refused(dtrace, opt):  # noqa: F811
    r = subprocess.run([dtrace, "-x", opt, "-e", "-n", "BEGIN"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert f"failed to set -x {opt}: Invalid value" in r.stderr, r.stderr

# (program, DTrace's tag, a piece of its message): -x errtags -e -s
ERRORS = [
    ("BEGIN { x = ''; }", "D_CHR_NULL", "1:13: empty character constant"),
    ("BEGIN { x = 'abcdefghi'; }", "D_CHR_OFLOW", "1:13: character constant is too long"),
    ("BEGIN { x = 'a\n'; }", "D_CHR_NL", "newline encountered in character constant"),
    ("struct s { int a; } v; BEGIN { x = (int)v; }", "D_CAST_INVAL",
     'invalid cast expression: "struct s" to "int"'),
    ("register int r;", "D_DECL_BADCLASS", "specified storage class not appropriate in D"),
    ("static int r;", "D_DECL_BADCLASS", "specified storage class not appropriate in D"),
    ("struct s { int a; } v; BEGIN /v/ { }", "D_PRED_SCALAR",
     "1:31: predicate result must be of scalar type"),
    ("BEGIN { printa(@a); }", "D_PRINTA_AGGBAD", "1:16: undefined aggregation: @a"),
    ("BEGIN { clear(@a); }", "D_CLEAR_AGGBAD", "undefined aggregation: @a"),
    ("BEGIN { normalize(@a, 2); }", "D_NORMALIZE_AGGBAD", "undefined aggregation: @a"),
    ("BEGIN { denormalize(@a); }", "D_NORMALIZE_AGGBAD", "undefined aggregation: @a"),
    ("BEGIN { trunc(@a); }", "D_TRUNC_AGGBAD", "undefined aggregation: @a"),
    ("struct s { int x : 33; };", "D_DECL_BFSIZE", "1:20: bit-field too big for type: x"),
    ("struct s { int x : 0; };", "D_DECL_BFCONST",
     "positive integral constant expression expected as bit-field size"),
    ("BEGIN { tracemem(1, 2, 3, 4); }", "D_TRACEMEM_ARGS",
     "1:24: tracemem ( ) prototype mismatch: expected at most 3 args"),
    ("short char c;", "D_DECL_CHARATTR",
     "invalid type declaration: short and long may not be used with char type"),
    ("long char c;", "D_DECL_CHARATTR", "short and long may not be used with char type"),
    ("struct s { int; };", "D_DECL_MNAME", "1:15: member declaration requires a name"),
    ("BEGIN { @a = 1; }", "D_AGG_FUNC",
     "1:9: @a must be assigned the result of an aggregating function"),
    ('BEGIN { @a = strlen("x"); }', "D_AGG_FUNC",
     "@a must be assigned the result of an aggregating function"),
    ("BEGIN { @a[1][2] = count(); }", "D_AGG_MDIM",
     "improper attempt to reference @a as a multi-dimensional array"),
    ("BEGIN { trace(@a); }", "D_TRACE_AGG", "1:15: trace( ) may not be applied to an aggregation"),
    ("BEGIN { print(@a); }", "D_PRINT_AGG",
     "print( ) may not be applied to an aggregation -- did you mean printa()?"),
    ("struct in { int a; }; struct out { int x; int y; };\n"
     "translator struct out < struct in *p > { x = p->a; };\n"
     "BEGIN { trace(xlate<struct out *>((struct in *)0)->y); }", "D_XLATE_NOCONV",
     "3:50: translator does not define conversion for member: y"),
    ('#pragma D error "not on" this', "D_PRAGERR", "1:1: #error: not on this"),
    ('BEGIN { }\n#pragma error "no"', "D_PRAGERR", "2:1: #error: no"),
    ('BEGIN { }\n#error "no"', "D_PRAGERR", "2:1: #error: no"),
    ("BEGIN { trace(args[0]); }", "D_ARGS_IDX", "1:20: index 0 is out of range for BEGIN args[ ]"),
    ("dtrace:::END { trace(args[1]); }", "D_ARGS_IDX", "index 1 is out of range"),
    ("inline int x = args[0];", "D_ARGS_NONE",
     "1:20: args[ ] may not be referenced outside of a probe clause"),
    ("BEGIN { trace(uregs[-1]); }", "D_REGS_IDX", "1:21: index -1 is out of range for array uregs"),
    ('BEGIN { freopen("."); }', "D_FREOPEN_INVALID", '1:9: freopen( ) argument #1 cannot be "."'),
    ("#pragma D depends_on provider nosuch\nBEGIN { }", "D_PRAGMA_DEPEND",
     "1:1: program requires provider nosuch"),
    ("#pragma D depends_on library net.d\nBEGIN { }", "D_PRAGMA_DEPEND",
     "main program may not explicitly depend on a library"),
    ("int D`x;", "D_DECL_SCOPE", "1:5: D scoping operator may not be used in a declaration name (D`x)"),
    ("struct s { int D`a; };", "D_DECL_SCOPE",
     "1:16: D scoping operator may not be used in a member name (D`a)"),
    ("int f(void x);", "D_DECL_PROTO_NAME", "1:12: void parameter may not have a name: x"),
    ("int f(static int);", "D_DECL_PARMCLASS",
     "1:7: inappropriate storage class for function or associative array parameter"),
    ("provider p { probe q(int, ...); };", "D_DECL_PROTO_VARARGS",
     "1:27: probe input prototype may not use a variable-length argument list"),
    ("BEGIN { a[1] = 1; x = 1 ? a : 0; }", "D_OP_DYN",
     "1:25: operator ?: operands cannot be of dynamic type"),
    ("BEGIN { trace(args); }", "D_CG_DYN", "1:15: expression cannot evaluate to result of dynamic type"),
    ("BEGIN { a[1] = 1; print(a); }", "D_CG_DYN", "expression cannot evaluate to result of dynamic type"),
    ("struct in { int a; }; struct out { int x; };\n"
     "translator struct out < struct in *p > { x = p->a; };\n"
     "BEGIN { trace(xlate<struct out *>((struct in *)0)); }", "D_TRACE_DYN",
     "3:15: trace( ) may not be applied to a translated pointer"),
    ("struct in { int a; }; struct out { int x; };\n"
     "translator struct out < struct in *p > { x = p->a; };\n"
     "inline struct out *o = xlate<struct out *>((struct in *)0);\n"
     "BEGIN { print(o); }", "D_PRINT_DYN", "4:15: print( ) may not be applied to a translated pointer"),
    ("BEGIN { (1)(2); }", "D_FUNC_IDENT", "1:10: function designator is not of function type"),
    ("BEGIN { trace($1); }", "D_MACRO_UNUSED", "extraneous argument 'b' ($2 is not referenced)",
     ["1", "b"]),
    ("struct rw_semaphore { long count; };\n"
     "BEGIN { trace(mutex_owned((struct rw_semaphore *)0)); }", "D_PROTO_ARG",
     "2:27: mutex_owned( ) argument #1 is incompatible with prototype: "
     "struct mutex * expected, struct rw_semaphore * given"),
    ("struct mutex { long owner; };\n"
     "BEGIN { trace(rw_iswriter((struct mutex *)0)); }", "D_PROTO_ARG",
     "rw_iswriter( ) argument #1 is incompatible with prototype: "
     "struct rw_semaphore * expected, struct mutex * given"),
    ("struct path { int a; }; struct file { int b; };\n"
     "BEGIN { trace(d_path((struct file *)0)); }", "D_PROTO_ARG",
     "d_path( ) argument #1 is incompatible with prototype: "
     "struct path * expected, struct file * given"),
    ('BEGIN { trace(rw_read_held("lock")); }', "D_PROTO_ARG",
     "rw_read_held( ) argument #1 is incompatible with prototype: integer expected"),
    ("BEGIN { trace(mutex_type_spin()); }", "D_PROTO_LEN",
     "1:15: mutex_type_spin( ) prototype mismatch: 0 args passed, 1 expected"),
    ("syscall::$3:entry { }", "D_PDESC_INVAL",
     '1:1: invalid probe description "syscall::$3:entry": '
     "Undefined macro variable in probe description", ["a", "b"]),
    ("BEGIN { }\nsyscall:$1:x$nosuch:entry { }", "D_PDESC_INVAL",
     'invalid probe description "syscall:$1:x$nosuch:entry": Undefined macro variable',
     ["a"]),
    ("pid$:::entry { }", "D_PDESC_INVAL", "Undefined macro variable in probe description"),
    ("pid$target:::entry { }", "D_MACRO_UNDEF", "1:1: $target is only valid with -c or -p"),
    ("BEGIN { trace($1); }", "D_MACRO_OFLOW",
     "macro argument $1 constant 99999999999999999999 results in integer overflow",
     ["99999999999999999999"]),
]


@pytest.mark.parametrize("row", ERRORS, ids=[r[1] for r in ERRORS])
def test_errtag(dtrace, tmp_path, row):  # noqa: F811
    """A row: the program, the tag, a piece of the message, and macro
    arguments ($1 ...) if the row has them."""
    prog, tag, msg = row[:3]
    args = row[3] if len(row) > 3 else []
    d = tmp_path / "e.d"
    d.write_text(prog + "\n")
    r = subprocess.run([dtrace, "-x", "errtags", "-e", "-s", str(d), *args],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert f"[{tag}]" in r.stderr and msg in r.stderr, r.stderr


def test_macro_variables_in_descriptions(dtrace):  # noqa: F811
    """$pid $ppid $uid $gid $euid $egid $pgid $sid $projid $taskid in a
    probe description are pasted as decimal text, each the whole rest of
    its field; a $N used only in a description counts as referenced."""
    prog = ("pid$pid:a$ppid:b$uid:c$gid, d$euid:e$egid:f$pgid:g$sid, "
            "h$projid::$$taskid:, syscall::$1:entry { }")
    p = subprocess.Popen([dtrace, "-S", "-e", "-n", prog, "read"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    descs = re.findall(r"^CLAUSE \d+ (\S+) ", out, re.M)
    me = os.getpid()
    assert descs == [
        f"pid{p.pid}:a{me}:b{os.getuid()}:c{os.getgid()}",
        f"d{os.geteuid()}:e{os.getegid()}:f{os.getpgid(0)}:g{os.getsid(0)}",
        "h0::0:", "syscall::read:entry"], out


def test_defaultargs_is_for_expressions_only(dtrace):  # noqa: F811
    """-x defaultargs gives an unset $N 0 or "" in an expression; DTrace's
    descriptions take the arguments given only, so one there is still
    undefined (D_PDESC_INVAL)."""
    r = subprocess.run([dtrace, "-x", "defaultargs", "-e", "-n",
                        "BEGIN { trace($1); trace($$2); }"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([dtrace, "-x", "defaultargs", "-x", "errtags", "-e", "-n",
                        "syscall::$1:entry { }"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "[D_PDESC_INVAL]" in r.stderr and "Undefined macro variable" in r.stderr, \
        r.stderr


def test_argref_lets_the_last_argument_go_unreferenced(dtrace):  # noqa: F811
    """-x argref is DTrace's way past D_MACRO_UNUSED; the D library's
    files, which reference no $N, are compiled as if under it."""
    prog = "BEGIN { trace($1); }"
    r = subprocess.run([dtrace, "-x", "argref", "-e", "-n", prog, "1", "2"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([dtrace, "-L", DLIB, "-x", f"vmlinux={vmlinux('x86_64')}",
                        "-e", "-n", "BEGIN { trace(curpsinfo->pr_pid + $1); }", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_depends_on(dtrace, tmp_path):  # noqa: F811
    """depends_on provider finds xdt's providers and the program's own;
    depends_on library, in a D library file, a file of its directory."""
    for prog in ("#pragma D depends_on provider syscall\nBEGIN { exit(0); }",
                 "provider p { probe q(); };\n#pragma D depends_on provider p\n"
                 "BEGIN { exit(0); }"):
        r = subprocess.run([dtrace, "-e", "-n", prog], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.d").write_text("#pragma D depends_on library b.d\ninline int A = B + 1;\n")
    (lib / "b.d").write_text("inline int B = 1;\n")
    r = subprocess.run([dtrace, "-x", "hostvm", "-q", "-L", str(lib), "-n",
                        'BEGIN { printf("%d\\n", A); exit(0); }'],
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout.strip()) == (0, "2"), r.stderr
    (lib / "b.d").unlink()
    (lib / "c.d").write_text("inline int B = 1;\n")
    r = subprocess.run([dtrace, "-x", "errtags", "-e", "-L", str(lib), "-n",
                        "BEGIN { trace(A); }"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "[D_PRAGMA_DEPEND]" in r.stderr and "program requires library b.d" in r.stderr, r.stderr


def test_provider_names_are_the_modules(dtrace):  # noqa: F811
    """pragma.c's list of providers is the kernel module's."""
    def read(*p):
        with open(os.path.join(xdtvm.TOP, *p)) as f:
            return f.read()
    kernel = set(re.findall(r'\{ "(\w+)", xdt_\w+_init', read("providers", "providers.c")))
    kernel |= set(re.findall(r'\.name = "(\w+)" \}', read("providers", "stable.c")))
    kernel -= {"stable", "pid"}     # stable's three are its own; pid is per process
    table = re.search(r"xdt_providers\[\] = \{(.*?)\};", read("compiler", "pragma.c"), re.S)
    assert set(re.findall(r'"(\w+)"', table.group(1))) == kernel


def test_mutex_owner_is_a_task(dtrace):  # noqa: F811
    """mutex_owner() gives a struct task_struct * (the kernel's BTF): the
    owner word less its flag bits, dereferenced as the task it is."""
    r = _run(dtrace, "BEGIN { w = (uint64_t *)alloca(8); "
             "t = (struct task_struct *)alloca(sizeof (struct task_struct)); "
             "t->pid = 42; *w = (uint64_t)t | 5; "
             'printf("%d %d\\n", mutex_owner(w)->pid, mutex_owner(w) == t); exit(0); }',
             "-x", f"vmlinux={vmlinux('x86_64')}")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["42", "1"]
