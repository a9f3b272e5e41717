#!/usr/bin/env python3
"""xdt's probe-overhead benchmark: `make bench` (bench/README.md).

For each ISA, two boots of the project's Linux 6.1 guest:

1. a TCG timing boot (default SMP): xdt.ko and the bench module loaded,
   every variant (no probe; xdt fbt entry/return and kinst count(), and an
   fbt entry clause with no action; the
   eBPF and ftrace baselines of guest/xdt-bpfbench) attached in turn, on
   three triggers: the bench module's noinline xdt_bench_target, which the
   debugfs trigger calls N times, and getppid(2) called N times from user
   space (bench/getppid-loop.c), probed on the syscall's function, and
   with the syscall trigger only, the syscall itself counted three more
   ways (xdt's syscall::getppid:entry; BPF on the raw tracepoint sys_enter
   filtering on the ISA's __NR_getppid; BPF on the tracepoint
   syscalls:sys_enter_getppid); and a user-space trigger, ucall: the
   noinline ucall_target() of bench/ucall-loop.c called N times, probed
   by xdt's pid provider (entry, return) and a USDT probe in it, each
   beside a uprobe + BPF count on the same site; variants interleaved
   round-robin (shuffled per round, fixed seed), R rounds.
   ns per firing = (median t_variant - median t_none) / N.  Then the
   enable/disable scaling test: N = 1, 100, 1000, 10000 and all fbt entry
   functions, for xdt, kprobe_multi and kprobe_events (bench/README.md);
   with the ucall trigger, the pid provider's: 1, 100 and every function
   of the loop's program, timed around dtrace.
2. an icount boot (-icount shift=0,sleep=off, one vCPU): guest time is
   guest instructions, so (I_variant - I_none) / N is instructions per
   firing; `none` and `xdt-fbt-entry` run at least three times to show whether
   the counts repeat exactly.

Every sample's firing count is checked (xdt and BPF count == N, the
module's `calls` delta == N); a sample that fails the check is recorded and
left out of the figures.  Mechanisms a kernel lacks (xdt-bpfbench exit 3)
are recorded with their reason.

Output: bench/results/<timestamp>/{results.json,results.csv,scale.csv,
table.md,*.png} and the bench/results/latest symlink.  Exit status 0 when
every sample was good, 1 when some failed (the outputs are written either
way); a scaling cell skipped for the time budget is not a failure.

This file is the CLI (main) and the boots (run_boot); the rest is in
bench/benchlib.py (the variants, the helpers, and Bench: one booted guest
and how it samples a variant), bench/benchscale.py (the enable/disable scaling
test) and bench/benchreport.py (figures, tables, plots and the output files).

    bench/run.py [--quick] [--isas x86_64,aarch64,riscv64] [--out DIR]
                 [--triggers kernel,syscall,ucall] [--variants V,...]
"""
import argparse
import json
import os
import random
import sys
import time

from benchlib import (REF, SKIP, TARGET, TOP, TRIGGERS, VARIANT_NAMES,
                      VARIANTS, Bench, final_boots, log)
import benchreport
from benchreport import write_outputs
from benchscale import pid_scale_phase, scale_phase
import xdtvm  # noqa: E402  (benchlib put tools/ on sys.path)

SIZES = {
    # n: calls per sample; reps: TCG rounds; icount_reps: icount rounds of
    # every variant (none and xdt-fbt-entry get at least three).
    # sn / icount_sn: getppid calls per syscall-trigger sample.
    # scale: the enable/disable test's N (int, or "all"), its repetitions
    # per N, and its time budget per ISA in seconds (bench/README.md).
    # The getppid loop is long enough (tens of ms) that TCG's scheduling
    # noise does not swamp the cheap mechanisms (10 000 calls gave
    # negative fentry figures).  The quick size too: with 2000 calls the
    # raw tracepoint's ≈ 150-250 ns on aarch64 came out negative in one
    # run of three; 20 000 calls cost ≈ 20 ms more a sample.
    # un / icount_un: ucall_target calls per ucall-trigger sample, as
    # many as getppid calls: the bare loop is a few ns a call, so its time
    # is mostly the probes' and TCG's noise is what N must outweigh.
    "full": dict(n=50000, reps=5, icount_reps=2, icount_n=20000, sn=50000,
                 icount_sn=20000, un=50000, icount_un=20000,
                 scale=[1, 100, 1000, 10000, "all"],
                 scale_reps={1: 3, 100: 2}, scale_budget=200),
    "quick": dict(n=2000, reps=2, icount_reps=1, icount_n=1000, sn=20000,
                  icount_sn=1000, un=20000, icount_un=1000, scale=[1, 100],
                  scale_reps={}, scale_budget=60),
}
# The triggers a run measures unless --triggers says: all three, but the
# quick size (make bench-quick, and tests/guest/test_bench_quick.py, which
# checks that its run has exactly the kernel and syscall triggers) leaves
# the ucall trigger out until that test knows its rows; `--quick
# --triggers ucall` runs them.
DEFAULT_TRIGGERS = {"full": "kernel,syscall,ucall", "quick": "kernel,syscall"}
# Sampled at least three times per boot (the baseline, and each trigger's
# reference for the ratio columns).
ALWAYS = {"none"} | set(REF.values())


def run_boot(isa, icount, size, logdir, samples, seed, triggers,
             scale=None, variants=None):
    n = size["icount_n"] if icount else size["n"]
    sn = size["icount_sn"] if icount else size["sn"]
    un = size["icount_un"] if icount else size["un"]
    reps = size["icount_reps"] if icount else size["reps"]
    tag = f"[{isa} {'icount' if icount else 'tcg'}]"
    log(f"{tag} booting (N={n}, getppid N={sn}, ucall N={un}, "
        f"rounds={reps})")
    b = Bench(isa, icount, n, sn, logdir,
              os.path.join(os.path.dirname(logdir), "bin"), un=un)
    t0 = time.monotonic()
    b.start()
    at = {k: (f"+{b.offs[k][0]:#x} ({b.offs[k][1]})" if k in b.offs
              else "nowhere") for k in ("emul", "xol")}
    log(f"{tag} booted and modules loaded in {b.setup_s:.1f} s; kprobe-off "
        f"at +{b.off:#x} ({' '.join(b.off_insn.split())}); kinst/kprobe "
        f"emulated at {at['emul']}, out of line at {at['xol']} (as kinst "
        f"says); getppid probed at {b.gp_func}; "
        + (f"ucall_target's entry at {b.usites['entry'][0]:#x} "
           f"({b.usites['entry'][1]}), its USDT site at "
           f"{b.usites['usdt'][0]:#x} ({b.usites['usdt'][1]}); "
           if b.usites else "")
        + f"clocksource {b.clocksource}")
    for k, why in sorted(b.unavailable.items()):
        log(f"{tag} {k}: unavailable: {why}")
    rng = random.Random(seed)
    rounds = []
    every = [(t, *v) for t in triggers for v in VARIANTS
             if (t, v[0]) not in SKIP and
             (variants is None or v[0] in variants)]
    for rep in range(reps):
        order = list(every)
        rng.shuffle(order)
        rounds.append(order)
    # The baseline is subtracted from every figure of its trigger, so
    # `none` (and the reference, xdt fbt entry) get at least three
    # samples: the median then survives one outlier.  Two x86_64 getppid
    # loops of the same binary once differed by 10 % (4.66 M vs 5.16 M
    # instructions: deferred work in a timer tick that landed in one);
    # on a busy host one TCG `none` sample of the quick size's two was
    # tens of ms slow, and the mean of two (their median) made every
    # figure of that trigger negative.
    for _ in range(max(0, 3 - reps)):
        rounds.append([v for v in every if v[1] in ALWAYS])
    failures = 0
    try:
        for rep, order in enumerate(rounds):
            for trigger, name, kind, detail in order:
                if f"{trigger}/{name}" in b.unsupported or \
                        f"{trigger}/{name}" in b.unavailable:
                    continue
                s = b.sample(trigger, name, kind, detail, rep)
                samples.append(s)
                if s["unsupported"]:
                    b.unsupported[f"{trigger}/{name}"] = s["unsupported"]
                    what = f"unsupported: {s['unsupported']}"
                elif not s["ok"]:
                    failures += 1
                    what = f"FAILED: {s['error']}"
                else:
                    what = f"{s['last_ns']} {'insns' if icount else 'ns'}"
                    if "count" in s and s["count"] is not None:
                        what += f", count {s['count']}"
                    if "traps" in s:
                        what += f", traps {s['traps']}"
                    if s.get("via"):
                        what += f", via {s.get('via_at_trigger') or s['via']}"
                log(f"{tag} round {rep + 1}/{len(rounds)} {trigger} {name}: {what} "
                    f"({s['wall_s']:.1f} s)")
        cells, info, pcells = [], {}, None
        if scale and "fbt" in scale["what"]:
            cells, info = scale_phase(b, size, seed, tag, scale["budget"],
                                      scale["kmulti_big"])
        # The pid provider's enable/disable test goes with the ucall
        # trigger (its loop is the process probed).
        if scale and "pid" in scale["what"] and "ucall" in triggers:
            if any(k.startswith("ucall/") for k in b.unavailable):
                pcells = [dict(isa=isa, mech="xdt-pid", n="all", ok=False,
                               skipped="not run: the ucall loop is "
                               "unavailable (see its rows)")]
            else:
                pcells = pid_scale_phase(b, tag)
    finally:
        clean = b.stop()
    wall = time.monotonic() - t0
    log(f"{tag} done in {wall:.0f} s{'' if clean else ' (unclean poweroff)'}")
    return dict(isa=isa, boot="icount" if icount else "tcg", n=n, sn=sn,
                un=un, usites=b.usites,
                getppid_func=b.gp_func, getppid_listed=b.gp_listed,
                triggers=triggers, offs=b.offs, kinst_listed=b.kinst_listed,
                unavailable=b.unavailable, scale=cells, scale_info=info,
                scale_failures=sum(1 for c in cells + (pcells or [])
                                   if c.get("error")),
                **({"pid_scale": pcells} if pcells is not None else {}),
                rounds=len(rounds), wall_s=round(wall, 1),
                setup_s=round(b.setup_s, 1), off=b.off, off_insn=b.off_insn,
                clocksource=b.clocksource,
                unsupported=b.unsupported, clean_poweroff=clean,
                failures=failures, console=b.vm.console_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small N and few rounds (smoke test)")
    ap.add_argument("--isas", default=",".join(
        xdtvm.env_isas()))
    ap.add_argument("--out", help="output directory (default "
                    "bench/results/<timestamp>, with a `latest` symlink)")
    ap.add_argument("--no-icount", action="store_true",
                    help="skip the icount boots")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--triggers",
                    help="comma list of " + ",".join(TRIGGERS) + " (default "
                    f"{DEFAULT_TRIGGERS['full']}; --quick: "
                    f"{DEFAULT_TRIGGERS['quick']})")
    ap.add_argument("--variants",
                    help="comma list of variants to run (default all: "
                    + ",".join(VARIANT_NAMES) + "); none, xdt-fbt-entry "
                    "and xdt-pid-entry (the baseline and the references) "
                    "are always run")
    ap.add_argument("--no-scale", action="store_true",
                    help="skip the enable/disable scaling test")
    ap.add_argument("--scale-budget", type=int,
                    help="seconds per ISA for the scaling test (default "
                    f"{SIZES['full']['scale_budget']}, quick "
                    f"{SIZES['quick']['scale_budget']}); a cell predicted "
                    "to overrun it is skipped and says so")
    ap.add_argument("--scale-sizes",
                    help="comma list of N for the scaling test (integers "
                    "and/or all); default 1,100,1000,10000,all (quick 1,100)")
    ap.add_argument("--scale-what", default="fbt,pid",
                    help="which enable/disable tests: fbt (the fbt entry "
                    "scaling test), pid (the pid provider's, with the "
                    "ucall trigger); default both")
    ap.add_argument("--scale-kmulti-big", action="store_true",
                    help="also try kprobe_multi on 10000 and on every "
                    "function (each has wedged the x86_64 TCG guest: "
                    "bench/README.md)")
    ap.add_argument("--baseline", metavar="DIR",
                    help="compare with this run's results.json (default: "
                    "the newest earlier run of the same size in "
                    "bench/results/)")
    ap.add_argument("--retable", metavar="DIR",
                    help="rewrite DIR's tables and plots from its "
                    "results.json (no guest is booted)")
    a = ap.parse_args()
    if a.retable:
        with open(os.path.join(a.retable, "results.json")) as f:
            r = json.load(f)
        _, table = write_outputs(a.retable, r["meta"], r["samples"],
                                 r["boots"], r.get("discarded_samples", ()))
        print(table)
        return 0
    isas = [i for i in a.isas.replace(",", " ").split()]
    for i in isas:
        xdtvm.check_isa(i)
    size = dict(SIZES["quick" if a.quick else "full"])
    if a.scale_budget is not None:
        size["scale_budget"] = a.scale_budget
    if a.scale_sizes:
        size["scale"] = [x if x == "all" else int(x)
                         for x in a.scale_sizes.split(",") if x]
    if a.no_scale:
        size["scale"] = []
    triggers = [t for t in (a.triggers or DEFAULT_TRIGGERS[
        "quick" if a.quick else "full"]).split(",") if t]
    for t in triggers:
        if t not in TRIGGERS:
            raise SystemExit(f"unknown trigger {t}; valid: {TRIGGERS}")
    variants = None
    if a.variants:
        want = set(a.variants.split(",")) - {""}
        bad = want - set(VARIANT_NAMES)
        if bad:
            raise SystemExit(f"unknown variant(s) {sorted(bad)}; valid: "
                             + ",".join(VARIANT_NAMES))
        want |= ALWAYS
        variants = [v for v in VARIANT_NAMES if v in want]
    scale = (dict(budget=size["scale_budget"],
                  kmulti_big=a.scale_kmulti_big,
                  what=set(a.scale_what.split(",")))
             if size["scale"] else None)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    outdir = a.out or os.path.join(TOP, "bench", "results", stamp)
    os.makedirs(outdir, exist_ok=True)
    logroot = os.path.join(outdir, "console")
    meta = dict(started=stamp, size="quick" if a.quick else "full",
                isas=isas, seed=a.seed, target=TARGET, triggers=triggers,
                variants=variants or VARIANT_NAMES,
                **{k: v for k, v in size.items() if k != "scale_reps"},
                scale_reps={str(k): v for k, v in size["scale_reps"].items()},
                scale_what=sorted(a.scale_what.split(",")),
                host=os.uname().nodename, nproc=os.cpu_count())
    # What this run is compared with (benchreport.regression_section): the
    # newest earlier run of the same size in bench/results/, or --baseline.
    meta["baseline"] = a.baseline or benchreport.previous_run(outdir, meta)
    samples, boots, discarded = [], [], []
    t0 = time.monotonic()
    for isa in isas:
        for icount in ((False,) if a.no_icount else (False, True)):
            kind = "icount" if icount else "tcg"
            # A guest that dies (e.g. the riscv64 init SIGSEGV in the vDSO,
            # bench/README.md) is recorded, its samples set aside, and the
            # boot retried once.
            for attempt in (1, 2):
                logdir = os.path.join(logroot, f"{isa}-{kind}-{attempt}")
                mark = len(samples)
                try:
                    boots.append(run_boot(isa, icount, size, logdir, samples,
                                          a.seed, triggers,
                                          None if icount else scale,
                                          variants))
                    boots[-1]["attempt"] = attempt
                    break
                except xdtvm.XdtError as e:
                    log(f"[{isa} {kind}] boot {attempt} failed: {e}")
                    discarded.extend(samples[mark:])
                    del samples[mark:]
                    boots.append(dict(isa=isa, boot=kind, attempt=attempt,
                                      n=0, rounds=0, wall_s=0, setup_s=0,
                                      off=0, off_insn="", unsupported={},
                                      failures=1, error=str(e)[-3000:]))
            # Write after every boot: a later crash keeps what was measured.
            meta["wall_s"] = round(time.monotonic() - t0, 1)
            write_outputs(outdir, meta, samples, boots, discarded)
    if not a.out:
        latest = os.path.join(TOP, "bench", "results", "latest")
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(stamp, latest)
    meta["wall_s"] = round(time.monotonic() - t0, 1)
    figs, table = write_outputs(outdir, meta, samples, boots, discarded)
    print(table)
    if meta.get("baseline"):
        with open(os.path.join(meta["baseline"], "results.json")) as f:
            prev = json.load(f).get("figures", {})
        for name, b, c in benchreport.regressions(figs, prev):
            log(f"WORSE than {meta['baseline']}: {name} {b:.0f} -> "
                f"{c:.0f} insns/firing (x{c / b:.2f})")
    log(f"results in {outdir} ({meta['wall_s']:.0f} s)")
    return 1 if any(b["failures"] or b.get("scale_failures")
                    for b in final_boots(boots)) else 0


if __name__ == "__main__":
    sys.exit(main())
