#!/usr/bin/env python3
"""bpftrace as a benchmark peer of dtrace (bench/bpftrace.md):
`make bench-bpftrace`.

Debian's bpftrace package (0.17 in bookworm) for the guest's ISA, with the
shared libraries it needs (glibc's loader included), goes onto a second
virtio disk of the x86_64 guest (/dev/vdb, mounted read-only at
/opt/bpftrace).  The disk image is built once per set of package versions
under ~/.cache/xdt/bpftrace/ (apt-get --download-only into a project-local
apt directory, never the system's; dpkg-deb -x; the DT_NEEDED closure of
/usr/bin/bpftrace; mke2fs -d).

Then, on the bench module's xdt_bench_target (the debugfs trigger calls
it N times: bench/benchlib.py's Bench), for each tool row:

    bpftrace-kprobe   bpftrace -e 'kprobe:f { @ = count(); }'
    bpftrace-fentry   bpftrace -e 'fentry:f { @ = count(); }'
    dtrace            dtrace -n 'fbt::f:entry { @ = count(); }'
    dtrace-tramp      the same with -x fbtmode=trampoline
    dtrace-ftrace     the same with -x fbtmode=ftrace

and, in a second table, user-space probes on ucall_target() of
bench/ucall-loop.c (the loop run as the tool's -c command):

    bpftrace-uprobe / -uretprobe / -usdt   uprobe:, uretprobe:, usdt:
    dtrace-pid-entry / -return / -usdt     pid$target::..., xdt_bench$target

beside the uprobe + BPF references of `make bench` on the same sites

(each kernel row run as `TOOL ... -c 'sh /tmp/bt-trig.sh'`, so the trigger runs while
the probe is attached and the tool prints its count when it ends):

1. instructions per firing: an -icount shift=0,sleep=off boot (guest
   clock == instructions), (I_row - I_none) / N over the module's timed
   loop; the tool's printed count must equal N and the module's `calls`
   delta too, else the sample is a failure;
2. TCG ns per firing: a timing boot, rows interleaved (shuffled per round,
   fixed seed), (median t_row - median t_none) / N;
3. attach time (timing boot): with a shell loop calling the function
   continuously (`echo 1 > trigger` without a fork, tens of microseconds
   apart), CLOCK_MONOTONIC read in the guest just before the tool is
   exec'd, to the probe's own timestamp of its first firing (bpftrace
   `nsecs`, D `timestamp`: both ktime_get_mono_fast_ns), with a program
   that prints that timestamp and exits; the first run of each tool (cold
   page cache for bpftrace's 200 MB of libraries) is reported apart;
4. resident memory: VmRSS and VmHWM of the tool's process, read from
   /proc/<tool pid>/status by the -c command after the trigger, while the
   probe is attached.

Output: bench/results/bpftrace-<timestamp>/{results.json,table.md}.

    bench/bpftrace.py [--quick] [--isa x86_64] [--rounds R] [--out DIR]
"""
import argparse
import glob
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "bench"))
import xdtvm  # noqa: E402
import benchlib  # noqa: E402
import benchreport  # noqa: E402

TARGET = benchlib.TARGET
DBG = benchlib.DBG
MNT = "/opt/bpftrace"
BT = f"{MNT}/bpftrace"          # the wrapper script on the disk
CACHE = os.path.join(xdtvm.CACHE, "bpftrace")

# Debian's name of each ISA, and the loader its glibc installs.
# Debian's names (arch/<dir>/isa.toml [debian])
DEB_ARCH = {isa: f["debian"]["arch"] for isa, f in xdtvm.FACTS.items()}
LOADER = {isa: f["debian"]["loader"] for isa, f in xdtvm.FACTS.items()}
TRIPLET = {isa: f["debian"]["triplet"] for isa, f in xdtvm.FACTS.items()}
# Bump when the image changes in a way the package versions do not show.
RECIPE = 1

# (name, tool, program, dtrace options).  The order is the table's.
ROWS = [
    ("none", None, None, None),
    ("bpftrace-kprobe", "bpftrace", f"kprobe:{TARGET} {{ @ = count(); }}",
     None),
    ("bpftrace-fentry", "bpftrace", f"fentry:{TARGET} {{ @ = count(); }}",
     None),
    ("dtrace", "dtrace", f"fbt::{TARGET}:entry {{ @ = count(); }}", None),
    ("dtrace-bp", "dtrace", f"fbt::{TARGET}:entry {{ @ = count(); }}",
     "fbtmode=breakpoint"),
    ("dtrace-tramp", "dtrace", f"fbt::{TARGET}:entry {{ @ = count(); }}",
     "fbtmode=trampoline"),
    ("dtrace-ftrace", "dtrace", f"fbt::{TARGET}:entry {{ @ = count(); }}",
     "fbtmode=ftrace"),
]
DESCR = {
    "none": "no tracer (the trigger alone)",
    "bpftrace-kprobe": f"`bpftrace -e 'kprobe:{TARGET} {{ @ = count(); }}'`",
    "bpftrace-fentry": f"`bpftrace -e 'fentry:{TARGET} {{ @ = count(); }}'`",
    "dtrace": f"`dtrace -n 'fbt::{TARGET}:entry {{ @ = count(); }}'` "
              "(default mechanism)",
    "dtrace-bp": "the same, `-x fbtmode=breakpoint`",
    "dtrace-tramp": "the same, `-x fbtmode=trampoline`",
    "dtrace-ftrace": "the same, `-x fbtmode=ftrace`",
}
# User-space rows (issue 34): ucall_target() of bench/ucall-loop.c, called
# N times by the loop itself, the tool started with `-c 'ucall-loop N'`
# (dtrace's pid and USDT providers need the process as $target; bpftrace
# attaches by path and runs the same command), each beside the uprobe +
# BPF count on the same site (benchlib's variants, the same bpf() program
# `make bench` uses).  Their baseline is the loop alone, "u-none"; their
# time is the loop's own CLOCK_MONOTONIC (benchlib's "@uc" line).  No
# attach-time or memory column: the -c command is the traced process
# itself, so no wrapper can read the tool's /proc entry after the loop,
# and the kernel rows measure both tools' memory already.
UC, UF, UP = benchlib.UCALL_BIN, benchlib.UCALL, benchlib.USDT_PROBE
UROWS = [
    ("u-none", None, None, None),
    ("bpftrace-uprobe", "bpftrace", f"uprobe:{UC}:{UF} {{ @ = count(); }}",
     None),
    ("bpftrace-uretprobe", "bpftrace",
     f"uretprobe:{UC}:{UF} {{ @ = count(); }}", None),
    ("bpftrace-usdt", "bpftrace",
     f"usdt:{UC}:{UP[0]}:{UP[1]} {{ @ = count(); }}", None),
    ("dtrace-pid-entry", "dtrace",
     f"pid$target::{UF}:entry {{ @ = count(); }}", None),
    ("dtrace-pid-return", "dtrace",
     f"pid$target::{UF}:return {{ @ = count(); }}", None),
    ("dtrace-usdt", "dtrace",
     f"{UP[0]}$target:::{UP[1]} {{ @ = count(); }}", None),
]
UDESCR = {
    "u-none": f"no tracer (`{UC} N` alone)",
    **{r[0]: f"`{r[1]} -{'e' if r[1] == 'bpftrace' else 'n'} '{r[2]}'`"
       for r in UROWS[1:]},
}
UREFS = [("bpf-uprobe", "uprobe"), ("bpf-uretprobe", "uretprobe"),
         ("bpf-usdt", "uprobe-usdt")]
UREF_DESCR = {"bpf-uprobe": f"reference: uprobe + handwritten BPF count on "
              f"`{UF}` (`make bench`'s uprobe row)",
              "bpf-uretprobe": "reference: uretprobe + handwritten BPF "
              "count (`make bench`'s uretprobe row)",
              "bpf-usdt": "reference: uprobe + handwritten BPF count at the "
              "USDT note's address (`make bench`'s uprobe-usdt row)"}
UROW_NAMES = [r[0] for r in UROWS] + [r[0] for r in UREFS]
# The attach-time programs: print the first firing's timestamp and exit.
FIRST = {
    "bpftrace": "{{ printf(\"@first %llu\\n\", nsecs); exit(); }}",
    "dtrace": "{{ printf(\"@first %d\\n\", timestamp); exit(0); }}",
}
PROBE = {"bpftrace-kprobe": f"kprobe:{TARGET}",
         "bpftrace-fentry": f"fentry:{TARGET}",
         "dtrace": f"fbt::{TARGET}:entry",
         "dtrace-bp": f"fbt::{TARGET}:entry",
         "dtrace-tramp": f"fbt::{TARGET}:entry",
         "dtrace-ftrace": f"fbt::{TARGET}:entry"}

SIZES = {
    # n: calls per sample; reps: TCG rounds; icount_n / icount_reps: the
    # icount boot's; attach: attach-time runs per row after the cold one.
    "full": dict(n=50000, reps=5, icount_n=20000, icount_reps=2, attach=5),
    "quick": dict(n=2000, reps=2, icount_n=1000, icount_reps=1, attach=2),
}


def log(msg):
    print(msg, flush=True)


# ---- the bpftrace disk ------------------------------------------------

def _apt(isa):
    """(apt options, apt directory) of a project-local apt configuration
    for @isa's Debian architecture: its own source list, lists, archive
    cache and an empty dpkg status (so apt resolves the whole dependency
    closure and the host's dpkg database is never read or changed)."""
    arch = DEB_ARCH[isa]
    aptd = os.path.join(CACHE, f"apt-{arch}")
    for d in ("lists/partial", "archives/partial", "parts"):
        os.makedirs(os.path.join(aptd, d), exist_ok=True)
    status = os.path.join(aptd, "status")
    if not os.path.exists(status):
        open(status, "w").close()
    with open("/etc/os-release") as f:
        codename = re.search(r"^VERSION_CODENAME=(\S+)", f.read(),
                             re.M).group(1)
    # The mirror the system already uses for <codename>/main, as apt sees
    # it (as tools/debsrc.sh finds it).
    pol = subprocess.run(["apt-cache", "policy"], capture_output=True,
                         text=True).stdout
    uri = next((ln.split()[1] for ln in pol.splitlines()
                if len(ln.split()) > 2 and ln.split()[2] == f"{codename}/main"
                and re.match(r"https?:", ln.split()[1])), None)
    if not uri:
        raise SystemExit(f"no apt mirror for {codename}/main configured "
                         "(apt-get update?)")
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
    signed = f"[signed-by={keyring}] " if os.access(keyring, os.R_OK) else ""
    with open(os.path.join(aptd, "sources.list"), "w") as f:
        f.write(f"deb {signed}{uri} {codename} main\n")
    opts = ["-o", f"Dir::Etc::SourceList={aptd}/sources.list",
            "-o", f"Dir::Etc::SourceParts={aptd}/parts",
            "-o", f"Dir::State::Lists={aptd}/lists",
            "-o", f"Dir::State::status={status}",
            "-o", f"Dir::Cache::Archives={aptd}/archives",
            "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache=",
            "-o", f"APT::Architecture={arch}",
            "-o", f"APT::Architectures={arch}",
            "-o", "APT::Sandbox::User=root", "-o", "Debug::NoLocking=1"]
    return opts, aptd


def resolve(isa):
    """apt-get update, then {package: version} of bpftrace and everything
    it depends on (recommends left out), as apt would install them."""
    opts, aptd = _apt(isa)
    log(f"bpftrace disk ({isa}): apt-get update ({DEB_ARCH[isa]})")
    subprocess.run(["apt-get", *opts, "-qq", "update"], check=True)
    r = subprocess.run(["apt-get", *opts, "-s", "install",
                        "--no-install-recommends", "bpftrace"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"apt cannot resolve bpftrace for "
                         f"{DEB_ARCH[isa]}:\n{r.stdout}{r.stderr}")
    pkgs = dict(re.findall(r"^Inst (\S+) \((\S+)", r.stdout, re.M))
    return {p.split(":")[0]: v for p, v in pkgs.items()}


def _needed(path):
    """DT_NEEDED of an ELF file (readelf reads any ISA's)."""
    r = subprocess.run(["readelf", "-d", path], capture_output=True,
                       text=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", r.stdout)


def closure(isa, root):
    """{soname: file under @root} of bpftrace's shared libraries, the
    loader included."""
    trip = TRIPLET[isa]
    dirs = [os.path.join(root, d) for d in
            (f"lib/{trip}", f"usr/lib/{trip}", "lib", "usr/lib", "lib64")]
    found, todo = {}, [os.path.join(root, "usr/bin/bpftrace")]
    while todo:
        for so in _needed(todo.pop()):
            if so in found:
                continue
            path = next((os.path.join(d, so) for d in dirs
                         if os.path.exists(os.path.join(d, so))), None)
            if not path:
                raise SystemExit(f"bpftrace disk: {so} is in no extracted "
                                 "package (a dependency apt left out?)")
            found[so] = path
            todo.append(path)
    ld = LOADER[isa]
    found[ld] = next(os.path.join(d, ld) for d in dirs
                     if os.path.exists(os.path.join(d, ld)))
    return found


def build_image(isa, pkgs, img):
    opts, aptd = _apt(isa)
    d = os.path.dirname(img)
    log(f"bpftrace disk ({isa}): downloading {len(pkgs)} packages "
        f"(bpftrace {pkgs['bpftrace']})")
    subprocess.run(["apt-get", *opts, "-q", "install", "--download-only",
                    "-y", "--no-install-recommends", "bpftrace"], check=True)
    with tempfile.TemporaryDirectory(prefix="build-", dir=d) as tmp:
        ex = os.path.join(tmp, "extract")
        for p, v in sorted(pkgs.items()):
            v = v.replace(":", "%3a")
            deb = glob.glob(os.path.join(aptd, "archives", f"{p}_{v}_*.deb"))
            if not deb:
                raise SystemExit(f"bpftrace disk: {p} {v} not downloaded")
            subprocess.run(["dpkg-deb", "-x", deb[0], ex], check=True)
        libs = closure(isa, ex)
        root = os.path.join(tmp, "root")
        for sub in ("bin", "lib"):
            os.makedirs(os.path.join(root, sub))
        shutil.copy(os.path.join(ex, "usr/bin/bpftrace"),
                    os.path.join(root, "bin/bpftrace"))
        for so, path in libs.items():
            shutil.copy(path, os.path.join(root, "lib", so))  # follows links
        ld = f"{MNT}/lib/{LOADER[isa]}"
        with open(os.path.join(root, "bpftrace"), "w") as f:
            # The guest's glibc is only the loader and libc xdt-udyn needs:
            # bpftrace runs under the disk's loader, its libraries from the
            # disk only.  exec keeps the pid.
            f.write(f"#!/bin/sh\nexec {ld} --library-path {MNT}/lib "
                    f"{MNT}/bin/bpftrace \"$@\"\n")
        os.chmod(os.path.join(root, "bpftrace"), 0o755)
        with open(os.path.join(root, "packages"), "w") as f:
            f.write("".join(f"{p} {v}\n" for p, v in sorted(pkgs.items())))
        size = sum(os.path.getsize(os.path.join(a, f))
                   for a, _, fs in os.walk(root) for f in fs)
        log(f"bpftrace disk ({isa}): bpftrace + {len(libs)} libraries, "
            f"{size >> 20} MiB; mke2fs")
        mke2fs = shutil.which("mke2fs", path=os.environ.get("PATH", "") +
                              ":/usr/sbin:/sbin")
        out = os.path.join(tmp, "disk.ext2")
        subprocess.run([mke2fs, "-q", "-F", "-t", "ext2", "-b", "4096",
                        "-m", "0", "-L", "xdt-bpftrace",
                        "-E", "root_owner=0:0", "-d", root, out,
                        f"{(size * 11 // 10 >> 20) + 16}M"], check=True)
        os.replace(out, img)
    with open(img + ".json", "w") as f:
        json.dump(dict(isa=isa, recipe=RECIPE, packages=pkgs,
                       libraries=sorted(libs)), f, indent=1)


def bpftrace_image(isa, refresh=False):
    """The cached bpftrace disk for @isa: CACHE/bpftrace/<isa>-<bpftrace
    version>-<hash of every package version and the recipe>.ext2, built if
    missing.  Without @refresh, the last one built for @isa is used as it
    is (no network); with it, apt resolves again and a changed package
    set makes a new image."""
    os.makedirs(CACHE, exist_ok=True)
    cur = os.path.join(CACHE, f"{isa}.current")
    if not refresh and os.path.isfile(os.path.realpath(cur)) and \
            os.path.isfile(os.path.realpath(cur) + ".json"):
        return os.path.realpath(cur)
    pkgs = resolve(isa)
    if "bpftrace" not in pkgs:
        raise SystemExit(f"apt has no bpftrace for {DEB_ARCH[isa]}")
    h = hashlib.sha256(repr((RECIPE, sorted(pkgs.items()))).encode())
    img = os.path.join(CACHE, f"{isa}-{pkgs['bpftrace']}-"
                       f"{h.hexdigest()[:16]}.ext2")
    if not os.path.isfile(img):
        build_image(isa, pkgs, img)
    tmp = cur + ".new"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(os.path.basename(img), tmp)
    os.replace(tmp, cur)
    return img


# ---- the guest ----------------------------------------------------------

# Reference rows from bench/benchlib.py's Bench.sample: the same mechanisms
# with a handwritten BPF count program (per-CPU array) through
# xdt-bpfbench, so bpftrace's own share of a firing shows.
REFS = [("bpf-kprobe", "kprobe"), ("bpf-fentry", "fentry")]
REF_DESCR = {"bpf-kprobe": "reference: kprobe + handwritten BPF count "
                           "(xdt-bpfbench, per-CPU array)",
             "bpf-fentry": "reference: fentry + handwritten BPF count "
                           "(xdt-bpfbench, per-CPU array)"}
ROW_NAMES = [r[0] for r in ROWS] + [r[0] for r in REFS]
TRIG = "/tmp/bt-trig.sh"
# Reboots allowed per boot when the guest wedges during an attach run.
WEDGE_REBOOTS = 2
MEM = "/tmp/bt-mem"
# Kernel memory that a tracer's enabling grows (BPF maps and programs,
# xdt's buffers, the tool's page tables): /proc/meminfo before the tool
# starts and while its probe is attached.
KMEM = "Slab|VmallocUsed|Percpu|KernelStack|PageTables"


def tool_cmd(tool, prog, opt, cmd=None):
    """The shell words that run @tool on @prog (and -c @cmd)."""
    c = f" -c '{cmd}'" if cmd else ""
    if tool == "bpftrace":
        # bpftrace 0.17 parses `fentry:` but aborts on it ("FATAL: Invalid
        # probe type made it to attachpoint parser"): its name there is
        # kfunc (the same BPF trampoline); fentry came as an alias later.
        prog = prog.replace("fentry:", "kfunc:", 1)
        return f"{BT} -e '{prog}'{c}"
    x = f"-x {opt} " if opt else ""
    return f"dtrace {x}-n '{prog}'{c}"


class Boot:
    """One booted guest: bench/benchlib.py's Bench (xdt.ko, the bench module,
    xdt-bpfbench) plus the bpftrace disk at MNT."""

    def __init__(self, isa, icount, n, logdir, img):
        self.isa, self.icount, self.n = isa, icount, n
        self.boot = "icount" if icount else "tcg"
        self.b = benchlib.Bench(isa, icount, n, n, logdir,
                                os.path.join(os.path.dirname(logdir), "bin"))
        # Bench made a VM without the bpftrace disk (only its temporary
        # directory exists yet): the same VM with the disk instead.
        shutil.rmtree(self.b.vm.tmp, ignore_errors=True)
        self.b.vm = xdtvm.VM(isa, icount=icount, logdir=logdir,
                             extra_disks=[img])
        self.vm = self.b.vm

    def start(self):
        self.b.start()
        v = self.vm
        # The disk after the lab disk (/dev/vdb); any read-only virtio disk
        # that carries the wrapper will do.
        v.run(f"mkdir -p {MNT}; for d in /dev/vdb /dev/vd?; do "
              f"mount -t ext2 -o ro $d {MNT} 2>/dev/null || continue; "
              f"test -x {BT} && break; umount {MNT}; done; test -x {BT}",
              check=True, timeout=60)
        # The -c command: the trigger, then the tool's memory (its pid is
        # the shell's parent: bpftrace and dtrace both fork and exec the
        # command themselves) while the probe is still attached.
        # With the kernel memory (k1), and how the function is probed:
        # its ftrace record (ef: ftrace_ops, direct call) and kprobe (kp).
        v.put(f"echo {self.n} > {DBG}/trigger\n"
              f"{{ grep -E '^(VmRSS|VmHWM):' /proc/$PPID/status\n"
              f"grep -E '^(Rss|Anonymous):' /proc/$PPID/smaps_rollup\n"
              f"grep -E '^({KMEM}):' /proc/meminfo | sed 's/^/k1/'\n"
              f"grep '^{TARGET} ' {benchlib.TRACEFS}/enabled_functions | "
              f"sed 's/^/ef: /'\n"
              f"grep ' {TARGET}+' /sys/kernel/debug/kprobes/list | "
              f"sed 's/^/kp: /'\n"
              f"}} > {MEM} 2>&1\n", TRIG, mode="755")
        return self

    def version(self):
        r = self.vm.run(f"{BT} --version", timeout=120)
        return (r.stdout + r.stderr).strip()

    def sample(self, name, rep):
        if name in UROW_NAMES:
            return self.usample(name, rep)
        if name in dict(REFS):
            v = dict(REFS)[name]
            kind, detail = next((k, d) for n, k, d in benchlib.VARIANTS
                                if n == v)
            s = self.b.sample("kernel", v, kind, detail, rep)
            s["variant"] = name
            return s
        _, tool, prog, opt = next(r for r in ROWS if r[0] == name)
        cmd = tool_cmd(tool, prog, opt, f"sh {TRIG}") if tool else \
            f"sh {TRIG}"
        script = (f"rm -f {MEM}; grep -E '^({KMEM}):' /proc/meminfo | "
                  "sed 's/^/@mem k0/'; "
                  f"b=$(cat {DBG}/calls); {cmd}; rc=$?; "
                  f"echo \"@@ rc=$rc last_ns=$(cat {DBG}/last_ns) "
                  f"calls=$(( $(cat {DBG}/calls) - b ))\"; "
                  f"sed 's/^/@mem /' {MEM}")
        t0 = time.monotonic()
        r = self.vm.run(["sh", "-c", script], timeout=600)
        s = dict(isa=self.isa, boot=self.boot, variant=name, rep=rep,
                 n=self.n, command=cmd,
                 wall_s=round(time.monotonic() - t0, 3), ok=False,
                 error=None)
        out = r.stdout
        tail = [ln for ln in out.splitlines() if ln.startswith("@@ ")]
        if not r.ok or not tail:
            s["error"] = (f"agent: {r.how} {r.code}: {out[-500:]} "
                          f"{r.stderr[-500:]}")
            return s
        t = benchlib.fields(tail[-1])
        s["exit"] = int(t["rc"])
        s["last_ns"], s["calls"] = int(t["last_ns"]), int(t["calls"])
        if tool:
            k = {"k0": 0, "k1": 0}
            for ln in out.splitlines():
                m = re.match(r"@mem (k[01])?(\w+):\s+(\d+) kB", ln)
                if m and m.group(1):
                    k[m.group(1)] += int(m.group(3))
                elif m:
                    s[m.group(2)] = int(m.group(3))
                elif ln.startswith(("@mem ef: ", "@mem kp: ")):
                    s.setdefault("probed", []).append(" ".join(ln.split()[1:]))
            s["kmem_delta"] = k["k1"] - k["k0"]
            s["via"] = how_probed(s.get("probed", []))
            tool_output(s, tool, out, r.stderr)
        s["unsupported"] = unsupported(tool, out + r.stderr)
        if s["unsupported"]:
            return s
        if not exit_and_count(s, tool, out, r.stderr, self.n):
            pass
        elif s["calls"] != self.n:
            s["error"] = f"calls {s['calls']} != N {self.n}"
        elif s["last_ns"] <= 0:
            s["error"] = "last_ns not positive"
        else:
            s["ok"] = True
        return s

    def usample(self, name, rep):
        """One user-space row: the ucall loop, N calls, under the tool."""
        n = self.b.un
        if name in dict(UREFS):
            v = dict(UREFS)[name]
            kind, detail = next((k, d) for nm, k, d in benchlib.VARIANTS
                                if nm == v)
            s = self.b.sample("ucall", v, kind, detail, rep)
            s["variant"] = name
            return s
        _, tool, prog, opt = next(r for r in UROWS if r[0] == name)
        loop = f"{UC} {n}"
        cmd = tool_cmd(tool, prog, opt, loop) if tool else loop
        t0 = time.monotonic()
        r = self.vm.run(["sh", "-c", f"{cmd}; echo \"@@ rc=$?\""],
                        timeout=600)
        s = dict(isa=self.isa, boot=self.boot, trigger="ucall", variant=name,
                 rep=rep, n=n, command=cmd, ok=False, error=None,
                 wall_s=round(time.monotonic() - t0, 3), unsupported=None)
        out = r.stdout
        tail = re.findall(r"^@@ rc=(\d+)", out, re.M)
        uc = [benchlib.fields(ln) for ln in out.splitlines()
              if ln.startswith("@uc ")]
        if not r.ok or not tail:
            s["error"] = (f"agent: {r.how} {r.code}: {out[-500:]} "
                          f"{r.stderr[-500:]}")
            return s
        s["exit"] = int(tail[-1])
        s["calls"] = int(uc[-1]["n"]) if uc else None
        s["last_ns"] = int(uc[-1]["ns"]) if uc else 0
        if tool:
            tool_output(s, tool, out, r.stderr)
        s["unsupported"] = unsupported(tool, out + r.stderr)
        if s["unsupported"]:
            return s
        if not exit_and_count(s, tool, out, r.stderr, n):
            pass
        elif s["calls"] != n:
            s["error"] = f"loop calls {s['calls']} != N {n}"
        elif s["last_ns"] <= 0:
            s["error"] = "loop time not positive"
        else:
            s["ok"] = True
        return s

    def attach(self, name, rep):
        """Command start to first firing, on the guest's CLOCK_MONOTONIC:
        a shell loop calls the target continuously; the stamp before the
        tool is /proc/timer_list's `now at` (ktime_get), read by a grep
        that the shell forks just before it forks the tool; the tool's
        program prints its firing's own timestamp and exits."""
        _, tool, prog, opt = next(r for r in ROWS if r[0] == name)
        first = PROBE[name] + " " + FIRST[tool].format()
        cmd = tool_cmd(tool, first, opt)
        if tool == "dtrace":
            cmd = cmd.replace("dtrace ", "dtrace -q ", 1)
        script = (f"(while :; do echo 1 > {DBG}/trigger; done) & w=$!; "
                  "sleep 0.5; "
                  "t0=$(grep -m1 'now at' /proc/timer_list); "
                  f"timeout 60 {cmd} > /tmp/bt-first 2>&1; rc=$?; "
                  "kill $w; wait $w 2>/dev/null; "
                  "echo \"@t0 $t0\"; echo \"@rc $rc\"; cat /tmp/bt-first")
        t0 = time.monotonic()
        r = self.vm.run(["sh", "-c", script], timeout=120)
        a = dict(isa=self.isa, boot=self.boot, variant=name, rep=rep,
                 command=cmd, wall_s=round(time.monotonic() - t0, 3),
                 ok=False, error=None)
        out = r.stdout
        m0 = re.search(r"^@t0 now at (\d+) nsecs", out, re.M)
        rc = re.search(r"^@rc (\d+)", out, re.M)
        firsts = [int(x) for x in re.findall(r"^@first (\d+)", out, re.M)]
        a["unsupported"] = unsupported(tool, out)
        if a["unsupported"]:
            pass
        elif not r.ok or not m0 or not rc:
            a["error"] = f"agent: {r.how} {r.code}: {out[-500:]}"
        elif int(rc.group(1)) != 0 or not firsts:
            a["error"] = f"exit {rc.group(1)}: {out[-500:]}"
        else:
            a["start_ns"], a["first_ns"] = int(m0.group(1)), min(firsts)
            a["attach_ms"] = (a["first_ns"] - a["start_ns"]) / 1e6
            a["ok"] = a["attach_ms"] > 0
            if not a["ok"]:
                a["error"] = "first firing before the start stamp"
        a["output"] = [ln for ln in out.splitlines()
                       if not ln.startswith(("@t0", "@rc", "@first"))
                       and ln.strip()]
        return a

    def stop(self):
        return self.b.stop()


# Anything a tool says on stderr beyond its usual banner.
USUAL = re.compile(r"dtrace: description .* matched \d+ probe|"
                   r"dtrace: pid \d+ has exited|^Attaching \d+ probe")


def tool_output(s, tool, out, err):
    """Sample @s's stderr lines and the count the tool printed."""
    s["stderr"] = [ln for ln in err.splitlines()
                   if ln.strip() and not USUAL.match(ln)]
    if tool == "bpftrace":
        m = re.search(r"^@: (\d+)$", out, re.M)
    else:
        m = list(re.finditer(r"^\s+(\d+)\s*$", out, re.M))
        m = m[-1] if m else None
    s["count"] = int(m.group(1)) if m else None


def exit_and_count(s, tool, out, err, n):
    """False, with s["error"], unless the tool exited 0 and printed N."""
    if s["exit"] != 0:
        s["error"] = f"exit {s['exit']}: {out[-300:]} {err[-500:]}"
    elif tool and s["count"] != n:
        s["error"] = (f"printed count {s['count']} != N {n}: "
                      f"{out[-300:]} {err[-300:]}")
    else:
        return True
    return False


def unsupported(tool, out):
    """The tool's own words when the kernel cannot attach the probe at all
    (bpftrace's kfunc on a kernel without ftrace direct calls, arm64 6.1);
    None otherwise."""
    if tool == "bpftrace":
        m = re.search(r"^ERROR: (Error attaching probe: .*)$", out, re.M)
        return f"bpftrace: {m.group(1).strip()}" if m else None
    return None


def how_probed(lines):
    """The mechanism at the function's entry while the probe was there,
    from its ftrace record and kprobe (xdt's breakpoint shows in
    neither)."""
    ef = " ".join(ln for ln in lines if ln.startswith("ef:"))
    kp = " ".join(ln for ln in lines if ln.startswith("kp:"))
    if kp:
        return ("kprobe on ftrace" if "[FTRACE]" in kp else "optprobe"
                if "[OPTIMIZED]" in kp else "kprobe int3")
    if "call_direct_funcs" in ef or "direct" in ef:
        return "ftrace direct call"
    if ef:
        m = re.search(r"\((\w+)\+", ef.split("tramp:", 1)[-1])
        return f"ftrace_ops ({m.group(1) if m else '?'})"
    return "neither ftrace nor a kprobe (xdt's own patch)"


def run_boot(isa, icount, size, logdir, img, samples, attaches, seed):
    n = size["icount_n"] if icount else size["n"]
    reps = size["icount_reps"] if icount else size["reps"]
    tag = f"[{isa} {'icount' if icount else 'tcg'}]"
    rng = random.Random(seed)
    # Attach time in the timing boot only (an icount boot has one vCPU,
    # which the calling loop would share with the tool).  Round 0 in table
    # order: the first bpftrace run after boot reads its libraries from
    # the disk; the later ones find them in the page cache.
    plan = []
    if not icount:
        tools = [r[0] for r in ROWS if r[1]]
        for rep in range(size["attach"] + 1):
            order = list(tools)
            if rep:
                rng.shuffle(order)
            plan += [(rep, name) for name in order]
    failures, wedged, bt, clean, version = 0, [], None, False, None
    unsup = {}          # row -> why the kernel cannot attach it
    t0 = time.monotonic()
    try:
        for attempt in range(1, WEDGE_REBOOTS + 2):
            log(f"{tag} booting (N={n}, rounds={reps})"
                + (f", attempt {attempt}" if attempt > 1 else ""))
            bt = Boot(isa, icount, n, logdir + (f"-{attempt}" if attempt > 1
                                                else ""), img)
            bt.start()
            log(f"{tag} booted, modules loaded, bpftrace disk mounted in "
                f"{bt.b.setup_s:.1f} s; clocksource {bt.b.clocksource}")
            try:
                while plan:
                    rep, name = plan[0]
                    if name in unsup:
                        plan.pop(0)
                        continue
                    a = bt.attach(name, rep)
                    plan.pop(0)
                    a["attempt"] = attempt
                    attaches.append(a)
                    if a["unsupported"]:
                        unsup[name] = a["unsupported"]
                    failures += not a["ok"] and not a["unsupported"]
                    what = (f"{a['attach_ms']:.1f} ms" if a["ok"] else
                            f"unsupported: {a['unsupported']}"
                            if a["unsupported"] else
                            f"FAILED: {a['error']}")
                    log(f"{tag} attach {rep}/{size['attach']} {name}: "
                        f"{what} ({a['wall_s']:.1f} s)")
                break
            except xdtvm.XdtError as e:
                # The guest wedged while the tool attached to or detached
                # from a function another vCPU calls in a loop (seen once:
                # an RCU stall with that vCPU at the function's first
                # byte, bench/bpftrace.md).  Recorded; the next boot goes
                # on with the next run.
                rep, name = plan.pop(0)
                why = " ".join(str(e).split())[:1500]
                attaches.append(dict(isa=isa, boot=bt.boot, variant=name,
                                     rep=rep, attempt=attempt, ok=False,
                                     wedged=True, error=f"guest wedged: "
                                     f"{why}", console=bt.vm.console_path))
                wedged.append(dict(variant=name, rep=rep, error=why,
                                   console=bt.vm.console_path))
                failures += 1
                log(f"{tag} attach {rep}/{size['attach']} {name}: guest "
                    f"wedged, rebooting: {why[:400]}")
                bt.vm.kill()
                if attempt > WEDGE_REBOOTS:
                    raise
        version = bt.version()
        rounds = []
        # The user-space rows need the ucall loop (built on the host with
        # <sys/sdt.h>): without it they are left out, with the reason.
        urows = [] if bt.b.uc_bin is None else UROW_NAMES
        for v in UROW_NAMES:
            if bt.b.uc_bin is None:
                unsup[v] = ("not run: the ucall loop could not be built: "
                            + bt.b.unavailable.get("ucall/uprobe", "?"))
        for _ in range(reps):
            order = list(ROW_NAMES) + list(urows)
            rng.shuffle(order)
            rounds.append(order)
        # `none` is subtracted from every row: at least three samples.
        rounds += [["none"] + (["u-none"] if urows else [])] * \
            max(0, 3 - reps)
        for rep, order in enumerate(rounds):
            for name in order:
                if name in unsup:
                    continue
                s = bt.sample(name, rep)
                samples.append(s)
                if s.get("unsupported"):
                    unsup[name] = s["unsupported"]
                    what = f"unsupported: {s['unsupported']}"
                elif not s["ok"]:
                    failures += 1
                    what = f"FAILED: {s['error']}"
                else:
                    what = f"{s['last_ns']} {'insns' if icount else 'ns'}"
                    if s.get("count") is not None:
                        what += f", count {s['count']}"
                    if s.get("Rss"):
                        what += f", Rss {s['Rss']} kB"
                log(f"{tag} round {rep + 1}/{len(rounds)} {name}: {what} "
                    f"({s['wall_s']:.1f} s)")
    finally:
        if bt:
            clean = bt.stop()
    wall = time.monotonic() - t0
    log(f"{tag} done in {wall:.0f} s{'' if clean else ' (unclean poweroff)'}")
    return dict(isa=isa, boot=bt.boot, n=n, rounds=len(rounds),
                wall_s=round(wall, 1), setup_s=round(bt.b.setup_s, 1),
                clocksource=bt.b.clocksource, bpftrace_version=version,
                clean_poweroff=clean, failures=failures, wedged=wedged,
                unsupported=unsup,
                console=bt.vm.console_path)


# ---- figures ----------------------------------------------------------

def figures(samples, attaches):
    """{variant: {...}} from the good samples and attach runs."""
    out = {v: {} for v in ROW_NAMES + UROW_NAMES}
    # A tool's first run in a boot finds bpftrace's libraries on the disk,
    # not in the page cache (a boot after a wedge too): cold, kept apart.
    seen = set()
    for a in attaches:
        key = (a.get("attempt", 1), a["variant"])
        a["cold"] = key not in seen
        seen.add(key)
    for boot, key in (("tcg", "ns"), ("icount", "insns")):
        # Kernel rows over "none", user rows over "u-none" (named "none"
        # for per_firing, which subtracts that row).
        for names, base in ((ROW_NAMES, "none"), (UROW_NAMES, "u-none")):
            good = {}
            for s in samples:
                if s["boot"] == boot and s["ok"] and s["variant"] in names:
                    v = "none" if s["variant"] == base else s["variant"]
                    good.setdefault(v, []).append(s)
            if "none" not in good:
                continue
            for v, ss, t in benchreport.per_firing(
                    good, key, lambda v: out[base if v == "none" else v]):
                if v == "none":
                    f = out[base]
                    f[key + "_per_call"] = statistics.median(t) / ss[0]["n"]
    tools = {r[0]: r[1] for r in ROWS + UROWS}
    for v in ROW_NAMES + UROW_NAMES:
        f = out[v]
        good = [s for s in samples if s["variant"] == v and s["ok"]]
        for k in ("Rss", "Anonymous", "VmRSS", "VmHWM", "kmem_delta"):
            xs = [s[k] for s in good if s.get(k) is not None]
            if xs and tools.get(v):
                f[k + "_kb"] = statistics.median(xs)
        via = sorted({s.get("via_at_trigger") or s["via"] for s in good
                      if s.get("via")})
        if via:
            f["via"] = via
        f["failed"] = sum(1 for s in samples if s["variant"] == v
                          and not s["ok"] and not s.get("unsupported"))
        att = [a for a in attaches if a["variant"] == v]
        if att:
            first = [a for a in att if a["rep"] == 0
                     and a.get("attempt", 1) == 1]
            rest = [a["attach_ms"] for a in att if a["ok"] and not a["cold"]]
            if first and first[0]["ok"]:
                f["attach_first_ms"] = first[0]["attach_ms"]
            if rest:
                f["attach_ms"] = statistics.median(rest)
                f["attach_min_ms"], f["attach_max_ms"] = min(rest), max(rest)
            f["attach_failed"] = sum(1 for a in att if not a["ok"] and
                                     not a.get("unsupported"))
        errs = {ln for s in samples if s["variant"] == v
                for ln in s.get("stderr", [])}
        if errs:
            f["stderr"] = sorted(errs)
    return out


def make_table(meta, figs, boots):
    fmt = benchreport.fmt
    lines = [f"# bpftrace against dtrace, {meta['isa']}: one kprobe / "
             f"fentry / fbt entry on `{TARGET}`", ""]
    for b in boots:
        lines.append(f"- {b['boot']} boot: N = {b['n']} calls a sample, "
                     f"{b['rounds']} rounds, {b['wall_s']:.0f} s, "
                     f"clocksource {b.get('clocksource')}"
                     + ("" if not b.get("error") else
                        f", FAILED: {b['error'][:300]}"))
        for w in b.get("wedged", []):
            lines.append(f"  - the guest wedged in attach run {w['rep']} of "
                         f"{w['variant']} (rebooted, run recorded as "
                         f"failed): {w['error'][:300]}")
    lines += [f"- {meta.get('bpftrace_version') or 'bpftrace ?'} "
              f"(Debian {meta['packages'].get('bpftrace')}, LLVM "
              f"{meta['packages'].get('libllvm14', '?')}), run by the "
              "disk's glibc loader; dtrace and xdt.ko: tree "
              f"{meta.get('tree')}, xdt.ko {meta['xdt_ko']['sha256']} "
              f"({meta['xdt_ko']['mtime']})",
              f"- host load average {meta['loadavg_start'][0]:.1f} at the "
              f"start, {meta['loadavg_end'][0]:.1f} at the end "
              f"({meta['nproc']} CPUs): the TCG times are as noisy as "
              "that; the icount instructions are not", ""]
    lines += ["| row | what | probed by | insns/firing (icount) | "
              "ns/firing (TCG) [q1–q3] | attach ms, first run | attach "
              "ms, median [min–max] | RSS KiB (anon) | VmHWM KiB | "
              "kernel KiB Δ | bad samples |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    unsup = {}
    for b in boots:
        unsup.update(b.get("unsupported", {}))
    for v in ROW_NAMES:
        f = figs.get(v, {})
        d = DESCR.get(v) or REF_DESCR.get(v)
        if v in unsup and not any(k in f for k in ("ns", "insns")):
            lines.append(f"| {v} | {d} | unsupported: "
                         f"{' '.join(unsup[v].split())[:200]} |"
                         + " – |" * 7 + " 0 |")
            continue
        if v == "none":
            ins = (f"({fmt(f.get('insns_per_call'))} a call)"
                   if "insns_per_call" in f else "–")
            ns = (f"({fmt(f.get('ns_per_call'))} a call)"
                  if "ns_per_call" in f else "–")
        else:
            ins = fmt(f.get("insns"))
            ns = (f"{fmt(f['ns'])} [{fmt(f['ns_q1'])}–{fmt(f['ns_q3'])}]"
                  if "ns" in f else "–")
        att = (f"{fmt(f['attach_ms'], 1)} [{fmt(f['attach_min_ms'], 1)}–"
               f"{fmt(f['attach_max_ms'], 1)}]" if "attach_ms" in f else "–")
        rss = (f"{f['Rss_kb']:.0f} ({f['Anonymous_kb']:.0f})"
               if "Rss_kb" in f and "Anonymous_kb" in f else "–")
        bad = f.get("failed", 0) + f.get("attach_failed", 0)
        lines.append(f"| {v} | {d} | {', '.join(f.get('via', [])) or '–'} "
                     f"| {ins} | {ns} | {fmt(f.get('attach_first_ms'), 1)} "
                     f"| {att} | {rss} | {fmt(f.get('VmHWM_kb'))} | "
                     f"{fmt(f.get('kmem_delta_kb'))} | {bad} |")
    lines += ["", "Per firing: (median loop time with the row - median "
              "without any tracer) / N, the loop timed by the bench "
              "module (ktime_get_ns; under -icount shift=0 one "
              "nanosecond is one guest instruction); every sample's "
              "printed count and the module's call count equal N.  "
              "Attach: guest CLOCK_MONOTONIC from just before the tool is "
              "started to the timestamp its probe takes at its first "
              "firing, the function being called every few tens of "
              "microseconds; the first run is each tool's first after "
              "boot (bpftrace's libraries read from the disk), left out "
              "of the median, as is the first after a reboot.  "
              "RSS: /proc/<pid>/smaps_rollup "
              "Rss (Anonymous) of the tool while attached; VmHWM: "
              "/proc/<pid>/status, which 6.1's split RSS counters can "
              "leave short for a small process (bench/bpftrace.md); "
              f"kernel Δ: /proc/meminfo {KMEM.replace('|', ' + ')} while "
              "attached minus just before the tool started.  "
              "Everything runs under TCG: times are emulated, compare "
              "rows, not machines."]
    lines += ["", f"## User space: `{UF}()` of bench/ucall-loop.c, "
              "N calls a sample", "",
              "| row | what | insns/firing (icount) | ns/firing (TCG) "
              "[q1–q3] | bad samples |", "|---|---|---:|---:|---:|"]
    for v in UROW_NAMES:
        f = figs.get(v, {})
        d = UDESCR.get(v) or UREF_DESCR.get(v)
        if v in unsup and not any(k in f for k in ("ns", "insns")):
            lines.append(f"| {v} | {d} | unsupported: "
                         f"{' '.join(unsup[v].split())[:200]} | – | 0 |")
            continue
        if v == "u-none":
            ins = (f"({fmt(f.get('insns_per_call'))} a call)"
                   if "insns_per_call" in f else "–")
            ns = (f"({fmt(f.get('ns_per_call'))} a call)"
                  if "ns_per_call" in f else "–")
        else:
            ins = fmt(f.get("insns"))
            ns = (f"{fmt(f['ns'])} [{fmt(f['ns_q1'])}–{fmt(f['ns_q3'])}]"
                  if "ns" in f else "–")
        lines.append(f"| {v} | {d} | {ins} | {ns} | {f.get('failed', 0)} |")
    lines += ["", "Per firing: (median loop time with the row - median of "
              "the loop alone) / N, the loop timed by itself "
              "(CLOCK_MONOTONIC around its N calls); every sample's "
              "printed count and the loop's own count equal N.  The tool "
              "runs the loop with -c, so dtrace's $target is the loop "
              "(dtrace -c holds it at its first instruction until the "
              "probes are in, bpftrace starts it after attaching)."]
    notes = [(v, figs[v]["stderr"]) for v in ROW_NAMES + UROW_NAMES
             if figs.get(v, {}).get("stderr")]
    if notes:
        lines += ["", "Tool messages on stderr:", ""]
        lines += [f"- {v}: " + "; ".join(f"`{e}`" for e in es[:5])
                  for v, es in notes]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small N and few rounds (smoke test)")
    ap.add_argument("--isa", default="x86_64",
                    help="the guest ISA (default x86_64; aarch64 runs, "
                    "without fentry: bench/bpftrace.md)")
    ap.add_argument("--rounds", type=int, help="TCG rounds (default "
                    f"{SIZES['full']['reps']}, quick "
                    f"{SIZES['quick']['reps']})")
    ap.add_argument("--no-icount", action="store_true",
                    help="skip the icount boot")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--out", help="output directory (default "
                    "bench/results/bpftrace-<timestamp>)")
    ap.add_argument("--retable", metavar="DIR",
                    help="rewrite DIR's table from its results.json (no "
                    "guest is booted)")
    ap.add_argument("--refresh", action="store_true",
                    help="resolve the packages again (apt-get update) and "
                    "rebuild the bpftrace disk if any version changed")
    a = ap.parse_args()
    if a.retable:
        with open(os.path.join(a.retable, "results.json")) as f:
            r = json.load(f)
        r["figures"] = figures(r["samples"], r["attach"])
        table = make_table(r["meta"], r["figures"], r["boots"])
        for name, data in (("results.json", json.dumps(r, indent=1)),
                           ("table.md", table)):
            with open(os.path.join(a.retable, name), "w") as f:
                f.write(data)
        print(table)
        return 0
    isa = a.isa
    xdtvm.check_isa(isa)
    if isa not in DEB_ARCH:
        raise SystemExit(f"no Debian architecture for {isa}")
    size = dict(SIZES["quick" if a.quick else "full"])
    if a.rounds:
        size["reps"] = a.rounds
    t0 = time.monotonic()
    img = bpftrace_image(isa, a.refresh)
    with open(img + ".json") as f:
        disk = json.load(f)
    log(f"bpftrace disk: {img} (bpftrace {disk['packages']['bpftrace']}, "
        f"{len(disk['libraries'])} libraries)")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = a.out or os.path.join(TOP, "bench", "results",
                                   f"bpftrace-{stamp}")
    os.makedirs(outdir, exist_ok=True)
    meta = dict(started=stamp, isa=isa, size="quick" if a.quick else "full",
                target=TARGET, seed=a.seed, disk=img,
                packages=disk["packages"], libraries=disk["libraries"],
                rows={v: DESCR.get(v) or REF_DESCR.get(v) or UDESCR.get(v)
                      or UREF_DESCR.get(v) for v in ROW_NAMES + UROW_NAMES},
                **size, host=os.uname().nodename, nproc=os.cpu_count())
    # What was measured: xdt.ko changes under a working tree, so its hash
    # and the tree's state go with the figures; the host's load average
    # says how far to trust the TCG times (the icount ones do not care).
    ko = os.path.join(xdtvm.build_dir(isa), "xdt", "xdt.ko")
    with open(ko, "rb") as f:
        meta["xdt_ko"] = dict(sha256=hashlib.sha256(f.read()).hexdigest()[:16],
                              mtime=time.strftime(
                                  "%Y-%m-%d %H:%M:%S",
                                  time.localtime(os.path.getmtime(ko))))
    git = subprocess.run(["git", "-C", TOP, "describe", "--always",
                          "--dirty"], capture_output=True, text=True)
    meta["tree"] = git.stdout.strip()
    meta["loadavg_start"] = os.getloadavg()
    samples, attaches, boots = [], [], []
    for icount in ((False,) if a.no_icount else (False, True)):
        kind = "icount" if icount else "tcg"
        logdir = os.path.join(outdir, "console", f"{isa}-{kind}")
        try:
            boots.append(run_boot(isa, icount, size, logdir, img, samples,
                                  attaches, a.seed))
        except xdtvm.XdtError as e:
            log(f"[{isa} {kind}] boot failed: {e}")
            boots.append(dict(isa=isa, boot=kind, n=0, rounds=0, wall_s=0,
                              failures=1, error=str(e)[-3000:]))
    meta["bpftrace_version"] = next((b["bpftrace_version"] for b in boots
                                     if b.get("bpftrace_version")), None)
    meta["wall_s"] = round(time.monotonic() - t0, 1)
    meta["loadavg_end"] = os.getloadavg()
    figs = figures(samples, attaches)
    table = make_table(meta, figs, boots)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, boots=boots, figures=figs,
                       samples=samples, attach=attaches), f, indent=1)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(table)
    print(table)
    log(f"results in {outdir} ({meta['wall_s']:.0f} s)")
    return 1 if any(b["failures"] for b in boots) else 0


if __name__ == "__main__":
    sys.exit(main())
