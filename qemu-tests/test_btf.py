"""Kernel types from BTF (compiler/btf.c).

Host: `dtrace -e -x vmlinux=...` against each lab kernel's vmlinux (its .BTF
section): kernel types by name, compile errors that name what is unknown
with line:column, D's own names winning over the kernel's.
Guests (every ISA): the running kernel's /sys/kernel/btf/vmlinux; print()
of a kernel struct by its type.  qemu-tests/d/tst.kernel_types*.d check
values (curthread, member chains, a fault through a bad pointer).
"""
import os
import re
import subprocess

import pytest

from conftest import missing

import xdtvm
from test_compiler import dtrace  # noqa: F401 (fixture)
from test_xdt_kernel import xdt  # noqa: F401 (fixture)

TOP = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
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
@pytest.mark.parametrize("isa", xdtvm.ISAS)
def test_kernel_types_compile(dtrace, isa):  # noqa: F811
    """The guest tests' programs compile against each kernel's own BTF."""
    for name in ("tst.kernel_types.d", "tst.kernel_types_fault.d"):
        r = subprocess.run([dtrace, "-x", f"vmlinux={vmlinux(isa)}", "-e", "-s",
                            os.path.join(TOP, "qemu-tests", "d", name)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (name, r.stderr)


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.ISAS)
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
@pytest.mark.parametrize("isa", xdtvm.ISAS)
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


def test_print_kernel_struct(xdt):  # noqa: F811
    """print() of a kernel struct prints its members by name, nested
    structs and all, from the running kernel's BTF."""
    r = xdt.run(["dtrace", "-qn", "BEGIN { print(*curthread); exit(0); }"],
                timeout=120)
    assert r.ok, r
    assert r.stdout.startswith("struct task_struct {"), r.stdout[:200]
    assert re.search(r"^    pid_t pid = 0x[0-9a-f]+$", r.stdout, re.M), r.stdout[:3000]
    assert re.search(r'^    char \[16\] comm = \[ "dtrace" \]$', r.stdout, re.M), \
        r.stdout[:3000]
    # a nested struct, printed in place
    assert re.search(r"^    struct list_head tasks = \{$", r.stdout, re.M), r.stdout[:3000]


def test_typed_fbt_args(xdt):  # noqa: F811
    """fbt args[] typed from the function's BTF prototype: vfs_read's
    args[0] is a struct file * whose dentry names the file, args[2] the
    count the program passed; the return probe's args[1] is the ssize_t
    returned (DTrace's fbt convention)."""
    r = xdt.run(["dtrace", "-qn",
                 'fbt::vfs_read:entry /execname == "dd"/ { '
                 '@e[stringof(args[0]->f_path.dentry->d_name.name), args[2]] = count(); } '
                 'fbt::vfs_read:return /execname == "dd"/ { @r[args[1]] = count(); }',
                 "-c", "dd if=/dev/zero of=/dev/null bs=123 count=3"], timeout=120)
    assert r.ok, r
    assert re.search(r"^  zero\s+123\s+3$", r.stdout, re.M), r.stdout
    assert re.search(r"^\s+123\s+3$", r.stdout, re.M), r.stdout


@pytest.mark.host
@pytest.mark.parametrize("isa", xdtvm.ISAS)
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
@pytest.mark.parametrize("isa", xdtvm.ISAS)
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


def test_module_types(xdt):  # noqa: F811
    """A loaded module's own types come from its split BTF
    (/sys/kernel/btf/xdt_hello: ids and strings continuing vmlinux's), and
    its functions' prototypes type fbt's args[]."""
    from test_dtrace_guest import load_hello
    load_hello(xdt)
    try:
        r = xdt.run(["dtrace", "-qn",
                     "BEGIN { printf(\"%d %d %d\\n\", "
                     "sizeof (struct trace_event_raw_xdt_hello_chain), "
                     "offsetof(struct trace_event_raw_xdt_hello_chain, result), "
                     "sizeof (((struct trace_event_raw_xdt_hello_chain *)0)->ent)); "
                     "exit(0); }"], timeout=60)
        assert r.ok, r
        size, off, ent = map(int, r.stdout.split())
        assert off == ent + 4 and size >= off + 4, r.stdout
        r = xdt.run(["dtrace", "-l", "-v", "-n", "fbt:xdt_hello:xdt_hello_c:entry"],
                    timeout=60)
        assert r.ok and "\t\targs[0]: int\n" in r.stdout, r
    finally:
        xdt.run("rmmod xdt_hello")
