"""Boot xdt's Linux 6.1 guests under QEMU and drive them through the agent.

One module shared by the launcher (tools/xdt-vm), the pytest harness
(tests/) and the benches, so the per-ISA machine arguments live in one
place.  The agent protocol is described in guest/agent.h.
"""
import atexit
import ctypes
import glob
import hashlib
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from xdtisa import *  # noqa: E402,F401,F403  (the lab's configuration)
from xdtisa import _read_facts, _read_isas  # noqa: E402,F401


def variant_cmdline(isa):
    """Boot arguments the kernel variant needs on @isa: the lines of
    arch/variants/<variant>.cmdline and arch/<dir>/<variant>.cmdline that
    are not comments (each says why)."""
    if not KVARIANT:
        return ""
    args = []
    for p in (os.path.join(TOP, "arch", "variants", f"{KVARIANT}.cmdline"),
              os.path.join(TOP, "arch", ISAS[isa]["dir"],
                           f"{KVARIANT}.cmdline")):
        if os.path.isfile(p):
            with open(p) as f:
                args += [ln.strip() for ln in f
                         if ln.strip() and not ln.startswith("#")]
    return " ".join(args)


def build_dir(isa):
    return os.path.join(CACHE, "build" + (f"-{KVARIANT}" if KVARIANT else ""),
                        isa)


def initramfs(isa):
    p = os.path.join(build_dir(isa), "initramfs.cpio")
    if not os.path.isfile(p):
        raise XdtError(f"no initramfs for {isa} (run: make guest)")
    return p


# Per-ISA machine: QEMU arguments, console device, virtio-serial and
# virtio-blk transports (arch/<dir>/isa.toml [qemu], which says why).
MACHINES = {isa: f["qemu"] for isa, f in FACTS.items()}


# ---- the lab disk -----------------------------------------------------------
# Every guest has a virtio disk (/dev/vda) carrying an ext2 filesystem that
# guest/init.c mounts at /mnt, so that block I/O (the io provider) has a real
# filesystem, block layer and device under it.  Its files are fixed here, so
# a test knows what a read of them moves.  The image is made without root
# (mke2fs -d copies a directory in), once per recipe, under the cache; QEMU
# attaches it with snapshot=on, so guest writes land in a throwaway overlay:
# the cached image is never modified and any number of guests share it.

DISK_SIZE = 16 << 20
DISK_BLOCK = 4096
# 4 KiB blocks (the page size of every lab ISA, so a page of a file is one
# filesystem block), no blocks reserved for root.  (6.1's ext2 keeps 32-bit
# timestamps whatever the inode size, so a guest whose clock is set, x86_64
# with its RTC, notes at mount that they end in 2038: harmless.)
DISK_MKE2FS = ["-q", "-F", "-t", "ext2", "-b", str(DISK_BLOCK), "-m", "0",
               "-L", "xdt-lab", "-E", "root_owner=0:0"]
# Bump when the image changes in a way the inputs below do not show.
DISK_RECIPE = 1


def disk_data_block(n):
    """Block @n of /mnt/data: its 16-byte record "xdt block NNNNN\n" repeated
    over the block, so any block read is recognisable by its first bytes."""
    return (b"xdt block %05d\n" % n) * (DISK_BLOCK // 16)


def disk_files():
    """{path under /mnt: contents} of the lab disk."""
    return {
        # 1 MiB: 256 blocks of DISK_BLOCK bytes.
        "data": b"".join(disk_data_block(n) for n in range(256)),
        "hello": b"hello from the xdt lab disk\n",
    }


def disk_image():
    """The cached ext2 image of the lab disk, made if missing."""
    files = disk_files()
    h = hashlib.sha256(repr((DISK_RECIPE, DISK_SIZE, DISK_MKE2FS)).encode())
    for name in sorted(files):
        h.update(b"%s\0%d\0" % (name.encode(), len(files[name])))
        h.update(files[name])
    d = os.path.join(CACHE, "disk")
    img = os.path.join(d, f"lab-{h.hexdigest()[:16]}.ext2")
    if os.path.isfile(img):
        return img
    os.makedirs(d, exist_ok=True)
    # mke2fs lives in /sbin, which a user's PATH may lack.
    mke2fs = shutil.which("mke2fs", path=os.environ.get("PATH", "") +
                          ":/usr/sbin:/sbin")
    if not mke2fs:
        raise XdtError("no mke2fs for the lab disk (run: make deps)")
    # Built aside and renamed into place, so a guest never sees half an
    # image and two builders racing both leave a whole one.
    with tempfile.TemporaryDirectory(prefix="build-", dir=d) as tmp:
        root = os.path.join(tmp, "root")
        os.mkdir(root)
        for name, data in files.items():
            with open(os.path.join(root, name), "wb") as f:
                f.write(data)
        out = os.path.join(tmp, "disk.ext2")
        p = subprocess.run([mke2fs, *DISK_MKE2FS, "-d", root, out,
                            f"{DISK_SIZE // 1024}k"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise XdtError(f"mke2fs failed ({p.returncode}):\n{p.stdout}"
                           f"{p.stderr}")
        os.replace(out, img)
    # Older recipes' images go (a guest still running on one keeps its open
    # file).
    for old in glob.glob(os.path.join(d, "lab-*.ext2")):
        if old != img:
            try:
                os.unlink(old)
            except OSError:
                pass
    return img


# What the kernel prints when it is in trouble.  "panic" as a word, but not
# the panic=-1 of our own command line.
OOPS_RE = re.compile(r"\bOops\b|\bBUG:|Kernel BUG \[|(?<![\w=])panic(?![=\w])"
                     r"|WARNING:"
                     # the debug kernels' checkers (arch/variants/debug.config):
                     # KASAN, KFENCE, KCSAN and lockdep's reports start with
                     # BUG: or WARNING:, UBSAN's and kmemleak's do not
                     r"|UBSAN:|kmemleak: \d+ new suspected"
                     r"|sleeping function called from invalid context"
                     r"|Unable to handle kernel|general protection fault"
                     r"|Call Trace:|\bsoft lockup\b|hung_task"
                     r"|rcu: INFO: .*detected stall")
KMEMLEAK_RE = re.compile(r"kmemleak: \d+ new suspected")
# What an injected allocation failure prints by design (warn_alloc's
# report and stack, the fault-injection notice): expected while faults are
# injected (VM.expect_alloc_failures), and only then.
ALLOC_FAIL_RE = re.compile(r"page allocation failure|vmalloc error:|"
                           r"FAULT_INJECTION: forcing|Huh VM_FAULT_OOM")
# Fault injection set up for fail-nth and probability runs aimed at one
# task (make soak, test_faults.py): every attempt counts, none is printed
# (the consumer reports), sleeping allocations and order-0 pages included.
FAULT_DEBUGFS = "/sys/kernel/debug"


def fault_setup_cmd():
    d = FAULT_DEBUGFS
    cmds = []
    for fa in ("failslab", "fail_page_alloc", "fail_usercopy"):
        cmds += [f"echo 0 > {d}/{fa}/verbose", f"echo 0 > {d}/{fa}/probability",
                 f"echo 1 > {d}/{fa}/interval", f"echo -1 > {d}/{fa}/times",
                 f"echo Y > {d}/{fa}/task-filter"]
    cmds += [f"echo N > {d}/failslab/ignore-gfp-wait",
             f"echo N > {d}/fail_page_alloc/ignore-gfp-wait",
             f"echo N > {d}/fail_page_alloc/ignore-gfp-highmem",
             f"echo 0 > {d}/fail_page_alloc/min-order"]
    return "; ".join(f"{c} || exit 1" for c in cmds)


HOW = {0: "exited", 1: "signaled", 2: "timeout", 3: "noexec"}

# Reports the debug kernels' checkers make about the kernel itself, with xdt
# nowhere on the stack: each is written down with its evidence in
# docs/reliability.md ("Reports in the kernel itself") and, when it appears,
# listed in the run's summary (KNOWN_SEEN) instead of failing the test.  A
# report matches when its first line matches @title and every frame in
# @frames appears in it; it ends at its "</TASK>" or "end trace" line.
# Nothing here may name an xdt function: a report with xdt on the stack is
# xdt's to fix.
# An xdt frame (xdt.ko's, or a function xdt's kernel patches add) in a
# report makes it xdt's to fix, except in lockdep's history of how a lock
# order came to be ("-> #1" and deeper: whoever took the usual order first)
# and on x86's "? " lines: a text address the unwinder found on the stack but
# not on the chain of frames (a stale return address of an earlier call; kgdb
# entered through int3 shows xdt's trampoline handler so, from the tests
# before it).  xdt code really on the chain is printed without the "?".
XDT_FRAME_RE = re.compile(r"^(?!\s*\? ).*(\[xdt\]|\bxdt_\w+\+0x)", re.M)


def _without_history(body):
    out, skip = [], False
    for ln in body.splitlines():
        m = re.match(r"-> #(\d+) ", ln.strip())
        if m:
            skip = m.group(1) != "0"
        elif not ln.strip():
            skip = False
        if not skip:
            out.append(ln)
    return "\n".join(out)


KERNEL_REPORTS = [
    dict(name="kgdb-text-poke-lockdep",
         why="kgdb's software breakpoint write (text_poke_kgdb) takes the "
             "text-poke page-table lock from the debugger's NMI context, "
             "which poking_init first took in process context: lockdep "
             "{INITIAL USE} -> {IN-NMI}",
         title=r"WARNING: inconsistent lock state",
         frames=["text_poke_kgdb", "kgdb_arch_set_breakpoint"]),
    dict(name="riscv-ftrace-stop-machine-under-text-mutex",
         why="riscv64's ftrace holds text_mutex across its stop_machine() "
             "(ftrace_arch_code_modify_prepare, arch_ftrace_update_code), "
             "which takes cpu_hotplug_lock, against the order kprobes "
             "(register_kprobe) and every stop_machine text patcher, xdt's "
             "included, take them in: met by the first ftrace update "
             "after either",
         title=r"WARNING: possible circular locking dependency detected",
         # the #0 chain, ftrace's; #1 is whoever took the usual order first
         frames=["ftrace_arch_code_modify_prepare", "arch_ftrace_update_code",
                 "stop_machine", "-> #0 (cpu_hotplug_lock)"]),
    # KCSAN (XDT_KVARIANT=kcsan) reports every data race it meets, and the
    # kernel has many it tolerates (flags read without a lock to decide
    # whether to sleep, statistics).  A report that shows both accesses
    # with their stacks, xdt on neither, is a race between two pieces of
    # the kernel: listed by its title, not failed.  One that names only
    # one access ("race at unknown origin": the value changed with no
    # instrumented writer seen, which could be uninstrumented code) is
    # not covered by this rule; each such is an entry of its own.
    dict(name="kcsan-race-between-kernel-functions",
         why="a data race KCSAN saw between two kernel functions, neither "
             "called by xdt (both stacks shown, no xdt frame)",
         title=r"BUG: KCSAN: data-race in \S+ / \S+",
         frames=["Reported by Kernel Concurrency Sanitizer"],
         end=r"^={30,}$", name_from_title=True),
    dict(name="kcsan-virtio-ring",
         why="virtio's rings are memory the device (QEMU's backend, outside "
             "the kernel) writes and the driver reads (used index, event "
             "index: virtqueue_get_buf_ctx_split, virtqueue_kick_prepare); "
             "KCSAN sees the value change with no writer in the kernel: "
             "memory shared with hardware, not a race between CPUs",
         title=r"BUG: KCSAN: data-race in virtqueue_\w+\+0x",
         frames=["race at unknown origin, with read to"],
         end=r"^={30,}$"),
    dict(name="kcsan-trace-event-file-flags",
         why="a trace event's handler (trace_event_raw_event_*) reads its "
             "trace_event_file's flags plainly (trace_trigger_soft_disabled) "
             "while tracefs enabling or disabling the event on another CPU "
             "sets and clears bits in them with set_bit/clear_bit (seen: "
             "0x40a -> 0x408, EVENT_FILE_FL_RECORDED_CMD cleared as the "
             "tests' own ftrace event for raw_syscalls was disabled)",
         title=r"BUG: KCSAN: data-race in trace_event_raw_event_\w+\+0x",
         frames=["race at unknown origin, with read to", " of 8 bytes "],
         end=r"^={30,}$"),
]
KNOWN_SEEN = []

# kmemleak's reports in the kernel itself, by the allocation stack of each
# object (kmemleak prints only a count on the console; VM.kmemleak_details
# reads the objects).  An object matches when @frames appear in its
# backtrace, in order, above (allocated deeper than) its first xdt frame:
# xdt calling the API that leaks is expected, xdt allocating is not.
KERNEL_LEAKS = [
    dict(name="ftrace-direct-hash-growth",
         why="6.1's register_ftrace_direct_multi() keeps one free_hash "
             "pointer for a loop in which ftrace_add_rec_direct() may "
             "replace the direct_functions hash several times (whenever "
             "it is empty or fills): every replaced copy but the last "
             "leaks (kernel/trace/ftrace.c)",
         frames=["alloc_ftrace_hash", "dup_hash", "ftrace_add_rec_direct",
                 "register_ftrace_direct_multi"]),
]


def known_leak(obj):
    """The KERNEL_LEAKS entry one kmemleak object (its "unreferenced
    object" paragraph) matches, or None."""
    bt = obj.split("backtrace:", 1)[-1].splitlines()
    cut = next((j for j, ln in enumerate(bt) if XDT_FRAME_RE.search(ln)),
               len(bt))
    above = bt[:cut]
    for k in KERNEL_LEAKS:
        j = 0
        for ln in above:
            if j < len(k["frames"]) and re.search(
                    rf"\b{re.escape(k['frames'][j])}\+0x", ln):
                j += 1
        if j == len(k["frames"]):
            return k
    return None


# ---- QEMU dies with us ------------------------------------------------------
# A guest must not outlive the Python process that started it (a pytest run
# that fails, is interrupted or is killed).  Two layers: every QEMU asks the
# kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG, which covers
# SIGKILL/SIGTERM of Python, where no Python code runs), and an atexit hook
# kills whatever VM is still running at a normal interpreter exit.

_PR_SET_PDEATHSIG = 1
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
    _prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                       ctypes.c_ulong, ctypes.c_ulong]
    _prctl.restype = ctypes.c_int
except (OSError, AttributeError):        # not glibc/Linux: atexit only
    _prctl = None


def _die_with_parent(parent):
    """A preexec_fn: SIGKILL this child when @parent (our pid) goes.

    The death signal is tied to the *thread* that forked the child, not the
    process: a QEMU started from a worker thread would be killed when that
    thread ends.  So it is only asked for when Popen runs on the main thread
    (see VM.start); other threads rely on the atexit hook.  Everything the
    child calls here was looked up in the parent: no imports after fork."""
    sig = int(signal.SIGKILL)

    def preexec():
        _prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
        # The parent may have died between fork() and prctl().
        if os.getppid() != parent:
            os._exit(1)
    return preexec


_running = set()        # VMs whose QEMU may still be running


@atexit.register
def _kill_running():
    for vm in list(_running):
        vm.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Result:
    def __init__(self, argv, how, code, wall_ms, out, err):
        self.argv, self.how, self.code, self.wall_ms = argv, how, code, wall_ms
        self.stdout = out.decode(errors="replace")
        self.stderr = err.decode(errors="replace")
        self.raw_stdout, self.raw_stderr = out, err

    @property
    def timed_out(self):
        return self.how == "timeout"

    @property
    def status(self):
        """Shell-style status: the exit code, 128+signal, or 124 on timeout."""
        return {"exited": self.code, "signaled": 128 + self.code,
                "timeout": 124}.get(self.how, 127)

    @property
    def ok(self):
        return self.how == "exited" and self.code == 0

    def __repr__(self):
        return (f"<Result {self.argv!r} {self.how} {self.code} "
                f"{self.wall_ms} ms>")


# TCG threading per ISA (arch/isas' tcg column).  "single" runs the
# guest's vCPUs round-robin on one host thread, not one thread each
# (MTTCG).  QEMU 7.2's MTTCG can miss the invalidation of translated code
# when the guest patches kernel text that another vCPU is translating at
# that moment, and then runs the old instructions for good: with two
# dtrace consumers starting at once on x86_64, ftrace's int3-bridged
# three-step patch of vfs_read's entry left `call xdt_tramp_entry` in
# memory (read back by the kernel) while neither vCPU ever called it -- 5
# runs of 180 counted nothing under MTTCG, 0 of 180 with one thread
# (docs/mechanisms.md).  The cost: both vCPUs share one host core, they
# interleave in time slices rather than truly at once, and a vCPU that
# spins waiting for another (a stop_machine rendezvous) wastes its slice,
# which is why arm64 and riscv64, whose text is written under
# stop_machine, stay multi-threaded.  XDT_TCG_ACCEL (e.g. "tcg") overrides
# the table, to reproduce the miss.
# "multi" is QEMU's own default (MTTCG where the target has it), not
# "thread=multi": -icount needs one thread, and QEMU refuses an explicit
# thread=multi beside it rather than choosing.
TCG_ACCEL = {"single": "tcg,thread=single", "multi": "tcg"}


class VM:
    """One QEMU guest.  start() boots it and waits for the agent's hello."""

    def __init__(self, isa, smp=None, mem="1G", gdb=False, icount=False,
                 kvm=False, append="", logdir=None, echo_console=False,
                 disk=True, extra_disks=(), kgdb=False, accel=None):
        self.isa = isa
        # accel: the TCG accelerator string instead of the ISA's (TCG_ACCEL)
        self.accel = accel
        self.disk = disk        # attach the lab disk (see disk_image)
        # More raw disk images, attached read-only after the lab disk
        # (/dev/vdb, /dev/vdc, ... when it is there); the guest mounts them.
        self.extra_disks = list(extra_disks)
        self.spec = check_isa(isa)
        # -icount runs every vCPU on one host thread anyway, and with two
        # vCPUs and sleep=off QEMU 7.2 stalls x86_64 and riscv64 guests right
        # after /init starts: counted runs use one CPU unless told otherwise.
        if smp is None:
            smp = 1 if icount else 2
        self.smp, self.mem, self.icount, self.kvm = smp, mem, icount, kvm
        self.append = append
        self.gdb_port = (free_port() if gdb is True else gdb) or None
        # kgdb: a TCP port on which gdb reaches the guest kernel's own kgdb
        # stub (kgdboc on the console UART), see _kgdb_accept.
        self.kgdb_port = (free_port() if kgdb is True else kgdb) or None
        self._kgdb_srv = None
        self._kgdb_client = None
        self._stdin_lock = threading.Lock()
        # Remote-protocol traffic through the kgdb port, for the study's
        # per-hit figures: stop replies from the kernel ("$T"/"$S": each
        # one is a debug exception that entered kgdb), packets from gdb.
        self.kgdb_stats = dict(stops=0, packets_in=0, bytes_in=0,
                               bytes_out=0)
        self._kgdb_last = b""
        self.echo_console = echo_console
        self.tmp = tempfile.mkdtemp(prefix=f"xdt-{isa}-")
        self.logdir = logdir or self.tmp
        os.makedirs(self.logdir, exist_ok=True)
        self.console_path = os.path.join(self.logdir, f"{isa}.console.log")
        self.sock_path = os.path.join(self.tmp, "agent.sock")
        self._console = bytearray()
        self._console_lock = threading.Lock()
        self._checked = 0
        # set while a test injects allocation failures (oopses())
        self.expect_alloc_failures = False
        self.proc = None
        self.sock = None
        self._pump = None
        self._log = None
        self._syncs = 0
        self.boot_seconds = None

    # ---- boot ----------------------------------------------------------
    def qemu_argv(self):
        kdir = kernel_dir(self.isa)
        m = MACHINES[self.isa]
        cmdline = (f"console={m['console']} nokaslr panic=-1 "
                   f"kgdboc={m['console']} {variant_cmdline(self.isa)} "
                   f"{self.append}").strip()
        argv = [self.spec["qemu"], *m["args"], "-smp", str(self.smp),
                "-m", self.mem, "-nodefaults", "-no-reboot",
                "-display", "none", "-monitor", "none",
                "-chardev", "stdio,id=con,signal=off", "-serial", "chardev:con",
                "-kernel", os.path.join(kdir, self.spec["image"]),
                "-initrd", initramfs(self.isa), "-append", cmdline,
                "-device", f"{m['vserial']},id=vs",
                "-chardev", f"socket,id=agent,path={self.sock_path},"
                            "server=on,wait=off",
                "-device", "virtserialport,bus=vs.0,chardev=agent,"
                           "name=xdt.agent"]
        if self.disk:
            # QEMU's host cache mode is left at its default: it only changes
            # how fast QEMU serves a request, and a guest's O_DIRECT read
            # reaches the virtio queue whatever it is (cache=none would also
            # need O_DIRECT from the host filesystem, which not every one
            # offers).  One queue on every ISA: virtio-blk-pci would
            # otherwise get one per vCPU, and 6.1 gives a multi-queue disk
            # no I/O scheduler where the virtio-mmio ones get mq-deadline;
            # the same disk everywhere keeps what the io provider sees the
            # same.  A comma in a -drive value is written twice.
            img = disk_image().replace(",", ",,")
            argv += ["-drive", f"file={img},format=raw,if=none,id=lab,"
                               "snapshot=on",
                     "-device", f"{m['vblk']},drive=lab,num-queues=1"]
        extra = []
        for i, path in enumerate(self.extra_disks):
            img = path.replace(",", ",,")
            extra.append(["-drive", f"file={img},format=raw,if=none,"
                                    f"id=extra{i},readonly=on",
                          "-device", f"{m['vblk']},drive=extra{i},"
                                     "num-queues=1"])
        # The virt boards' virtio-mmio devices are numbered last given
        # first: there the extra disks go before the lab disk, in reverse,
        # so the lab disk stays /dev/vda on every ISA.
        if m["vblk"] == "virtio-blk-device" and extra:
            i = argv.index("-drive") if self.disk else len(argv)
            argv[i:i] = [a for e in reversed(extra) for a in e]
        else:
            argv += [a for e in extra for a in e]
        if self.kvm:
            argv += ["-accel", "kvm"]
        else:
            argv += ["-accel", os.environ.get(
                "XDT_TCG_ACCEL", self.accel or TCG_ACCEL[self.spec["tcg"]])]
        if self.icount:
            argv += ["-icount", "shift=0,sleep=off"]
        if self.gdb_port:
            argv += ["-gdb", f"tcp:127.0.0.1:{self.gdb_port}"]
        return argv

    def start(self, timeout=180):
        """Boot; on any failure QEMU is killed and the error carries the
        console tail."""
        if self.proc is not None and self.proc.poll() is None:
            # a second QEMU would orphan the first, still running, and
            # share this object's log with it
            raise XdtError(f"{self.isa}: VM.start() on a running guest "
                           "(`with VM(...)` has started it already)")
        argv = self.qemu_argv()
        preexec = None
        if _prctl and threading.current_thread() is threading.main_thread():
            preexec = _die_with_parent(os.getpid())
        t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=preexec)
        _running.add(self)
        try:
            self._log = open(self.console_path, "wb")
            self._pump = threading.Thread(target=self._pump_console,
                                          daemon=True)
            self._pump.start()
            if self.kgdb_port:
                self._kgdb_listen()
            self._wait_agent(t0 + timeout)
        except BootTimeout as e:
            # Where a hung boot is, before the evidence is killed: each
            # vCPU's PC through the gdbstub.
            where = self.vcpu_pcs()
            self.kill()
            raise BootTimeout(f"{e}\n--- vCPUs when it was given up ---\n"
                              f"{where}") from None
        except BaseException:
            self.kill()
            raise
        self.boot_seconds = time.monotonic() - t0
        # A guest that gave up on a vCPU (the kernel waits 1 s for each
        # secondary to come up; a starved vCPU thread can miss that) is not
        # the machine asked for: every SMP test on it would judge one CPU.
        with self._console_lock:
            lost = re.search(rb"CPU\d+: failed to (come online|start)",
                             self._console)
        if lost:
            tail = self.console_tail()
            self.kill()
            raise XdtError(f"{self.isa}: the guest booted without a vCPU "
                           f"({lost.group(0).decode()})\n{tail}")
        return self

    def vcpu_pcs(self):
        """Each vCPU's PC and the kernel symbol there, through QEMU's
        gdbstub, as text (or why not): the evidence of a hang."""
        if not self.gdb_port or self.proc is None or \
                self.proc.poll() is not None:
            return "(no gdbstub or no QEMU)"
        try:
            # arch/<dir>/isa.toml [gdb] hang: the ISA's own registers
            # that say where a hart is (trap cause, page table, ...).
            extra = FACTS[self.isa].get("gdb", {}).get("hang", [])
            return gdb_batch(self.gdb_port, [
                "thread apply all x/i $pc", "thread apply all bt 8",
                *(f"thread apply all {c}" for c in extra)],
                timeout=60, vmlinux=vmlinux(self.isa)).strip()
        except Exception as e:  # noqa: BLE001 (evidence, best effort)
            return f"(gdb: {e})"

    def _wait_agent(self, deadline):
        while True:
            if self.proc.poll() is not None:
                self._console_eof()
                raise XdtError(f"{self.isa}: QEMU exited with status "
                               f"{self.proc.returncode} during boot\n"
                               + self.console_tail())
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.sock_path)
                self.sock = s
                break
            except OSError:
                s.close()
                if time.monotonic() > deadline:
                    raise BootTimeout(f"{self.isa}: QEMU never opened the "
                                      "agent socket\n" + self.console_tail())
                time.sleep(0.05)
        # The agent says hello once it opens the port; a ping covers a guest
        # that had already said it before we connected.
        self._send(b"H", b"")
        while self._recv(deadline, what="boot")[0] != b"H":
            pass
        # Drain a second hello (ours and the spontaneous one may both come).
        self._drain_hellos()

    def _drain_hellos(self):
        while True:
            r, _, _ = select.select([self.sock], [], [], 0.3)
            if not r:
                return
            kind, _ = self._recv(time.monotonic() + 5)
            if kind != b"H":
                raise XdtError(f"{self.isa}: unexpected frame {kind!r}")

    def _pump_console(self):
        # This boot's pipe and log, held here: a VM started again (a guest
        # that panicked on purpose) gets a new pair and a new pump while
        # this one drains the old, and must neither close nor write the
        # new log (it did: the new pump then died on a closed file and the
        # console went unread).
        out, log = self.proc.stdout, self._log
        while True:
            chunk = out.read1(65536) if hasattr(out, "read1") else out.read(1)
            if not chunk:
                break
            with self._console_lock:
                self._console += chunk
            c = self._kgdb_client
            if c is not None:
                self._kgdb_count(chunk)
                try:
                    c.sendall(chunk)
                except OSError:
                    pass
            log.write(chunk)
            log.flush()
            if self.echo_console:
                sys.stderr.buffer.write(chunk)
                sys.stderr.buffer.flush()
        log.close()

    def _console_eof(self, timeout=30):
        """QEMU has exited: let the pump read the console to its end, so an
        error's console tail has the last lines (a panic message, say)."""
        if self._pump and self._pump is not threading.current_thread():
            self._pump.join(timeout)

    # ---- console -------------------------------------------------------
    def console(self, since=0):
        with self._console_lock:
            return bytes(self._console[since:]).decode(errors="replace")

    def console_mark(self):
        with self._console_lock:
            return len(self._console)

    def console_tail(self, lines=40):
        tail = self.console().splitlines()[-lines:]
        return (f"--- last {len(tail)} console lines ({self.console_path}) "
                "---\n" + "\n".join(tail))

    def console_write(self, data):
        """Type into the serial console (e.g. a sysrq for kgdb)."""
        with self._stdin_lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    # ---- kgdb ----------------------------------------------------------
    # The kernel's kgdb stub talks gdb's remote protocol over kgdboc, the
    # console UART (the aarch64 and riscv64 virt boards have only one UART,
    # so it is the console on every ISA, as kgdb's agent-proxy splits one
    # line).  gdb connects to a TCP port of ours: what it sends is typed
    # into the UART, and everything the UART prints goes to the console log
    # as always and to gdb too.  gdb skips the console text between
    # packets, and kgdb wraps printk output in 'O' packets while it is in
    # control, so neither side is confused.  One gdb at a time.
    def _kgdb_listen(self):
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", self.kgdb_port))
        srv.listen(1)
        self._kgdb_srv = srv
        threading.Thread(target=self._kgdb_accept, daemon=True).start()

    def _kgdb_accept(self):
        while True:
            try:
                c, _ = self._kgdb_srv.accept()
            except OSError:
                return
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._kgdb_client = c
            try:
                while True:
                    data = c.recv(65536)
                    if not data:
                        break
                    self.kgdb_stats["bytes_in"] += len(data)
                    self.kgdb_stats["packets_in"] += data.count(b"$")
                    self.console_write(data)
            except (OSError, ValueError):
                pass
            finally:
                self._kgdb_client = None
                c.close()

    def _kgdb_count(self, chunk):
        st = self.kgdb_stats
        st["bytes_out"] += len(chunk)
        # A stop reply may straddle two reads: keep one byte of context.
        buf = self._kgdb_last + chunk
        st["stops"] += buf.count(b"$T") + buf.count(b"$S")
        self._kgdb_last = chunk[-1:]

    def oopses(self, since):
        """Console lines since @since that show a kernel problem, with context."""
        text = self.console(since).splitlines()
        i, leak = 0, None
        while i < len(text):
            if not OOPS_RE.search(text[i]):
                i += 1
                continue
            # kmemleak's count says nothing of whose the objects are: kept
            # for kmemleak_details, which reads them, unless a report that
            # needs no reading comes after it
            if KMEMLEAK_RE.search(text[i]):
                leak = leak or text[i]
                i += 1
                continue
            if self.expect_alloc_failures and any(
                    ALLOC_FAIL_RE.search(c) for c in text[max(0, i - 10):i + 1]):
                i += 1
                continue
            end = self._known_report(text, i)
            if end is None:
                # the whole report (to its end, as _known_report finds it),
                # not a fixed window: its stack is what says whose it is
                stop = next((j for j in range(i, min(len(text), i + 300))
                             if "</TASK>" in text[j] or "end trace" in text[j]),
                            i + 40)
                return "\n".join(text[max(0, i - 5):stop + 1])
            i = end + 1
        return leak

    def _known_report(self, text, i):
        """The index of the last line of a KERNEL_REPORTS report starting
        at text[i], or None.  Each one seen goes to KNOWN_SEEN once per
        occurrence."""
        for k in KERNEL_REPORTS:
            if not re.search(k["title"], text[i]):
                continue
            if k.get("end"):
                end = next((j for j in range(i + 1, min(len(text), i + 200))
                            if re.search(k["end"], text[j])), None)
            else:
                end = next((j for j in range(i, min(len(text), i + 200))
                            if "</TASK>" in text[j] or "end trace" in text[j]),
                           None)
            if end is None:
                # riscv64's and arm64's lockdep reports end with their
                # backtrace, one "[<addr>] func+off" line per frame
                ct = next((j for j in range(i, min(len(text), i + 200))
                           if "Call trace:" in text[j]
                           or "Call Trace:" in text[j]), None)
                if ct is not None:
                    end = ct
                    while end + 1 < len(text) and re.match(
                            r"\s*(\[<[0-9a-f]+>\] )?\S+\+0x[0-9a-f]+/0x",
                            text[end + 1]):
                        end += 1
            if end is None:
                continue
            body = "\n".join(text[i:end + 1])
            if all(f in body for f in k["frames"]) and \
                    not XDT_FRAME_RE.search(_without_history(body)):
                name = k["name"]
                if k.get("name_from_title"):
                    name += " (" + text[i].split("KCSAN: ", 1)[-1].strip() + ")"
                KNOWN_SEEN.append(f"{self.isa}: {name}: {k['why']}")
                return end
        return None

    def check_console(self):
        """Raise if the kernel reported a problem since the last check."""
        mark = self.console_mark()
        excerpt = self.oopses(self._checked)
        self._checked = mark
        excerpt = self.kmemleak_details(excerpt)
        if excerpt:
            raise XdtError(f"{self.isa}: kernel problem on the console:\n"
                           + excerpt)

    def kmemleak_details(self, excerpt):
        """kmemleak prints only a count on the console; what leaked, with
        its allocation stack, is in debugfs: appended to @excerpt (and
        cleared, so the next report is only what is new)."""
        if not excerpt or "kmemleak:" not in excerpt or \
                self.proc is None or self.proc.poll() is not None:
            return excerpt
        r = self.run("cat /sys/kernel/debug/kmemleak; "
                     "echo clear > /sys/kernel/debug/kmemleak",
                     timeout=120, watch=False)
        objs = [o for o in re.split(r"(?=^unreferenced object)", r.stdout,
                                    flags=re.M)
                if o.startswith("unreferenced object")]
        # a count alone (the excerpt is its line), every object of which is
        # a leak of the kernel's own, written down: named, not failed
        if objs and excerpt.strip() == excerpt.strip().splitlines()[0] and \
                KMEMLEAK_RE.search(excerpt) and \
                all(known_leak(o) for o in objs):
            for o in objs:
                k = known_leak(o)
                KNOWN_SEEN.append(f"{self.isa}: {k['name']}: {k['why']}")
            return None
        return excerpt + "\n--- /sys/kernel/debug/kmemleak ---\n" + \
            r.stdout[-6000:]

    # ---- agent ---------------------------------------------------------
    def _send(self, kind, payload):
        try:
            self.sock.sendall(kind + struct.pack("<I", len(payload)) + payload)
        except OSError as e:
            raise GuestGone(f"{self.isa}: agent connection lost ({e})\n"
                            + self.console_tail())

    def _recv_exact(self, n, deadline, what):
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise (BootTimeout if what == "boot" else XdtError)(
                    f"{self.isa}: no answer from the guest agent ({what})\n"
                    + self.console_tail())
            r, _, _ = select.select([self.sock], [], [], min(left, 1.0))
            if not r:
                if self.proc.poll() is not None:
                    self._console_eof()
                    raise GuestGone(f"{self.isa}: QEMU exited "
                                    f"({self.proc.returncode}) during {what}\n"
                                    + self.console_tail())
                continue
            try:
                chunk = self.sock.recv(n - len(buf))
            except OSError:
                chunk = b""
            if not chunk:
                raise self._gone(what)
            buf += chunk
        return buf

    def _gone(self, what):
        """The agent connection dropped: usually QEMU exited; say how."""
        try:
            rc = self.proc.wait(5)
            why = f"QEMU exited with status {rc} during {what}"
        except subprocess.TimeoutExpired:
            why = f"agent connection closed during {what}"
        else:
            self._console_eof()
        return GuestGone(f"{self.isa}: {why}\n" + self.console_tail())

    def _recv(self, deadline, what="command"):
        hdr = self._recv_exact(5, deadline, what)
        (n,) = struct.unpack("<I", hdr[1:])
        return hdr[:1], self._recv_exact(n, deadline, what) if n else b""

    def run(self, cmd, stdin=b"", timeout=60, on_output=None, check=False,
            watch=True):
        """Run @cmd (argv list, or a string for sh -c) in the guest.

        The guest kills the command at @timeout seconds and reports it as
        timed out; the host gives up only if the agent itself stops answering.
        With @watch, a kernel problem on the console since the last check
        raises XdtError (see check_console).
        """
        argv = ["sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        if isinstance(stdin, str):
            stdin = stdin.encode()
        timeout *= TIMEOUT_SCALE
        body = struct.pack("<II", int(timeout * 1000), len(argv))
        body += b"".join(a.encode() + b"\0" for a in argv)
        body += struct.pack("<I", len(stdin)) + stdin
        self._send(b"R", body)
        out, err = bytearray(), bytearray()
        deadline = time.monotonic() + timeout + 60
        while True:
            kind, payload = self._recv(deadline, what=f"running {argv!r}")
            if kind == b"O":
                out += payload
            elif kind == b"E":
                err += payload
            elif kind == b"X":
                how, code, wall = struct.unpack("<BiI", payload)
                break
            elif kind == b"H":
                continue
            else:
                raise XdtError(f"{self.isa}: unexpected frame {kind!r}")
            if on_output:
                on_output(kind == b"E", payload)
        res = Result(argv, HOW.get(how, str(how)), code, wall, bytes(out),
                     bytes(err))
        if watch:
            self.check_console()
        if check and not res.ok:
            raise XdtError(f"{self.isa}: {argv!r} failed ({res.how} "
                           f"{res.code})\nstdout:\n{res.stdout}\n"
                           f"stderr:\n{res.stderr}")
        return res

    def put(self, data, path, mode="644"):
        """Copy bytes (or a host file's contents) into the guest at @path."""
        if isinstance(data, str) and os.path.isfile(data):
            with open(data, "rb") as f:
                data = f.read()
        self.run(["sh", "-c", f'cat > "$0" && chmod {mode} "$0"', path],
                 stdin=data, check=True)

    def console_sync(self, timeout=30):
        """Wait until the serial console has caught up with the kernel log:
        a marker written to /dev/kmsg now is on the console after every
        message logged before it.  True once it is there; False if the guest
        or the console did not show it within @timeout (the caller then knows
        less, but nothing is wrong with the guest for that)."""
        if self.proc is None or self.proc.poll() is not None or not self.sock:
            return False
        self._syncs += 1
        tag = f"xdt-console-sync {os.getpid()}.{self._syncs}"
        mark = self.console_mark()
        try:
            r = self.run(["sh", "-c", 'echo "$0" > /dev/kmsg', tag],
                         timeout=timeout, watch=False)
        except XdtError:
            return False
        if not r.ok:
            return False
        deadline = time.monotonic() + timeout
        while tag not in self.console(mark):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    # ---- shutdown ------------------------------------------------------
    def poweroff(self, timeout=60):
        """Ask the guest to power off; return True if QEMU exited cleanly.
        QEMU is killed if it does not exit within @timeout or anything goes
        wrong meanwhile (including an interrupt)."""
        if self.proc is None or self.proc.poll() is not None:
            self._cleanup()
            return self.proc is not None and self.proc.returncode == 0
        try:
            self._send(b"P", b"")
            self.proc.wait(timeout)
        except (GuestGone, subprocess.TimeoutExpired):
            self.kill()
            return False
        except BaseException:
            self.kill()
            raise
        finally:
            self._cleanup()
        return self.proc.returncode == 0

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._cleanup()

    def _cleanup(self):
        if self._kgdb_srv:
            self._kgdb_srv.close()
            self._kgdb_srv = None
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.proc is None or self.proc.poll() is not None:
            _running.discard(self)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.poweroff()


# The host-side ELF facts and the debuggers, in their own files; every name
# stays reachable as xdtvm.<name>.
from xdtelf import *  # noqa: E402,F401,F403
from xdtelf import _elf64  # noqa: E402,F401
from xdtgdb import *  # noqa: E402,F401,F403
