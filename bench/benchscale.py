"""bench/run.py's enable/disable scaling test (bench/README.md): how long
each mechanism takes to put N fbt entry probes in and to take them out,
from N = 1 to every function.  The function list (scale_functions), the
measurement in a booted Bench (scale_phase), and its figures, CSV cells
and table (scale_figures, scale_cells, scale_table).  With the ucall
trigger, the same for xdt's pid provider in one process: N = 1, 100 and
every function of the ucall loop, timed around dtrace (pid_scale_phase,
pid_scale_table).
"""
import random
import re
import statistics
import time

from benchlib import (BPFBENCH, TRACEFS, UCALL, UCALL_BIN, fields,
                      final_boots, log)
import xdtvm  # noqa: E402  (benchlib put tools/ on sys.path)

# xdt once per insertion mechanism (-x fbtmode, through xdt-bpfbench's
# XDT_FBTMODE): what a mechanism costs to put in and take out is half of
# what a researcher compares them by (docs/mechanisms.md).
XDT_SCALE_MODES = {"xdt": None, "xdt-ftrace": "ftrace",
                   "xdt-tramp": "trampoline"}
SCALE_MECHS = ["xdt", "xdt-ftrace", "xdt-tramp", "kprobe-multi",
               "kprobe-events"]


def is_xdt(mech):
    return mech in XDT_SCALE_MODES


SCALE_DESCR = {
    "xdt": "xdt fbt entry, count() (default: breakpoint)",
    "xdt-ftrace": "xdt fbt entry, count(), -x fbtmode=ftrace",
    "xdt-tramp": "xdt fbt entry, count(), -x fbtmode=trampoline",
    "kprobe-multi": "kprobe_multi + BPF count",
    "kprobe-events": "kprobe_events (tracefs)",
}
SCALE_PHASES = {
    "xdt": "ENABLE ioctl (check + bind) + GO (patch) / STOP (unpatch, "
           "synchronize_rcu) + close (free)",
    "xdt-ftrace": "as xdt; GO / STOP set the ftrace_ops filter and "
                  "(un)register it",
    "xdt-tramp": "as xdt; GO / STOP write the trampoline calls (x86_64: "
                 "ftrace direct-call groups, at most XDT_TRAMP_MAX = 7680 "
                 "functions, the rest breakpoints)",
    "kprobe-multi": "BPF_LINK_CREATE / close(link) (program load not "
                    "included)",
    "kprobe-events": "`p:` lines into kprobe_events + group enable / group "
                     "disable + `-:` lines",
}
PHASE_KEYS = {"xdt": ["enable_ns", "go_ns", "stop_ns", "free_ns"],
              "xdt-ftrace": ["enable_ns", "go_ns", "stop_ns", "free_ns"],
              "xdt-tramp": ["enable_ns", "go_ns", "stop_ns", "free_ns"],
              "kprobe-events": ["define_ns", "arm_ns", "disarm_ns",
                                "remove_ns"],
              "kprobe-multi": []}
# xdt's "all": one glob clause, as a D user writes it.
XDT_ALL = "fbt:kernel::entry"
# kprobe_multi on thousands of functions (most of them hot: the list is
# sorted by name, and the first ones are __-prefixed core helpers) wedges
# the TCG guest now and then; the cells that did are skipped unless asked.
KMULTI_BIG = 10000
KMULTI_BIG_WHY = (
    "skipped: kprobe_multi on this many functions can wedge the TCG guest "
    "(x86_64: N = 10000 took 2-5 s in 3 runs and in a 4th the guest went "
    "silent, no console output, agent gone; every function (14685): the "
    "link was made, then close() sat in unregister_fprobe -> "
    "text_poke_bp_batch waiting for the other vCPU for over 8 min under "
    "RCU stalls); --scale-kmulti-big tries it (bench/README.md)")


def scale_functions(vm):
    """The scaling test's function list: xdt fbt entry probes (vmlinux)
    that are also in available_filter_functions (so kprobe_multi can take
    them), have a kallsyms name of their own (kprobe_events refuses an
    ambiguous name; fbt names an address after its first symbol) and are
    not on the kprobe blacklist; sorted by name."""
    r = vm.run(["dtrace", "-l", "-n", "fbt:kernel::entry"], timeout=300,
               check=True)
    fbt = {ln.split()[3] for ln in r.stdout.splitlines()[1:]
           if len(ln.split()) >= 5}
    aff = {ln.strip() for ln in vm.run(
        ["cat", f"{TRACEFS}/available_filter_functions"], timeout=120,
        check=True).stdout.splitlines() if ln.strip() and " [" not in ln}
    count = {}
    for ln in vm.run(["cat", "/proc/kallsyms"], timeout=120,
                     check=True).stdout.splitlines():
        f = ln.split()
        if len(f) == 3 and f[1] in "tT":
            count[f[2]] = count.get(f[2], 0) + 1
    bl = {ln.split()[1] for ln in vm.run(
        ["cat", "/sys/kernel/debug/kprobes/blacklist"],
        timeout=60).stdout.splitlines() if len(ln.split()) > 1}
    both = fbt & aff
    cand = sorted(f for f in both if count.get(f) == 1 and f not in bl)
    return cand, dict(fbt_entry=len(fbt), ftrace=len(aff), both=len(both),
                      ambiguous=sum(1 for f in both if count.get(f, 0) != 1),
                      blacklisted=len(both & bl), candidates=len(cand))


def scale_phase(b, size, seed, tag, budget, kmulti_big):
    """Enable/disable time for N functions, per mechanism, in boot @b.
    Returns (cells, info); a cell is one measurement, or a skip with its
    reason."""
    t0 = time.monotonic()
    cells, last = [], {}
    try:
        cand, info = scale_functions(b.vm)
    except xdtvm.XdtError as e:
        return [dict(isa=b.isa, mech=m, n=n, rep=0, ok=False,
                     error="listing the functions failed: "
                     + " ".join(str(e).split())[-600:])
                for m in SCALE_MECHS for n in size["scale"]], {}
    log(f"{tag} scaling: {info['candidates']} candidate functions "
        f"({info['fbt_entry']} fbt entry, {info['ftrace']} ftrace, "
        f"{info['ambiguous']} ambiguous names, {info['blacklisted']} "
        f"blacklisted); budget {budget} s")
    for n in size["scale"]:
        if n != "all" and n <= len(cand):
            b.vm.put("\n".join(cand[:n]) + "\n", f"/tmp/scale-{n}")
    if "all" in size["scale"]:
        b.vm.put("\n".join(cand) + "\n", "/tmp/scale-all")
    rng = random.Random(seed + 1)
    decided, stopped = {}, None

    def probes_of(n, mech):
        if n == "all":
            return info["fbt_entry"] if is_xdt(mech) else len(cand)
        return n

    def skip_reason(mech, n):
        if stopped:
            return f"not run: the scaling test stopped after {stopped}"
        if "unsupported" in decided.get(mech, {}):
            return None
        if n != "all" and n > len(cand):
            return (f"skipped: only {len(cand)} functions qualify on this "
                    "kernel")
        if mech == "kprobe-multi" and not kmulti_big and \
                (n == "all" or n >= KMULTI_BIG):
            return KMULTI_BIG_WHY
        p = probes_of(n, mech)
        prev = last.get(mech)
        if not prev:
            return None
        if is_xdt(mech) and n == "all":
            # One glob clause: one pass of bind, then patching p sites.
            pred = (prev["wall_s"] - prev["enable_s"]) * p / prev["n"] \
                + prev["enable_s"] / prev["n"]
        else:
            pred = prev["wall_s"] * p / prev["n"]
        left = budget - (time.monotonic() - t0)
        # The linear prediction overshoots where fixed costs weigh on the
        # smaller N (the cost per probe can fall with N), so a cell runs
        # unless it needs more than twice what is left; the time left
        # still bounds it (the cell's timeout).
        if prev["n"] >= 10 and (pred > 2 * left or left < 5):
            return (f"skipped: predicted ≈ {pred:.0f} s (linear from "
                    f"{prev['wall_s']:.1f} s at N = {prev['n']}), over "
                    f"twice the {max(0, left):.0f} s left of the {budget} "
                    "s scaling budget per ISA")
        return None

    # Every cell of N <= 100 first (mechanisms shuffled per repetition),
    # then the big N of xdt and kprobe_multi, then kprobe_events' big N,
    # the slowest: what the budget cuts short is then the most costly;
    # kprobe_multi's risky sizes (--scale-kmulti-big) come last of all.
    plan = []
    for n in size["scale"]:
        for rep in range(size["scale_reps"].get(n, 1)):
            order = list(SCALE_MECHS)
            rng.shuffle(order)
            plan.extend((n, rep, m) for m in order)
    plan.sort(key=lambda p: 0 if p[0] != "all" and p[0] <= 100 else
              2 if p[2] == "kprobe-events" else
              3 if p[2] == "kprobe-multi" and (p[0] == "all" or
                                               p[0] >= KMULTI_BIG) else 1)
    for n, rep, mech in plan:
        key = f"{mech}/{n}"
        c = dict(isa=b.isa, mech=mech, n=n, rep=rep, ok=False,
                 error=None, unsupported=None, skipped=None)
        uns = decided.get(mech, {}).get("unsupported")
        if uns:
            if rep == 0:
                c["unsupported"] = uns
                cells.append(c)
            continue
        why = decided.get(key) or skip_reason(mech, n)
        if why:
            if key not in decided:
                decided[key] = why
                c["skipped"] = why
                cells.append(c)
                log(f"{tag} scale {mech} N={n}: {why}")
            continue
        # The rest of the budget (and some slack) bounds the cell:
        # past it the agent kills the command; the kprobe_events
        # writes are one per probe, so it dies between two.
        left = budget - (time.monotonic() - t0)
        tmo = int(max(60, left + 30))
        prev = last.get(mech)
        fa = (XDT_ALL if is_xdt(mech) and n == "all"
              else f"@/tmp/scale-{n}")
        cmd = [BPFBENCH, "attach", "--mech", "xdt" if is_xdt(mech) else mech]
        if XDT_SCALE_MODES.get(mech):
            cmd = ["env", f"XDT_FBTMODE={XDT_SCALE_MODES[mech]}"] + cmd
        if mech == "kprobe-multi":
            cmd += ["--prog", "count"]
        cmd += ["--func", fa, "--", "true"]
        c["command"] = " ".join(cmd)
        ts = time.monotonic()
        try:
            r = b.vm.run(cmd, timeout=tmo)
        except xdtvm.XdtError as e:
            c["wall_s"] = round(time.monotonic() - ts, 2)
            c["error"] = "guest: " + " ".join(str(e).split())[:1500]
            stopped = f"{mech} N = {n} ({c['error'][:120]} …)"
            cells.append(c)
            log(f"{tag} scale {mech} N={n}: FAILED: {c['error'][:300]}")
            continue
        c["wall_s"] = round(time.monotonic() - ts, 2)
        line = next((ln for ln in r.stdout.splitlines()
                     if ln.startswith("mech=")), "")
        f = fields(line)
        if r.status == 3:
            uns = (line.split("unsupported=", 1)[1].strip().strip('"')
                   if "unsupported=" in line else r.stderr.strip())
            decided.setdefault(mech, {})["unsupported"] = uns
            c["unsupported"] = uns
            cells.append(c)
            log(f"{tag} scale {mech}: unsupported: {uns}")
            continue
        if r.timed_out:
            # Not a failure: the cell outran its time budget.
            c["skipped"] = (f"stopped: not finished after {tmo} s, "
                            "the rest of the scaling budget (the "
                            "command was killed)")
            stopped = (f"{mech} N = {n} outran the budget (killed "
                       f"after {tmo} s)")
            decided[key] = c["skipped"]
            cells.append(c)
            log(f"{tag} scale {mech} N={n}: {c['skipped']}")
            continue
        if not r.ok or "attach_ns" not in f:
            c["error"] = (f"{r.how} {r.code}: {r.stdout[-300:]} "
                          f"{r.stderr[-500:]}")
            cells.append(c)
            log(f"{tag} scale {mech} N={n}: FAILED: {c['error'][:300]}")
            continue
        c.update(nprobes=int(f["nprobes"]),
                 attach_ns=int(f["attach_ns"]),
                 detach_ns=int(f["detach_ns"]),
                 load_ns=int(f.get("load_ns", 0)),
                 count=None if f.get("count", "-") == "-" else
                 int(f["count"]), via=f.get("via"),
                 phases={k: int(f[k]) for k in PHASE_KEYS[mech]
                         if k in f})
        want = probes_of(n, mech) if n != "all" or not is_xdt(mech) \
            else None
        if want is not None and c["nprobes"] != want:
            c["error"] = f"{c['nprobes']} probes attached, not {want}"
        elif c["attach_ns"] <= 0 or c["detach_ns"] <= 0:
            c["error"] = "attach/detach time not positive"
        else:
            c["ok"] = True
        cells.append(c)
        if c["ok"]:
            enable = c["phases"].get("enable_ns", 0) / 1e9
            if not prev or c["nprobes"] >= prev["n"]:
                last[mech] = dict(n=c["nprobes"], wall_s=c["wall_s"],
                                  enable_s=enable)
            log(f"{tag} scale {mech} N={n}: {c['nprobes']} probes, "
                f"enable {c['attach_ns'] / 1e6:.1f} ms, disable "
                f"{c['detach_ns'] / 1e6:.1f} ms ({c['wall_s']:.1f} s)")
        else:
            log(f"{tag} scale {mech} N={n}: FAILED: {c['error']}")
    info["wall_s"] = round(time.monotonic() - t0, 1)
    info["budget_s"] = budget
    return cells, info


# ---- figures and table ------------------------------------------------


def scale_figures(cells):
    """{(isa, mech, n): {...}} from the good scaling cells."""
    out = {}
    for c in cells:
        if not c.get("ok"):
            continue
        out.setdefault((c["isa"], c["mech"], c["n"]), []).append(c)
    figs = {}
    for k, cs in out.items():
        att = [c["attach_ns"] / 1e6 for c in cs]
        det = [c["detach_ns"] / 1e6 for c in cs]
        p = statistics.median(c["nprobes"] for c in cs)
        f = dict(nprobes=int(p), samples=len(cs),
                 enable_ms=statistics.median(att), enable_min=min(att),
                 enable_max=max(att), disable_ms=statistics.median(det),
                 disable_min=min(det), disable_max=max(det))
        f["enable_us_per_probe"] = f["enable_ms"] * 1000 / p
        f["disable_us_per_probe"] = f["disable_ms"] * 1000 / p
        f["phases_ms"] = {ph: statistics.median(c["phases"][ph] for c in cs)
                          / 1e6 for ph in cs[0].get("phases", {})}
        figs[k] = f
    return figs


def scale_cells(boots):
    return [c for b in final_boots(boots) for c in b.get("scale", [])]


def us(x):
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def scale_table(meta, sfigs, boots):
    L = ["## Enable/disable time for N fbt entry probes\n",
         "Functions: the xdt fbt entry probes of vmlinux that are also in "
         "`available_filter_functions`, have a kallsyms name of their own "
         "and are not on the kprobe blacklist, sorted by name; N = the "
         "first N (the same functions for every mechanism). Each cell is "
         "one `xdt-bpfbench attach --mech M --func @list -- true` in the "
         "TCG boot, timed in the guest (CLOCK_MONOTONIC): enable = "
         "attach until every probe is live, disable = detach until every "
         "probe is gone and freed. ms per operation (median [min–max] over "
         "the repetitions) and µs per probe (median ÷ probes). "
         "`all`: xdt takes one glob clause `" + XDT_ALL + "` (every fbt "
         "entry probe of vmlinux, more than the common list); the others "
         "the whole common list. Skipped cells say why (time budget, "
         "support).\n",
         "| mechanism | what is timed (enable / disable) |", "|---|---|"]
    for m in SCALE_MECHS:
        L.append(f"| {SCALE_DESCR[m]} | {SCALE_PHASES[m]} |")
    L.append("")
    L.append("| mechanism | ISA | N | probes | enable ms [min–max] | "
             "disable ms [min–max] | enable µs/probe | disable µs/probe | "
             "phases, median ms | samples |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    fb = final_boots(boots)
    for m in SCALE_MECHS:
        for isa in meta["isas"]:
            b = next((x for x in fb if x["isa"] == isa and x["boot"] ==
                      "tcg"), None)
            cells = [c for c in (b or {}).get("scale", []) if c["mech"] == m]
            uns = next((c["unsupported"] for c in cells
                        if c.get("unsupported")), None)
            if uns:
                L.append(f"| {SCALE_DESCR[m]} | {isa} | all N | – | "
                         f"unsupported: {uns} | | | | | |")
                continue
            if b and not b.get("scale") and b.get("scale_info") is not None:
                L.append(f"| {SCALE_DESCR[m]} | {isa} | – | – | not run | "
                         "| | | | |")
                continue
            for n in meta["scale"]:
                f = sfigs.get((isa, m, n))
                mine = [c for c in cells if c["n"] == n]
                if f:
                    ph = ", ".join(f"{k[:-3]} {v:.1f}" for k, v in
                                   f["phases_ms"].items())
                    errs = sum(1 for c in mine if c.get("error"))
                    L.append(
                        f"| {SCALE_DESCR[m]} | {isa} | {n} | {f['nprobes']} "
                        f"| {f['enable_ms']:.1f} [{f['enable_min']:.1f}–"
                        f"{f['enable_max']:.1f}] | {f['disable_ms']:.1f} "
                        f"[{f['disable_min']:.1f}–{f['disable_max']:.1f}] | "
                        f"{us(f['enable_us_per_probe'])} | "
                        f"{us(f['disable_us_per_probe'])} | {ph or '–'} | "
                        f"{f['samples']}"
                        + (f" (+{errs} FAILED)" if errs else "") + " |")
                    continue
                why = next((c.get("skipped") or
                            (("FAILED: " + c["error"][:300])
                             if c.get("error") else None)
                            for c in mine), None) or "not run"
                L.append(f"| {SCALE_DESCR[m]} | {isa} | {n} | – | "
                         f"{' '.join(why.split())} | | | | | |")
    L.append("")
    for b in fb:
        si = b.get("scale_info") or {}
        if "candidates" in si:
            L.append(f"- {b['isa']}: {si['candidates']} functions qualify "
                     f"({si['fbt_entry']} xdt fbt entry probes in vmlinux, "
                     f"{si['ftrace']} ftrace-able, {si['both']} both, of "
                     f"which {si['ambiguous']} have an ambiguous name and "
                     f"{si['blacklisted']} are kprobe-blacklisted); "
                     f"scaling test {si.get('wall_s', 0):.0f} s of its "
                     f"{si.get('budget_s')} s budget")
    L.append("")
    return L


# ---- the pid provider: enable/disable time in one process -------------

# N entry probes in the ucall loop's process (bench/ucall-loop.c, static):
# 1 (ucall_target alone), 100, and every function xdt lists in it.
PID_SCALE = [1, 100, "all"]
PID_SCALE_WHY = (
    "enable = guest CLOCK_MONOTONIC just before dtrace is started to the "
    "D `timestamp` of the first firing of ucall_target's entry probe (the "
    "loop calls it continuously): dtrace's start, compiling the program, "
    "the -c process's exec, reading its ELF symbols, making and enabling "
    "the probes (uprobe_register per probe, its breakpoint written into "
    "the process) and GO; that clause then calls exit(0), and disable = "
    "that firing to dtrace's exit (STOP, every uprobe unregistered, the "
    "process killed, the aggregation printed). xdt's pid probes are made "
    "by the consumer (XDT_IOC_UPROBES), so this is timed around dtrace, "
    "not its ioctls as the fbt cells are")


def pid_functions(b):
    """The ucall loop's functions as xdt's pid provider lists them
    (`dtrace -l` of every entry probe in a process running it), with a
    name of their own in the binary (a name that several local symbols
    share makes a probe for each), ucall_target left out (every cell
    probes it: the first firing is its); sorted by name."""
    r = b.vm.run(["dtrace", "-l", "-n", "pid$target:a.out::entry", "-c",
                  f"{UCALL_BIN} 1"], timeout=300)
    listed = [ln.split() for ln in r.stdout.splitlines()[1:]]
    names = [f[3] for f in listed if len(f) >= 5 and f[0].isdigit()
             and f[4] == "entry"]
    if not names:
        raise xdtvm.XdtError(f"dtrace -l lists no pid entry probe in "
                             f"{UCALL_BIN} (status {r.status}): "
                             + " ".join((r.stdout + r.stderr).split())[-300:])
    count = {}
    for n in names:
        count[n] = count.get(n, 0) + 1
    return sorted(n for n, c in count.items()
                  if c == 1 and n != UCALL and
                  re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)), len(names)


def pid_scale_phase(b, tag, timeout=300):
    """Enable/disable time of N pid entry probes (PID_SCALE) in the TCG
    boot @b: one dtrace run each.  Returns the cells."""
    cells = []
    try:
        funcs, nlisted = pid_functions(b)
    except xdtvm.XdtError as e:
        why = "listing the functions failed: " + " ".join(str(e).split())
        return [dict(isa=b.isa, mech="xdt-pid", n=n, ok=False,
                     error=why[:600]) for n in PID_SCALE]
    log(f"{tag} pid scaling: {nlisted} pid entry probes in {UCALL_BIN}, "
        f"{len(funcs)} with a name of their own")
    first = (f"pid$target::{UCALL}:entry "
             "{ printf(\"@first %d\\n\", timestamp); exit(0); }")
    for n in PID_SCALE:
        c = dict(isa=b.isa, mech="xdt-pid", n=n, ok=False, error=None,
                 skipped=None)
        if n == "all":
            more = "pid$target:a.out::entry { @n = count(); } "
        elif n - 1 > len(funcs):
            c["skipped"] = (f"skipped: only {len(funcs) + 1} functions "
                            "qualify in the loop binary")
            cells.append(c)
            continue
        else:
            more = (",".join(f"pid$target::{f}:entry" for f in
                             funcs[:n - 1]) + " { @n = count(); } "
                    if n > 1 else "")
        # The loop runs long enough never to end first (dtrace's exit
        # kills it: PR_SET_PDEATHSIG).
        prog = more + first
        script = (f"t0=$({UCALL_BIN} now); dtrace -n '{prog}' -c "
                  f"'{UCALL_BIN} 2000000000' > /tmp/pid-scale.out 2>&1; "
                  f"rc=$?; t1=$({UCALL_BIN} now); echo \"@t0 $t0\"; "
                  "echo \"@t1 $t1\"; echo \"@rc $rc\"; "
                  "cat /tmp/pid-scale.out")
        c["command"] = f"dtrace -n '{prog[:300]}…' -c '{UCALL_BIN} …'"
        ts = time.monotonic()
        try:
            r = b.vm.run(["sh", "-c", script], timeout=timeout)
        except xdtvm.XdtError as e:
            c["error"] = "guest: " + " ".join(str(e).split())[:1500]
            cells.append(c)
            log(f"{tag} pid scale N={n}: FAILED: {c['error'][:300]}")
            break
        c["wall_s"] = round(time.monotonic() - ts, 2)
        out = r.stdout
        t0 = re.search(r"^@t0 @now (\d+)", out, re.M)
        t1 = re.search(r"^@t1 @now (\d+)", out, re.M)
        rc = re.search(r"^@rc (\d+)", out, re.M)
        # (after dtrace's CPU/ID/probe columns: no -q, which would
        # silence the "matched N probes" notice)
        fst = re.search(r"@first (\d+)", out)
        m = re.search(r"matched (\d+) probes?", out)
        if r.timed_out:
            c["error"] = f"not finished after {timeout} s"
        elif not (t0 and t1 and rc and fst and m):
            # dtrace's own words when it said any (it failed to enable)
            said = [ln.strip() for ln in out.splitlines()
                    if ln.startswith("dtrace:") and " matched " not in ln]
            c["error"] = (f"dtrace exit {rc.group(1) if rc else '?'}: "
                          + " ".join(" ".join(said or out.split())
                                     .split())[-500:])
        else:
            c.update(nprobes=int(m.group(1)), dtrace_exit=int(rc.group(1)),
                     attach_ns=int(fst.group(1)) - int(t0.group(1)),
                     detach_ns=int(t1.group(1)) - int(fst.group(1)))
            want = None if n == "all" else n
            if want is not None and c["nprobes"] != want:
                c["error"] = f"{c['nprobes']} probes matched, not {want}"
            elif c["attach_ns"] <= 0 or c["detach_ns"] <= 0:
                c["error"] = "enable/disable time not positive"
            else:
                c["ok"] = True
        cells.append(c)
        if c["ok"]:
            log(f"{tag} pid scale N={n}: {c['nprobes']} probes, enable "
                f"{c['attach_ns'] / 1e6:.1f} ms, disable "
                f"{c['detach_ns'] / 1e6:.1f} ms ({c['wall_s']:.1f} s)")
        else:
            log(f"{tag} pid scale N={n}: FAILED: {c['error']}")
    return cells


def pid_scale_table(meta, boots):
    L = ["## Enable/disable time for N pid entry probes in one process\n",
         f"`bench/ucall-loop.c`'s functions, as `dtrace -l -n "
         f"'pid$target:a.out::entry'` lists them (names that several "
         f"local symbols share left out), sorted; N = {UCALL}'s probe and "
         "the first N − 1 others, one clause; `all` = one glob clause "
         "`pid$target:a.out::entry` plus the timing clause. "
         + PID_SCALE_WHY + ". One run per N in the TCG boot.\n",
         "| ISA | N | probes | enable ms | disable ms | enable µs/probe | "
         "disable µs/probe |", "|---|---|---|---|---|---|---|"]
    for b in final_boots(boots):
        if b["boot"] != "tcg" or "pid_scale" not in b:
            continue
        for c in b["pid_scale"]:
            if c.get("ok"):
                p = c["nprobes"]
                L.append(f"| {b['isa']} | {c['n']} | {p} | "
                         f"{c['attach_ns'] / 1e6:.1f} | "
                         f"{c['detach_ns'] / 1e6:.1f} | "
                         f"{us(c['attach_ns'] / 1e3 / p)} | "
                         f"{us(c['detach_ns'] / 1e3 / p)} |")
            else:
                why = c.get("skipped") or ("FAILED: " + str(c.get("error")))
                L.append(f"| {b['isa']} | {c['n']} | – | "
                         f"{' '.join(why.split())[:300]} | | | |")
    L.append("")
    return L
