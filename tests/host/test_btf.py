"""Kernel types from BTF (compiler/btf.c), on the host.

`dtrace -e -x vmlinux=...` against each lab kernel's vmlinux (its .BTF
section): kernel types by name, compile errors that name what is unknown
with line:column, D's own names winning over the kernel's.  The running
kernel's BTF is tested in the guests (tests/guest/test_btf_guest.py).
"""
import os
import re
import subprocess

import pytest

from conftest import missing

import xdtvm
from test_compiler import dtrace  # noqa: F401 (fixture)

TOP = xdtvm.TOP
CACHE = os.path.join(xdtvm.CACHE, "kernel")


def vmlinux(isa):
    path = os.path.join(CACHE, f"{isa}.current", "vmlinux")
    if not os.path.exists(path):
        missing(f"{isa} kernel ({path})")
    return path


def compile_e(dtrace, isa, prog, *extra):
    return subprocess.run([dtrace, "-x", f"vmlinux={vmlinux(isa)}", *extra,
                           "-e", "-n", prog], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_kernel_types_compile(dtrace, isa):  # noqa: F811
    """The guest tests' programs compile against each kernel's own BTF."""
    for name in ("tst.kernel_types.d", "tst.kernel_types_fault.d"):
        r = subprocess.run([dtrace, "-x", f"vmlinux={vmlinux(isa)}", "-e", "-s",
                            os.path.join(TOP, "tests", "guest", "d", name)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (name, r.stderr)


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_unknown_member_and_type_are_named(dtrace, isa):  # noqa: F811
    r = compile_e(dtrace, isa, "BEGIN {\n  trace(curthread->no_such_member);\n}")
    assert r.returncode == 1, r.stderr
    assert ":2:18: no_such_member is not a member of struct task_struct" in r.stderr, \
        r.stderr
    r = compile_e(dtrace, isa, "BEGIN { trace(((struct no_such_struct *)arg0)->x); }",
                  "-x", "errtags")
    assert r.returncode == 1 and "struct no_such_struct" in r.stderr, r.stderr
    assert re.search(r"line 1:\d+: ", r.stderr), r.stderr


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_d_names_win_over_the_kernels(dtrace, isa):  # noqa: F811
    """D's library types (struct in6_addr with illumos' _S6_un, pid_t) and a
    script's own struct keep their meaning when the kernel has the name."""
    r = compile_e(dtrace, isa, "struct file { int only; }; BEGIN { "
                  "trace(((struct in6_addr *)arg0)->_S6_un._S6_u8[0]); "
                  "trace(((struct file *)arg0)->only); trace(sizeof (pid_t)); }")
    assert r.returncode == 0, r.stderr


@pytest.mark.host
def test_no_kernel_types_when_asked(dtrace):  # noqa: F811
    """-x vmlinux=none: no kernel types at all (curthread is a void *)."""
    r = subprocess.run([dtrace, "-x", "vmlinux=none", "-e", "-n",
                        "BEGIN { trace(curthread->pid); }"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "non-struct/union" in r.stderr, r.stderr


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_fbt_args_typed_at_compile_time(dtrace, isa):  # noqa: F811
    """args[] of one fbt function takes its prototype's types (the -S
    listing shows none needed: compile success is the check); past the
    prototype is D_ARGS_IDX; a glob whose functions agree is typed, one
    whose functions differ refuses args[] (D_ARGS_MULTI, as DTrace)."""
    r = compile_e(dtrace, isa, "fbt::vfs_read:entry { "
                  "trace(stringof(args[0]->f_path.dentry->d_name.name)); "
                  "trace(args[2]); } fbt::vfs_read:return { trace(args[1] < 0); }")
    assert r.returncode == 0, r.stderr
    r = compile_e(dtrace, isa, "fbt::vfs_read:entry { trace(args[4]); }",
                  "-x", "errtags")
    assert r.returncode == 1 and "[D_ARGS_IDX]" in r.stderr, r.stderr
    assert "index 4 is out of range for fbt::vfs_read:entry args[ ]" in r.stderr
    r = compile_e(dtrace, isa, "fbt::vfs_rea?:entry { trace(args[0]->f_path.dentry); }")
    assert r.returncode == 0, r.stderr
    r = compile_e(dtrace, isa, "fbt::vfs_*:entry {\n\ttrace(args[0]);\n}",
                  "-x", "errtags")
    assert r.returncode == 1 and "[D_ARGS_MULTI] line 2:13: args[ ] may not be " \
        "referenced because probe description fbt::vfs_*:entry matches an " \
        "unstable set of probes" in r.stderr, r.stderr
    # a glob that never reads args[] costs no typing (and no error)
    r = compile_e(dtrace, isa, "fbt::vfs_*:entry { @ = count(); }")
    assert r.returncode == 0, r.stderr


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.HOST_ISAS)
def test_kernel_variables(dtrace, isa):  # noqa: F811
    """`name: typed from the build's vmlinux.vars, addressed from System.map;
    an unknown one is an error naming it at line:column."""
    if not os.path.exists(vmlinux(isa) + ".vars"):
        missing(f"{vmlinux(isa)}.vars")
    r = compile_e(dtrace, isa, "BEGIN { trace(`jiffies_64 + vmlinux`nr_cpu_ids); "
                  "trace(stringof(`init_task.comm)); trace(`init_uts_ns.name.release[0]); }")
    assert r.returncode == 0, r.stderr
    r = compile_e(dtrace, isa, "BEGIN {\n  trace(`no_such_variable);\n}")
    assert r.returncode == 1, r.stderr
    assert ":2:9: failed to resolve `no_such_variable: Unknown symbol name" in r.stderr, \
        r.stderr
    r = compile_e(dtrace, isa, "BEGIN { trace(ext2`x); }")
    assert r.returncode == 1 and "only vmlinux's variables" in r.stderr, r.stderr