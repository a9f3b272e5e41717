"""Anonymous tracing in a guest (dtrace -A, dtrace -a; core/portable/anon.c):
dtrace -A saves the enabling where xdt.ko looks as it loads, the module is
reloaded (the guest's root is in memory, so a reboot would lose the file:
a reload is the load a boot would do), a workload runs with no consumer,
and dtrace -a prints what was traced meanwhile.  The host VM runs the file
format, loader and claim in tests/host/test_anon_host.py; this is the
kernel's side: the file read at load, probes firing unclaimed, the claim
ioctl, the unload of an unclaimed one and a refusal that leaves the
module loaded."""
import os
import re

import xdtvm
from test_privileges import dtrace_as, runas  # noqa: F401 (fixture)
from test_xdt_kernel import xdt  # noqa: F401

FILE = "/lib/firmware/xdt/anon.xdt"
N = 137     # reads of one byte: read_zero's count, exactly


def reload(vm):
    """rmmod xdt and load it again, as a boot would; the kernel log of that
    load.  (busybox rmmod exits 0 even when refused: the load checks.)"""
    vm.run("dmesg -c >/dev/null", check=True)
    vm.run(["rmmod", "xdt"], check=True, timeout=120)
    assert "xdt " not in vm.run(["cat", "/proc/modules"]).stdout
    vm.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
    return vm.run(["dmesg"], check=True).stdout


def test_anonymous_enabling_traces_from_load_until_claimed(xdt, runas):
    xdt.put(os.path.join(xdtvm.build_dir(xdt.isa), "xdt", "xdt.ko"),
            "/tmp/xdt.ko")
    prog = ('BEGIN { printf("anon begin\\n"); } '
            'fbt::read_zero:entry /execname == "dd"/ { @reads = count(); } '
            'END { printf("anon end\\n"); }')
    try:
        r = xdt.run(["dtrace", "-A", "-q", "-x", "bufsize=64k", "-n", prog])
        assert r.ok, r
        assert r.stderr == (f"dtrace: saved anonymous enabling in {FILE}\n"
                            "dtrace: reload xdt.ko or reboot to enable "
                            "changes\n"), r.stderr
        log = reload(xdt)
        m = re.search(rf"xdt: anonymous enabling {FILE}: tracing, "
                      r"(\d+) enabled probes", log)
        assert m and int(m.group(1)) == 3, log
        # no consumer: the module's own state traces it
        xdt.run(f"dd if=/dev/zero of=/dev/null bs=1 count={N}", check=True)
        r = xdt.run(["dtrace", "-ae"], timeout=120)
        assert r.ok, r
        assert r.stdout.split() == ["anon", "begin", "anon", "end", str(N)], \
            r.stdout
        # claimed once: the records went with the first -a
        r = xdt.run(["dtrace", "-a"], timeout=120)
        assert (r.code, r.stderr) == (1, "dtrace: could not enable tracing: "
                                         "No anonymous tracing state\n"), r

        # claiming needs CAP_SYS_ADMIN (docs/privileges.md), and a
        # refused claim leaves it there; an unclaimed one is freed at
        # unload; a file the kernel refuses leaves the module loaded, with
        # the reason in its log
        r = xdt.run(["dtrace", "-A", "-n", "BEGIN { trace(1); }"])
        assert r.stderr.startswith(
            f"dtrace: cleaned up old anonymous enabling in {FILE}\n"), r
        assert "anonymous enabling" in reload(xdt)
        r = dtrace_as(xdt, runas, "perfmon", "-a")
        assert r.code == 1 and r.stderr == (
            "dtrace: could not enable tracing: claiming the anonymous "
            "enabling needs CAP_SYS_ADMIN; /dev/xdt was opened with "
            "CAP_PERFMON only\n"), r
        xdt.run(f"printf 'XDTA but not much else' > {FILE}", check=True)
        log = reload(xdt)
        assert (f"xdt: anonymous enabling {FILE} refused: 22 bytes: "
                "shorter than its header") in log, log
        assert "xdt: ready on" in log, log
        r = xdt.run(["dtrace", "-a"], timeout=120)
        assert "No anonymous tracing state" in r.stderr, r
    finally:
        r = xdt.run(["dtrace", "-A"])
        # an enabling a failure left unclaimed must not trace on into the
        # next tests (no-op when there is none)
        xdt.run("dtrace -qae >/dev/null 2>&1", timeout=120)
    # DTrace's removal: -A with no program
    assert r.stderr == f"dtrace: cleaned up old anonymous enabling in {FILE}\n"
    assert xdt.run(["test", "-e", FILE]).code != 0
