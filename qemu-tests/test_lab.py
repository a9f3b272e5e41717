"""Lab bench smoke tests, per ISA: the guest boots, the agent works, kernel
symbols, modules and gdb behave as later suites will rely on."""
import os
import random
import string
import time

import pytest

import xdtvm

UNAME_M = {"x86_64": "x86_64", "aarch64": "aarch64", "riscv64": "riscv64"}


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
    deadline = time.monotonic() + 5
    while f"tag={tag}" not in vm.console(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
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
    t0 = time.monotonic()
    r = vm.run("sleep 1000 & sleep 1000", timeout=3)
    assert r.timed_out, r
    assert time.monotonic() - t0 < 30
    # Everything the command started was killed with it.
    ps = vm.run(["ps"], check=True).stdout
    assert "sleep 1000" not in ps, ps
    assert vm.run(["echo", "still here"], check=True).stdout == "still here\n"


def test_background_child_does_not_block(vm):
    """A command that leaves a daemon holding its stdout still completes."""
    t0 = time.monotonic()
    r = vm.run("sleep 20 & echo started", timeout=15, check=True)
    assert r.stdout == "started\n"
    assert time.monotonic() - t0 < 10
    vm.run("kill $(pidof sleep) 2>/dev/null; true")


def test_kernel_that_cannot_start_init_is_reported(isa):
    """A guest that panics at boot gives an error with the console tail, and
    QEMU exits rather than hanging."""
    bad = xdtvm.VM(isa, append="rdinit=/no/such/init init=/no/such/init")
    t0 = time.monotonic()
    with pytest.raises(xdtvm.XdtError) as e:
        bad.start(timeout=120)
    bad.kill()
    assert time.monotonic() - t0 < 120
    msg = str(e.value)
    assert "during boot" in msg and "console lines" in msg, msg
    assert "Kernel panic" in msg, msg


def test_icount_boot(isa):
    """The deterministic-count mode the benches use boots and runs commands."""
    with xdtvm.VM(isa, icount=True) as counted:
        assert "-icount" in counted.qemu_argv()
        assert counted.run(["uname", "-m"], check=True).stdout.strip() == \
            UNAME_M[isa]


def test_boot_timeout_shows_console_tail(isa):
    bad = xdtvm.VM(isa)
    with pytest.raises(xdtvm.BootTimeout) as e:
        bad.start(timeout=1.0)
    assert bad.proc.poll() is not None, "QEMU left running after the timeout"
    assert "console lines" in str(e.value)


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
    deadline = time.monotonic() + 10
    while not vm.oopses(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    excerpt = vm.oopses(mark)
    assert excerpt and "WARNING:" in excerpt, vm.console(mark)
    assert "xdt_hello: warning on request" in excerpt
    vm.run(["rmmod", "xdt_hello"], check=False)
    # Expected here: keep the autouse watch from failing this test.
    vm._checked = vm.console_mark()
    time.sleep(0.3)
    vm._checked = vm.console_mark()
