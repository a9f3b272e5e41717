"""The debuggers: gdb on QEMU's gdbstub (reads, writes and disassembly of
guest kernel memory; what an fbt probe really wrote) and gdb on the guest
kernel's own kgdb stub.  tools/xdtvm.py re-exports it all.
"""
import re
import signal
import subprocess
import threading
import time

from xdtisa import FACTS, XDT_PATCH, XdtError  # noqa: F401
from xdtelf import vmlinux

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
