"""The D library's translators (dlib/) against each lab kernel's BTF, on
the host: the library compiles against every kernel; stable probes' args[]
are typed (an unknown member is an error naming it at line:column);
without the library the error says which type is missing.  The stable
providers themselves are tested in the guests (tests/guest/test_stable.py).
"""
import os
import subprocess

import pytest

import xdtvm
from test_btf import vmlinux
from test_compiler import dtrace  # noqa: F401 (fixture)

DLIB = os.path.join(xdtvm.TOP, "dlib")

EVERY_TRANSLATOR = (
    'proc:::create { trace(args[0]->pr_psargs); trace(args[0]->pr_pgid); } '
    'proc:::signal-send { trace(args[0]->pr_sname); trace(args[1]->pr_ttydev); '
    'trace(args[2]); } '
    'sched:::enqueue { trace(args[2]->cpu_id); trace(curcpu->cpu_chip); '
    'trace(args[0]->pr_clname); } '
    'io:::start { trace(args[0]->b_flags & B_READ); trace(args[1]->dev_name); '
    'trace(args[1]->dev_pathname); trace(args[2]->fi_pathname); } '
    'fbt::vfs_read:entry { trace(xlate<fileinfo_t *>(args[0])->fi_pathname); '
    'trace(xlate<fileinfo_t *>(args[0])->fi_fs); } '
    'proc:::exec { trace(args[0]); } proc:::exec-failure { trace(args[0]); }')


def compile_lib(dtrace, isa, prog, *extra):  # noqa: F811
    return subprocess.run([dtrace, "-x", f"vmlinux={vmlinux(isa)}", "-L", DLIB,
                           *extra, "-e", "-n", prog],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_library_compiles_against_each_kernel(dtrace, isa):  # noqa: F811
    """Every translator member reads a member each ISA's kernel has."""
    r = compile_lib(dtrace, isa, EVERY_TRANSLATOR)
    assert r.returncode == 0, r.stderr
    r = compile_lib(dtrace, isa, "BEGIN { trace(curpsinfo->pr_pid); "
                    "trace(curlwpsinfo->pr_state == SONPROC); }")
    assert r.returncode == 0, r.stderr


@pytest.mark.host
def test_stable_args_errors(dtrace):  # noqa: F811
    isa = "x86_64"
    r = compile_lib(dtrace, isa, "proc:::create\n{\n\ttrace(args[0]->pr_nope);\n}")
    assert r.returncode == 1, r.stderr
    assert ":3:15: pr_nope is not a member of struct psinfo" in r.stderr, r.stderr
    r = compile_lib(dtrace, isa, "proc:::create { trace(args[1]); }", "-x", "errtags")
    assert r.returncode == 1 and "[D_ARGS_IDX]" in r.stderr, r.stderr
    # without the library: the translated type is named as missing
    r = compile_lib(dtrace, isa, "io:::start { trace(args[0]->b_bcount); }",
                    "-x", "nolibs")
    assert r.returncode == 1 and "no type bufinfo_t *" in r.stderr, r.stderr
    # a glob leaves args[] untyped, as for fbt
    r = compile_lib(dtrace, isa, "sched:::*-cpu { trace(args[0]->pr_lwpid); }")
    assert r.returncode == 1 and "must be applied to a pointer" in r.stderr, r.stderr


@pytest.mark.host
def test_first_attempts_declarations_are_dropped(dtrace):  # noqa: F811
    """The program is compiled again once the library is loaded: what the
    first attempt declared must not be "redeclared" the second time."""
    r = compile_lib(dtrace, "x86_64", "struct s { int a; }; typedef int myint_t; "
                    "enum e { ONE = 1 }; BEGIN { trace(curpsinfo->pr_pid + ONE); }")
    assert r.returncode == 0, r.stderr


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_fileinfo_of_null_reads_nothing(dtrace, isa):  # noqa: F811
    """fileinfo_t of a NULL struct file * is DTrace's: "<none>" names,
    offset and flags 0, read from nothing -- in the host VM, where a load
    through NULL would fault -- whether the pointer is a variable or the
    constant NULL, member by member or whole."""
    prog = ('BEGIN { f = (struct file *)0; '
            'printf("%s %s %s %s %s %d %d\\n", xlate<fileinfo_t *>(f)->fi_name, '
            'xlate<fileinfo_t *>(f)->fi_dirname, xlate<fileinfo_t>(f).fi_pathname, '
            'xlate<fileinfo_t *>(NULL)->fi_fs, xlate<fileinfo_t *>(f)->fi_mount, '
            'xlate<fileinfo_t *>(f)->fi_offset, xlate<fileinfo_t *>(f)->fi_oflags); '
            'this->fi = xlate<fileinfo_t *>(f); '
            'printf("%s %d\\n", this->fi->fi_pathname, this->fi->fi_offset); }')
    r = subprocess.run([dtrace, "-x", "hostvm", "-x", f"vmlinux={vmlinux(isa)}",
                        "-L", DLIB, "-q", "-n", prog],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert r.stdout == ("<none> <none> <none> <none> <none> 0 0\n"
                        "<none> 0\n\n"), r.stdout
