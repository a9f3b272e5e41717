"""The lab's configuration and each ISA's facts, for every tool: where the
tree and the cache are, which kernel variant runs, arch/isas and
arch/<dir>/isa.toml.  Imports nothing of xdt's, so xdtelf and xdtgdb can
build on it; tools/xdtvm.py re-exports it all.
"""
import os
import re
import tomllib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where make puts what it builds: XDT_CACHE, as the Makefile reads it (a
# second cache for a second tree must reach the tests too, not the first's
# binaries), else $XDG_CACHE_HOME/xdt.
CACHE = os.environ.get("XDT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "xdt")
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
            name, adir, karch, cross, image, qemu, trapvec, tcg, iset = \
                line.split()
            isas[name] = dict(dir=adir, karch=karch, cross=cross, image=image,
                              qemu=qemu, trapvec=trapvec, tcg=tcg, set=iset)
    return isas


# Every ISA of the table, each valid wherever an ISA is named.
ISAS = _read_isas()
# The ISAs taken when XDT_ISAS names none (arch/isas' set column): a port
# under way is "opt-in" and stays out of the default runs until it passes.
DEFAULT_ISAS = [i for i, r in ISAS.items() if r["set"] == "default"]


def env_isas():
    """The ISAs XDT_ISAS names (make's ISAS), else the default set: what
    the guest tests boot and the benches measure."""
    raw = os.environ.get("XDT_ISAS", "").replace(",", " ").split()
    return raw or list(DEFAULT_ISAS)


# What the host tests parametrize over: the default set, plus an opt-in
# ISA when XDT_ISAS names it (naming x86_64 alone keeps the host checks of
# all three, as before the set column: they need no guest).
HOST_ISAS = DEFAULT_ISAS + [i for i in env_isas()
                            if i in ISAS and i not in DEFAULT_ISAS]


def _read_facts():
    """Each ISA's arch/<dir>/isa.toml: what the tools know of it (QEMU's
    machine, the patch and trap instructions, ftrace's sites, the bench's
    and gdb's names), written once there for tools/ and bench/ alike.
    What kinst does at an instruction is not here: kinst says it per probe
    (`dtrace -l -v`), and the bench asks it."""
    facts = {}
    for name, i in ISAS.items():
        with open(os.path.join(TOP, "arch", i["dir"], "isa.toml"), "rb") as f:
            facts[name] = tomllib.load(f)
    return facts


FACTS = _read_facts()


def _have_tramp(isa):
    """isa.h's XDT_HAVE_TRAMP, read where the module reads it: whether
    fbtmode=trampoline exists on @isa (elsewhere dtrace falls back to
    the breakpoint: providers/fbt.c)."""
    with open(os.path.join(TOP, "arch", ISAS[isa]["dir"], "isa.h")) as f:
        m = re.search(r"^#define\s+XDT_HAVE_TRAMP\s+([01])\b", f.read(),
                      re.M)
    if not m:
        raise XdtError(f"arch/{ISAS[isa]['dir']}/isa.h: no XDT_HAVE_TRAMP")
    return m.group(1) == "1"


HAVE_TRAMP = {isa: _have_tramp(isa) for isa in ISAS}


def no_tramp_reason(isa):
    """Why fbtmode=trampoline cannot be tested on @isa, or None."""
    if HAVE_TRAMP[isa]:
        return None
    return (f"{isa} has no fbtmode=trampoline yet (arch/"
            f"{ISAS[isa]['dir']}/isa.h XDT_HAVE_TRAMP 0)")


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


def cpp_defines(isa):
    """C initializers of the -D options dtrace -C predefines on @isa
    (isa.toml [d]), for the Makefile's build of libxdt; none for a
    machine xdt has no port for."""
    if isa not in FACTS:
        return ""
    return "".join(f'"-D{m}",' for m in FACTS[isa]["d"]["cpp_predefined"])


def uhold(isa):
    """The C initializer of the instruction dtrace -c writes at a dynamic
    command's entry point to stop it there (isa.toml [user] hold), for
    the Makefile's build of libxdt; empty for a machine xdt has no port
    for (the command is then not held: its libraries come later)."""
    if isa not in FACTS:
        return ""
    return "".join(f"0x{b:02x}," for b in
                   bytes.fromhex(FACTS[isa]["user"]["hold"]))


def guest_dynlibs(isa):
    """SRC:DST of the dynamic userland the guests carry for xdt's
    dynamically linked test programs: Debian's loader at the PT_INTERP
    its programs name, libc in the multiarch directory the loader
    searches ([debian] interp, triplet), each found by the ISA's cross
    compiler (Debian's cross libc packages; the host's own for x86_64).
    glibc 2.34+ has dlopen() and threads in libc: nothing else."""
    import subprocess
    deb = FACTS[isa]["debian"]
    cc = ISAS[isa]["cross"] + "gcc"

    def find(name):
        p = subprocess.run([cc, f"-print-file-name={name}"], check=True,
                           capture_output=True, text=True).stdout.strip()
        if not os.path.isabs(p):
            raise XdtError(f"{cc} does not find {name} (Debian's cross "
                           "libc package missing?)")
        return os.path.realpath(p)
    return [f"{find(deb['loader'])}:{deb['interp']}",
            f"{find('libc.so.6')}:/lib/{deb['triplet']}/libc.so.6"]


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "cpp-defines":
        print(cpp_defines(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "uhold":
        print(uhold(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "guest-dynlibs":
        print(" ".join(guest_dynlibs(sys.argv[2])))
    else:
        sys.exit("usage: xdtisa.py cpp-defines|uhold|guest-dynlibs ISA")
