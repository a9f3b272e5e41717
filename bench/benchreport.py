"""bench/run.py's figures and outputs: the per-firing figures from the
samples (figures, per_firing), the files of a run (write_outputs:
results.json, results.csv, scale.csv, table.md and the plots), the
tables' text (make_table and the tables it is made of) and the plots
(make_plots).  Nothing here boots a guest: `run.py --retable` is this
module on a results.json.
"""
import csv
import json
import os
import statistics

from benchlib import (DESCR, GETPPID, KINST, REF, SKIP, SYSCALL, TRAP,
                      TRIGGERS, UCALL, UCALL_VARIANTS, USDT_PROBE, USITE,
                      VARIANT_NAMES, final_boots)
from benchscale import (SCALE_MECHS, is_xdt, pid_scale_table, scale_cells,
                        scale_figures, scale_table)
import xdtvm  # noqa: E402  (benchlib put tools/ on sys.path)

# The per-ISA mechanism plot (mech-ISA.png): xdt's ways in, then the
# kernel's, entry before return; kernel trigger.
MECH_MATRIX = ["xdt-fbt-entry-bp", "xdt-fbt-entry-ftrace",
               "xdt-fbt-entry-tramp", "xdt-fbt-entry-empty-bp",
               "xdt-fbt-entry-empty", "kprobe", "kprobe-empty", "fentry",
               "kprobe-multi", "xdt-fbt-return", "kretprobe", "fexit"]


# ---- figures ----------------------------------------------------------

def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def per_firing(good, key, fig):
    """Samples grouped by variant (each with its loop's "n" and "last_ns"),
    "none" among them: each variant's cost per firing over the median of
    "none", as fig(variant)[key] with its spread (_min, _max, _q1, _q3),
    _samples and _raw.  Yields (variant, samples, loop times)."""
    base = statistics.median(x["last_ns"] for x in good["none"])
    for v, ss in good.items():
        n = ss[0]["n"]
        t = [x["last_ns"] for x in ss]
        per = [(x - base) / n for x in t]
        f = fig(v)
        f[key] = (statistics.median(t) - base) / n
        f[key + "_min"], f[key + "_max"] = min(per), max(per)
        f[key + "_q1"], f[key + "_q3"] = quartiles(per)
        f[key + "_samples"] = len(ss)
        f[key + "_raw"] = t
        yield v, ss, t


def figures(samples, boots):
    """{(isa, trigger, variant): {...}} from the good samples."""
    out = {}
    for isa, trig, boot in sorted({(s["isa"], s["trigger"], s["boot"])
                                   for s in samples}):
            good = {}
            for s in samples:
                if (s["isa"], s["trigger"], s["boot"]) == (isa, trig, boot) \
                        and s["ok"]:
                    good.setdefault(s["variant"], []).append(s)
            if "none" not in good:
                continue
            key = "ns" if boot == "tcg" else "insns"
            for v, ss, t in per_firing(
                    good, key, lambda v: out.setdefault((isa, trig, v), {})):
                f = out[(isa, trig, v)]
                n = ss[0]["n"]
                if boot == "icount" and len(t) > 1:
                    f["icount_spread"] = max(t) - min(t)
                if boot == "tcg":
                    f["loop_ns_per_call"] = statistics.median(t) / n
                tr = [x["traps"] / x["n"] for x in ss if "traps" in x]
                if tr:
                    f["traps"] = statistics.median(tr)
                via = [x.get("via_at_trigger") or x.get("via") for x in ss
                       if x.get("via")]
                if via:
                    f.setdefault("via", sorted(set(via)))
                jit = {x.get("jit") for x in ss if x.get("jit") not in
                       (None, "-")}
                if jit:
                    f["jit"] = sorted(jit)
                # user space: the site probed (ucall_target's entry or
                # the USDT note's nop), for the structural trap count
                site = [(x["site"], x["uaddr"], x["insn"]) for x in ss
                        if x.get("site")]
                if site:
                    f["usite"] = list(site[0])
    for isa, trig in {k[:2] for k in out}:
        ref = out.get((isa, trig, REF.get(trig, "xdt-fbt-entry")), {})
        for v in VARIANT_NAMES:
            f = out.get((isa, trig, v))
            if not f:
                continue
            # kprobe at a kinst offset: also against xdt kinst there.
            kref = out.get((isa, trig, "xdt-kinst-" + v.split("-")[-1]), {}) \
                if v in ("kprobe-off-emul", "kprobe-off-xol") else {}
            for key in ("ns", "insns"):
                if key in f and ref.get(key):
                    f[key + "_ratio"] = f[key] / ref[key]
                if key in f and kref.get(key):
                    f[key + "_kinst_ratio"] = f[key] / kref[key]
    return out


def uprobe_traps(isa, insn, ret):
    """Traps per firing of a uprobe (xdt's pid provider and USDT probes
    are uprobes too) on instruction @insn (objdump's text), in 6.1: one
    breakpoint, then either the handler emulates the instruction (x86_64
    branch_setup_xol_ops(): nop, jmp, call, jcc; push_setup_xol_ops():
    push of a register; arm64 and riscv64: the
    simulate_* of their kprobe decoders, branches and PC-relative
    instructions) or runs it out of line in the XOL page and traps again
    (x86_64 the single-step #DB, arm64 the step exception, riscv64 the
    ebreak after the copy); a uretprobe adds the breakpoint of its return
    trampoline (x86_64's uretprobe syscall came in 6.11).  6.1 simulates
    no nop on arm64 and riscv64, so a USDT site is stepped there."""
    f = (insn or "").split(None, 1)
    mnem, ops = (f + ["", ""])[:2]
    if isa == "x86_64":
        emul = mnem == "nop" or ((mnem == "call" or mnem.startswith("j"))
                                 and not ops.startswith("*")) or \
            (mnem == "push" and ops.startswith("%"))
    elif isa == "aarch64":
        emul = mnem in ("b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz",
                        "tbnz", "adr", "adrp") or mnem.startswith("b.") or \
            (mnem in ("ldr", "ldrsw") and "[" not in ops)
    else:
        # riscv64: jal, jalr, auipc and the branches are simulated; their
        # compressed forms are refused (no figure then: the count fails).
        emul = mnem in ("jal", "jalr", "auipc", "j", "jr", "ret", "beq",
                        "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez")
    n = (1 if emul else 2) + (1 if ret else 0)
    how = TRAP[isa] + (" (emulated)" if emul else " + out-of-line step")
    return f"{n} ({how}{' + return trampoline' if ret else ''} at `{insn}`)"


def structural_traps(isa, variant, via, usite=None):
    """Traps per firing of the kernel's own mechanisms, from the 6.1 source
    (kprobe single-step slots) and the `via` the attachment reported."""
    if variant in ("none",):
        return "0"
    if variant in UCALL_VARIANTS:
        if not usite:
            return "?"
        return uprobe_traps(isa, usite[2], USITE[variant][1])
    if variant in ("fentry", "fexit", "kprobe-multi"):
        return "0 (ftrace call)"
    if variant in ("raw-tp", "tracepoint"):
        # kernel/entry/common.c syscall_trace_enter() (arm64:
        # arch/arm64/kernel/ptrace.c): trace_sys_enter() calls the
        # tracepoint's probes, no exception.
        return "0 (tracepoint call)"
    v = (via or [""])[0].replace("+ret", "")
    if variant.startswith("xdt-"):
        return "?"
    if v == "ftrace":
        return "0 (ftrace call)"
    if v == "optprobe":
        return "0 (jump-optimised)"
    if variant == "kprobe-off-emul":
        # The kprobe simulates these instead of single-stepping them:
        # x86 prepare_emulation() (ret/jmp/call/jcc/loop), arm64
        # simulate_* (branches, adr/adrp, ldr literal), riscv64
        # simulate_* (jal, jalr, auipc, branches) in 6.1.
        return f"1 ({v}; the kprobe simulates the insn)"
    if v == TRAP[isa]:
        # the kprobe's single-step slot (arch/<dir>/isa.toml [bench])
        return xdtvm.FACTS[isa]["bench"]["kprobe_traps"]
    return "?"


def fmt(x, nd=0):
    if x is None:
        return "–"
    return f"{x:.{nd}f}"


def write_outputs(outdir, meta, samples, boots, discarded=()):
    os.makedirs(outdir, exist_ok=True)
    figs = figures(samples, boots)
    cells = scale_cells(boots)
    sfigs = scale_figures(cells)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(meta=meta, boots=boots, samples=samples,
                       discarded_samples=list(discarded),
                       figures={"/".join(k): v for k, v in figs.items()},
                       scale_figures={f"{i}/{m}/{n}": v for (i, m, n), v
                                      in sfigs.items()}),
                  f, indent=1)
    cols = ["isa", "boot", "trigger", "variant", "rep", "n", "ok", "unsupported",
            "error", "last_ns", "calls", "count", "probes", "firings",
            "traps", "errors", "off", "insn", "via", "via_at_trigger", "jit",
            "sysnr", "sum", "site", "uaddr", "bpf_uaddr", "uoff",
            "attach_ns", "detach_ns", "exit", "wall_s", "command"]
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for s in samples:
            w.writerow(s)
    cols = ["isa", "mech", "n", "rep", "ok", "skipped", "unsupported",
            "error", "nprobes", "attach_ns", "detach_ns", "load_ns",
            "enable_ns", "go_ns", "stop_ns", "free_ns", "define_ns",
            "arm_ns", "disarm_ns", "remove_ns", "count", "via", "wall_s",
            "command"]
    with open(os.path.join(outdir, "scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for c in cells:
            w.writerow({**c, **c.get("phases", {})})
    plots = make_plots(outdir, figs, meta["isas"], sfigs)
    table = make_table(meta, figs, boots, plots, sfigs,
                       sample_errors(samples, boots))
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(table)
    return figs, table


TRIGGER_TEXT = {
    "kernel": ("In-kernel trigger: the bench module's debugfs loop calls the "
               "noinline `xdt_bench_target` N times (no syscall in the "
               "measured loop). The kinst rows probe one instruction "
               "inside it, and the kprobe rows after them the same "
               "instruction (offsets per ISA in the boot list above)."),
    "syscall": ("Syscall trigger: `bench/getppid-loop.c` calls getppid(2) N "
                "times from user space through syscall(2) (CLOCK_MONOTONIC "
                "around the loop; run without a shell, which would call "
                "getppid itself); xdt and every baseline probe the same "
                "function ({funcs}): the first of "
                + ", ".join(f"`{g}`" for g in GETPPID) + " that xdt's fbt "
                "lists. The last three rows count the syscall itself "
                "instead: xdt's `syscall::getppid:entry` (its syscall "
                "provider, fired from the raw_syscalls:sys_enter "
                "tracepoint), a BPF_PROG_TYPE_RAW_TRACEPOINT program on "
                "sys_enter that counts when the id argument is the ISA's "
                "`__NR_getppid` (the number is in via), and a "
                "BPF_PROG_TYPE_TRACEPOINT program on the perf event "
                "`syscalls:sys_enter_getppid`. The figure includes the "
                "user/kernel transitions' interaction with the probe, the "
                "realistic case."),
    "ucall": ("User-space trigger: `bench/ucall-loop.c` (static, -O1 "
              "-fno-omit-frame-pointer) calls the noinline `" + UCALL +
              "(i, 1)` N times (CLOCK_MONOTONIC around the loop), which "
              "holds one USDT probe from systemtap's <sys/sdt.h>, `"
              + USDT_PROBE[0] + ":" + USDT_PROBE[1] + "`. xdt's rows run "
              "`dtrace -n 'PROBE {{ @ = count(); }}' -c LOOP` (pid provider "
              "entry and return, USDT); each sits beside a uprobe + BPF "
              "count on the same site through the uprobe PMU, for the "
              "loop's process only (`xdt-bpfbench --mech uprobe|uretprobe"
              "|usdt`): the function's entry, its return, the USDT note's "
              "address (the nop xdt probes; sites per ISA in the boot "
              "list above). Both are uprobes, so the difference is the "
              "handler: xdt's clause against a BPF program. The ratio "
              "columns are against xdt pid entry. traps/firing: "
              "structural, from the instruction at the site (6.1's "
              "uprobes; xdt's own trap counter does not see uprobes')."),
}


def boot_line(b):
    offs = b.get("offs") or {}
    kin = ""
    if offs.get("emul"):
        kin = (f", kinst/kprobe insns: emulated +{offs['emul'][0]:#x} "
               f"(`{offs['emul'][1]}`), out of line +{offs['xol'][0]:#x} "
               f"(`{offs['xol'][1]}`)")
    uc = ""
    if b.get("usites"):
        us_ = b["usites"]
        uc = (f", ucall N = {b.get('un', '–')}: `{UCALL}` entry "
              f"{us_['entry'][0]:#x} (`{us_['entry'][1]}`), USDT site "
              f"{us_['usdt'][0]:#x} (`{us_['usdt'][1]}`)")
    sc = ""
    if b.get("scale_info"):
        si = b["scale_info"]
        sc = (f", scaling test {si.get('wall_s', 0):.0f} s of a "
              f"{si.get('budget_s', '?')} s budget")
    return (f"- {b['isa']} {b['boot']} boot: N = {b['n']} (getppid "
            f"N = {b.get('sn', '–')}, probed at "
            f"`{b.get('getppid_func') or '–'}`), {b['rounds']} rounds, "
            f"{b['wall_s']:.0f} s wall (boot + load {b['setup_s']:.0f}"
            f" s), kprobe-off at +{b['off']:#x} "
            f"(`{' '.join(b['off_insn'].split())}`){kin}{uc}{sc}, "
            f"clocksource "
            f"{b.get('clocksource', '?')}"
            + (f", **{b['failures']} failed samples**"
               if b['failures'] else "")
            + (f", **{b['scale_failures']} failed scaling cells**"
               if b.get('scale_failures') else "")
            + (f", **boot {b.get('attempt', 1)} failed** (retried "
               "once; its samples are set aside in results.json): "
               + " ".join(b['error'].split())[:160] + " … "
               + next((ln.strip() for ln in b['error'].splitlines()
                       if "unhandled signal" in ln or "panic" in ln
                       or "Oops" in ln), "")
               if b.get('error') else ""))


def sample_errors(samples, boots):
    """{(isa, trigger, variant): the first error} of the final boots'
    failed samples, so a row with no good sample says why."""
    final = {(b["isa"], b["boot"]) for b in final_boots(boots)
             if not b.get("error")}
    errs = {}
    for s in samples:
        if s.get("error") and (s["isa"], s["boot"]) in final:
            errs.setdefault((s["isa"], s["trigger"], s["variant"]),
                            " ".join(s["error"].split()))
    return errs


def make_table(meta, figs, boots, plots, sfigs=None, errs=None):
    errs = errs or {}
    L = []
    L.append(f"# xdt probe overhead, {meta['started']} ({meta['size']} "
             f"size)\n")
    L.append("ns/firing = (median loop time with the variant − median "
             "without) / N, TCG boot; spread = min–max of the per-sample "
             "figure over the rounds (the host is shared and TCG time is "
             "noisy: read the spread). instructions/firing: the same from "
             "a `-icount shift=0,sleep=off` boot (guest clock = instruction "
             "count; the loop's time includes any interrupt that lands in "
             "it, and the clocksource (listed per boot) bounds the "
             "resolution: x86 TSC 1 insn, arm64 generic timer 62.5 MHz = "
             "16 insns, riscv64 virt timebase 10 MHz = 100 insns). ratio = "
             "this ÷ xdt fbt entry, same boot and trigger (< 1: cheaper "
             "than xdt). traps/firing: xdt measured by its own counter; "
             "the kernel's mechanisms structural, from the 6.1 source and "
             "the attachment the kernel reported (kprobes/list read at "
             "trigger time, so an x86 optprobe shows as optimised). "
             "via: (JIT) / (interpreted) is the BPF program's own "
             "jited_prog_len.\n")
    for b in boots:
        L.append(boot_line(b))
    L.append(f"- total wall time {meta.get('wall_s', 0):.0f} s\n")
    fb = final_boots(boots)
    funcs = ", ".join(f"{b['isa']}: `{b.get('getppid_func')}`" for b in fb
                      if b["boot"] == "tcg" and b.get("getppid_func"))
    for trig in meta.get("triggers", ["kernel"]):
        L.append(f"## Trigger: {trig}\n")
        L.append(TRIGGER_TEXT[trig].format(funcs=funcs) + "\n")
        ref = "xdt pid entry" if trig == "ucall" else "xdt fbt entry"
        L.append("| mechanism | ISA | via | ns/firing (TCG) [min–max] | "
                 f"ratio to {ref} (TCG) | instructions/firing "
                 f"(icount) | icount repeats identical | ratio to {ref} "
                 "(insns) | traps/firing |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for v in meta.get("variants") or VARIANT_NAMES:
            for isa in meta["isas"]:
                L.append(table_row(trig, v, isa, figs, boots, errs))
        L.append("")
        if trig == "kernel" and set(meta.get("variants") or
                                    VARIANT_NAMES) & set(KINST):
            L.extend(kinst_table(meta, figs, boots))
        if trig == "syscall":
            L.extend(syscall_table(meta, figs, boots, errs))
        if trig == "ucall":
            L.extend(ucall_table(meta, figs, boots, errs))
    L.extend(goal36_table(meta, figs))
    L.extend(regression_section(meta, figs))
    L.extend(goal_table(meta, figs))
    if meta.get("scale") and "fbt" in meta.get("scale_what", ["fbt"]):
        L.extend(scale_table(meta, sfigs or {}, boots))
    if any("pid_scale" in b for b in boots):
        L.extend(pid_scale_table(meta, boots))
    L.append("## Published real-hardware anchor (context, not measured "
             "here)\n")
    L.append("| source | FreeBSD DTrace fbt | bpftrace kprobe |\n"
             "|---|---|---|\n| Xeon Gold 6226R, Piotrowski, AsiaBSDCon "
             "2024 | ≈ 280 ns/firing | ≈ 56 ns/firing |\n")
    if plots:
        L.append("Plots: " + ", ".join(f"`{p}`" for p in plots) + "\n")
    else:
        L.append("Plots: not generated (python3-matplotlib is not "
                 "installed on the host).\n")
    return "\n".join(L) + "\n"


def row_reason(trig, v, isa, boots):
    """Why (trig, v) has no figure on @isa by design, or None."""
    reason = SKIP.get((trig, v))
    for b in final_boots(boots):
        if b["isa"] != isa:
            continue
        if f"{trig}/{v}" in b.get("unavailable", {}):
            reason = "unavailable: " + b["unavailable"][f"{trig}/{v}"]
        if f"{trig}/{v}" in b["unsupported"]:
            reason = "unsupported: " + b["unsupported"][f"{trig}/{v}"]
    return reason


def failed_cell(err):
    """The cell of a row with no good sample: FAILED and the first error
    (table cells cannot hold a bar)."""
    if not err:
        return "no good sample (FAILED)"
    err = err.replace("|", "/")
    return ("no good sample (FAILED: " + (err[:200] + " …" if len(err) > 200
                                          else err) + ")")


def table_row(trig, v, isa, figs, boots, errs=None):
    f = figs.get((isa, trig, v))
    reason = row_reason(trig, v, isa, boots)
    if reason and not f:
        return f"| {DESCR[v]} | {isa} | – | {reason} | | | | | |"
    if not f:
        err = (errs or {}).get((isa, trig, v))
        return f"| {DESCR[v]} | {isa} | – | {failed_cell(err)} | | | | | |"
    via = ",".join(f.get("via", [])) or "–"
    if f.get("jit") and v != "kprobe-events":
        via += " (JIT)" if f["jit"] == ["1"] else \
            " (interpreted)" if f["jit"] == ["0"] else ""
    offkey = KINST.get(v) or {"kprobe-off-emul": "emul",
                              "kprobe-off-xol": "xol"}.get(v)
    if offkey:
        for b in final_boots(boots):
            if b["isa"] == isa and b["boot"] == "tcg" and b.get("offs"):
                off, insn = b["offs"][offkey]
                via += f" @+{off:#x} `{insn}`"
    if v == "none":
        ns = (f"loop {f['loop_ns_per_call']:.1f} ns/call"
              if "loop_ns_per_call" in f else "–")
        ins = "0 (baseline)"
    else:
        ns = (f"{f['ns']:.0f} [{f['ns_min']:.0f}–{f['ns_max']:.0f}]"
              if "ns" in f else "–")
        ins = fmt(f.get("insns"))
    if "icount_spread" not in f:
        det = "–"
    elif f["icount_spread"] == 0:
        det = "yes"
    else:
        det = (f"no: {', '.join(map(str, f['insns_raw']))} (spread "
               f"{f['icount_spread']})")
    if "traps" in f:
        traps = f"{f['traps']:g} (measured)"
    else:
        traps = structural_traps(isa, v, f.get("via"), f.get("usite"))
    none = v == "none"
    return (f"| {DESCR[v]} | {isa} | {via} | {ns} | "
            f"{fmt(None if none else f.get('ns_ratio'), 2)} | {ins} | {det} "
            f"| {fmt(None if none else f.get('insns_ratio'), 2)} | {traps} |")


def kinst_table(meta, figs, boots):
    """xdt kinst against a kprobe on the same instruction."""
    L = ["### kinst against kprobe on the same instruction (kernel "
         "trigger)\n",
         "ratio = kprobe + BPF count ÷ xdt kinst count(), same boot (> 1: "
         "the kprobe costs more). emulated = kinst runs the instruction's "
         "effect in its trap handler (1 trap); out of line = from a slot "
         "in xdt.ko's text (x86_64 and arm64 jump back: 1 trap; riscv64 "
         "returns with a second ebreak: 2 traps).\n",
         "| ISA | insn | offset | xdt kinst ns/firing | xdt traps/firing "
         "| kprobe ns/firing | kprobe via | kprobe traps/firing | ratio "
         "(TCG) | xdt kinst insns/firing | kprobe insns/firing | ratio "
         "(insns) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for isa in meta["isas"]:
        b = next((x for x in final_boots(boots) if x["isa"] == isa and
                  x["boot"] == "tcg" and x.get("offs")), None)
        for key, label in (("emul", "emulated"), ("xol", "out of line")):
            xv, kv = f"xdt-kinst-{key}", f"kprobe-off-{key}"
            off, insn = b["offs"][key] if b else ("?", "?")
            where = f"| {isa} | {label} `{insn}` | " + \
                (f"+{off:#x}" if isinstance(off, int) else off) + " |"
            xf, kf = figs.get((isa, "kernel", xv)), figs.get((isa, "kernel",
                                                             kv))
            xr, kr = (row_reason("kernel", xv, isa, boots),
                      row_reason("kernel", kv, isa, boots))
            xs = (f"{xf['ns']:.0f} [{xf['ns_min']:.0f}–{xf['ns_max']:.0f}]"
                  if xf and "ns" in xf else xr or "no good sample (FAILED)")
            xt = f"{xf['traps']:g}" if xf and "traps" in xf else "–"
            ks = (f"{kf['ns']:.0f} [{kf['ns_min']:.0f}–{kf['ns_max']:.0f}]"
                  if kf and "ns" in kf else kr or "no good sample (FAILED)")
            kvia = ",".join(kf.get("via", [])) if kf else "–"
            kt = structural_traps(isa, kv, kf.get("via")) if kf else "–"
            L.append(f"{where} {xs} | {xt} | {ks} | {kvia} | {kt} | "
                     f"{fmt(kf.get('ns_kinst_ratio') if kf else None, 2)} | "
                     f"{fmt(xf.get('insns') if xf else None)} | "
                     f"{fmt(kf.get('insns') if kf else None)} | "
                     f"{fmt(kf.get('insns_kinst_ratio') if kf else None, 2)}"
                     " |")
    L.append("")
    return L


def syscall_table(meta, figs, boots, errs):
    """Every way the syscall trigger measured to count one getppid, per
    ISA, cheapest first (by instructions/firing; by TCG ns where the icount
    boot has no figure)."""
    L = [f"### Counting a syscall ({SYSCALL}): cheapest first, per ISA\n",
         "The syscall trigger's rows again, ranked per ISA by "
         "instructions/firing (icount; TCG ns where there is none); × "
         "cheapest = this ÷ the ISA's cheapest. The function-probe rows "
         "count calls of the syscall's kernel function, the last three the "
         "syscall itself: xdt's syscall provider and the two BPF programs "
         "all hang off the raw_syscalls:sys_enter tracepoint, whose "
         "enabling turns on every task's syscall-tracepoint work (the "
         "entry slow path) for every syscall, a cost the other syscalls "
         "pay too while it is attached and which is part of the figure "
         "here. Rows with no figure follow, with the reason.\n",
         "| ISA | rank | mechanism | via | instructions/firing (icount) | "
         "× cheapest (insns) | ns/firing (TCG) | × cheapest (ns) |",
         "|---|---|---|---|---|---|---|---|"]
    vs = [v for v in meta.get("variants") or VARIANT_NAMES if v != "none"
          and ("syscall", v) not in SKIP]
    for isa in meta["isas"]:
        have = [(v, figs[(isa, "syscall", v)]) for v in vs
                if "insns" in figs.get((isa, "syscall", v), {}) or
                "ns" in figs.get((isa, "syscall", v), {})]
        have.sort(key=lambda vf: (vf[1].get("insns") is None,
                                  vf[1].get("insns", 0),
                                  vf[1].get("ns", 0)))
        best_i = min((f["insns"] for _, f in have if "insns" in f),
                     default=None)
        best_n = min((f["ns"] for _, f in have if "ns" in f), default=None)
        for rank, (v, f) in enumerate(have, 1):
            via = ",".join(f.get("via", [])) or "–"
            if f.get("jit") and v != "kprobe-events":
                via += " (JIT)" if f["jit"] == ["1"] else \
                    " (interpreted)" if f["jit"] == ["0"] else ""
            ri = (f"{f['insns'] / best_i:.2f}" if "insns" in f and best_i
                  and best_i > 0 else "–")
            rn = (f"{f['ns'] / best_n:.2f}" if "ns" in f and best_n
                  and best_n > 0 else "–")
            L.append(f"| {isa} | {rank} | {DESCR[v]} | {via} | "
                     f"{fmt(f.get('insns'))} | {ri} | {fmt(f.get('ns'))} | "
                     f"{rn} |")
        for v in vs:
            if any(v == h for h, _ in have):
                continue
            why = row_reason("syscall", v, isa, boots) or \
                failed_cell(errs.get((isa, "syscall", v)))
            L.append(f"| {isa} | – | {DESCR[v]} | – | {why} | | | |")
    L.append("")
    return L


# The ucall trigger's pairs: xdt and the uprobe + BPF row on one site.
UCALL_PAIRS = [("entry", "xdt-pid-entry", "uprobe"),
               ("return (set at the entry)", "xdt-pid-return", "uretprobe"),
               ("USDT", "xdt-usdt", "uprobe-usdt")]


def ucall_table(meta, figs, boots, errs):
    """xdt's user-space probes against a uprobe + BPF count on the same
    site, per ISA (the ucall trigger's rows, side by side)."""
    vs = set(meta.get("variants") or VARIANT_NAMES)
    L = ["### User space: xdt against uprobe + BPF on the same site\n",
         "ratio = uprobe + BPF count ÷ xdt count(), same boot (> 1: the "
         "BPF row costs more). Both go through uprobes (the same "
         "breakpoint and, where the instruction is not emulated, the same "
         "out-of-line step); what differs is the handler: xdt's probe "
         "firing and clause against a JIT-compiled BPF program.\n",
         "| ISA | probe | site | xdt ns/firing | uprobe + BPF ns/firing | "
         "ratio (TCG) | xdt insns/firing | uprobe + BPF insns/firing | "
         "ratio (insns) | traps/firing |",
         "|---|---|---|---|---|---|---|---|---|---|"]

    def cell(isa, v):
        if v not in vs:
            return "not run (not in --variants)"
        f = figs.get((isa, "ucall", v))
        if f and "ns" in f:
            return f"{f['ns']:.0f} [{f['ns_min']:.0f}–{f['ns_max']:.0f}]"
        if f and "insns" in f:
            return "–"
        return (row_reason("ucall", v, isa, boots) or
                failed_cell(errs.get((isa, "ucall", v)))).replace("|", "/")

    for isa in meta["isas"]:
        for label, xv, bv in UCALL_PAIRS:
            if xv not in vs and bv not in vs:
                continue
            xf = figs.get((isa, "ucall", xv)) or {}
            bf = figs.get((isa, "ucall", bv)) or {}
            us_ = xf.get("usite") or bf.get("usite")
            site = f"{us_[1]:#x} `{us_[2]}`" if us_ else "–"

            def ratio(key):
                if key in xf and key in bf and xf[key] > 0:
                    return f"{bf[key] / xf[key]:.2f}"
                return "–"
            traps = structural_traps(isa, xv, None, us_) if us_ else "–"
            L.append(f"| {isa} | {label} | {site} | {cell(isa, xv)} | "
                     f"{cell(isa, bv)} | {ratio('ns')} | "
                     f"{fmt(xf.get('insns'))} | {fmt(bf.get('insns'))} | "
                     f"{ratio('insns')} | {traps} |")
    L.append("")
    return L


XDT_HOW = {"xdt-trampoline": "xdt's entry probe is a call into its own "
           "trampoline (no exception; bench/stepprof.py: where the rest "
           "goes)",
           "ftrace_ops": "xdt's entry probe is an ftrace_ops behind ftrace's "
           "call (no exception)"}


def goal_why(kvia, xvia):
    """Why the kprobe costs what it does, from the attachment it reported,
    and how xdt's probe went in."""
    v = ",".join(kvia or [])
    x = ",".join(xvia or [])
    xhow = XDT_HOW.get(x, "xdt's entry probe is a breakpoint trap "
                       "(exception entry and return; it emulates the NOP "
                       "it replaces)")
    if v.startswith("ftrace"):
        return ("the kprobe rides ftrace's call at the entry NOP (a function "
                f"call, no exception); {xhow}")
    if v.startswith(("brk", "ebreak", "int3")):
        return ("the kprobe takes a breakpoint and then single-steps the "
                f"displaced instruction out of line (2 traps); {xhow}")
    return f"the kprobe went through `{v or '?'}`; {xhow}"


def goal_table(meta, figs):
    """The first goal: xdt fbt entry count() costs no more than kprobe +
    BPF count on the same ISA, by instructions and by the TCG ns ratio;
    in user space (the ucall trigger), xdt pid entry against uprobe + BPF
    count."""
    L = ["## Goal: xdt fbt entry ≤ kprobe + BPF count (same ISA, boot, "
         "function)\n",
         "met = xdt fbt entry with count() costs no more than the kprobe "
         "with a BPF count map, by instructions/firing (icount) and by "
         "ns/firing (TCG); why = the structural reason, from how the kprobe "
         "attached. The ucall trigger's row holds xdt's pid entry probe "
         "to a uprobe + BPF count on the same instruction instead.\n",
         "| trigger | ISA | xdt insns | kprobe/uprobe insns | met (insns) | "
         "xdt ns | kprobe/uprobe ns | met (TCG ns) | why |",
         "|---|---|---|---|---|---|---|---|---|"]
    for trig in meta.get("triggers", ["kernel"]):
        for isa in meta["isas"]:
            xv, kv = (("xdt-pid-entry", "uprobe") if trig == "ucall" else
                      ("xdt-fbt-entry", "kprobe"))
            x = figs.get((isa, trig, xv), {})
            k = figs.get((isa, trig, kv), {})
            if not x or not k:
                continue

            def met(key):
                if key not in x or key not in k:
                    return "–"
                return "yes" if x[key] <= k[key] else \
                    f"no (× {x[key] / k[key]:.2f})"
            why = ("both are the same uprobe (breakpoint, out-of-line "
                   "step): xdt's firing and clause against the BPF "
                   "program" if trig == "ucall" else
                   goal_why(k.get('via'), x.get('via')))
            L.append(f"| {trig} | {isa} | {fmt(x.get('insns'))} | "
                     f"{fmt(k.get('insns'))} | {met('insns')} | "
                     f"{fmt(x.get('ns'))} | {fmt(k.get('ns'))} | "
                     f"{met('ns')} | {why} |")
    L.append("")
    return L


# Issue 36's goals, one row each: (row, trigger, xdt's variant, the
# references in order of preference as (variant, factor)).  A cell is met
# when xdt's icount instructions per firing are at most factor × the
# first reference this run measured on the ISA: fentry / fexit where the
# kernel has them (x86_64 in 6.1; the arm64 and riscv64 kernels do not,
# and their rows say unsupported), else half the kprobe / kretprobe.  No
# ISA is named: which reference applies is what the kernel could attach.
GOALS = [
    ("fbt entry, default mechanism", "kernel", "xdt-fbt-entry",
     [("fentry", 1.0), ("kprobe", 0.5)]),
    ("fbt entry, empty clause", "kernel", "xdt-fbt-entry-empty",
     [("xdt-fbt-entry-empty-bp", 0.5)]),
    ("fbt return", "kernel", "xdt-fbt-return",
     [("fexit", 1.0), ("kretprobe", 0.5)]),
    ("`syscall::getppid:entry`", "syscall", "xdt-syscall-entry",
     [("raw-tp", 1.0)]),
    ("kinst mid-function, emulated", "kernel", "xdt-kinst-emul",
     [("kprobe-off-emul", 1.0)]),
    ("kinst mid-function, out of line", "kernel", "xdt-kinst-xol",
     [("kprobe-off-xol", 1.0)]),
]
REF_NAME = {"fentry": "fentry", "kprobe": "kprobe", "fexit": "fexit",
            "kretprobe": "kretprobe", "raw-tp": "raw tp",
            "xdt-fbt-entry-empty-bp": "breakpoint",
            "kprobe-off-emul": "kprobe", "kprobe-off-xol": "kprobe"}


def goal_cell(figs, isa, trig, xv, refs):
    """(text, state) of one goal cell: state "met", "missed" or None (not
    measured)."""
    x = figs.get((isa, trig, xv), {})
    for rv, factor in refs:
        r = figs.get((isa, trig, rv), {})
        if "insns" in r and r["insns"] > 0:
            break
    else:
        return "not measured", None
    if "insns" not in x:
        return "not measured (xdt)", None
    goal = factor * r["insns"]
    name = ("" if factor == 1 else f"{factor:g}× ") + REF_NAME.get(rv, rv)
    ratio = x["insns"] / goal
    state = "met" if ratio <= 1 else "missed"
    text = (f"**met** ({fmt(x['insns'])} ≤ {name} {fmt(goal)})" if
            state == "met" else f"**missed by ×{ratio:.2f}** "
            f"({fmt(x['insns'])} vs {name} {fmt(goal)})")
    # TCG ns must agree in direction: said when they do not.
    if "ns" in x and "ns" in r and r["ns"] > 0:
        if (x["ns"] <= factor * r["ns"]) != (state == "met"):
            text += (f"; TCG ns disagree ({fmt(x['ns'])} vs "
                     f"{fmt(factor * r['ns'])})")
    return text, state


def goal36_table(meta, figs):
    """Issue 36's goal table: icount instructions per count() firing
    against the kernel's cheapest comparable mechanism, per ISA."""
    isas = meta["isas"]
    L = ["## Goals (issue 36): instructions per `count()` firing, same "
         "kernel and boot\n",
         "Each cell: xdt's icount instructions per firing against the "
         "goal (fentry / fexit + BPF where the kernel has them, else half "
         "the kprobe / kretprobe + BPF; the empty clause against half the "
         "breakpoint's; the syscall provider against a raw tracepoint on "
         "`sys_enter` + BPF with the id filter; kinst against a kprobe + "
         "BPF at the same offset); the TCG ns are named when they disagree "
         "in direction.\n",
         "| row | " + " | ".join(isas) + " |",
         "|---|" + "---|" * len(isas)]
    met = missed = 0
    for row, trig, xv, refs in GOALS:
        if trig not in meta.get("triggers", ["kernel"]):
            continue
        cells = []
        for isa in isas:
            text, state = goal_cell(figs, isa, trig, xv, refs)
            met += state == "met"
            missed += state == "missed"
            cells.append(text)
        L.append(f"| {row} | " + " | ".join(cells) + " |")
    L.append(f"\n{met} met, {missed} missed.\n")
    return L


def regressions(figs, prev, limit=0.05, key="insns"):
    """[(isa/trigger/variant, before, after)] of the rows whose
    instructions per firing grew by more than @limit since @prev (the
    previous run's figures, keyed "isa/trigger/variant").  icount only:
    TCG ns move by more than 5 % between two runs on a shared host."""
    out = []
    for k, f in sorted(figs.items()):
        name = "/".join(k)
        p = prev.get(name, {})
        if k[2] == "none" or key not in f or key not in p or p[key] <= 0:
            continue
        if f[key] > p[key] * (1 + limit):
            out.append((name, p[key], f[key]))
    return out


def previous_run(outdir, meta):
    """The newest earlier full run beside @outdir (bench/results/<stamp>/
    results.json with the same size), or None."""
    root = os.path.dirname(os.path.abspath(outdir))
    best = None
    for d in os.listdir(root) if os.path.isdir(root) else ():
        f = os.path.join(root, d, "results.json")
        if os.path.islink(os.path.join(root, d)) or not os.path.isfile(f) \
                or os.path.samefile(os.path.join(root, d), outdir):
            continue
        try:
            with open(f) as fp:
                m = json.load(fp).get("meta", {})
        except (OSError, ValueError):
            continue
        if m.get("size") != meta.get("size") or "triggers" not in m or \
                m.get("started", "") >= meta.get("started", ""):
            continue
        if best is None or m["started"] > best[0]:
            best = (m["started"], os.path.join(root, d))
    return best[1] if best else None


def regression_section(meta, figs):
    base = meta.get("baseline")
    L = ["## Against the previous run\n"]
    if not base:
        return L + ["No earlier run of this size to compare with.\n"]
    try:
        with open(os.path.join(base, "results.json")) as f:
            prev = json.load(f).get("figures", {})
    except (OSError, ValueError) as e:
        return L + [f"Baseline {base} unreadable: {e}\n"]
    worse = regressions(figs, prev)
    L.append(f"Baseline `{base}`: rows whose icount instructions per firing "
             "grew by more than 5 % (TCG ns are not compared: they move "
             "more than that between runs on a shared host).\n")
    if not worse:
        L.append("None.\n")
    for name, a, b in worse:
        L.append(f"- **{name}**: {fmt(a)} → {fmt(b)} (×{b / a:.2f})")
    L.append("")
    return L


def make_plots(outdir, figs, isas, sfigs=None):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    for trig in TRIGGERS:
        for key, label in (("ns", "ns per firing (TCG)"),
                           ("insns", "guest instructions per firing "
                            "(icount)")):
            fname = f"{trig}-{key}.png"
            vs = [v for v in VARIANT_NAMES if v != "none"
                  and any(key in figs.get((i, trig, v), {}) for i in isas)]
            if not vs:
                continue
            fig, ax = plt.subplots(figsize=(1.2 * len(vs) + 2, 4.5))
            w = 0.8 / len(isas)
            for j, isa in enumerate(isas):
                xs, ys, lo, hi = [], [], [], []
                for k, v in enumerate(vs):
                    f = figs.get((isa, trig, v), {})
                    if key not in f:
                        continue
                    xs.append(k + j * w)
                    ys.append(f[key])
                    lo.append(max(0, f[key] - f[key + "_min"]))
                    hi.append(max(0, f[key + "_max"] - f[key]))
                ax.bar(xs, ys, w, yerr=[lo, hi], label=isa, capsize=2)
            ax.set_xticks([k + w * (len(isas) - 1) / 2
                           for k in range(len(vs))])
            ax.set_xticklabels(vs, rotation=30, ha="right")
            ax.set_ylabel(label)
            ax.set_title(f"{trig} trigger: {label}")
            if ax.get_legend_handles_labels()[0]:
                ax.legend()
            fig.tight_layout()
            fig.savefig(os.path.join(outdir, fname), dpi=120)
            plt.close(fig)
            made.append(fname)
    # The mechanism matrix, one figure per ISA: how each way
    # into the same function costs, entry and return, instructions beside
    # TCG ns, so a reader sees where the two measures disagree.
    for isa in isas:
        vs = [v for v in MECH_MATRIX
              if "insns" in figs.get((isa, "kernel", v), {})
              or "ns" in figs.get((isa, "kernel", v), {})]
        if not vs:
            continue
        fig, axes = plt.subplots(1, 2, figsize=(2 * (0.6 * len(vs) + 2), 4.5),
                                 squeeze=False)
        for ax, (key, label) in zip(axes[0], (
                ("insns", "instructions per firing (icount)"),
                ("ns", "ns per firing (TCG)"))):
            ys = [figs.get((isa, "kernel", v), {}).get(key, 0) for v in vs]
            ax.bar(range(len(vs)), ys, 0.7,
                   color=["C0" if v.startswith("xdt") else "C1" for v in vs])
            ax.set_xticks(range(len(vs)))
            ax.set_xticklabels(vs, rotation=40, ha="right", fontsize=8)
            ax.set_ylabel(label)
            ax.set_title(f"{isa}: {label}")
        fig.tight_layout()
        fname = f"mech-{isa}.png"
        fig.savefig(os.path.join(outdir, fname), dpi=120)
        plt.close(fig)
        made.append(fname)
    if sfigs:
        fig, axes = plt.subplots(1, len(isas), figsize=(5 * len(isas), 4.5),
                                 squeeze=False)
        for ax, isa in zip(axes[0], isas):
            for j, m in enumerate(SCALE_MECHS):
                col = f"C{j}"
                # xdt's "all" is one glob clause, not N exact ones: its
                # own markers, not on the line.
                for glob in (False, True):
                    pts = sorted((f["nprobes"], f["enable_ms"],
                                  f["disable_ms"])
                                 for (i, mm, n), f in sfigs.items()
                                 if i == isa and mm == m and
                                 (is_xdt(m) and n == "all") == glob)
                    if not pts:
                        continue
                    lab = f"{m} (one glob clause)" if glob else m
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            "*" if glob else "o-", color=col, ms=10 if glob
                            else 6, label=f"{lab} enable")
                    ax.plot([p[0] for p in pts], [p[2] for p in pts],
                            "x" if glob else "s--", color=col, ms=10 if glob
                            else 6, label=f"{lab} disable")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("probes")
            ax.set_ylabel("ms (TCG)")
            ax.set_title(f"{isa}: enable / disable time")
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "scale.png"), dpi=120)
        plt.close(fig)
        made.append("scale.png")
    return made
