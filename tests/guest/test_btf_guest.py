"""Kernel types from BTF in the guests (every ISA): the running kernel's
/sys/kernel/btf/vmlinux and a module's split BTF; print() of a kernel
struct by its type; fbt's args[] typed from the function's prototype.
tests/guest/d/tst.kernel_types*.d check values (curthread, member chains,
a fault through a bad pointer).  Compiling against each kernel's BTF is
tested on the host (tests/host/test_btf.py).
"""
import re

from test_xdt_kernel import xdt  # noqa: F401 (fixture)


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
