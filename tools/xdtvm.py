"""Boot xdt's Linux 6.1 guests under QEMU and drive them through the agent.

One module shared by the launcher (tools/xdt-vm), the pytest harness
(qemu-tests/) and the benches, so the per-ISA machine arguments live in one
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
import tomllib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME")
                     or os.path.expanduser("~/.cache"), "xdt")
# The kernel variant the guests boot (XDT_KVARIANT: "" for the normal
# kernels, "debug", "kcsan"; arch/variants/).  Its kernel trees and what is
# built against them live apart (tools/isa.sh, the Makefile).
KVARIANT = os.environ.get("XDT_KVARIANT", "")
# Guest command timeouts are written for the normal kernels; the debug
# kernels run several times slower under TCG (KASAN on every access, a
# stack saved at every allocation: insmod xdt.ko took over two minutes on
# aarch64's), so VM.run scales every timeout on a variant.
TIMEOUT_SCALE = float(os.environ.get("XDT_TIMEOUT_SCALE")
                      or (5 if KVARIANT else 1))


class XdtError(Exception):
    pass


class BootTimeout(XdtError):
    pass


class GuestGone(XdtError):
    pass


def _read_isas():
    isas = {}
    with open(os.path.join(TOP, "arch", "isas")) as f:
        for line in f:
            if line.startswith("#") or not line.split():
                continue
            name, adir, karch, cross, image, qemu, trapvec, tcg = \
                line.split()
            isas[name] = dict(dir=adir, karch=karch, cross=cross, image=image,
                              qemu=qemu, trapvec=trapvec, tcg=tcg)
    return isas


ISAS = _read_isas()


def _read_facts():
    """Each ISA's arch/<dir>/isa.toml: what the tools know of it (QEMU's
    machine, the patch and trap instructions, ftrace's sites, what kinst
    emulates), written once there for tools/ and bench/ alike."""
    facts = {}
    for name, i in ISAS.items():
        with open(os.path.join(TOP, "arch", i["dir"], "isa.toml"), "rb") as f:
            facts[name] = tomllib.load(f)
    return facts


FACTS = _read_facts()


def check_isa(isa):
    if isa not in ISAS:
        raise XdtError(f"unknown ISA '{isa}'; valid ISAs: {', '.join(ISAS)}")
    return ISAS[isa]


def kernel_dir(isa):
    """The cached kernel build tree for @isa (built by tools/build-kernel.sh)."""
    check_isa(isa)
    d = os.path.join(CACHE, "kernel", KVARIANT, f"{isa}.current")
    if not os.path.isfile(os.path.join(d, ".xdt-done")):
        v = f"XDT_KVARIANT={KVARIANT} " if KVARIANT else ""
        raise XdtError(f"no {KVARIANT + ' ' if KVARIANT else ''}kernel built "
                       f"for {isa} (run: make {v}kernels)")
    return os.path.realpath(d)


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


# What xdt writes at an fbt entry site, for gdb checks: the site's offset
# from the function's start (arm64 patches ftrace's NOP, the second word),
# the breakpoint's bytes in memory, and gdb's mnemonic for it.  arm64's BRK
# carries xdt's own immediate, 0xd7 (arch/aarch64/isa.h).
XDT_PATCH = {isa: (f["patch"]["offset"], bytes.fromhex(f["patch"]["bytes"]),
                  f["patch"]["mnemonic"]) for isa, f in FACTS.items()}

# Any kernel breakpoint instruction of the ISA (xdt's, kprobes', kgdb's), as
# (mask, value) over the little-endian word at a PC: bench/stepprof.py
# lets such an instruction run instead of single-stepping it (QEMU's
# gdbstub loses an x86 int3 it single-steps) and resumes at the trap
# vector (arch/isas' trapvec).
TRAP_INSNS = {isa: [tuple(t) for t in f["patch"]["traps"]]
              for isa, f in FACTS.items()}

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
# order came to be ("-> #1" and deeper: whoever took the usual order first).
XDT_FRAME_RE = re.compile(r"\[xdt\]|\bxdt_\w+\+0x")


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
]
KNOWN_SEEN = []


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
        except BaseException:
            self.kill()
            raise
        self.boot_seconds = time.monotonic() - t0
        return self

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
        out = self.proc.stdout
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
            self._log.write(chunk)
            self._log.flush()
            if self.echo_console:
                sys.stderr.buffer.write(chunk)
                sys.stderr.buffer.flush()
        self._log.close()

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
        i = 0
        while i < len(text):
            if not OOPS_RE.search(text[i]):
                i += 1
                continue
            if self.expect_alloc_failures and any(
                    ALLOC_FAIL_RE.search(c) for c in text[max(0, i - 10):i + 1]):
                i += 1
                continue
            end = self._known_report(text, i)
            if end is None:
                return "\n".join(text[max(0, i - 5):i + 40])
            i = end + 1
        return None

    def _known_report(self, text, i):
        """The index of the last line of a KERNEL_REPORTS report starting
        at text[i], or None.  Each one seen goes to KNOWN_SEEN once per
        occurrence."""
        for k in KERNEL_REPORTS:
            if not re.search(k["title"], text[i]):
                continue
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
                KNOWN_SEEN.append(f"{self.isa}: {k['name']}: {k['why']}")
                return end
        return None

    def check_console(self):
        """Raise if the kernel reported a problem since the last check."""
        mark = self.console_mark()
        excerpt = self.oopses(self._checked)
        self._checked = mark
        if excerpt:
            raise XdtError(f"{self.isa}: kernel problem on the console:\n"
                           + self.kmemleak_details(excerpt))

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


# ---- host-side kernel facts ---------------------------------------------

def vmlinux(isa):
    return os.path.join(kernel_dir(isa), "vmlinux")


def _elf64(path):
    """(file bytes, section headers) of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise XdtError(f"{path}: not an ELF64 little-endian file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    # (name, type, flags, addr, offset, size, link, info, align, entsize)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    return data, secs


def _elf_symbols(data, secs):
    """Yield (name, st_info, st_shndx, value) for every .symtab entry."""
    for s in secs:
        if s[1] != 2:           # SHT_SYMTAB
            continue
        stroff = secs[s[6]][4]
        for off in range(s[4] + 24, s[4] + s[5], 24):
            name, info, _, shndx, value, _ = struct.unpack_from(
                "<IBBHQQ", data, off)
            end = data.index(b"\0", stroff + name)
            yield data[stroff + name:end], info, shndx, value


# Symbols scripts/kallsyms leaves out: ELF mapping symbols ($x, $d), local
# labels, export-table bookkeeping and absolute symbols.
_KALLSYMS_SKIP = (b"$", b".L", b"__kstrtab_", b"__kstrtabns_", b"__crc_",
                  b"__efistub_", b"__kvm_nvhe_")


def elf_symbol_count(path):
    """vmlinux .symtab entries that kallsyms would carry."""
    data, secs = _elf64(path)
    return sum(1 for name, info, shndx, _ in _elf_symbols(data, secs)
               if name and info & 0xf in (0, 1, 2) and shndx != 0xfff1
               and not name.startswith(_KALLSYMS_SKIP))


def elf_function_sizes(path):
    """{name: size} of the FUNC symbols of an ELF64 LE file."""
    data, secs = _elf64(path)
    sizes = {}
    for s in secs:
        if s[1] != 2:           # SHT_SYMTAB
            continue
        stroff = secs[s[6]][4]
        for off in range(s[4] + 24, s[4] + s[5], 24):
            name, info, _, _, _, size = struct.unpack_from("<IBBHQQ", data,
                                                           off)
            if info & 0xf == 2:
                end = data.index(b"\0", stroff + name)
                sizes[data[stroff + name:end].decode()] = size
    return sizes


def elf_symbol_bytes(path, symbol, length):
    """(address, bytes) at function @symbol in an ELF64 LE file."""
    data, secs = _elf64(path)
    addr = next((v for name, info, _, v in _elf_symbols(data, secs)
                 if name == symbol.encode() and info & 0xf == 2), None)
    if addr is None:
        raise XdtError(f"{path}: no function symbol {symbol}")
    for s in secs:
        if s[1] == 1 and s[3] <= addr < s[3] + s[5]:   # SHT_PROGBITS
            off = s[4] + addr - s[3]
            return addr, data[off:off + length]
    raise XdtError(f"{path}: {symbol} at {addr:#x} is in no PROGBITS section")


def function_body(isa, obj, func):
    """@func's disassembly in object @obj (objdump -d, one line per
    instruction), up to the next symbol; local labels (.LFB*, .LVL*: riscv
    keeps them as symbols in objects built with -g) do not end it."""
    cross = ISAS[isa]["cross"]
    objdump = shutil.which(f"{cross}objdump") or "objdump"
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    lines = []
    for line in out.split(f"<{func}>:\n", 1)[1].splitlines():
        if re.match(r"[0-9a-f]+ <\.L[^>]*>:$", line) or not line.strip():
            continue
        if re.match(r"[0-9a-f]+ <[^>]*>:$", line):
            break
        lines.append(line)
    return "\n".join(lines)


def first_body_insn(isa, obj, func):
    """(offset, disassembly) of @func's first instruction after the
    ftrace/patchable-entry site and landing pads, in object @obj: where an
    instruction probe lands on straight-line code run once per call."""
    body = function_body(isa, obj, func)
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        off, mnem = int(m.group(1), 16), m.group(2)
        ft = FACTS[isa]["ftrace"]
        if mnem in ft["entry_pads"] or (
                ft["entry_call"] and mnem == "call" and off == 0):
            continue
        return off, line.split(":", 1)[1].strip()
    raise XdtError(f"no body instruction in {func}:\n{body}")


# ftrace_init() rewrites every function's compiler-emitted patch site at boot,
# so live text differs from vmlinux there and only there.  This is the site
# xdt's fbt entry probe will meet first: (vmlinux bytes, boot-time bytes).
# (linked bytes or None, boot-time bytes): arch/<dir>/isa.toml [ftrace].
FTRACE_BOOT_REWRITE = {
    isa: (None if f["ftrace"]["entry_call"] else
          bytes.fromhex(f["ftrace"]["linked"]), bytes.fromhex(f["ftrace"]["boot"]))
    for isa, f in FACTS.items()}


def ftrace_boot_bytes(isa, vmlinux, addr, disk):
    """What ftrace_init() leaves at @addr, given the linked bytes @disk."""
    before, after = FTRACE_BOOT_REWRITE[isa]
    if FACTS[isa]["ftrace"]["entry_call"]:
        # the linked site is `call __fentry__` (x86_64: e8 and a rel32)
        if disk[0] != 0xe8:
            raise XdtError(f"vmlinux: no call at entry: {disk.hex(' ')}")
        rel = int.from_bytes(disk[1:5], "little", signed=True)
        fentry, _ = elf_symbol_bytes(vmlinux, "__fentry__", 1)
        if addr + 5 + rel != fentry:
            raise XdtError("entry call is not to __fentry__")
        before = disk[:5]
    if not disk.startswith(before):
        raise XdtError(f"vmlinux entry {disk.hex(' ')} is not the ftrace "
                       f"site {before.hex(' ')}")
    return after + disk[len(before):]


def gdb_batch(port, commands, timeout=60, vmlinux=None):
    """Run gdb-multiarch in batch mode against a gdbstub; return its stdout.
    With @vmlinux, gdb has the kernel's symbols (and DWARF, if built in)."""
    argv = ["gdb-multiarch", "-nx", "-batch", *([vmlinux] if vmlinux else []),
            "-ex", "set pagination off",
            "-ex", "set confirm off",
            "-ex", f"target remote 127.0.0.1:{port}"]
    for c in commands:
        argv += ["-ex", c]
    argv += ["-ex", "detach"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise XdtError(f"gdb failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p.stdout


def _gdb_in_kernel(port, command, ok, vmlinux=None):
    """Run @command in gdb until @ok(output): gdb translates addresses
    through the MMU state of the vCPU it stopped in, and a riscv64 vCPU
    caught inside OpenSBI (M-mode: an SBI call, or a hart parked by CPU
    hotplug) has no kernel mapping, so the read comes back empty.  Each
    vCPU is tried in turn, a few rounds (each attach stops them somewhere
    else).  Returns the last output."""
    out = ""
    for _ in range(4):
        for thread in (1, 2):
            out = gdb_batch(port, [f"thread {thread}", command],
                            vmlinux=vmlinux)
            if ok(out):
                return out
    return out


def _gdb_bytes(out):
    # Lines look like "0xffff... <sym+8>:\t0x1f\t0x44 ..."; bytes follow tabs.
    return bytes(int(v, 16) for v in re.findall(r"\t0x([0-9a-f]{2})\b", out))


def gdb_read(port, addr, length):
    """Read @length bytes of guest virtual memory at @addr through gdb."""
    out = _gdb_in_kernel(port, f"x/{length}xb {addr:#x}",
                         lambda o: len(_gdb_bytes(o)) == length)
    got = _gdb_bytes(out)
    if len(got) != length:
        raise XdtError(f"gdb read {len(got)} of {length} bytes at {addr:#x}:"
                       f"\n{out}")
    return got


def gdb_write(port, addr, data):
    """Write @data into guest virtual memory at @addr through gdb (the
    gdbstub writes past the text's read-only mapping, as a hardware
    debugger would), and read it back; each vCPU in turn, as
    _gdb_in_kernel does."""
    sets = [f"set {{unsigned char}}{addr + i:#x} = {b:#x}"
            for i, b in enumerate(data)]
    out = ""
    for _ in range(4):
        for thread in (1, 2):
            out = gdb_batch(port, [f"thread {thread}", *sets,
                                   f"x/{len(data)}xb {addr:#x}"])
            if _gdb_bytes(out) == bytes(data):
                return
    raise XdtError(f"gdb could not write {len(data)} bytes at {addr:#x}:"
                   f"\n{out}")


def gdb_read_many(port, ranges):
    """Read each (addr, length) of @ranges in one gdb session (one attach
    instead of one per range: a test comparing the text of dozens of
    functions before and after tracing spent most of its time starting
    gdb).  Returns a list of bytes in the same order.  Like gdb_read, a
    range read empty (a riscv64 vCPU caught in OpenSBI) is tried again
    from the other vCPU, a few rounds."""
    got = [None] * len(ranges)
    out = ""
    for _ in range(4):
        for thread in (1, 2):
            todo = [i for i, g in enumerate(got) if g is None]
            if not todo:
                return got
            cmds = [f"thread {thread}"]
            for i in todo:
                a, n = ranges[i]
                cmds += [f"echo @@xdt {i}\\n", f"x/{n}xb {a:#x}"]
            out = gdb_batch(port, cmds, timeout=60 + len(todo))
            parts = re.split(r"^@@xdt (\d+)$", out, flags=re.M)
            for k in range(1, len(parts) - 1, 2):
                i = int(parts[k])
                b = _gdb_bytes(parts[k + 1])
                if len(b) == ranges[i][1]:
                    got[i] = b
    if any(g is None for g in got):
        bad = [ranges[i] for i, g in enumerate(got) if g is None]
        raise XdtError(f"gdb could not read {len(bad)} ranges, first "
                       f"{bad[0][0]:#x}+{bad[0][1]}:\n{out[-2000:]}")
    return got


def gdb_disassemble(port, addr, count, vmlinux=None):
    # An instruction follows the "<sym+off>:" tab; a failed read leaves
    # "[Inferior 1 ... detached]" there.
    return _gdb_in_kernel(port, f"x/{count}i {addr:#x}",
                          lambda o: re.search(r">:\t(?!\[Inferior)\S", o),
                          vmlinux=vmlinux)


class Gdb:
    """gdb-multiarch in batch mode on a running guest's gdbstub, with kernel
    symbols resolved through the guest's own /proc/kallsyms (so module
    symbols work too) and vmlinux loaded for gdb's annotations."""

    def __init__(self, vm):
        if not vm.gdb_port:
            raise XdtError(f"{vm.isa}: guest was started without a gdbstub")
        self.vm = vm
        self.vmlinux = vmlinux(vm.isa)

    def addr(self, symbol):
        out = self.vm.run(["grep", "-m1", f" {symbol}$", "/proc/kallsyms"]).stdout
        if not out:
            raise XdtError(f"{self.vm.isa}: {symbol} not in /proc/kallsyms")
        return int(out.split()[0], 16)

    def read(self, where, length):
        a = self.addr(where) if isinstance(where, str) else where
        return gdb_read(self.vm.gdb_port, a, length)

    def write(self, where, data):
        a = self.addr(where) if isinstance(where, str) else where
        gdb_write(self.vm.gdb_port, a, data)

    def disassemble(self, where, count):
        a = self.addr(where) if isinstance(where, str) else where
        return gdb_disassemble(self.vm.gdb_port, a, count, vmlinux=self.vmlinux)

    def addrs(self, symbols):
        """{symbol: address} for many symbols, one read of kallsyms."""
        want = set(symbols)
        out = self.vm.run(["cat", "/proc/kallsyms"], timeout=120).stdout
        found = {}
        for ln in out.splitlines():
            f = ln.split()
            if len(f) >= 3 and f[2] in want and f[2] not in found:
                found[f[2]] = int(f[0], 16)
        missing = want - set(found)
        if missing:
            raise XdtError(f"{self.vm.isa}: not in /proc/kallsyms: "
                           f"{sorted(missing)[:5]}")
        return found

    def read_many(self, sizes):
        """{symbol: bytes} for {symbol: length}: every read in one gdb."""
        names = list(sizes)
        at = self.addrs(names)
        got = gdb_read_many(self.vm.gdb_port,
                            [(at[n], sizes[n]) for n in names])
        return dict(zip(names, got))


def fbt_entry_written(isa, mech, before, during):
    """Whether @during (bytes at a function's entry while fbt's entry probe
    is in) is what mechanism @mech writes over @before, and nothing else:
    the ISA's breakpoint at its patch offset (XDT_PATCH), or for ftrace and
    xdt's trampoline a call at the ftrace site (arch/<dir>/isa.toml
    [ftrace] call: x86_64 `call` (e8) at +0, arm64 `bl` at +4, riscv64
    `auipc t0` at +0 with its jalr at +4)."""
    off, patch, _ = XDT_PATCH[isa]
    if mech == "breakpoint":
        return during[off:off + len(patch)] == patch and \
            during[:off] + during[off + len(patch):] == \
            before[:off] + before[off + len(patch):]
    if mech not in ("ftrace", "trampoline"):
        return False
    (at, mask, value), n = FACTS[isa]["ftrace"]["call"], \
        FACTS[isa]["ftrace"]["call_len"]
    w = int.from_bytes(during[at:at + 4], "little")
    return w & mask == value and during[:at] == before[:at] and \
        during[at + n:] == before[at + n:]


def fbt_patch_view(vm, gdb, func, mode=None, ninsn=3, timeout=300):
    """What fbt::@func:entry really writes, as gdb on QEMU's gdbstub sees
    it: dtrace enables the probe (under -x fbtmode=@mode, or the default
    mechanism) and holds it in with a gated -c command -- the bytes are
    read once the command runs, which dtrace starts only after GO, so no
    sleep has to outlast the enabling however slow the host.  Returns a
    dict: before/during/after (16 bytes each), mech (the mechanism
    `dtrace -l -v` says is in use), dis (gdb's x/@ninsn i while it is in)
    and problems (a list, empty when the probe wrote exactly what its
    mechanism writes and the original came back)."""
    addr = gdb.addr(func)
    before = gdb.read(addr, 16)
    vm.run(["rm", "-f", "/tmp/pv.started", "/tmp/pv.go", "/tmp/pv.out"],
           check=True)
    vm.put(b"touch /tmp/pv.started\n"
           b"while [ ! -e /tmp/pv.go ]; do sleep 0.1; done\n",
           "/tmp/pv.sh", mode="755")
    opt = f"-x fbtmode={mode} " if mode else ""
    vm.run(f"dtrace {opt}-qn 'fbt::{func}:entry {{ @ = count(); }}' "
           "-c 'sh /tmp/pv.sh' > /tmp/pv.out 2>&1 &", check=True)
    try:
        r = vm.run("while [ ! -e /tmp/pv.started ]; do "
                   "pidof dtrace >/dev/null || exit 3; sleep 0.1; done",
                   timeout=timeout)
        if not r.ok:
            raise XdtError(f"{vm.isa}: dtrace ended before fbt::{func}:entry "
                           "was in: " + vm.run(["cat", "/tmp/pv.out"]).stdout)
        during = gdb.read(addr, 16)
        dis = gdb.disassemble(addr, ninsn)
        lv = vm.run(["dtrace", "-l", "-v", "-n", f"fbt::{func}:entry"],
                    timeout=timeout).stdout
    finally:
        vm.run(["touch", "/tmp/pv.go"])
    vm.run("while pidof dtrace >/dev/null; do sleep 0.2; done",
           timeout=timeout, check=True)
    after = gdb.read(addr, 16)
    m = re.search(r"in use: (\w+)", lv)
    mech = m.group(1) if m else None
    problems = []
    if mech is None:
        problems.append("dtrace -l -v names no mechanism in use:\n" + lv)
    elif mode and mech != mode:
        problems.append(f"asked for {mode}, dtrace -l -v says {mech} is in use")
    if during == before:
        problems.append(f"nothing changed at {func} while the probe was in")
    elif mech and not fbt_entry_written(vm.isa, mech, before, during):
        problems.append(f"the bytes at {func} are not what {mech} writes")
    if after != before:
        problems.append(f"the original bytes of {func} did not come back")
    return dict(addr=addr, before=before, during=during, after=after,
                mech=mech, dis=dis, problems=problems)


# ---- kgdb: gdb on the guest kernel's own debugger stub ---------------------

# What sysrq-g prints as the kernel enters kgdb (drivers/tty/sysrq.c's
# "DEBUG" action message).
KGDB_ENTERED = "sysrq: DEBUG"


class Kgdb:
    """gdb-multiarch with the vmlinux's symbols, attached to the guest
    kernel's kgdb stub through the VM's kgdb port (not QEMU's gdbstub).

    The kernel is stopped only while kgdb has it: enter() stops it (sysrq-g
    from a background guest process), attach() connects gdb, cmd() runs a
    gdb command and returns its output, resume() lets the kernel run (gdb
    `continue`, which returns when the kernel stops again: a breakpoint, or
    the next enter()), detach() lets it go for good.  Every command and its
    output is kept in .transcript."""

    def __init__(self, vm, gdb="gdb-multiarch", port=None):
        # @port: another gdb remote port instead, e.g. QEMU's gdbstub
        # (vm.gdb_port), to drive the same commands from outside the guest.
        if not (port or vm.kgdb_port):
            raise XdtError(f"{vm.isa}: guest was started without kgdb")
        self.vm, self.gdb = vm, gdb
        self.port = port or vm.kgdb_port
        self.proc = None
        self.transcript = []
        self._buf = bytearray()
        self._cv = threading.Condition()
        self._n = 0
        self._pending = None

    # -- the kernel side
    def enter(self, timeout=60):
        """Stop the kernel in kgdb: a guest process writes 'g' to
        /proc/sysrq-trigger (and stays there until kgdb lets go), so the
        agent call returns first; then wait for the sysrq message."""
        mark = self.vm.console_mark()
        self.vm.run("(sleep 0.3; echo g > /proc/sysrq-trigger) "
                    "</dev/null >/dev/null 2>&1 &", timeout=30, watch=False)
        deadline = time.monotonic() + timeout
        while KGDB_ENTERED not in self.vm.console(mark):
            if self.vm.proc.poll() is not None or time.monotonic() > deadline:
                raise XdtError(f"{self.vm.isa}: kernel did not enter kgdb\n"
                               + self.vm.console_tail())
            time.sleep(0.05)
        # kgdb rounds up the other CPUs and polls the UART from here on.
        time.sleep(0.3)

    def trigger(self, cmd):
        """Run @cmd in the guest in the background (it may stop the kernel
        in kgdb, so the agent must not wait for it: it starts once the
        agent has answered)."""
        self.vm.run(f"(sleep 0.3; {cmd}) </dev/null >/dev/null 2>&1 &",
                    timeout=30,
                    watch=False)

    # -- gdb
    def attach(self, timeout=120):
        argv = [self.gdb, "-q", "-nx", vmlinux(self.vm.isa),
                "-ex", "set pagination off", "-ex", "set confirm off",
                "-ex", "set width 0", "-ex", "set height 0",
                # A TCG guest answers slowly, and the round-up of the other
                # CPUs takes a while on the first packet.
                "-ex", "set remotetimeout 60"]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        threading.Thread(target=self._pump, daemon=True).start()
        return self.cmd(f"target remote 127.0.0.1:{self.port}",
                        timeout=timeout)

    def _pump(self):
        while True:
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                break
            with self._cv:
                self._buf += chunk
                self._cv.notify_all()
        with self._cv:
            self._cv.notify_all()

    def send(self, command):
        """Start @command; wait() collects its output."""
        if self._pending is not None:
            raise XdtError("gdb: a command is still running")
        self._n += 1
        marker = f"@@xdt-kgdb-{self._n}@@"
        self.proc.stdin.write(f"{command}\necho \\n{marker}\\n\n".encode())
        self.proc.stdin.flush()
        self._pending = (command, marker)

    def wait(self, timeout=120):
        command, marker = self._pending
        deadline = time.monotonic() + timeout
        with self._cv:
            while marker.encode() not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None
                                 and marker.encode() not in self._buf):
                    self._pending = None
                    raise XdtError(f"{self.vm.isa}: gdb over kgdb: no answer "
                                   f"to {command!r}:\n"
                                   + self._buf.decode(errors="replace")[-2000:]
                                   + "\n" + self.vm.console_tail())
                self._cv.wait(min(left, 1.0))
            i = self._buf.index(marker.encode())
            out = self._buf[:i].decode(errors="replace")
            del self._buf[:i + len(marker) + 1]
        self._pending = None
        # gdb prints its prompt even on a pipe; it is noise here.
        out = out.replace("(gdb) ", "").strip("\n")
        self.transcript.append((command, out))
        return out

    def ready(self):
        """Has the running command (send()) finished?"""
        with self._cv:
            return (self._pending is not None
                    and self._pending[1].encode() in self._buf)

    def cmd(self, command, timeout=120):
        self.send(command)
        return self.wait(timeout)

    def interrupt(self):
        """^C to gdb: it stops the target (QEMU's gdbstub honours it; kgdb
        over kgdboc cannot see it while the kernel runs, use enter())."""
        self.proc.send_signal(signal.SIGINT)

    def resume(self):
        """`continue`: the kernel runs until it next stops in kgdb; wait()
        returns gdb's stop report."""
        self.send("continue")

    def read(self, addr, length):
        """Bytes at @addr as gdb shows them (gdb hides its own inserted
        breakpoints behind their shadow contents)."""
        out = self.cmd(f"x/{length}xb {addr:#x}")
        got = _gdb_bytes(out)
        if len(got) != length:
            raise XdtError(f"kgdb read {len(got)} of {length} bytes at "
                           f"{addr:#x}:\n{out}")
        return got

    def raw_read(self, addr, length):
        """Bytes at @addr exactly as kgdb returns them (an 'm' packet sent
        with `maintenance packet`, past gdb's breakpoint shadows)."""
        out = self.cmd(f"maintenance packet m{addr:x},{length:x}")
        m = re.search(r'received: "([0-9a-fA-F]*)"', out)
        if not m or len(m.group(1)) != 2 * length:
            raise XdtError(f"kgdb m packet at {addr:#x}:\n{out}")
        return bytes.fromhex(m.group(1))

    def detach(self, timeout=120):
        """Let the kernel go (kgdb removes every breakpoint on 'D') and end
        gdb."""
        out = ""
        if self.proc and self.proc.poll() is None:
            try:
                out = self.cmd("detach", timeout=timeout)
            finally:
                self.close()
        return out

    def close(self):
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
