"""Who may use /dev/xdt (docs/privileges.md), checked in
every guest as uid 1000 with exactly the capabilities each case names
(guest/xdt-runas.c): none may not open the device; CAP_PERFMON traces
(BEGIN, fbt, syscall, built-in variables, user memory, stack()) but a D
read of kernel memory is DTrace's "invalid kernel access" and -w is
refused; CAP_SYS_ADMIN reads kernel memory and may be destructive.  Root
(every other suite) keeps all of it.  dtrace's loading of xdt.ko by a
user who may not load modules fails with the reason, promptly.  The read
rule itself is also checked on the host
(tests/host/test_privileges_host.py)."""
import os
import re

import pytest

import xdtvm
from test_providers import sysc  # noqa: F401 (fixture)
from test_xdt_kernel import xdt  # noqa: F401 (fixture)

UID = "1000"
NOCAPS_MSG = ("dtrace: failed to open /dev/xdt: Operation not permitted "
              "(tracing needs CAP_PERFMON or CAP_SYS_ADMIN)")
W_MSG = ("dtrace: could not enable tracing: destructive actions (dtrace -w) "
         "need CAP_SYS_ADMIN; /dev/xdt was opened with CAP_PERFMON only")
KPRIV_RE = (r"dtrace: error on enabled probe ID \d+ \(ID \d+: "
            r"fbt:\w+:vfs_read:entry\): invalid kernel access in action #1"
            r" at DIF offset \d+\n")
CAPS_HEX = {"none": 0, "perfmon": 1 << 38, "sys_admin": 1 << 21,
            "bpf,syslog,dac_override": (1 << 39) | (1 << 34) | (1 << 1)}
# one read of /proc/version, by a process called wc, as uid 1000
WC = "wc -c /proc/version"
# fbt's first argument of vfs_read is a struct file *: kernel memory
READ_KERNEL = ("fbt::vfs_read:entry /pid == $target/ "
               "{ trace(stringof(args[0]->f_path.dentry->d_name.name)); }")


@pytest.fixture
def runas(xdt):
    """xdt-runas in the guest: the freshly built one if there is one (the
    initramfs carries it too, as of when it was made)."""
    out = os.path.join(xdtvm.build_dir(xdt.isa), "xdt-runas")
    if os.path.isfile(out):
        xdt.put(out, "/tmp/xdt-runas", mode="755")
        return "/tmp/xdt-runas"
    return "/usr/bin/xdt-runas"


def as_user(vm, runas, caps, *cmd, timeout=180):
    return vm.run([runas, UID, UID, caps, *cmd], timeout=timeout)


def dtrace_as(vm, runas, caps, *args, timeout=180):
    return as_user(vm, runas, caps, "dtrace", *args, timeout=timeout)


def test_runas_gives_exactly_the_capabilities(xdt, runas):
    """The harness itself: uid, gid, no groups, and the very capability
    sets asked for -- else the other tests would prove nothing."""
    for caps, mask in CAPS_HEX.items():
        r = as_user(xdt, runas, caps, "cat", "/proc/self/status")
        assert r.ok, (caps, r, r.stderr)
        st = dict(ln.split(":", 1) for ln in r.stdout.splitlines()
                  if ":" in ln)
        assert st["Uid"].split() == [UID] * 4, st["Uid"]
        assert st["Gid"].split() == [UID] * 4, st["Gid"]
        assert st["Groups"].split() == [], st["Groups"]
        for s in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            assert int(st[s], 16) == mask, (caps, s, st[s])


def test_device_node_is_open_the_capability_is_the_gate(xdt):
    r = xdt.run(["ls", "-ln", "/dev/xdt"], check=True)
    f = r.stdout.split()
    assert f[0] == "crw-rw-rw-" and f[2:4] == ["0", "0"], r.stdout


@pytest.mark.parametrize("caps", ["none", "bpf,syslog,dac_override"])
def test_without_perfmon_open_is_refused(xdt, runas, caps):
    for args in (["-qn", "BEGIN { exit(0); }"], ["-l", "-n", "BEGIN"]):
        r = dtrace_as(xdt, runas, caps, *args)
        assert r.how == "exited" and r.code == 1, (caps, args, r, r.stderr)
        assert r.stderr.strip() == NOCAPS_MSG, (caps, args, r.stderr)
        assert r.stdout == "", r.stdout


def test_perfmon_traces_begin_fbt_syscall(xdt, runas, sysc):
    r = dtrace_as(xdt, runas, "perfmon", "-qn",
                  'BEGIN { printf("uid %d\\n", uid); exit(0); }')
    assert r.ok and r.stdout.split("\n")[0] == "uid 1000", (r, r.stdout, r.stderr)
    assert r.stdout.strip() == "uid 1000", r.stdout
    # fbt: an exact count, keyed by execname (the task's comm)
    r = dtrace_as(xdt, runas, "perfmon", "-qn",
                  "fbt::vfs_read:entry /pid == $target/ "
                  "{ @[execname, probefunc] = count(); }", "-c", WC)
    assert r.ok, (r, r.stderr)
    assert "error" not in r.stderr, r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.strip()]
    assert ["wc", "vfs_read"] in [x[:2] for x in rows], r.stdout
    assert all(int(x[2]) >= 1 for x in rows if x[:2] == ["wc", "vfs_read"])
    # syscall: a string predicate, probefunc as key, user memory
    r = dtrace_as(xdt, runas, "perfmon", "-qn",
                  'syscall::openat:entry /execname == "sysc"/ '
                  '{ @[probefunc, copyinstr(arg1)] = count(); }',
                  "-c", f"{sysc} openat-quiet /no/such/file")
    assert r.ok, (r, r.stderr)
    assert "error" not in r.stderr, r.stderr
    assert r.stdout.split() == ["openat", "/no/such/file", "1"], r.stdout


def test_perfmon_builtins_strings_and_stack(xdt, runas):
    """What a consumer without kernel reads still reads: the strings the
    built-in variables hand out, literals, variables, scratch (strjoin),
    and stack(), which the kernel records."""
    r = dtrace_as(xdt, runas, "perfmon", "-qn",
                  "fbt::vfs_read:entry /pid == $target/ { "
                  "self->s = execname; this->j = strjoin(self->s, \"!\"); "
                  'printf("%s:%s:%s:%s %s %s %s %d\\n", probeprov, probemod, '
                  'probefunc, probename, execname, this->j, '
                  'substr(probefunc, 4), pid == $target); stack(); exit(0); }',
                  "-c", WC)
    assert r.ok, (r, r.stderr)
    assert "error" not in r.stderr, r.stderr
    # (wc's own output may come first: it shares dtrace's stdout)
    lines = [ln for ln in r.stdout.splitlines()
             if ln.strip() and not re.fullmatch(r"\d+ /proc/version", ln)]
    assert re.fullmatch(r"fbt:\w+:vfs_read:entry wc wc! read 1", lines[0]), \
        r.stdout
    frames = lines[1:]
    assert frames and all(re.fullmatch(r"\s+(\S+`\S+|0x[0-9a-f]+)", f)
                          for f in frames), r.stdout


def test_perfmon_kernel_read_is_invalid_kernel_access(xdt, runas):
    # a pointer dereference in DIF: the ERROR probe, with DTrace's KPRIV
    r = dtrace_as(xdt, runas, "perfmon", "-qn", READ_KERNEL,
                  "-n", 'ERROR { printf("fault %d\\n", arg4); }', "-c", WC)
    assert r.ok, (r, r.stderr)
    assert re.search(KPRIV_RE, r.stderr), r.stderr
    assert "fault 6\n" in r.stdout, r.stdout         # DTRACEFLT_KPRIV
    # (wc's own output is "164 /proc/version")
    assert not re.search(r"(^|[^/])version", r.stdout), r.stdout
    # a kernel address recorded as a string: the action faults, not DIF
    r = dtrace_as(xdt, runas, "perfmon", "-qn",
                  "fbt::vfs_read:entry /pid == $target/ "
                  "{ trace(stringof(arg0)); }", "-c", WC)
    assert r.ok, (r, r.stderr)
    assert re.search(r"fbt:\w+:vfs_read:entry\): invalid kernel access in "
                     r"action #1\n", r.stderr), r.stderr
    # a subroutine reading kernel memory (curthread is the task_struct)
    r = dtrace_as(xdt, runas, "perfmon", "-qn",
                  "BEGIN { trace(strlen(stringof(curthread))); } "
                  "BEGIN { exit(0); }")
    assert r.ok, (r, r.stderr)
    assert re.search(r"BEGIN\): invalid kernel access in action #1 at DIF "
                     r"offset \d+\n", r.stderr), r.stderr


def test_perfmon_destructive_is_refused(xdt, runas):
    for prog in ("BEGIN { chill(1); exit(0); }", "BEGIN { exit(0); }"):
        r = dtrace_as(xdt, runas, "perfmon", "-w", "-qn", prog)
        assert r.how == "exited" and r.code == 1, (prog, r, r.stderr)
        assert r.stderr.strip() == W_MSG, (prog, r.stderr)
        assert r.stdout == "", r.stdout


def test_sys_admin_reads_kernel_memory(xdt, runas):
    r = dtrace_as(xdt, runas, "sys_admin", "-qn", READ_KERNEL, "-c", WC)
    assert r.ok, (r, r.stderr)
    assert "error" not in r.stderr, r.stderr
    # trace() of a string under -q: no separator, one per read(2) of wc's
    assert any(re.fullmatch(r"(version)+", ln)
               for ln in r.stdout.splitlines()), r.stdout


def test_sys_admin_may_be_destructive(xdt, runas):
    r = dtrace_as(xdt, runas, "sys_admin", "-wqn",
                  'BEGIN { chill(1); printf("chilled\\n"); exit(0); }')
    assert r.ok and r.stdout.strip() == "chilled", (r, r.stdout, r.stderr)
    # raise() on the traced child's child, which runs as uid 1000 too: the
    # shell reports it killed (a raise() that did nothing: 60 s, status=0)
    xdt.put(b"sleep 60\necho status=$?\n", "/tmp/privraise.sh")
    r = dtrace_as(xdt, runas, "sys_admin", "-wqn",
                  "syscall::*nanosleep:entry /progenyof($target) && "
                  "pid != $target/ { raise(9); }",
                  "-c", "sh /tmp/privraise.sh", timeout=240)
    assert r.ok, (r, r.stderr)
    assert "status=137" in r.stdout, (r.stdout, r.stderr)   # 128 + SIGKILL


def test_unprivileged_autoload_fails_clearly(xdt, runas):
    """With xdt.ko unloaded, dtrace tries to load it; a user with tracing
    privileges but not CAP_SYS_MODULE gets the reason, at once."""
    ko = os.path.join(xdtvm.build_dir(xdt.isa), "xdt", "xdt.ko")
    xdt.put(ko, "/tmp/xdt.ko")                      # 0644: readable by all
    r = xdt.run(["rmmod", "xdt"], timeout=120)
    assert r.ok, (r, r.stderr)
    try:
        r = as_user(xdt, runas, "perfmon,sys_admin", "env",
                    "XDT_MODULE=/tmp/xdt.ko", "dtrace", "-qn",
                    "BEGIN { exit(0); }", timeout=60)
        assert r.how == "exited" and r.code == 1, (r, r.stderr)
        assert r.stderr.strip() == (
            "dtrace: failed to open /dev/xdt: No such file or directory "
            "(xdt.ko is not loaded and could not be: loading "
            "/tmp/xdt.ko: Operation not permitted (loading a kernel "
            "module needs CAP_SYS_MODULE: have root load it); load it with "
            "'insmod xdt.ko', or set XDT_MODULE to its path)"), r.stderr
        assert "xdt " not in xdt.run(["cat", "/proc/modules"]).stdout
    finally:
        if "xdt " not in xdt.run(["cat", "/proc/modules"]).stdout:
            xdt.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
    assert "xdt " in xdt.run(["cat", "/proc/modules"]).stdout
