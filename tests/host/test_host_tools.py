"""Host-only checks of the lab tooling: no guest needed, run first."""
import glob
import os
import re
import subprocess
import tempfile

import pytest

import xdtvm

TOP = xdtvm.TOP
pytestmark = pytest.mark.host


def test_unknown_isa_is_refused_everywhere():
    """Every row of arch/isas is valid (the opt-in ones too: a port under
    way is built and booted when named), and the refusal names them all."""
    valid = list(xdtvm.ISAS)
    assert valid[:3] == ["x86_64", "aarch64", "riscv64"], valid
    with pytest.raises(xdtvm.XdtError,
                       match=re.escape("valid ISAs: " + ", ".join(valid))):
        xdtvm.check_isa("sparc64")
    r = subprocess.run([os.path.join(TOP, "tools", "xdt-vm"), "run", "--arch",
                        "sparc64", "--", "true"], capture_output=True, text=True)
    assert r.returncode != 0
    assert ("unknown ISA 'sparc64'; valid ISAs: " + ", ".join(valid)
            in r.stderr)
    r = subprocess.run([os.path.join(TOP, "tools", "build-kernel.sh"), "mips"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "valid ISAs: " + " ".join(valid) in r.stderr


def test_default_isa_set_leaves_opt_in_ports_out():
    """arch/isas' set column: with no XDT_ISAS, make, tools/run-tests and
    the Python tools take the default set only, in the table's order; an
    opt-in ISA is taken when named (make -n prints the kernels it would
    build)."""
    default = [i for i, r in xdtvm.ISAS.items() if r["set"] == "default"]
    assert default == ["x86_64", "aarch64", "riscv64"], default
    assert xdtvm.DEFAULT_ISAS == default
    assert {r["set"] for r in xdtvm.ISAS.values()} <= {"default", "opt-in"}
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDT_ISAS", "ISAS")}
    r = subprocess.run(["make", "-C", TOP, "-n", "kernels"], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["make", "-C", TOP, "-s", "--no-print-directory",
                        "-f", "Makefile", "-f", "-", "show-isas"],
                       input="show-isas:\n\t@echo $(isas)\n", env=env,
                       capture_output=True, text=True)
    assert r.stdout.split() == default, (r.stdout, r.stderr)
    for isa in xdtvm.ISAS:
        r = subprocess.run(["make", "-C", TOP, "-s", "--no-print-directory",
                            "-f", "Makefile", "-f", "-", "show-isas",
                            f"ISAS={isa}"],
                           input="show-isas:\n\t@echo $(isas)\n", env=env,
                           capture_output=True, text=True)
        assert r.stdout.split() == [isa], (r.stdout, r.stderr)
    r = subprocess.run(["bash", "-c", f". {TOP}/tools/isa.sh; "
                        "xdt_default_isas"], env=env, capture_output=True,
                       text=True, check=True)
    assert r.stdout.split() == default
    r = subprocess.run(["make", "-C", TOP, "-n", "ISAS=x86_64,vax", "kernels"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "unknown ISA 'vax'" in r.stderr


def test_deps_names_missing_packages_when_not_root():
    """Not root and something missing: one message with the install line."""
    env = dict(os.environ, XDT_DEPS_EXTRA="xdt-no-such-package")
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", os.path.join(TOP, "tools", "deps.sh")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1, r
    assert "apt-get install xdt-no-such-package" in r.stderr, r.stderr


def test_deps_quiet_when_all_present():
    r = subprocess.run([os.path.join(TOP, "tools", "deps.sh")],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_initramfs_is_a_valid_newc_archive():
    """Built without root, readable by GNU cpio, with the entries boot needs."""
    with tempfile.TemporaryDirectory() as d:
        init = os.path.join(d, "init")
        with open(init, "wb") as f:
            f.write(b"\x7fELF fake init")
        bb = os.path.join(d, "bb")
        os.mkdir(bb)
        with open(os.path.join(bb, "busybox"), "wb") as f:
            f.write(b"busybox")
        with open(os.path.join(bb, "busybox.links"), "w") as f:
            f.write("/bin/sh\n/usr/bin/head\n/linuxrc\n")
        out = os.path.join(d, "out.cpio")
        subprocess.run(["python3", os.path.join(TOP, "tools", "mkinitramfs.py"),
                        out, "--init", init, "--busybox", bb], check=True)
        listing = subprocess.run(["cpio", "-itv", "--quiet"], stdin=open(out, "rb"),
                                 capture_output=True, text=True, check=True).stdout
        lines = {ln.split()[-1] if "->" not in ln else ln.split()[-3]: ln
                 for ln in listing.splitlines()}
        assert lines["init"].startswith("-rwxr-xr-x")
        assert lines["dev/console"].startswith("crw-------")
        assert "5,   1" in lines["dev/console"]
        assert lines["bin/sh"].endswith("bin/sh -> /bin/busybox")
        assert "usr/bin/head" in lines and "linuxrc" not in lines
        assert " root " in lines["init"]
        # Deterministic: the same inputs give the same bytes.
        out2 = out + "2"
        subprocess.run(["python3", os.path.join(TOP, "tools", "mkinitramfs.py"),
                        out2, "--init", init, "--busybox", bb], check=True)
        assert open(out, "rb").read() == open(out2, "rb").read()


def test_guest_init_builds_warning_clean_natively():
    """The agent's C builds with the project's flags on the host compiler."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra",
                        "-Werror", "-c", "-o", os.path.join(d, "init.o"),
                        os.path.join(TOP, "guest", "init.c")], check=True)


# A riscv64 lockdep report as the console prints it: no "</TASK>" and no
# "end trace" line, the report ends with its backtrace.
RISCV_LOCKDEP = """\
======================================================
WARNING: possible circular locking dependency detected
6.1.192 #1 Tainted: G           O
------------------------------------------------------
xdt-bpfbench/51 is trying to acquire lock:
ffffffff80f4ebb0 (cpu_hotplug_lock){++++}-{0:0}, at: stop_machine+0x24/0x4c

but task is already holding lock:
ffffffff80f7e968 (text_mutex){+.+.}-{3:3}, at: ftrace_arch_code_modify_prepare+0x1c/0x66

the existing dependency chain (in reverse order) is:

-> #1 (text_mutex){+.+.}-{3:3}:
       lock_acquire+0x31c/0x934
       mutex_lock_nested+0x20/0x28
       register_kprobe+0xb34/0x1978

-> #0 (cpu_hotplug_lock){++++}-{0:0}:
       cpus_read_lock+0x48/0x242
       stop_machine+0x24/0x4c
       arch_ftrace_update_code+0x76/0x88

stack backtrace:
CPU: 1 PID: 51 Comm: xdt-bpfbench Tainted: G           O       6.1.192 #1
Hardware name: riscv-virtio,qemu (DT)
Call Trace:
[<ffffffff8000ba06>] dump_backtrace+0x28/0x30
[<ffffffff8021e18c>] stop_machine+0x24/0x4c
[<ffffffff8023c094>] arch_ftrace_update_code+0x76/0x88
[<ffffffff80006372>] ret_from_syscall+0x0/0x2
"""
# x86_64's: the end marker, and "? " lines off the chain of frames
X86_KGDB_LOCKDEP = """\
WARNING: inconsistent lock state
6.1.192 #1 Tainted: G           O
inconsistent {INITIAL USE} -> {IN-NMI} usage.
stack backtrace:
Call Trace:
 <TASK>
 _raw_spin_lock+0x2f/0x40
 __text_poke+0x1e6/0x8f0
 text_poke_kgdb+0x1e/0x20
 kgdb_arch_set_breakpoint+0xf5/0x180
 notify_die+0x7a/0xf0
 ? xdt_fentry_tramp_fire+0x80/0x80 [xdt]
 do_int3+0x84/0xa0
 </TASK>
"""
LATER_BUG = "BUG: KASAN: slab-out-of-bounds in xdt_vm_run+0x10/0x20 [xdt]\n"


def _console_vm(text):
    vm = xdtvm.VM.__new__(xdtvm.VM)
    vm.isa = "riscv64"
    vm.expect_alloc_failures = False
    vm.console = lambda since: text
    return vm


def test_known_kernel_report_is_skipped_whole_and_only_it():
    """A report written down in KERNEL_REPORTS is named, not failed, up to
    its last backtrace line even where the ISA prints no end marker; a
    report after it still fails, and the same report with an xdt frame in
    it is not the kernel's."""
    seen = len(xdtvm.KNOWN_SEEN)
    assert _console_vm(RISCV_LOCKDEP).oopses(0) is None
    assert len(xdtvm.KNOWN_SEEN) == seen + 1
    got = _console_vm(RISCV_LOCKDEP + LATER_BUG).oopses(0)
    assert got and "BUG: KASAN" in got and "circular" not in got, got
    # xdt in lockdep's history of the order (chain #1) is not xdt's doing:
    # it took the locks in the kernel's usual order, ftrace did not
    first = RISCV_LOCKDEP.replace("register_kprobe+0xb34/0x1978",
                                  "xdt_arch_text_copy+0x1c4/0x3f4 [xdt]")
    assert _console_vm(first).oopses(0) is None
    # xdt in the report's own chain or backtrace is
    ours = RISCV_LOCKDEP.replace(
        "[<ffffffff80006372>] ret_from_syscall",
        "[<ffffffff01234567>] xdt_go+0x374/0xb76 [xdt]\n"
        "[<ffffffff80006372>] ret_from_syscall")
    got = _console_vm(ours).oopses(0)
    assert got and "circular locking" in got, got
    # ...but not on an x86 "? " line, a stale address the unwinder saw on
    # the stack off the chain of frames (kgdb's lockdep report after tests
    # that traced with xdt)
    vm = _console_vm(X86_KGDB_LOCKDEP)
    vm.isa = "x86_64"
    assert vm.oopses(0) is None
    vm = _console_vm(X86_KGDB_LOCKDEP.replace(" ? xdt_", " xdt_"))
    got = vm.oopses(0)
    assert got and "inconsistent lock state" in got and "</TASK>" in got, got
    # warn_alloc's report counts only while faults are injected
    alloc = ("dd: vmalloc error: size 4096, vm_struct allocation failed\n"
             "Call Trace:\n <TASK>\n dump_stack+0x10/0x12\n </TASK>\n")
    assert _console_vm(alloc).oopses(0)
    vm = _console_vm(alloc)
    vm.expect_alloc_failures = True
    assert vm.oopses(0) is None
    del xdtvm.KNOWN_SEEN[seen:]  # not reports of this run's kernels


KCSAN_POLL = """\
==================================================================
BUG: KCSAN: data-race in poll_schedule_timeout.constprop.0 / pollwake

write to 0xffa0000000013c60 of 4 bytes by task 117 on cpu 0:
 pollwake+0xb1/0xf0
 __wake_up_common+0x80/0x160
 pipe_read+0x6ab/0x750
 do_syscall_64+0x2b/0x50

read to 0xffa0000000013c60 of 4 bytes by task 1 on cpu 1:
 poll_schedule_timeout.constprop.0+0x6a/0xf0
 do_sys_poll+0x5ec/0x6c0
 do_syscall_64+0x2b/0x50

value changed: 0x00000000 -> 0x00000001

Reported by Kernel Concurrency Sanitizer on:
CPU: 1 PID: 1 Comm: init Tainted: G           O       6.1.192 #1
==================================================================
"""
KCSAN_VIRTIO = """\
==================================================================
BUG: KCSAN: data-race in virtqueue_get_buf_ctx_split+0x65/0x200

race at unknown origin, with read to 0xff11000000be7942 of 2 bytes by task 1 on cpu 1:
 virtqueue_get_buf_ctx_split+0x65/0x200
 virtqueue_get_buf+0x38/0x40
 port_fops_read+0x11e/0x460

value changed: 0x07c0 -> 0x07c1

Reported by Kernel Concurrency Sanitizer on:
CPU: 1 PID: 1 Comm: init Tainted: G           O       6.1.192 #1
==================================================================
"""


def test_kcsan_kernel_races_are_named_and_xdt_races_fail():
    """KCSAN's reports (XDT_KVARIANT=kcsan): a race between two kernel
    functions, both stacks shown and xdt on neither, is named with its
    title and skipped whole; the same with an xdt frame on either side
    fails, as does a race "at unknown origin" (one access seen) other than
    the device-written virtio ring's, and a report after a skipped one."""
    seen = len(xdtvm.KNOWN_SEEN)
    assert _console_vm(KCSAN_POLL).oopses(0) is None
    assert "poll_schedule_timeout.constprop.0 / pollwake" in xdtvm.KNOWN_SEEN[-1]
    assert _console_vm(KCSAN_VIRTIO).oopses(0) is None
    assert _console_vm(KCSAN_VIRTIO.replace("virtqueue_get_buf_ctx_split",
                                            "virtqueue_kick_prepare")).oopses(0) is None
    # a trace event handler's read of its file's flags, 8 bytes
    tev = KCSAN_VIRTIO.replace("virtqueue_get_buf_ctx_split",
                               "trace_event_raw_event_sys_enter").replace(
                                   "of 2 bytes", "of 8 bytes")
    assert _console_vm(tev).oopses(0) is None
    got = _console_vm(tev.replace(" virtqueue_get_buf+0x38/0x40",
                                  " xdt_tp_fire+0x38/0x40 [xdt]")).oopses(0)
    assert got and "KCSAN" in got, got
    # a device may only make a read see a change, never a write
    got = _console_vm(KCSAN_VIRTIO.replace("with read to", "with write to")).oopses(0)
    assert got and "KCSAN" in got, got
    got = _console_vm(KCSAN_POLL + LATER_BUG).oopses(0)
    assert got and "BUG: KASAN" in got and "pollwake" not in got, got
    for ours in (KCSAN_POLL.replace(" pipe_read+0x6ab/0x750",
                                    " xdt_buf_snap+0x10/0x80 [xdt]"),
                 KCSAN_POLL.replace(" do_sys_poll+0x5ec/0x6c0",
                                    " xdt_status+0x5c/0xc0 [xdt]"),
                 KCSAN_VIRTIO.replace("virtqueue_get_buf_ctx_split",
                                      "xdt_probe_fire")):
        got = _console_vm(ours).oopses(0)
        assert got and "KCSAN" in got, got
    del xdtvm.KNOWN_SEEN[seen:]


def _isa_h_defines(adir):
    """The integer #defines of arch/<adir>/isa.h, evaluated (hex, shifts
    and ors over earlier ones; C's u suffix dropped)."""
    vals = {}
    with open(os.path.join(xdtvm.TOP, "arch", adir, "isa.h")) as f:
        for line in f:
            m = re.match(r"#define\s+(XDT_\w+)\s+(.+?)\s*(/\*.*)?$", line)
            if not m:
                continue
            expr = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)[uU]\b", r"\1", m.group(2))
            try:
                vals[m.group(1)] = eval(expr, {"__builtins__": {}}, dict(vals))
            except Exception:
                pass        # not an integer expression (a type, a call)
    return vals


@pytest.mark.parametrize("isa", sorted(xdtvm.HOST_ISAS))
def test_isa_toml_patch_is_isa_h_patch(isa):
    """arch/<dir>/isa.toml, which the tools and the bench read, says the
    same patch instruction as isa.h, which the module is built with, and
    the trap list recognises it."""
    adir = xdtvm.ISAS[isa]["dir"]
    defs = _isa_h_defines(adir)
    f = xdtvm.FACTS[isa]["patch"]
    want = [defs[k] for k in ("XDT_PATCHVAL", "XDT_EBREAK") if k in defs]
    assert want, f"arch/{adir}/isa.h defines no patch value"
    patch = bytes.fromhex(f["bytes"])
    assert int.from_bytes(patch, "little") == want[0], (f, hex(want[0]))
    insns = [patch] + ([bytes.fromhex(f["compressed"])]
                       if "compressed" in f else [])
    if "XDT_C_EBREAK" in defs:
        assert int.from_bytes(insns[1], "little") == defs["XDT_C_EBREAK"]
    for insn in insns:
        w = int.from_bytes(insn, "little")
        assert any(w & m == v for m, v in xdtvm.TRAP_INSNS[isa]), insn.hex()
    for sect in ("qemu", "debian", "abi", "ftrace", "bench", "gdb"):
        assert sect in xdtvm.FACTS[isa], f"arch/{adir}/isa.toml: no [{sect}]"


# One of the objects x86_64's soak found (trimmed): ftrace's own leak, with
# xdt below it as the caller of the API.
FTRACE_LEAK = """\
unreferenced object 0xffff8880092a9240 (size 64):
  comm "xdt-dfuzz", pid 58, jiffies 4295149871
  backtrace:
    [<ffffffff8169f281>] __kmem_cache_alloc_node+0x161/0x250
    [<ffffffff815ef02a>] kmalloc_trace+0x2a/0xd0
    [<ffffffff81338913>] alloc_ftrace_hash+0x43/0x130
    [<ffffffff81339748>] dup_hash+0x38/0x6f0
    [<ffffffff81339ea2>] ftrace_add_rec_direct+0xa2/0x270
    [<ffffffff8134c6b9>] register_ftrace_direct_multi+0x3e9/0x6a0
    [<ffffffffa0026b80>] group_new+0x140/0x3a0 [xdt]
    [<ffffffffa0026ec2>] xdt_arch_tramp_on+0xd2/0x140 [xdt]
    [<ffffffff81dbe2df>] do_syscall_64+0x2f/0x50
"""


def test_kmemleak_objects_are_judged_by_their_stack():
    """A kmemleak object is the kernel's own (KERNEL_LEAKS) when its frames
    come above xdt's first; the same object allocated by xdt (an xdt frame
    above the kernel's) is xdt's.  On the console, the count alone of such
    objects is named, not failed; with an object of xdt's it fails."""
    assert xdtvm.known_leak(FTRACE_LEAK)["name"] == "ftrace-direct-hash-growth"
    ours = FTRACE_LEAK.replace("kmalloc_trace+0x2a/0xd0",
                               "xdt_probe_create+0x2a/0xd0 [xdt]")
    assert xdtvm.known_leak(ours) is None
    line = "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"

    class R:
        def __init__(self, out):
            self.stdout = out

    seen = len(xdtvm.KNOWN_SEEN)
    for objs, failed in ((FTRACE_LEAK * 2, False),
                         (FTRACE_LEAK + ours, True)):
        vm = _console_vm(line + "\n")
        vm.proc = type("P", (), {"poll": lambda self: None})()
        vm.run = lambda *a, _o=objs, **k: R(_o)
        excerpt = vm.oopses(0)
        assert excerpt == line
        got = vm.kmemleak_details(excerpt)
        assert bool(got) == failed, got
        if failed:
            assert "xdt_probe_create" in got
    assert len(xdtvm.KNOWN_SEEN) == seen + 2
    # a report after the count is not hidden by it
    got = _console_vm(line + "\n" + LATER_BUG).oopses(0)
    assert "BUG: KASAN" in got
    del xdtvm.KNOWN_SEEN[seen:]


# The C library functions the portable core may call in its host build
# (what core/host/kernel.h's shims and the compiler's builtins come down to).
PORTABLE_LIBC = {"memchr", "memcmp", "memcpy", "memmove", "memset",
                 "snprintf", "strchr", "strcmp", "strcpy", "strlen",
                 "strncmp", "strnlen", "strpbrk", "random",
                 # pr_warn/pr_err: the kernel's log is the host's stderr
                 "fprintf", "stderr"}


def test_portable_core_needs_only_its_environment(tmp_path):
    """core/portable/ compiled for the host calls nothing but what
    core/portable/xdt_env.h declares (which the kernel and the host VM
    both define) and a few C library functions: a new call into the kernel
    from the portable core fails here, not in the host VM's link."""
    env = open(os.path.join(TOP, "core", "portable", "xdt_env.h")).read()
    body = re.sub(r"/\*.*?\*/", "", env, flags=re.S)
    declared = set(re.findall(r"\b(xdt_\w+)\s*\(", body)) | \
        set(re.findall(r"\*(xdt_\w+)", body))
    srcs = sorted(glob.glob(os.path.join(TOP, "core", "portable", "*.c")))
    assert len(srcs) >= 7, srcs
    undefined, defined = set(), set()
    for src in srcs:
        obj = str(tmp_path / (os.path.basename(src) + ".o"))
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wno-unused-parameter",
                        "-fno-strict-overflow",
                        "-I" + os.path.join(TOP, "core"),
                        "-I" + os.path.join(TOP, "core", "portable"),
                        "-I" + os.path.join(TOP, "core", "uapi"),
                        "-c", src, "-o", obj], check=True)
        for ln in subprocess.run(["nm", obj], capture_output=True, text=True,
                                 check=True).stdout.splitlines():
            f = ln.split()
            if len(f) == 2 and f[0] == "U":
                undefined.add(f[1])
            elif len(f) == 3:
                defined.add(f[2])
    outside = undefined - defined
    # kernel.h's shims of the kernel API (kmalloc, current) call the host
    # VM's own helpers: the kernel's API, not an environment call
    shims = set(re.findall(r"\b(xdt_host_\w+)\b", open(os.path.join(
        TOP, "core", "host", "kernel.h")).read()))
    outside -= shims
    assert outside - declared - PORTABLE_LIBC == set(), \
        "the portable core calls what xdt_env.h does not declare"
    # and the header declares nothing the core does not use
    assert declared - outside == set(), declared - outside
