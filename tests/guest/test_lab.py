"""Lab bench smoke tests, per ISA: the guest boots, the agent works, kernel
symbols, modules and gdb behave as later suites will rely on."""
import os
import random
import signal
import string
import time

import pytest

import xdtvm

UNAME_M = {"x86_64": "x86_64", "aarch64": "aarch64", "riscv64": "riscv64",
           "ppc64le": "ppc64le"}


def test_boot_clean(vm):
    assert vm.boot_problems is None, vm.boot_problems
    assert "Linux version 6.1." in vm.console()


def test_uname(vm):
    r = vm.run(["uname", "-m"], check=True)
    assert r.stdout.strip() == UNAME_M[vm.isa]
    r = vm.run(["uname", "-r"], check=True)
    assert r.stdout.startswith("6.1.")


def test_guest_config(vm):
    """What the init mounted and the kernel offers the tracing work."""
    mounts = vm.run(["cat", "/proc/mounts"], check=True).stdout
    for fs, where in [("proc", "/proc"), ("sysfs", "/sys"),
                      ("devtmpfs", "/dev"), ("debugfs", "/sys/kernel/debug"),
                      ("tracefs", "/sys/kernel/tracing")]:
        assert f"{fs} {where} {fs}" in mounts, mounts
    ncpu = vm.run("grep -c ^processor /proc/cpuinfo || nproc", check=True)
    assert int(vm.run(["nproc"], check=True).stdout) == vm.smp, ncpu.stdout
    tracers = vm.run(["cat", "/sys/kernel/tracing/available_tracers"],
                     check=True).stdout
    assert "function" in tracers.split()
    assert vm.run(["test", "-w", "/sys/kernel/tracing/kprobe_events"]).ok
    # kgdb is bound to the serial console, ready for sysrq-g.
    kgdboc = vm.run(["cat", "/sys/module/kgdboc/parameters/kgdboc"],
                    check=True).stdout.strip()
    assert kgdboc == xdtvm.MACHINES[vm.isa]["console"]


def test_kallsyms_matches_vmlinux(vm, host_vmlinux):
    """kallsyms has all symbols (KALLSYMS_ALL), in vmlinux's order of size."""
    # vmlinux's own lines only: earlier tests in the session may have
    # loaded modules (riscv modules even list their .L labels).
    n_guest = int(vm.run("grep -vc '\t\\[' /proc/kallsyms",
                         check=True).stdout)
    n_host = xdtvm.elf_symbol_count(host_vmlinux)
    assert n_guest > 10000
    # The two should agree closely.
    assert 0.97 < n_guest / n_host < 1.03, (n_guest, n_host)
    # KALLSYMS_ALL: data symbols are there too, not just text.
    data = vm.run("grep -c ' [dDbB] ' /proc/kallsyms", check=True).stdout
    assert int(data) > 1000


def test_gdb_reads_vfs_read(vm, gdb, host_vmlinux):
    """gdb on QEMU's gdbstub reads vfs_read at the address vmlinux has (no
    KASLR) and sees vmlinux's bytes, but for ftrace's boot-time rewrite of the
    entry patch site, which must be exactly the documented one."""
    addr = gdb.addr("vfs_read")
    host_addr, disk = xdtvm.elf_symbol_bytes(host_vmlinux, "vfs_read", 24)
    assert addr == host_addr, f"kallsyms {addr:#x} vs vmlinux {host_addr:#x}"
    live = gdb.read(addr, 24)
    want = xdtvm.ftrace_boot_bytes(vm.isa, host_vmlinux, addr, disk)
    assert live == want, (f"gdb:      {live.hex(' ')}\n"
                          f"expected: {want.hex(' ')}\n"
                          f"vmlinux:  {disk.hex(' ')}")
    dis = gdb.disassemble("vfs_read", 4)
    assert "<vfs_read>" in dis or "<vfs_read+0>" in dis, dis
    # The guest keeps running after gdb detaches.
    assert vm.run(["true"]).ok


def test_module_load_unload(vm):
    ko = os.path.join(xdtvm.build_dir(vm.isa), "modules", "xdt_hello",
                      "xdt_hello.ko")
    assert os.path.isfile(ko), "module not built (make modules)"
    tag = "".join(random.choice(string.ascii_lowercase) for _ in range(12))
    vm.put(ko, "/tmp/xdt_hello.ko")
    mark = vm.console_mark()
    vm.run(["insmod", "/tmp/xdt_hello.ko", f"tag={tag}"], check=True)
    assert "xdt_hello" in vm.run(["cat", "/proc/modules"], check=True).stdout
    dmesg = vm.run(["dmesg"], check=True).stdout
    assert (f"xdt_hello: loaded on {UNAME_M[vm.isa]}, tag={tag}, "
            "kernel_read at kernel_read+0x0/") in dmesg, dmesg[-2000:]
    vm.run(["rmmod", "xdt_hello"], check=True)
    assert "xdt_hello" not in vm.run(["cat", "/proc/modules"],
                                     check=True).stdout
    assert f"xdt_hello: unloaded, tag={tag}" in vm.run(["dmesg"]).stdout
    # Kernel messages reach the serial console too (the oops watch needs it).
    assert vm.console_sync(), "console never caught up with the kernel log"
    assert f"xdt_hello: unloaded, tag={tag}" in vm.console(mark)


def test_agent_streams_and_statuses(vm):
    r = vm.run(["sh", "-c", "echo out; echo err >&2; exit 7"])
    assert (r.how, r.code, r.stdout, r.stderr) == ("exited", 7, "out\n",
                                                     "err\n")
    data = bytes(range(256)) * 4096          # 1 MiB, every byte value
    r = vm.run(["sh", "-c", "cat | md5sum"], stdin=data, check=True)
    import hashlib
    assert r.stdout.split()[0] == hashlib.md5(data).hexdigest()
    r = vm.run(["sh", "-c", "kill -9 $$"])
    assert (r.how, r.code) == ("signaled", 9)
    r = vm.run(["/no/such/program"])
    assert r.how == "exited" and r.code == 127 and "No such file" in r.stderr
    chunks = []
    vm.run("for i in 1 2 3; do echo $i; done", on_output=lambda e, d:
           chunks.append(d), check=True)
    assert b"".join(chunks) == b"1\n2\n3\n"


def test_hung_command_times_out(vm):
    # The guest's own verdict, after its own clock's 3 s (run() gives up,
    # with an XdtError, only if the agent stops answering altogether).
    r = vm.run("sleep 1000 & sleep 1000", timeout=3)
    assert r.timed_out, r
    assert r.wall_ms >= 3000, r
    # Everything the command started was killed with it.
    ps = vm.run(["ps"], check=True).stdout
    assert "sleep 1000" not in ps, ps
    assert vm.run(["echo", "still here"], check=True).stdout == "still here\n"


def test_background_child_does_not_block(vm):
    """A command that leaves a daemon holding its stdout still completes.
    The daemon outlives the command's timeout, so an agent that waited for
    the stdout to close would report a timeout (check=True), however fast
    or slow the host."""
    r = vm.run("sleep 1000 & echo started", timeout=60, check=True)
    assert r.stdout == "started\n"
    vm.run("kill $(pidof sleep) 2>/dev/null; true")


def test_kernel_that_cannot_start_init_is_reported(isa):
    """A guest that panics at boot gives an error with the console tail, and
    QEMU exits rather than hanging."""
    bad = xdtvm.VM(isa, append="rdinit=/no/such/init init=/no/such/init")
    try:
        # A boot budget as generous as a good boot's: it is only spent if
        # QEMU hangs instead of exiting, and then BootTimeout fails the test.
        with pytest.raises(xdtvm.XdtError) as e:
            bad.start(timeout=300)
        assert not isinstance(e.value, xdtvm.BootTimeout), str(e.value)
    finally:
        bad.kill()
    msg = str(e.value)
    assert "during boot" in msg and "console lines" in msg, msg
    assert "Kernel panic" in msg, msg


def test_icount_boot(isa):
    """The deterministic-count mode the benches use boots and runs commands."""
    with xdtvm.VM(isa, icount=True) as counted:
        assert "-icount" in counted.qemu_argv()
        assert counted.run(["uname", "-m"], check=True).stdout.strip() == \
            UNAME_M[isa]


# A guest whose agent never comes up, whatever the host's speed: busybox sh
# runs as PID 1 in place of /init (guest/init.c), so nothing ever opens the
# agent's port.  It says so on the console, then sleeps for three years.  Its
# line says "pid 1" where the kernel's echo of the command line says "pid $$",
# so the one cannot pass for the other.
NO_AGENT_APPEND = ('rdinit=/bin/sh -- -c "echo xdt: no agent here, shell pid'
                   ' $$; exec /bin/sleep 100000000"')
NO_AGENT_SAID = "xdt: no agent here, shell pid 1"


class NoAgentVM(xdtvm.VM):
    """start()'s timeout counts from the moment the shell has said it is
    up (however long the kernel took to get there), so that the timeout
    always strikes a booted guest with a console worth showing."""

    def _wait_agent(self, deadline):
        t0 = time.monotonic()
        while NO_AGENT_SAID not in self.console():
            if self.proc.poll() is not None:
                raise xdtvm.XdtError(f"{self.isa}: QEMU exited before the "
                                     "shell came up\n" + self.console_tail())
            if time.monotonic() - t0 > 300:
                raise xdtvm.XdtError(f"{self.isa}: the shell never came up"
                                     "\n" + self.console_tail())
            time.sleep(0.1)
        super()._wait_agent(deadline + time.monotonic() - t0)


def test_boot_timeout_shows_console_tail(isa):
    bad = NoAgentVM(isa, append=NO_AGENT_APPEND)
    try:
        with pytest.raises(xdtvm.BootTimeout) as e:
            bad.start(timeout=2.0)
        # start() killed QEMU (it did not exit by itself).
        assert bad.proc.returncode == -signal.SIGKILL, \
            f"QEMU left running or exited by itself: {bad.proc.returncode}"
        assert bad not in xdtvm._running
    finally:
        bad.kill()
    msg = str(e.value)
    assert "no answer from the guest agent (boot)" in msg, msg
    assert "console lines" in msg and NO_AGENT_SAID in msg, msg


def test_console_watch_catches_a_kernel_warning(vm):
    """The oops watch is real: a WARN() in the guest is seen and reported."""
    ko = os.path.join(xdtvm.build_dir(vm.isa), "modules", "xdt_hello",
                      "xdt_hello.ko")
    vm.put(ko, "/tmp/xdt_hello.ko")
    mark = vm.console_mark()
    try:
        vm.run(["insmod", "/tmp/xdt_hello.ko", "warn=1"])
    except xdtvm.XdtError as e:      # run() saw it already
        assert "WARNING:" in str(e)
    # Once a marker logged after it is on the console, all of the warning
    # (through its call trace) is too.
    assert vm.console_sync(), "console never caught up with the kernel log"
    excerpt = vm.oopses(mark)
    assert excerpt and "WARNING:" in excerpt, vm.console(mark)
    assert "xdt_hello: warning on request" in excerpt
    vm.run(["rmmod", "xdt_hello"], check=False, watch=False)
    # Expected here: keep the autouse watch from failing this test.
    vm._checked = vm.console_mark()
