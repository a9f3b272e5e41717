#!/usr/bin/env python3
"""make soak (docs/reliability.md): hours of abuse of xdt.ko on the debug kernels.

Per ISA, one guest (restarted only if it dies), a list of stages; each is a
function returning (what ran, how much, what was found), and the table is
made from that data.  Every count and seed is fixed: the same programs,
kills and faults every run (a wall-time cap, --cap, may abort a stage, and
the table says so).  Throughout, the console is read for kernel reports
(xdtvm.OOPS_RE: KASAN, KFENCE, UBSAN, lockdep, BUG, WARNING, kmemleak...);
each is a finding, listed by its first line and saved whole in the output
directory, $XDT_CACHE/soak/<date>/.

This lives in bench/ beside run.py and kgdbstudy.py, not in tests/: it
is a long run that measures and reports (rates, counts, a table for the
README), not a pass/fail unit test, and `make test` must not collect it.

    XDT_KVARIANT=debug bench/soak.py [--isas x86_64,...] [--quick]
        [--objects N] [--dprogs N] [--stages a,b] [--cap SECONDS]
        [--continue]
    bench/soak.py --ledger-table

The full fuzz stages (10^6 objects, 10^5 D programs per ISA) take longer
than a working session, so they run in pieces: with --continue, each fuzz
stage starts at the first chunk (seed) no earlier piece has used, and
appends what it did -- commit, kernel, seed range,
counts, findings -- to bench/soak-ledger.jsonl (committed: the record of
the soak is data, like a benchmark's results).  --ledger-table adds the
pieces up per ISA.  Pieces run on different commits are each recorded
with theirs; a finding names its piece.

Exit status 1 if anything was found.
"""
import argparse
import datetime
import json
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import xdtvm  # noqa: E402

SEED = 20260320
LEDGER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "soak-ledger.jsonl")
FUZZ_RE = re.compile(r"programs (\d+) accepted (\d+) refused (\d+) goerr (\d+)"
                     r" firings (\d+) errors (\d+)")
DFUZZ_RE = re.compile(r"xdt-dfuzz: programs (\d+) compiled (\d+) refused (\d+)"
                      r" ran (\d+) faults (\d+) failures (\d+)")
FAILNTH_RE = re.compile(r"xdt-failnth: trials (\d+) injected (\d+) failed (\d+)"
                        r" absorbed (\d+) clean (\d+) bad (\d+)")
ALLOC_FAIL_RE = xdtvm.ALLOC_FAIL_RE
# The kernel's report of a CPU hotplug is not a problem (smpboot's
# "CPU1 is up" and friends); listed so nothing that matches OOPS_RE is.
KMEMLEAK = "/sys/kernel/debug/kmemleak"
# Slab (meminfo SUnreclaim) may differ this much before and after the
# 1000 start/stop cycles: a leak of one 128-byte object per cycle would
# show as 128 KiB, and the smallest thing a consumer allocates per cycle
# is its 1 KiB-class state (struct xdt_state); below that the count is
# within what the guest's own activity (the agent, printk, RCU's deferred
# frees) moves between two readings -- kmemleak sees single objects.
SLAB_TOLERANCE_KB = 128


def human(n):
    return f"{n:,}".replace(",", " ")


class Soak:
    def __init__(self, isa, args, outdir):
        self.isa, self.args, self.outdir = isa, args, outdir
        self.vm = None
        self.rows = []
        self.findings = 0
        self.rng = random.Random(SEED)
        self.debug = xdtvm.KVARIANT == "debug"
        self.expect_alloc_failures = False
        self.stage_mark = self.leak_handled_lines = 0
        # what ran: the tree as it was when the run began
        self.commit, self.kernel = git_commit(), kernel_key(isa)

    # ---- the guest -----------------------------------------------------
    def boot(self):
        self.vm = xdtvm.VM(self.isa, logdir=os.path.join(
            self.outdir, f"console-{self.isa}-{int(time.time())}"))
        self.vm.start(timeout=900)
        self.g("insmod /lib/modules/xdt.ko", timeout=900, check=True)

    def g(self, cmd, timeout=600, check=False):
        r = self.vm.run(cmd, timeout=timeout, watch=False)
        if check and not r.ok:
            raise xdtvm.XdtError(f"{cmd!r}: {r.how} {r.code}\n{r.stdout[-2000:]}"
                                 f"\n{r.stderr[-2000:]}")
        return r

    def refs(self):
        """xdt's module refcount, None if not loaded."""
        for ln in self.g("cat /proc/modules").stdout.splitlines():
            f = ln.split()
            if f and f[0] == "xdt":
                return int(f[2])
        return None

    def settle_refs(self, found, what, timeout=60):
        """Wait (a consumer's file is released as it exits) for xdt's
        refcount to be 0; a finding if it is not."""
        deadline = time.monotonic() + timeout
        while True:
            n = self.refs()
            if n == 0:
                return True
            if time.monotonic() > deadline:
                found.append(f"{what}: xdt refcount {n} (not 0) after "
                             f"{timeout} s; ps: "
                             + self.g("ps | grep -v ' \\[' | tail -15").stdout)
                return False
            time.sleep(1)

    def console_findings(self, since, stage):
        """Kernel reports on the console since @since, each saved whole."""
        lines = self.vm.console(since).splitlines()
        out, expected, i = [], 0, 0
        while i < len(lines):
            if not xdtvm.OOPS_RE.search(lines[i]):
                i += 1
                continue
            ctx = lines[max(0, i - 10):i + 1]
            if self.expect_alloc_failures and any(ALLOC_FAIL_RE.search(c)
                                                  for c in ctx):
                expected += 1
                i += 1
                continue
            # a report in the kernel itself, written down with its evidence
            # (xdtvm.KERNEL_REPORTS, the same list make test-debug uses):
            # named in the summary, not a finding
            end = self.vm._known_report(lines, i)
            if end is not None:
                i = end + 1
                continue
            if xdtvm.KMEMLEAK_RE.search(lines[i]) and \
                    i < self.leak_handled_lines:
                i += 1              # the stage's own scan, judged by kmemleak()
                continue
            if xdtvm.KMEMLEAK_RE.search(lines[i]):
                # a periodic scan's count: what leaked is in debugfs
                rep = self.vm.kmemleak_details(lines[i]) \
                    if self.vm.proc.poll() is None else lines[i]
                i += 1
                if rep is None:
                    continue        # the kernel's own, written down
                path = os.path.join(self.outdir, f"{self.isa}-{stage}-"
                                    f"report{len(out) + 1}.txt")
                with open(path, "w") as f:
                    f.write(rep + "\n")
                out.append(f"console: `{rep.splitlines()[0][:160]}` "
                           f"({os.path.basename(path)})")
                continue
            first = lines[i].strip()
            path = os.path.join(self.outdir, f"{self.isa}-{stage}-"
                                f"report{len(out) + 1}.txt")
            with open(path, "w") as f:
                f.write("\n".join(lines[max(0, i - 20):i + 200]) + "\n")
            out.append(f"console: `{first[:160]}` ({os.path.basename(path)})")
            # one report: skip its body (the next 60 lines or so)
            j = i + 1
            while j < len(lines) and j < i + 60 and \
                    not re.search(r"---\[ end trace|^\S*\s*$", lines[j]):
                j += 1
            i = j + 1
        return out, expected

    # ---- running the stages ----------------------------------------------
    def run(self, stages):
        for name, fn in stages:
            t0 = time.monotonic()
            found = []
            if self.vm is None or self.vm.proc.poll() is not None:
                try:
                    self.boot()
                except xdtvm.XdtError as e:
                    found.append(f"boot failed: {str(e).splitlines()[0]}")
                    self.row(name, "boot", "-", found, t0)
                    self.vm = None
                    continue
            mark = self.stage_mark = self.vm.console_mark()
            self.leak_handled_lines = 0
            self.expect_alloc_failures = False
            what, much = name, "-"
            try:
                what, much = fn(found)
            except xdtvm.XdtError as e:
                first = str(e).splitlines()[0]
                found.append(f"guest: {first}")
                path = os.path.join(self.outdir, f"{self.isa}-{name}-error.txt")
                with open(path, "w") as f:
                    f.write(str(e) + "\n")
            if self.vm.proc.poll() is None:
                self.vm.console_sync()
            k0 = len(xdtvm.KNOWN_SEEN)
            rep, expected = self.console_findings(mark, name)
            found += rep
            if expected:
                much += f"; {expected} allocation-failure warnings (expected)"
            known = {}
            for k in xdtvm.KNOWN_SEEN[k0:]:
                n = k.split(": ")[1]
                known[n] = known.get(n, 0) + 1
            if known:
                much += "; the kernel's own reports (docs/reliability.md): " + \
                    ", ".join(f"{n} x{c}" for n, c in sorted(known.items()))
            if self.vm.proc.poll() is not None:
                found.append("the guest died (QEMU exited)")
                self.vm.kill()
                self.vm = None
            elif isinstance(found, list) and any(f.startswith("guest:")
                                                 for f in found):
                # a hung agent or a wedged module: start over
                self.vm.kill()
                self.vm = None
            self.row(name, what, much, found, t0)
        if self.vm:
            self.vm.poweroff()

    def row(self, name, what, much, found, t0):
        self.findings += len(found)
        secs = time.monotonic() - t0
        self.rows.append((name, what, much,
                          "<br>".join(found) if found else "nothing", secs))
        print(f"  [{self.isa}] {name}: {much}; "
              f"{'; '.join(found) if found else 'nothing found'} "
              f"({secs:.0f} s)", flush=True)

    def table(self):
        kv = xdtvm.KVARIANT or "normal"
        out = [f"### {self.isa} ({kv} kernel{', quick' if self.args.quick else ''})",
               "", "| stage | what ran | how much | what was found | time |",
               "|---|---|---|---|---|"]
        def cell(x):
            return " ".join(str(x).split()).replace("|", "\\|")
        for name, what, much, found, secs in self.rows:
            t = f"{secs / 60:.1f} min" if secs >= 120 else f"{secs:.0f} s"
            out.append(f"| {name} | {cell(what)} | {cell(much)} | "
                       f"{cell(found)} | {t} |")
        return "\n".join(out) + "\n"

    def capped(self, t0):
        return self.args.cap and time.monotonic() - t0 > self.args.cap

    # ---- 1. fuzzed program objects ------------------------------------
    def fuzz_objects(self, found):
        a = self.args
        # 1 chunk in 10 has fbt (chunk 0 first): at least 10 chunks
        n, chunk = a.objects, max(1, min(5000, a.objects // 10))
        done = acc = ref = goerr = firings = errors = nfbt = 0
        t0 = time.monotonic()
        i = i0 = self.first_chunk("fuzz-objects", chunk)
        while done < n:
            if self.capped(t0):
                # a piece (--continue) ends at its cap by design
                if not a.cont:
                    found.append(f"aborted by the wall cap at {done} programs")
                break
            k = min(chunk, n - done)
            # one chunk in ten with syscall and fbt probes (each program
            # 25% likely to use them); the rest BEGIN/END/ERROR only (-B)
            full = i % 10 == 0
            mode = "" if full else "-B "
            r = self.g(f"xdt-fuzz {mode}-n {k} -s {a.seed + i}",
                       timeout=k * 2 + 600)
            m = FUZZ_RE.search(r.stdout)
            if not r.ok or not m:
                found.append(f"xdt-fuzz {mode}-s {a.seed + i}: {r.how} "
                             f"{r.code}: {(r.stdout + r.stderr)[-300:]!r}")
                if not m:
                    break
            p, ac, rf, ge, fi, er = map(int, m.groups())
            done += p
            acc, ref, goerr = acc + ac, ref + rf, goerr + ge
            firings, errors = firings + fi, errors + er
            nfbt += p if full else 0
            if ge:
                found.append(f"xdt-fuzz -s {a.seed + i}: {ge} GO failures")
            i += 1
        rate = done / max(time.monotonic() - t0, 1e-9)
        self.rates["fuzz-objects"] = rate
        self.ledger("fuzz-objects", chunk, i0, i, t0, found,
                    programs=done, with_probes=nfbt, accepted=acc,
                    refused=ref, goerr=goerr, firings=firings, errors=errors)
        return ("xdt-fuzz, raw program objects through the ioctl, seeds "
                f"{a.seed}+{i0}..{a.seed}+{i - 1} in chunks of {chunk}; 1 chunk in 10 with "
                "syscall/fbt clauses, the rest -B"), \
            (f"{human(done)} programs ({human(nfbt)} with fbt/syscall), "
             f"{human(acc)} accepted, {human(ref)} refused, "
             f"{human(firings)} firings, {human(errors)} ERRORs; "
             f"{rate:.1f}/s")

    # ---- 2. fuzzed D programs ----------------------------------------
    def fuzz_d(self, found):
        a = self.args
        n, chunk = a.dprogs, max(1, min(1000, a.dprogs // 10))
        done = comp = ref = ran = faults = 0
        t0 = time.monotonic()
        i = i0 = self.first_chunk("fuzz-D", chunk)
        while done < n:
            if self.capped(t0):
                # a piece (--continue) ends at its cap by design
                if not a.cont:
                    found.append(f"aborted by the wall cap at {done} programs")
                break
            k = min(chunk, n - done)
            full = i % 10 == 0
            mode = "" if full else "-B "
            r = self.g(f"xdt-dfuzz {mode}-n {k} -s {a.seed + 1000 + i} "
                       "2>/tmp/dfuzz.err | tail -5; tail -c 2000 /tmp/dfuzz.err >&2",
                       timeout=k * 5 + 600)
            m = DFUZZ_RE.search(r.stdout)
            if not m:
                found.append(f"xdt-dfuzz {mode}-s {a.seed + 1000 + i}: no "
                             f"summary ({r.how} {r.code}): {r.stderr[-300:]!r}")
                break
            p, c, rf, rn, fl, fails = map(int, m.groups())
            done, comp, ref, ran, faults = (done + p, comp + c, ref + rf,
                                            ran + rn, faults + fl)
            if fails:
                found.append(f"xdt-dfuzz -s {a.seed + 1000 + i}: {fails} "
                             f"failures: {r.stderr[-300:]!r}")
            i += 1
        rate = done / max(time.monotonic() - t0, 1e-9)
        self.rates["fuzz-D"] = rate
        self.ledger("fuzz-D", chunk, i0, i, t0, found, programs=done,
                    compiled=comp, refused=ref, ran=ran, faulted=faults)
        return ("xdt-dfuzz, random D through libxdt and xdt.ko, seeds "
                f"{a.seed + 1000}+{i0}..{a.seed + 1000}+{i - 1} in chunks of {chunk}; 1 in 10 chunks with "
                "syscall/fbt/kinst/rawtp probes, the rest -B"), \
            (f"{human(done)} programs, {human(comp)} compiled, {human(ref)} "
             f"refused at enable, {human(ran)} ran, {human(faults)} faulted; "
             f"{rate:.2f}/s")

    # ---- the ledger of fuzz pieces ----------------------------------------
    def first_chunk(self, stage, chunk):
        """0, or with --continue the first chunk index no piece in the
        ledger has used for this ISA, stage, kernel variant, seed and chunk
        size (another size would give other programs for the same seed)."""
        if not self.args.cont:
            return 0
        used = [e["chunk_last"] + 1 for e in read_ledger()
                if e["isa"] == self.isa and e["stage"] == stage
                and e["kvariant"] == (xdtvm.KVARIANT or "normal")
                and e["seed"] == self.args.seed and e["chunk"] == chunk]
        return max(used, default=0)

    def ledger(self, stage, chunk, i0, i, t0, found, **counts):
        # Only pieces that continue the ledger's seeds add up; a run from
        # chunk 0 repeats programs already counted.
        if i == i0 or not self.args.cont:
            return
        e = dict(date=datetime.datetime.now().isoformat(timespec="seconds"),
                 isa=self.isa, kvariant=xdtvm.KVARIANT or "normal",
                 stage=stage, commit=self.commit, kernel=self.kernel,
                 seed=self.args.seed, chunk=chunk, chunk_first=i0,
                 chunk_last=i - 1, secs=round(time.monotonic() - t0),
                 findings=list(found), **counts)
        with open(self.args.ledger, "a") as f:
            f.write(json.dumps(e, sort_keys=True) + "\n")

    # ---- 3. every probe at once, several consumers -------------------------
    CONSUMERS = [
        ("syscall", "syscall:::entry { @e = count(); } "
                    "syscall:::return { @r = count(); }"),
        ("rawtp", "rawtp::: { @t = count(); }"),
        ("fbt-vfs", "fbt::vfs_*: { @f = count(); } profile-997 { @p = count(); }"),
    ]

    def every_probe(self, found):
        rounds = self.args.rounds
        ok = 0
        for rd in range(rounds):
            lines = ["rm -f /tmp/ep.stop",
                     "while [ ! -e /tmp/ep.stop ]; do ls -R /proc/self "
                     ">/dev/null 2>&1; cat /proc/version >/dev/null; done &",
                     "w=$!; cs="]
            for k, (name, prog) in enumerate(self.CONSUMERS):
                delay = self.rng.uniform(0, 1.5)
                dur = self.rng.randint(2, 4)
                lines.append(f"(sleep {delay:.2f}; dtrace -qn '{prog} "
                             f"tick-{dur}s {{ exit(0); }}' > /tmp/ep{k}.out "
                             f"2>&1; echo $? > /tmp/ep{k}.rc) & cs=\"$cs $!\"")
            lines.append("wait $cs; touch /tmp/ep.stop; wait $w")
            for k in range(len(self.CONSUMERS)):
                lines.append(f"echo \"== {k} $(cat /tmp/ep{k}.rc)\"; "
                             f"cat /tmp/ep{k}.out")
            r = self.g("\n".join(lines), timeout=900)
            good = True
            for k, (name, _) in enumerate(self.CONSUMERS):
                m = re.search(rf"^== {k} (\d+)\n(.*?)(?=^== |\Z)", r.stdout,
                              re.S | re.M)
                counts = [int(x) for x in re.findall(r"^\s*(\d+)\s*$",
                                                     m.group(2), re.M)] if m else []
                if not m or m.group(1) != "0" or not counts or min(counts) == 0:
                    good = False
                    found.append(f"round {rd} {name}: "
                                 f"{(m.group(0) if m else r.stdout)[-300:]!r}")
            ok += good
            if not self.settle_refs(found, f"round {rd}"):
                break
        lv = self.g("dtrace -l -v -n fbt::vfs_read:entry").stdout
        if "in use" in lv:
            found.append(f"after the rounds fbt::vfs_read:entry is still in: {lv[-200:]!r}")
        return ("3 dtrace consumers per round, overlapping at random (seeded) "
                "starts and lengths, under a workload: syscall:::entry/return; "
                "rawtp:::; fbt::vfs_*: + profile-997"), \
            f"{rounds} rounds, {ok} with every consumer clean"

    # ---- 4. SIGKILL mid-run ---------------------------------------------
    KILLABLE = [
        "dtrace -qn 'fbt::vfs_*: { @[probefunc] = count(); }'",
        "dtrace -qn 'syscall:::entry { @[probefunc] = count(); } "
        "profile-997 { @p[cpu] = count(); }'",
        "dtrace -qn 'rawtp::: { @[probename] = count(); }'",
        "xdt-fuzz -n 100000 -s {seed}",
        "xdt-dfuzz -b 0 -n 100000 -s {seed}",
        "xdt-failnth -r 100000",
    ]

    def sigkill(self, found):
        n = self.args.kills
        ncons = rm = 0
        for k in range(n):
            cmds = self.rng.sample(self.KILLABLE, self.rng.randint(1, 3))
            delay = self.rng.uniform(0.2, 4.0)
            script = ["pids="]
            for c in cmds:
                script.append(f"{c.replace('{seed}', str(SEED + k))} >/dev/null 2>&1 & "
                              "pids=\"$pids $!\"")
            script += ["i=0; while [ $i -lt 400 ]; do cat /proc/version "
                       ">/dev/null; i=$((i+1)); done &",
                       f"sleep {delay:.2f}; kill -9 $pids; wait"]
            ncons += len(cmds)
            self.g("\n".join(script), timeout=300)
            if not self.settle_refs(found, f"kill {k} ({', '.join(c.split()[0] for c in cmds)})"):
                return self._sigkill_result(k + 1, ncons, rm)
            if k % 10 == 9 or k == n - 1:
                r = self.g("rmmod xdt && insmod /lib/modules/xdt.ko",
                           timeout=900)
                if not r.ok:
                    found.append(f"after kill {k}: rmmod/insmod: "
                                 f"{r.stderr[-200:]!r}")
                    break
                rm += 1
        return self._sigkill_result(n, ncons, rm)

    def _sigkill_result(self, n, ncons, rm):
        return ("1-3 consumers (dtrace fbt::vfs_*:, syscall:::+profile, "
                "rawtp:::, xdt-fuzz, xdt-dfuzz, libxdt cycles) SIGKILLed "
                "after a seeded 0.2-4 s; refcount back to 0 each time; "
                "rmmod+insmod every 10 kills"), \
            f"{n} kills of {ncons} consumers, {rm} rmmod/insmod"

    # ---- 5. module unload/load --------------------------------------------
    def module_cycles(self, found):
        n = self.args.modcycles
        ok = 0
        for k in range(n):
            r = self.g("rmmod xdt && insmod /lib/modules/xdt.ko && "
                       "dtrace -qn 'fbt::vfs_read:entry { @r = count(); } "
                       "syscall::getppid:entry { @g = count(); } "
                       "profile-997 { @p = count(); }' -c 'cat /proc/version'",
                       timeout=900)
            counts = re.findall(r"^\s*(\d+)\s*$", r.stdout, re.M)
            if not r.ok or not counts or int(counts[0]) == 0:
                found.append(f"cycle {k}: {r.how} {r.code} "
                             f"{(r.stdout + r.stderr)[-300:]!r}")
                if self.refs() is None:
                    self.g("insmod /lib/modules/xdt.ko", timeout=900)
                break
            ok += 1
        # what an unload leaves behind (the probe table once)
        leak = self.kmemleak(found, "modcycles")
        return ("rmmod xdt; insmod xdt.ko; dtrace on fbt::vfs_read:entry, "
                "syscall::getppid:entry, profile-997 over a command; then "
                "kmemleak"), f"{n} cycles, {ok} clean; {leak}"

    # ---- 6. CPU hotplug while tracing ------------------------------------
    def hotplug(self, found):
        n = self.args.hotplugs
        online = "/sys/devices/system/cpu/cpu1/online"
        if not self.g(f"test -w {online}").ok:
            found.append(f"no {online}: kernel without CPU hotplug")
            return "cpu1 offline/online", "0"
        toggles = "; ".join(
            f"echo 0 > {online}; cat /proc/version >/dev/null; "
            f"echo 1 > {online}; sleep 0.{self.rng.randint(1, 5)}"
            for _ in range(n))
        self.vm.put(toggles.encode() + b"\n", "/tmp/hp.sh", mode="755")
        r = self.g("dtrace -qn 'profile-997 { @p[cpu] = count(); } "
                   "tick-10ms { @t = count(); } "
                   "fbt::vfs_read:entry { @r = count(); } "
                   "fbt::cpuhp_*:entry { @h = count(); } "
                   "syscall::write:entry { @w = count(); }' "
                   "-c 'sh /tmp/hp.sh' & d=$!; "
                   "dtrace -qn 'fbt::vfs_*:entry { @f = count(); } "
                   "profile-97 { @q[cpu] = count(); }' -c 'sh /tmp/hp.sh'; "
                   "s=$?; wait $d; t=$?; echo rc $s $t; "
                   f"cat {online}", timeout=1800)
        m = re.search(r"rc (\d+) (\d+)\n(\d)", r.stdout)
        if not r.ok or not m or m.groups() != ("0", "0", "1"):
            found.append(f"{r.how} {r.code}: {(r.stdout + r.stderr)[-400:]!r}")
            self.g(f"echo 1 > {online}")
        self.settle_refs(found, "after hotplug")
        return ("cpu1 offline/online while two dtrace consumers ran "
                "profile-997/97, tick-10ms, fbt::vfs_*:entry, fbt::cpuhp_*:entry, "
                "syscall::write:entry"), \
            f"{n} offline/online cycles x 2 consumers (interleaved)"

    # ---- 7. 1000 start/stop cycles: kmemleak and slab ------------------
    def slab_kb(self):
        self.g("sync; echo 3 > /proc/sys/vm/drop_caches; sleep 2")
        mi = self.g("cat /proc/meminfo").stdout
        m = re.search(r"SUnreclaim:\s+(\d+) kB", mi) or \
            re.search(r"Slab:\s+(\d+) kB", mi)
        return int(m.group(1))

    def kmemleak(self, found, what):
        """Scan twice, report: each suspect is listed; those whose stack
        or comm names xdt are findings."""
        if not self.g(f"test -e {KMEMLEAK}").ok:
            if self.debug:
                found.append(f"{what}: no {KMEMLEAK} in the debug kernel")
            return "kmemleak: not in this kernel"
        for _ in range(2):
            r = self.g(f"echo scan > {KMEMLEAK}", timeout=1800)
            if not r.ok:
                found.append(f"{what}: kmemleak scan: {r.stderr.strip()[:200]}")
                return "kmemleak: scan failed"
        rep = self.g(f"cat {KMEMLEAK}").stdout
        objs = re.split(r"(?=^unreferenced object)", rep, flags=re.M)
        objs = [o for o in objs if o.startswith("unreferenced")]
        path = os.path.join(self.outdir, f"{self.isa}-kmemleak-{what}.txt")
        with open(path, "w") as f:
            f.write(rep)
        known = [o for o in objs if xdtvm.known_leak(o)]
        for o in known:
            k = xdtvm.known_leak(o)
            xdtvm.KNOWN_SEEN.append(f"{self.isa}: {k['name']}: {k['why']}")
        ours = [o for o in objs if o not in known and
                re.search(r"\[xdt\]|xdt_|comm \"(dtrace|xdt-)", o)]
        for o in ours:
            found.append(f"kmemleak ({what}): `{o.splitlines()[0]}` "
                         f"({os.path.basename(path)})")
        self.g(f"echo clear > {KMEMLEAK}")
        # the count the scans printed on the console is judged here, with
        # the objects: console_findings must not read it again (debugfs is
        # clear now, nothing would say whose they were)
        self.vm.console_sync()
        self.leak_handled_lines = self.vm.console(self.stage_mark).count("\n")
        return (f"kmemleak: {len(objs)} suspects, {len(ours)} attributable"
                + (f", {len(known)} the kernel's own (written down)"
                   if known else "")
                + (f" (others saved in {os.path.basename(path)})"
                   if len(objs) > len(ours) else ""))

    def startstop(self, found):
        n = self.args.cycles
        if self.g(f"test -e {KMEMLEAK}").ok:
            self.g(f"echo scan > {KMEMLEAK}; echo clear > {KMEMLEAK}",
                   timeout=1800)
        self.g("xdt-failnth -r 20", timeout=600, check=True)   # warm-up
        before = self.slab_kb()
        t0 = time.monotonic()
        r = self.g(f"xdt-failnth -r {n}", timeout=n * 10 + 600)
        rate = n / max(time.monotonic() - t0, 1e-9)
        if not r.ok:
            found.append(f"cycles: {r.how} {r.code} {r.stdout[-300:]!r}")
        self.settle_refs(found, "after the cycles")
        time.sleep(2)
        after = self.slab_kb()
        leak = self.kmemleak(found, "startstop")
        d = after - before
        if d > SLAB_TOLERANCE_KB:
            found.append(f"slab grew {d} kB over {n} cycles "
                         f"(> {SLAB_TOLERANCE_KB} kB)")
        return ("libxdt consumers (the program of the fail-nth stage: 7 "
                "providers' probes, aggregations, dynamic and thread-local "
                "variables, a speculation), open..close each"), \
            (f"{n} cycles at {rate:.1f}/s; slab (SUnreclaim) {before} -> "
             f"{after} kB ({d:+d}, tolerance {SLAB_TOLERANCE_KB}); {leak}")

    # ---- 8. fault injection ---------------------------------------------
    def fault_setup(self):
        r = self.g(xdtvm.fault_setup_cmd())
        return r.ok, (r.stdout + r.stderr).strip()

    def fault_nth(self, found):
        if not self.g("test -e /proc/self/task/$$/fail-nth").ok:
            if self.debug:
                found.append("no fail-nth in the debug kernel")
            return "fail-nth sweep", "not available (kernel without CONFIG_FAULT_INJECTION)"
        ok, err = self.fault_setup()
        if not ok:
            found.append(f"fault-injection debugfs: {err[:200]}")
            return "fail-nth sweep", "not set up"
        self.expect_alloc_failures = True
        self.g("xdt-failnth -r 5", timeout=600)
        before = self.slab_kb()
        phases = self.args.phases
        r = self.g(f"xdt-failnth -p {phases}", timeout=6 * 3600)
        path = os.path.join(self.outdir, f"{self.isa}-failnth.txt")
        with open(path, "w") as f:
            f.write(r.stdout + r.stderr)
        m = FAILNTH_RE.search(r.stdout)
        for ln in r.stdout.splitlines():
            if ln.startswith("BAD "):
                found.append(f"fail-nth: {ln[4:][:200]}")
        if not m:
            found.append(f"xdt-failnth: no summary ({r.how} {r.code}) "
                         f"{(r.stdout + r.stderr)[-300:]!r}")
            return "fail-nth sweep", "-"
        tr, inj, fail, absd, clean, nbad = map(int, m.groups())
        sites = re.findall(r"^(\w+): (\d+) sites", r.stdout, re.M)
        errs = {}
        for e in re.findall(r"nth \d+: ([A-Za-z ]+): ", r.stdout):
            errs[e] = errs.get(e, 0) + 1
        self.settle_refs(found, "after the sweep")
        after = self.slab_kb()
        if after - before > SLAB_TOLERANCE_KB:
            found.append(f"slab grew {after - before} kB over the sweep")
        leak = self.kmemleak(found, "failnth")
        return ("fail-nth on each system call of a libxdt consumer on "
                "/dev/xdt (" + ", ".join(f"{p} {s}" for p, s in sites) +
                " sites); each injected run then a clean enabling"), \
            (f"{inj} injected runs ({tr} trials): {fail} failed ("
             + ", ".join(f"{k} {v}" for k, v in sorted(errs.items())) +
             f"), {absd} absorbed, {clean} clean enablings; slab "
             f"{before} -> {after} kB; {leak}")

    PROB_PROG = ("syscall::getppid:entry,syscall::read:entry { @c[probefunc] = "
                 "count(); } fbt::vfs_read:entry { @s = sum(arg2); } "
                 "profile-997 { @p = count(); } END { printf(\"done %d\\n\", 1); }")

    def fault_prob(self, found):
        if not self.g("test -d /sys/kernel/debug/failslab").ok:
            if self.debug:
                found.append("no failslab in the debug kernel")
            return "failslab/fail_page_alloc", "not available in this kernel"
        ok, err = self.fault_setup()
        if not ok:
            found.append(f"fault-injection debugfs: {err[:200]}")
            return "failslab/fail_page_alloc", "not set up"
        self.expect_alloc_failures = True
        n = self.args.probruns
        outcomes = {}
        # the program from a file, so the shell that runs under make-it-fail
        # has no quoting to parse: its failures (a truncated argument, E2BIG)
        # were dtrace's "syntax error" at the cut
        self.vm.put(self.PROB_PROG.encode(), "/tmp/prob.d")
        # Who sent a SIGSEGV, and from where: the kernel kills a process
        # whose exec failed after its point of no return (bprm_execve's
        # force_fatal_sig) and one whose stack it could not grow; neither
        # is dtrace's doing.  The signal_generate event's stack tells them
        # apart, exception-trace prints a user fault's pc.
        tr = "/sys/kernel/tracing"
        self.sigtrace = self.g(
            f"T={tr}; [ -d $T/events ] || T=/sys/kernel/debug/tracing; "
            "echo 'sig==11' > $T/events/signal/signal_generate/filter && "
            "echo 1 > $T/options/stacktrace && "
            "echo 1 > $T/events/signal/signal_generate/enable && "
            "echo > $T/trace && echo $T").stdout.strip() or None
        self.g("echo 1 > /proc/sys/debug/exception-trace")
        for fa, pct in (("failslab", 3), ("fail_page_alloc", 1)):
            self.g(f"echo {pct} > /sys/kernel/debug/{fa}/probability")
            try:
                for k in range(n):
                    r = self.g("sh -c 'echo 1 > /proc/self/make-it-fail && "
                               "exec dtrace -q -x bufsize=16k -x aggsize=16k "
                               "-s /tmp/prob.d -c \"cat /proc/version\"'",
                               timeout=300)
                    err = r.stderr.strip().splitlines()
                    if r.ok and "done 1" in r.stdout:
                        key = "ran"
                    elif r.how == "exited" and r.code in (126, 127):
                        # an exec failed (the shell's of dtrace, or the
                        # loader of dtrace's -c command): the injection
                        # hit them, not xdt -- counted, not a finding
                        key = f"exec failed before dtrace ({r.code})"
                    elif r.how == "signaled" or (r.how == "exited"
                                                 and r.code > 128):
                        who = self.sigsegv_sender() if r.code in (11, 139) \
                            else None
                        if who == "exec":
                            key = ("SIGSEGV from exec after its point of no "
                                   "return (the kernel's)")
                        else:
                            key = f"killed by signal {r.code}" + (
                                " in a user page fault" if who == "fault"
                                else "")
                            found.append(f"{fa} run {k}: dtrace {r.how} "
                                         f"{r.code}{' (user page fault)' if who == 'fault' else ''}: "
                                         f"{r.stderr[-200:]!r}")
                    elif r.how == "timeout":
                        key = "timeout"
                        found.append(f"{fa} run {k}: timed out")
                    else:
                        # dtrace's own message (a compile error's caret
                        # and source lines come after it)
                        msg = next((ln for ln in err if
                                    ln.startswith("dtrace:")),
                                   err[-1] if err else "(none)")
                        msg = re.sub(r"0x[0-9a-f]+|\d+", "N", msg)[:160]
                        key = f"exit {r.code}: {msg}"
                        if not re.search(r"memory|Bad address|No space|"
                                         r"Resource temporarily", msg, re.I):
                            found.append(f"{fa} run {k}: unclear failure: "
                                         f"{msg!r}")
                    outcomes[(fa, key)] = outcomes.get((fa, key), 0) + 1
                    if key != "ran":
                        if not self.settle_refs(found, f"{fa} run {k}"):
                            return self._prob_result(outcomes, n)
                        self.g(f"echo 0 > /sys/kernel/debug/{fa}/probability")
                        c = self.g("dtrace -q -s /tmp/prob.d "
                                   "-c 'cat /proc/version'", timeout=300)
                        if not (c.ok and "done 1" in c.stdout):
                            found.append(f"{fa} run {k}: the next clean "
                                         f"enabling failed: {c.stderr[-200:]!r}")
                        self.g(f"echo {pct} > /sys/kernel/debug/{fa}/probability")
            finally:
                self.g(f"echo 0 > /sys/kernel/debug/{fa}/probability")
        if self.sigtrace:
            self.g(f"echo 0 > {self.sigtrace}/events/signal/signal_generate/enable")
        return self._prob_result(outcomes, n)

    def sigsegv_sender(self):
        """The last SIGSEGV's origin from the signal_generate trace: "exec"
        (bprm_execve), "fault" (a user page fault), or None; the trace is
        cleared."""
        if not self.sigtrace:
            return None
        t = self.g(f"cat {self.sigtrace}/trace; echo > {self.sigtrace}/trace"
                   ).stdout
        last = t.rsplit("signal_generate:", 1)[-1]
        if "bprm_execve" in last:
            return "exec"
        if re.search(r"page_fault|do_mem_abort|do_translation_fault", last):
            return "fault"
        return None

    def _prob_result(self, outcomes, n):
        return ("dtrace with make-it-fail under failslab 3% and "
                "fail_page_alloc 1% (GFP_KERNEL too, order 0 up), "
                "each failure followed by a clean enabling"), \
            f"{n} runs each: " + "; ".join(
                f"{fa} {key} x{v}" for (fa, key), v in sorted(outcomes.items()))


STAGE_NAMES = ["fuzz-objects", "fuzz-D", "every-probe", "sigkill",
               "module-cycles", "hotplug", "startstop-1000", "fail-nth",
               "failslab-prob"]


def git_commit():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run(["git", "-C", top, "describe", "--always", "--dirty"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def kernel_key(isa):
    """The kernel's cache directory name (ISA and key: what built it)."""
    link = os.path.join(xdtvm.CACHE, "kernel",
                        *([xdtvm.KVARIANT] if xdtvm.KVARIANT else []),
                        f"{isa}.current")
    return os.path.basename(os.path.realpath(link))


def read_ledger(path=None):
    path = path or LEDGER
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def ledger_table(path):
    """The fuzz pieces added up per ISA and stage (README's soak table)."""
    ents = read_ledger(path)
    out = ["| ISA | kernel | stage | programs | pieces (commits) | seeds | "
           "hours | findings |", "|---|---|---|---|---|---|---|---|"]
    keys = sorted({(e["isa"], e["kvariant"], e["stage"]) for e in ents})
    for isa, kv, stage in keys:
        es = [e for e in ents if (e["isa"], e["kvariant"], e["stage"]) ==
              (isa, kv, stage)]
        progs = sum(e["programs"] for e in es)
        commits = sorted({e["commit"] for e in es})
        base = es[0]["seed"] + (1000 if stage == "fuzz-D" else 0)
        seeds = ", ".join(f"{base}+{e['chunk_first']}..{e['chunk_last']}"
                          for e in sorted(es, key=lambda e: e["chunk_first"]))
        finds = [f for e in es for f in e["findings"]]
        out.append(f"| {isa} | {kv} | {stage} | {human(progs)} | "
                   f"{len(es)} ({', '.join(commits)}) | {seeds} | "
                   f"{sum(e['secs'] for e in es) / 3600:.1f} | "
                   f"{'; '.join(finds) if finds else 'nothing'} |")
    return "\n".join(out) + "\n"


def stages_of(s, names):
    fns = [s.fuzz_objects, s.fuzz_d, s.every_probe, s.sigkill,
           s.module_cycles, s.hotplug, s.startstop, s.fault_nth, s.fault_prob]
    return [(n, f) for n, f in zip(STAGE_NAMES, fns) if n in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isas", default=",".join(xdtvm.env_isas()))
    ap.add_argument("--quick", action="store_true",
                    help="every stage ~100x smaller (a CI smoke check)")
    ap.add_argument("--objects", type=int, help="fuzzed program objects")
    ap.add_argument("--dprogs", type=int, help="fuzzed D programs")
    ap.add_argument("--rounds", type=int, help="every-probe rounds")
    ap.add_argument("--kills", type=int, help="SIGKILLed consumer groups")
    ap.add_argument("--modcycles", type=int, help="rmmod/insmod cycles")
    ap.add_argument("--hotplugs", type=int, help="cpu1 offline/online cycles")
    ap.add_argument("--cycles", type=int, help="start/stop cycles (1000)")
    ap.add_argument("--probruns", type=int,
                    help="dtrace runs per failslab/fail_page_alloc")
    ap.add_argument("--phases", default="open,enable,eprobes,go,bufsnap,stop,"
                    "aggsnap,status,close", help="fail-nth phases")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--stages", default=",".join(STAGE_NAMES))
    ap.add_argument("--cap", type=float, default=0,
                    help="wall-time cap per fuzz stage, seconds (0: none)")
    ap.add_argument("--out", help="output directory")
    ap.add_argument("--continue", dest="cont", action="store_true",
                    help="fuzz stages start after the last chunk in the ledger")
    ap.add_argument("--ledger", default=LEDGER,
                    help="where fuzz pieces are recorded (default: %(default)s)")
    ap.add_argument("--ledger-table", action="store_true",
                    help="print the ledger's pieces added up, and exit")
    a = ap.parse_args()
    if a.ledger_table:
        print(ledger_table(a.ledger), end="")
        return 0
    full = dict(objects=10**6, dprogs=10**5, rounds=100, kills=300,
                modcycles=100, hotplugs=200, cycles=1000, probruns=300)
    quick = dict(objects=10**4, dprogs=10**3, rounds=3, kills=10,
                 modcycles=3, hotplugs=5, cycles=1000, probruns=10)
    for k, v in (quick if a.quick else full).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    names = a.stages.split(",")
    bad = [n for n in names if n not in STAGE_NAMES]
    if bad:
        ap.error(f"unknown stage {bad[0]}; stages: {', '.join(STAGE_NAMES)}")
    date = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    cache = os.environ.get("XDT_CACHE", xdtvm.CACHE)
    outdir = a.out or os.path.join(cache, "soak", date)
    os.makedirs(outdir, exist_ok=True)
    if xdtvm.KVARIANT != "debug":
        print(f"soak: XDT_KVARIANT={xdtvm.KVARIANT or '(normal)'}: kmemleak "
              "and fault injection need the debug kernels", flush=True)
    total = 0
    for isa in a.isas.split(","):
        xdtvm.check_isa(isa)
        print(f"== soak {isa} ({xdtvm.KVARIANT or 'normal'} kernel), "
              f"output in {outdir}", flush=True)
        s = Soak(isa, a, outdir)
        s.rates = {}
        s.run(stages_of(s, names))
        t = s.table()
        with open(os.path.join(outdir, f"soak-{isa}.md"), "w") as f:
            f.write(t)
        print("\n" + t, flush=True)
        for k, v in s.rates.items():
            full_n = full["objects" if k == "fuzz-objects" else "dprogs"]
            print(f"{isa} {k}: {v:.2f}/s; {human(full_n)} would take "
                  f"{full_n / v / 3600:.1f} h", flush=True)
        total += s.findings
    print(f"soak: {total} finding(s); tables in {outdir}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
