#!/usr/bin/env python3
"""The consumer side against bpftrace (issue 36, deliverable 2):
`make bench-consumer`.

One TCG boot per ISA, xdt's `dtrace` beside Debian's bpftrace 0.17 (from
bench/bpftrace.py's disk, where that script can build one: x86_64 and
aarch64; bookworm has no riscv64 in main), each row run in rounds with the
tools interleaved:

1. rate: `printf` of three integers and a string per getppid(2) call of
   the driver (bench/consumer-drive.c `rate R MS`, paced per millisecond),
   written to a file (`-o`); the rate is raised step by step until the
   tool drops (dtrace: "drops" on stderr; bpftrace: "Lost N events"; or
   fewer records than calls).  Figure: the highest achieved rate with
   every record written, median over the rounds, and the tool's CPU time
   per record there (wait4's rusage).
2. agg: `@[arg0] = count()` on getpgid(2) over 10^5 distinct arguments
   (`keys N`), then SIGINT: wall time from the signal to the tool's exit
   (its final snapshot, sort and print of 10^5 lines to a file).
3. start: exec of the tool to its probe's first firing (the probe's own
   timestamp against the clock read just before the exec; both are
   CLOCK_MONOTONIC), with a paced getppid loop running; and to its exit
   (the record printed).  The first run after boot is kept apart (cold
   page cache: bpftrace's 200 MiB of libraries).
4. mem: the tool's peak RSS (ru_maxrss at exit) in rows 1, 2 and 4; and
   kernel memory per enabled probe: /proc/meminfo Slab + VmallocUsed +
   Percpu while N fbt entry probes (`fbt::vfs_*:entry`; bpftrace
   `kprobe:vfs_*`) are enabled minus just before the tool started, over
   N, and the marginal figure (the N-probe delta minus the 1-probe
   delta) / (N - 1), which leaves the fixed buffers out.

Output: bench/results/consumer-<timestamp>/{results.json,table.md}.

    bench/consumer.py [--quick] [--isas x86_64,...] [--bpftrace ISAS]
                      [--rounds R] [--out DIR]
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "bench"))
import xdtvm  # noqa: E402
import benchlib  # noqa: E402
import bpftrace  # noqa: E402

DRV = "/tmp/cdrive"             # comm "cdrive": the probes' filter
MNT, BT = bpftrace.MNT, bpftrace.BT
OUT, ERR, PIDF, READY = "/tmp/c.out", "/tmp/c.err", "/tmp/c.pid", \
    "/tmp/c.ready"
TOOLS = ["dtrace", "bpftrace", "dtrace-s16"]
# Row 1 only: dtrace with `-x strsize=16`.  A D string is recorded at
# strsize bytes (default 256) whatever its length, so the clause's record
# is about 290 bytes where bpftrace's (comm: 16 bytes) is about 50; with
# strsize=16 (execname is at most 15 characters) the records are as small
# as bpftrace's, which separates the record size from the consumer.
STRSIZE_VARIANT = ("dtrace-s16", "strsize=16")
KMEM = ("Slab", "VmallocUsed", "Percpu")
# Buffers: bpftrace's printf goes through a perf ring of
# BPFTRACE_PERF_RB_PAGES pages per CPU (default 64 = 256 KiB); dtrace's
# principal buffer is bufsize per CPU (default 4 MiB): both set to
# 256 KiB.  dtrace drains every switchrate (default 1 s, DTrace's):
# left at its default; bpftrace polls its ring continuously.
RB_PAGES = 64
BUFSIZE = "256k"
# 10^5 keys: xdt's per-CPU aggregation arenas (32 bytes an integer-keyed
# count, default 1 MiB) must hold one aggrate interval's keys; bpftrace's
# maps hold BPFTRACE_MAP_KEYS_MAX keys (default 4096).
AGGSIZE = "16m"
MEM_SET = ("vfs_*", "vfs_read")

SIZES = {
    "full": dict(rates=[1000, 2000, 5000, 10000, 20000, 50000, 100000,
                        200000], ms=2000, rounds=3, keys=100000, starts=5,
                 mem_rounds=3),
    "quick": dict(rates=[200, 1000], ms=300, rounds=1, keys=2000,
                  starts=1, mem_rounds=1),
}
NO_BPFTRACE = {"riscv64": "no bpftrace package: Debian bookworm, where "
               "bench/bpftrace.py takes it from, has no riscv64 in main"}


def log(msg):
    print(msg, flush=True)


def fields(text, tag):
    """key=value fields of the last line starting with @tag."""
    ls = [ln for ln in text.splitlines() if ln.startswith(tag + " ")]
    return benchlib.fields(ls[-1]) if ls else {}


def tool_words(tool, prog, opts=(), cmd=None, out=None):
    """Shell words running @tool on @prog (the -c command @cmd, output to
    the file @out)."""
    c = f" -c '{cmd}'" if cmd else ""
    o = f" -o {out}" if out else ""
    if tool == "bpftrace":
        env = f"BPFTRACE_PERF_RB_PAGES={RB_PAGES} " \
              "BPFTRACE_MAP_KEYS_MAX=131072 "
        return f"env {env}{BT} --unsafe{o} -e '{prog}'{c}"
    x = "".join(f" -x {o_}" for o_ in opts)
    return f"dtrace{x}{o} -n '{prog}'{c}"


# Ready: the tool's probes are enabled when a getppid call of the driver
# has run this clause.  Not BEGIN: bpftrace's BEGIN is a uprobe on its own
# executable, which under the disk's loader is ld.so ("Could not resolve
# symbol: /proc/self/exe:BEGIN_trigger").  One more probe for each tool.
READY_D = ('int rdy; syscall::getppid:entry /execname == "cdrive" && !rdy/ '
           f'{{ rdy = 1; system("touch {READY}"); }} ')
READY_BT = ('tracepoint:syscalls:sys_enter_getppid /comm == "cdrive"/ '
            f'{{ system("touch {READY}"); }} ')
# ... which the shell pokes (one getppid call per 0.1 s) until it has run.
WAIT_READY = (f"i=0; while [ ! -e {READY} ] && [ $i -lt 3000 ]; do "
              f"{DRV} rate 1000 1 > /dev/null; sleep 0.1; i=$((i+1)); "
              "done; ")

PROGS = {
    "rate": {
        "dtrace": ('syscall::getppid:entry /pid == $target/ { printf('
                   '"%d %d %d %s\\n", pid, tid, timestamp, execname); }'),
        "bpftrace": ('tracepoint:syscalls:sys_enter_getppid /pid == cpid/ '
                     '{ printf("%d %d %llu %s\\n", pid, tid, nsecs, comm); '
                     '}'),
    },
    "agg": {
        "dtrace": READY_D + 'syscall::getpgid:entry /execname == "cdrive"/ '
                  '{ @[arg0] = count(); }',
        "bpftrace": READY_BT + 'tracepoint:syscalls:sys_enter_getpgid '
                    '/comm == "cdrive"/ { @[args->pid] = count(); }',
    },
    "start": {
        "dtrace": 'syscall::getppid:entry { printf("@first %d\\n", '
                  'timestamp); exit(0); }',
        "bpftrace": 'tracepoint:syscalls:sys_enter_getppid { printf('
                    '"@first %llu\\n", nsecs); exit(); }',
    },
}


# How long a tool may take from SIGINT to its exit before the run is
# recorded as failed (and the tool killed), so one stuck tool costs a run,
# not the rest of the boot.
PRINT_LIMIT_S = 300


def bounded_wait(limit_s):
    """Shell: wait for the tool ($p) to exit, at most @limit_s seconds;
    else "@timeout" and SIGKILL."""
    return (f"i=0; while kill -0 $p 2>/dev/null && [ $i -lt {limit_s * 10} "
            "]; do sleep 0.1; i=$((i+1)); done; "
            "kill -0 $p 2>/dev/null && { echo @timeout; kill -9 $p; }; "
            "wait; ")


def mem_prog(tool, pat):
    if tool == "dtrace":
        return READY_D + f"fbt::{pat}:entry {{ @ = count(); }}"
    return READY_BT + f"kprobe:{pat} {{ @ = count(); }}"


def meminfo_sh(tag):
    pat = "|".join(KMEM)
    return (f"grep -E '^({pat}):' /proc/meminfo | "
            f"sed 's/^/@{tag} /'; ")


def kmem(text, tag):
    tot = 0
    for m in re.finditer(rf"^@{tag} (\w+):\s+(\d+) kB", text, re.M):
        tot += int(m.group(2))
    return tot


class RunFailed(Exception):
    pass


class Boot:
    def __init__(self, isa, logdir, img):
        self.isa, self.img = isa, img
        self.drv = benchlib.build_static(
            isa, os.path.join(os.path.dirname(logdir), "bin"),
            "consumer-drive")
        self.vm = xdtvm.VM(isa, logdir=logdir,
                           extra_disks=[img] if img else [])
        self.tools = ["dtrace"] + (["bpftrace"] if img else [])

    def start(self):
        v = self.vm
        v.start(timeout=300)
        ko = os.path.join(xdtvm.build_dir(self.isa), "xdt", "xdt.ko")
        v.put(ko, "/tmp/xdt.ko")
        v.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
        v.put(self.drv, DRV, mode="755")
        if self.img:
            v.run(f"mkdir -p {MNT}; for d in /dev/vdb /dev/vd?; do "
                  f"mount -t ext2 -o ro $d {MNT} 2>/dev/null || continue; "
                  f"test -x {BT} && break; umount {MNT}; done; test -x {BT}",
                  check=True, timeout=60)
            r = v.run(f"{BT} --version", timeout=300)
            self.bt_version = (r.stdout + r.stderr).strip()
        else:
            self.bt_version = None
        return self

    def sh(self, script, timeout=600):
        r = self.vm.run(script, timeout=timeout)
        if not r.ok:
            raise RunFailed(f"{self.isa}: {r.how} {r.code}: "
                            f"{r.stdout[-800:]} {r.stderr[-800:]}")
        return r.stdout

    def one(self, row, tool, fn, *args):
        """fn(*args), or a failed run with the reason: a run the guest
        timed out or that printed nothing parseable costs that run."""
        try:
            return fn(*args)
        except (RunFailed, IndexError, ValueError) as e:
            return dict(row=row, tool=tool, ok=False, error=str(e)[-1500:],
                        tail=None)

    def spawn(self, words):
        """Shell: run the tool under the stopwatch.  The files of the run
        before are removed here, before any `&`: a ready file left by the
        previous tool once ended the wait at once, and the keys were
        made and SIGINT sent while bpftrace was still compiling (it then
        never exited)."""
        return (f"rm -f {OUT} {ERR} {PIDF} {READY} {OUT}.sp {OUT}.rec; "
                f"{{ {DRV} spawn {OUT} {ERR} {PIDF} {words}; }}")

    # -- row 1 --
    def rate(self, tool, rate, ms):
        base, extra = (("dtrace", (STRSIZE_VARIANT[1],))
                       if tool == STRSIZE_VARIANT[0] else (tool, ()))
        prog = PROGS["rate"][base]
        words = tool_words(base, prog,
                           (f"bufsize={BUFSIZE}", "quiet") + extra,
                           f"{DRV} rate {rate} {ms}", OUT + ".rec")
        script = (f"{self.spawn(words)}; "
                  f"echo @recs $(grep -c ' cdrive$' {OUT}.rec); "
                  f"cat {OUT} {ERR}; grep -i -E 'lost|drop' {OUT}.rec "
                  "| head -5; true")
        out = self.sh(script, timeout=120 + ms // 1000 * 20)
        sp, rt = fields(out, "@spawn"), fields(out, "@rate")
        recs = int(out.split("@recs ", 1)[1].split()[0])
        msgs = [ln for ln in out.splitlines()
                if re.search(r"lost|drop", ln, re.I)]
        calls = int(rt.get("calls", -1))
        ns = int(rt.get("ns", 0)) or 1
        cpu = int(sp.get("cpu_us", 0))
        ok = (sp.get("status") == "0" and calls > 0 and recs == calls
              and not msgs)
        return dict(row="rate", tool=tool, rate=rate, ms=ms, calls=calls,
                    records=recs, achieved=calls * 1e9 / ns,
                    cpu_us=cpu, maxrss_kb=int(sp.get("maxrss_kb", 0)),
                    status=sp.get("status"), drops=msgs[:5], ok=ok,
                    tail=None if ok else out[-1500:])

    # -- row 2 --
    def agg(self, tool, n):
        words = tool_words(tool, PROGS["agg"][tool],
                           (f"aggsize={AGGSIZE}", "quiet", "destructive"))
        script = (f"{self.spawn(words)} > {OUT}.sp & "
                  f"{WAIT_READY}sleep 0.5; "
                  f"{DRV} keys {n}; sleep 2; "
                  f"grep -E '^(VmHWM|VmRSS):' /proc/$(cat {PIDF})/status | "
                  "sed 's/^/@st /'; "
                  f"p=$(cat {PIDF}); t0=$({DRV} now); kill -INT $p; "
                  f"{bounded_wait(PRINT_LIMIT_S)}"
                  f"echo @t0 $t0; cat {OUT}.sp; "
                  f"echo @lines $(grep -c -E '^ +[0-9]+ +1$|^@\\[[0-9]+\\]: 1$'"
                  f" {OUT}); grep -i -E 'lost|drop' {OUT} {ERR} | head; "
                  f"head -c 600 {ERR}; true")
        out = self.sh(script, timeout=PRINT_LIMIT_S + 600)
        sp = fields(out, "@spawn")
        t0 = int(out.split("@t0 ", 1)[1].split()[0])
        lines = int(out.split("@lines ", 1)[1].split()[0])
        end = int(sp.get("end_ns", 0))
        ok = lines == n and sp.get("status") in ("0", "130") and \
            end > t0 and "@timeout" not in out
        return dict(row="agg", tool=tool, n=n, print_ms=(end - t0) / 1e6,
                    lines=lines, maxrss_kb=int(sp.get("maxrss_kb", 0)),
                    cpu_us=int(sp.get("cpu_us", 0)),
                    status=sp.get("status"), ok=ok,
                    tail=None if ok else out[-1500:])

    # -- row 3 --
    def start_run(self, tool, rep):
        words = tool_words(tool, PROGS["start"][tool], ("quiet",))
        out = self.sh(f"{self.spawn(words)}; cat {OUT} {ERR} | head -20",
                      timeout=300)
        sp = fields(out, "@spawn")
        m = re.search(r"^@first (\d+)", out, re.M)
        ex, end = int(sp.get("exec_ns", 0)), int(sp.get("end_ns", 0))
        ok = bool(m) and ex > 0 and sp.get("status") == "0"
        return dict(row="start", tool=tool, rep=rep, ok=ok,
                    first_ms=(int(m.group(1)) - ex) / 1e6 if m else None,
                    exit_ms=(end - ex) / 1e6,
                    maxrss_kb=int(sp.get("maxrss_kb", 0)),
                    tail=None if ok else out[-1500:])

    # -- row 4 --
    def mem(self, tool, pat, rep):
        # the principal buffers at row 1's size (bpftrace's perf ring);
        # the aggregation's arenas at their default
        words = tool_words(tool, mem_prog(tool, pat),
                           ("destructive", f"bufsize={BUFSIZE}"))
        script = (meminfo_sh("k0") +
                  f"e0=$(wc -l < /sys/kernel/tracing/enabled_functions); "
                  f"{self.spawn(words)} > {OUT}.sp & "
                  f"{WAIT_READY}sleep 1; " +
                  meminfo_sh("k1") +
                  f"echo @ef $(( $(wc -l < /sys/kernel/tracing/"
                  "enabled_functions) - e0 )); "
                  f"p=$(cat {PIDF}); grep -E '^(Rss|Anonymous):' "
                  "/proc/$p/smaps_rollup | sed 's/^/@sm /'; "
                  f"kill -INT $p; {bounded_wait(60)}"
                  f"cat {OUT}.sp; head -c 2000 {ERR}; "
                  f"head -c 300 {OUT}; true")
        out = self.sh(script, timeout=600)
        sp = fields(out, "@spawn")
        n = None
        m = re.search(r"matched (\d+) probes?", out)
        if tool == "bpftrace":
            m = re.search(r"Attaching (\d+) probes?", out)
        if m:
            # both count the ready probe among them
            n = int(m.group(1)) - 1
        ef = int(out.split("@ef ", 1)[1].split()[0])
        if tool == "bpftrace" and n == 1 and ef > 1:
            # one kprobe_multi link (an fprobe) for the whole wildcard,
            # which bpftrace counts as one probe: the functions are what
            # ftrace's enabled_functions gained
            n = ef
        sm = dict(re.findall(r"^@sm (\w+):\s+(\d+) kB", out, re.M))
        ok = n is not None and n > 0 and sp.get("status") in ("0", "130")
        return dict(row="mem", tool=tool, pattern=pat, rep=rep, nprobes=n,
                    kmem_kb=kmem(out, "k1") - kmem(out, "k0"),
                    kmem_parts={k: int(a) - int(b) for k, a, b in zip(
                        KMEM,
                        re.findall(r"^@k1 \w+:\s+(\d+)", out, re.M),
                        re.findall(r"^@k0 \w+:\s+(\d+)", out, re.M))},
                    ftrace_delta=ef,
                    rss_kb=int(sm.get("Rss", 0)),
                    anon_kb=int(sm.get("Anonymous", 0)),
                    maxrss_kb=int(sp.get("maxrss_kb", 0)), ok=ok,
                    tail=None if ok else out[-1500:])

    def stop(self):
        return self.vm.poweroff()


ROWS = ["start", "rate", "agg", "mem"]


def run_isa(isa, size, outdir, use_bt, seed, rows=tuple(ROWS)):
    tag = f"[{isa}]"
    img, why = None, None
    if use_bt:
        if isa in NO_BPFTRACE:
            why = NO_BPFTRACE[isa]
        else:
            img = bpftrace.bpftrace_image(isa)
    else:
        why = "not asked for (--bpftrace)"
    rng = random.Random(seed)
    b = Boot(isa, os.path.join(outdir, "console", isa), img)
    res = dict(isa=isa, bpftrace=None if img else why, runs=[])
    runs = res["runs"]
    t0 = time.monotonic()

    def note(r):
        runs.append(r)
        if r.get("error"):
            log(f"{tag} {r['row']} {r['tool']}: FAILED: {r['error']}")
            return
        brief = {k: r[k] for k in r if k in (
            "rate", "achieved", "records", "calls", "print_ms", "lines",
            "first_ms", "exit_ms", "nprobes", "kmem_kb", "maxrss_kb",
            "cpu_us", "ok")}
        log(f"{tag} {r['row']} {r['tool']}: {brief}"
            + ("" if r["ok"] else f"\n{r.get('tail')}"))
    try:
        b.start()
        res["bpftrace_version"] = b.bt_version
        tools = b.tools
        # 3 first: the first run after boot is the cold one.
        for rep in range(size["starts"] + 1 if "start" in rows else 0):
            order = list(tools)
            rng.shuffle(order)
            for t in order:
                bg = b.vm.run(f"({DRV} rate 2000 100000000 > /dev/null 2>&1 &) ;"
                              " true")
                assert bg.ok
                try:
                    r = b.one("start", t, b.start_run, t, rep)
                    r.setdefault("rep", rep)
                    note(r)
                finally:
                    b.vm.run("kill $(pidof cdrive) 2>/dev/null; true")
        # 1: each round climbs the rates, tools interleaved per step; a
        # tool leaves the round at its first failing step.
        for rnd in range(size["rounds"] if "rate" in rows else 0):
            live = list(tools) + [STRSIZE_VARIANT[0]]
            for rate in size["rates"]:
                rng.shuffle(live)
                for t in list(live):
                    r = b.one("rate", t, b.rate, t, rate, size["ms"])
                    r.update(round=rnd, rate=rate)
                    note(r)
                    if not r["ok"]:
                        live.remove(t)
                if not live:
                    break
        # 2
        for rnd in range(size["rounds"] if "agg" in rows else 0):
            order = list(tools)
            rng.shuffle(order)
            for t in order:
                note(b.one("agg", t, b.agg, t, size["keys"]))
        # 4
        for rep in range(size["mem_rounds"] if "mem" in rows else 0):
            for pat in MEM_SET:
                order = list(tools)
                rng.shuffle(order)
                for t in order:
                    r = b.one("mem", t, b.mem, t, pat, rep)
                    r.update(pattern=pat, rep=rep)
                    note(r)
    except xdtvm.XdtError as e:
        res["error"] = str(e)[-3000:]
        log(f"{tag} FAILED: {res['error']}")
    finally:
        res["clean_poweroff"] = b.stop()
        res["console"] = b.vm.console_path
    res["wall_s"] = round(time.monotonic() - t0, 1)
    return res


def med(xs):
    return statistics.median(xs) if xs else None



def spread(f, key, base, vals):
    """@key the median of @vals, @base_min and @base_max their range"""
    f[key] = med(vals)
    f[f"{base}_min"] = min(vals)
    f[f"{base}_max"] = max(vals)

def figures(res):
    """{tool: {figure: value}} of one ISA's runs."""
    runs = res["runs"]
    out = {}
    for t in TOOLS:
        mine = [r for r in runs if r["tool"] == t]
        if not mine:
            continue
        f = out[t] = {}
        # 1: per round, the highest step with every record written
        best = {}
        for r in mine:
            if r["row"] == "rate" and r["ok"]:
                k = r["round"]
                if k not in best or r["rate"] > best[k]["rate"]:
                    best[k] = r
        if best:
            bs = list(best.values())
            f["rate"] = med([r["achieved"] for r in bs])
            f["rate_min"] = min(r["achieved"] for r in bs)
            f["rate_max"] = max(r["achieved"] for r in bs)
            f["rate_step"] = med([r["rate"] for r in bs])
            f["cpu_us_per_rec"] = med([r["cpu_us"] / r["records"]
                                       for r in bs])
            f["rate_rss_kb"] = med([r["maxrss_kb"] for r in bs])
            top = max(r["rate"] for r in runs if r["row"] == "rate")
            f["rate_capped"] = all(r["rate"] == top for r in bs)
        fails = [r for r in mine if r["row"] == "rate" and not r["ok"]]
        if fails:
            x = fails[0]
            f["rate_fail"] = ([x["error"][:200]] if x.get("error") else
                              x["drops"][:2] or
                              [f"{x['records']} of {x['calls']} records"])
        ag = [r for r in mine if r["row"] == "agg" and r["ok"]]
        if ag:
            spread(f, "print_ms", "print", [r["print_ms"] for r in ag])
            f["agg_rss_kb"] = med([r["maxrss_kb"] for r in ag])
        f["agg_bad"] = sum(1 for r in mine if r["row"] == "agg"
                           and not r["ok"])
        st = [r for r in mine if r["row"] == "start" and r["ok"]]
        cold = [r for r in st if r["rep"] == 0]
        warm = [r for r in st if r["rep"] > 0]
        if cold:
            f["first_cold_ms"] = cold[0]["first_ms"]
        if warm:
            spread(f, "first_ms", "first", [r["first_ms"] for r in warm])
            f["exit_ms"] = med([r["exit_ms"] for r in warm])
        f["start_bad"] = sum(1 for r in mine if r["row"] == "start"
                             and not r["ok"])
        for pat in MEM_SET:
            mm = [r for r in mine if r["row"] == "mem" and r["ok"]
                  and r["pattern"] == pat]
            if mm:
                f[f"mem/{pat}"] = dict(
                    n=med([r["nprobes"] for r in mm]),
                    kmem_kb=med([r["kmem_kb"] for r in mm]),
                    rss_kb=med([r["rss_kb"] for r in mm]),
                    anon_kb=med([r["anon_kb"] for r in mm]),
                    maxrss_kb=med([r["maxrss_kb"] for r in mm]),
                    parts={k: med([r["kmem_parts"].get(k, 0) for r in mm])
                           for k in KMEM})
        w, one = f.get(f"mem/{MEM_SET[0]}"), f.get(f"mem/{MEM_SET[1]}")
        if w:
            f["kmem_per_probe"] = w["kmem_kb"] / w["n"]
            if one and w["n"] > one["n"]:
                f["kmem_marginal"] = (w["kmem_kb"] - one["kmem_kb"]) / \
                    (w["n"] - one["n"])
    return out


def fmt(x, nd=0):
    if x is None:
        return "–"
    return f"{x:,.{nd}f}".replace(",", " ")


def ratio(a, b, nd=2):
    return f"{a / b:.{nd}f}" if a is not None and b else "–"


def make_table(meta, results):
    lines = [f"# The consumer side: xdt `dtrace` against bpftrace 0.17 "
             f"({meta['size']} size)", ""]
    lines += [f"- tree {meta['tree']}, host load average "
              f"{meta['loadavg_start'][0]:.1f} at the start, "
              f"{meta['loadavg_end'][0]:.1f} at the end ({meta['nproc']} "
              "CPUs); everything runs under TCG, 2 vCPUs: compare the "
              "tools within a boot, not machines", ""]
    hdr = ("| ISA | row | xdt dtrace | bpftrace | xdt / bpftrace | "
           "better |\n|---|---|---:|---:|---:|---|")
    for res in results:
        isa = res["isa"]
        figs = res["figures"]
        d, b = figs.get("dtrace", {}), figs.get("bpftrace", {})
        lines.append(f"## {isa}")
        lines.append("")
        lines.append(f"- one boot, {res['wall_s']:.0f} s"
                     + (f"; bpftrace: {res['bpftrace_version']}"
                        if res.get("bpftrace_version") else
                        f"; no bpftrace column: {res['bpftrace']}")
                     + (f"; FAILED: {res['error'][:300]}"
                        if res.get("error") else ""))
        lines.append("")
        lines.append(hdr)

        def row(name, dv, bv, nd=0, lower=True, dtxt=None, btxt=None):
            dt = dtxt or fmt(dv, nd)
            bt = btxt or fmt(bv, nd)
            if not b:
                bt, rt, better = "–", "–", "–"
            elif name.startswith("1. records") and d.get("rate_capped") \
                    and b.get("rate_capped"):
                rt, better = ratio(dv, bv), "neither dropped"
            else:
                rt = ratio(dv, bv)
                better = "–" if dv is None or bv is None or \
                    lower is None else (
                    "xdt" if (dv < bv) == lower and dv != bv else
                    "bpftrace" if dv != bv else "even")
            lines.append(f"| {isa} | {name} | {dt} | {bt} | {rt} | "
                         f"{better} |")

        def span(f, k, lo, hi, nd=0):
            """median [min–max] of figure @k, or None."""
            if f.get(k) is None:
                return None
            return f"{fmt(f[k], nd)} [{fmt(f[lo], nd)}–{fmt(f[hi], nd)}]"

        def rate_txt(f):
            if f.get("rate") is None and not f.get("rate_fail"):
                return None             # not run (--rows)
            if f.get("rate") is None:
                return "none (" + "; ".join(f.get("rate_fail", [])) + ")"
            s = span(f, "rate", "rate_min", "rate_max")
            if f.get("rate_capped"):
                s += " (no drops at the top step)"
            return s
        row("1. records/s written to a file, no drops (median "
            "[min–max] of rounds)", d.get("rate"), b.get("rate"),
            lower=False, dtxt=rate_txt(d), btxt=rate_txt(b))
        s16 = figs.get(STRSIZE_VARIANT[0], {})
        row(f"1. the same, dtrace `-x {STRSIZE_VARIANT[1]}` (records as "
            "small as bpftrace's)", s16.get("rate"), b.get("rate"),
            lower=False, dtxt=rate_txt(s16), btxt=rate_txt(b))
        row("1. tool CPU µs per record at that rate (whole run: "
            "start-up included)", d.get("cpu_us_per_rec"),
            b.get("cpu_us_per_rec"), 1)
        row(f"2. print {meta['keys']} keys: SIGINT to exit, ms (median "
            "[min–max])", d.get("print_ms"), b.get("print_ms"),
            dtxt=span(d, "print_ms", "print_min", "print_max"),
            btxt=span(b, "print_ms", "print_min", "print_max"))
        row("3. exec to first firing, ms (warm median [min–max])",
            d.get("first_ms"), b.get("first_ms"), 1,
            dtxt=span(d, "first_ms", "first_min", "first_max", 1),
            btxt=span(b, "first_ms", "first_min", "first_max", 1))
        row("3. exec to first firing, ms, first run after boot",
            d.get("first_cold_ms"), b.get("first_cold_ms"), 1)
        row("3. exec to exit after the first record, ms (warm median)",
            d.get("exit_ms"), b.get("exit_ms"), 1)
        row("4. peak RSS KiB, row 1 (printf at the top rate)",
            d.get("rate_rss_kb"), b.get("rate_rss_kb"))
        row(f"4. peak RSS KiB, row 2 ({meta['keys']} keys)",
            d.get("agg_rss_kb"), b.get("agg_rss_kb"))
        w = MEM_SET[0]
        dm, bm = d.get(f"mem/{w}", {}), b.get(f"mem/{w}", {})
        row(f"4. peak RSS KiB, `{w}` enabled",
            dm.get("maxrss_kb"), bm.get("maxrss_kb"))
        row(f"4. probes enabled by `{w}` (N)", dm.get("n"), bm.get("n"),
            lower=None)
        row(f"4. kernel KiB with N probes enabled (Δ {'+'.join(KMEM)})",
            dm.get("kmem_kb"), bm.get("kmem_kb"))
        row("4. kernel KiB per probe: Δ / N", d.get("kmem_per_probe"),
            b.get("kmem_per_probe"), 2)
        row("4. kernel KiB per probe, marginal: (Δ_N − Δ_1) / (N − 1)",
            d.get("kmem_marginal"), b.get("kmem_marginal"), 2)
        lines.append("")
        for t, f in (("dtrace", d), ("bpftrace", b)):
            if f:
                parts = "; ".join(
                    f"{p}: " + ", ".join(f"{k} {fmt(v)}" for k, v in
                                         f[f"mem/{p}"]["parts"].items())
                    for p in MEM_SET if f"mem/{p}" in f)
                lines.append(f"- {t} kernel KiB Δ by field: {parts}")
                bad = f.get("agg_bad", 0) + f.get("start_bad", 0)
                if bad:
                    lines.append(f"- {t}: {bad} bad runs in rows 2-3 "
                                 "(left out; results.json has them)")
        lines.append("")
    lines += [
        "Row 1: the driver (bench/consumer-drive.c) calls getppid(2) R "
        f"times a second for {meta['ms']} ms, paced per millisecond; "
        "each call fires `syscall::getppid:entry` (bpftrace "
        "`tracepoint:syscalls:sys_enter_getppid`), filtered on the "
        "driver's pid, whose clause prints pid, tid, the timestamp and "
        "the process name to a file (`-o`).  Steps "
        f"{', '.join(str(r) for r in meta['rates'])}/s; a step passes "
        "when the file has one line per call and the tool said nothing "
        "of drops or lost events; the figure is the achieved rate "
        "(calls / the loop's time) at the highest passing step of each "
        f"round.  Buffers: dtrace `-x bufsize={BUFSIZE}` per CPU, "
        "switchrate left at its 1 s default; bpftrace "
        f"BPFTRACE_PERF_RB_PAGES={RB_PAGES} (its default: 256 KiB per "
        "CPU), polled.  CPU µs: the tool's user + system time (wait4) "
        "over the records.",
        "",
        f"Row 2: `@[arg0] = count()` on getpgid(2) (bpftrace "
        "`@[args->pid]` on its tracepoint) with arguments 1..N "
        f"(`-x aggsize={AGGSIZE}`; BPFTRACE_MAP_KEYS_MAX=131072), 2 s "
        "idle, then SIGINT; the time from the signal to the tool's exit "
        "(wait4 in the parent) covers the final snapshot, the sort and "
        "the N lines to stdout (a file).  Every run must print N lines "
        "with count 1.",
        "",
        "Row 3: a paced getppid loop (2000/s) runs beside; the tool's "
        "probe prints its own timestamp (`timestamp` / `nsecs`, "
        "CLOCK_MONOTONIC) at its first firing and exits; the figure is "
        "that minus the clock read in the child just before exec.  The "
        "first run after boot is shown alone and left out of the "
        "median.",
        "",
        "Row 4: peak RSS is wait4's ru_maxrss (synced at exit, unlike "
        "/proc/<pid>/status of a live small process on 6.1, "
        "bench/bpftrace.md).  Kernel memory: /proc/meminfo "
        f"{' + '.join(KMEM)}, one second after the tool's ready probe ran "
        "minus just before it started, with `fbt::vfs_*:entry` / "
        "`kprobe:vfs_*` (N as each tool reports: dtrace's \"matched N "
        "probes\", bpftrace's \"Attaching N probes\", the ready probe not counted) "
        "and with the single `vfs_read`; it includes each tool's fixed "
        "cost (dtrace's per-CPU buffers, bpftrace's maps, perf rings "
        "and programs), which the marginal figure leaves out.",
    ]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes (the smoke test)")
    ap.add_argument("--isas", default="x86_64,aarch64,riscv64")
    ap.add_argument("--bpftrace", default="x86_64,aarch64",
                    help="ISAs that get the bpftrace column (default "
                    "x86_64,aarch64: where bench/bpftrace.py builds a "
                    "disk); '' for none")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--keys", type=int)
    ap.add_argument("--rows", default=",".join(ROWS),
                    help=f"the rows to run (default {','.join(ROWS)})")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--out")
    ap.add_argument("--retable", metavar="DIR")
    a = ap.parse_args()
    if a.retable:
        with open(os.path.join(a.retable, "results.json")) as f:
            r = json.load(f)
        for res in r["results"]:
            res["figures"] = figures(res)
        table = make_table(r["meta"], r["results"])
        with open(os.path.join(a.retable, "table.md"), "w") as f:
            f.write(table)
        with open(os.path.join(a.retable, "results.json"), "w") as f:
            json.dump(r, f, indent=1)
        print(table)
        return 0
    size = dict(SIZES["quick" if a.quick else "full"])
    if a.rounds:
        size["rounds"] = size["mem_rounds"] = a.rounds
    if a.keys:
        size["keys"] = a.keys
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = a.out or os.path.join(TOP, "bench", "results",
                                   f"consumer-{stamp}")
    os.makedirs(outdir, exist_ok=True)
    git = subprocess.run(["git", "-C", TOP, "describe", "--always",
                          "--dirty"], capture_output=True, text=True)
    meta = dict(started=stamp, size="quick" if a.quick else "full",
                rows=a.rows.split(","),
                tree=git.stdout.strip(), nproc=os.cpu_count(),
                loadavg_start=os.getloadavg(), **size)
    bts = {x for x in a.bpftrace.split(",") if x}
    results = []
    for isa in a.isas.split(","):
        xdtvm.check_isa(isa)
        res = run_isa(isa, size, outdir, isa in bts, a.seed,
                      tuple(a.rows.split(",")))
        res["figures"] = figures(res)
        results.append(res)
    meta["loadavg_end"] = os.getloadavg()
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, results=results), f, indent=1)
    table = make_table(meta, results)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(table)
    print(table)
    log(f"results in {outdir}")
    return 1 if any(r.get("error") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
