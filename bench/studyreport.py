"""The kgdb study's per-ISA Markdown report (bench/kgdbstudy.py writes the
JSON; this turns one ISA's JSON into DIR/<isa>.md and DIR/README.md).

    bench/studyreport.py DIR      rewrite the reports from DIR/*.json
"""
import glob
import json
import os
import sys

# Rows on the bench module's target, then on read_zero; each row's ratio
# is to the xdt fbt entry trampoline firing on the same function.
BENCH_ROWS = ["fbt-entry/breakpoint", "fbt-entry/ftrace",
              "fbt-entry/trampoline", "fbt-return", "kinst", "kprobe-entry",
              "kprobe-off"]
ZERO_ROWS = ["ref-trampoline", "ref-breakpoint", "kgdb-break",
             "kgdb-break-cli", "kgdb-step", "qemu-break"]
ORDER = BENCH_ROWS + ZERO_ROWS
HELD_ROWS = BENCH_ROWS + ["ref-trampoline", "ref-breakpoint"]


def ref_of(row):
    return "fbt-entry/trampoline" if row in BENCH_ROWS else "ref-trampoline"


def func_of(row, res):
    t = res.get("targets", {})
    return t.get("bench" if row in BENCH_ROWS else "zero", {}).get("func", "")

LABEL = {
    "fbt-entry/breakpoint": "xdt fbt entry, breakpoint",
    "fbt-entry/ftrace": "xdt fbt entry, ftrace_ops",
    "fbt-entry/trampoline": "xdt fbt entry, trampoline (default)",
    "fbt-return": "xdt fbt return",
    "kinst": "xdt kinst +{off}",
    "kprobe-entry": "kprobe (kprobe_events) at entry",
    "kprobe-off": "kprobe (kprobe_events) +{off}",
    "ref-trampoline": "xdt fbt entry, trampoline (default)",
    "ref-breakpoint": "xdt fbt entry, breakpoint",
    "kgdb-break": "gdb breakpoint through kgdb, Python count",
    "kgdb-break-cli": "gdb breakpoint through kgdb, `commands` count",
    "kgdb-step": "gdb breakpoint through kgdb, count-run (own step-over)",
    "qemu-break": "gdb breakpoint through QEMU's gdbstub, Python count",
}


def label(row, res):
    off = res.get("offs", {}).get("xol", [0])[0]
    return LABEL[row].format(off=off)


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def ratio(x, ref):
    if x is None or not ref or ref <= 0:
        return "–"
    r = x / ref
    return f"{r:,.0f}×" if r >= 100 else f"{r:.2f}×"


def table(res):
    tcg = res.get("tcg", {}).get("rows", {})
    ic = res.get("icount", {}).get("rows", {})
    out = ["| function | mechanism | bytes written (offset: before → while in) "
           "| written by | exceptions per hit "
           "| instructions per hit (icount) | × xdt fbt "
           "| wall time per hit (TCG) | × xdt fbt "
           "| insertion | removal |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in ORDER:
        t = tcg.get(row, {})
        i = ic.get(row, {})
        ref_t = tcg.get(ref_of(row), {}).get("per_hit")
        ref_i = ic.get(ref_of(row), {}).get("per_hit")
        fn = f"`{func_of(row, res)}`"
        if "error" in t:
            out.append(f"| {fn} | {label(row, res)} | failed: "
                       f"{t['error'].splitlines()[0][:120]} |||||||||")
            continue
        runs = t.get("runs")
        if runs is None:
            written = "–"
        elif not runs:
            written = "0"
        else:
            written = f"{t.get('bytes_written')}: " + "; ".join(
                f"+{a}: `{b}` → `{w}`" for a, b, w in runs)
        ins = i.get("per_hit")
        out.append(
            f"| {fn} | {label(row, res)} | {written} "
            f"| {t.get('writer', '–')} "
            f"| {t.get('exceptions', '–')} "
            f"| {'–' if ins is None else f'{ins:,.0f}'} | {ratio(ins, ref_i)} "
            f"| {fmt_ns(t.get('per_hit'))} | {ratio(t.get('per_hit'), ref_t)} "
            f"| {fmt_ns(t.get('attach_ns'))} | {fmt_ns(t.get('detach_ns'))} |")
    return out


def transcript(title, lines):
    out = [f"<details><summary>{title}</summary>", "", "```"]
    for cmd, text in lines:
        out.append(f"(gdb) {cmd}")
        if text:
            out.append(text)
    out += ["```", "</details>", ""]
    return out


def observations(res):
    t = res["tcg"]["rows"]
    out = ["## What each debugger sees", ""]
    for tg in res.get("targets", {}).values():
        out += [f"`{tg['func']}` at `{tg['addr']:#x}`, {tg['size']} bytes. "
                "**Before** any probe, both debuggers read the same bytes "
                "(checked); the first instructions:", "",
                "```", tg["before"][:3 * 64], "", *tg["before_dis"], "```",
                ""]
    for row in HELD_ROWS:
        r = t.get(row, {})
        if "error" in r or "runs" not in r:
            continue
        out.append(f"### {label(row, res)} on `{func_of(row, res)}`")
        out.append("")
        out.append(f"Written by {r['writer']}; attached as `{r['desc']}`"
                   + (f" with `XDT_FBTMODE={r['mode']}`" if r.get("mode")
                      else "") + (f", via {r['via']}" if r.get("via") and row.startswith("kprobe")
                      else "")
                   + ".")
        out.append("")
        for off, ins in sorted(r.get("qemu_while", {}).items(),
                               key=lambda kv: int(kv[0])):
            out.append(f"While in, at +{off}, QEMU's gdbstub:")
            out += ["```", *ins, "```"]
            k = r.get("kgdb_while", {}).get(str(off)) or \
                r.get("kgdb_while", {}).get(off)
            if k:
                out.append("and kgdb (gdb over the guest's own stub):")
                out += ["```", *[ln.strip() for ln in k.splitlines()], "```"]
        out.append(f"kgdb's bytes equal QEMU's while the probe is in: "
                   f"**{'yes' if r.get('kgdb_same_as_qemu') else 'NO'}**; "
                   f"after removal both equal the before: "
                   f"**{'yes' if r.get('after_ok') else 'NO'}**.")
        out.append("")
    kb = t.get("kgdb-break", {})
    if "runs" in kb:
        out += ["### gdb breakpoint through kgdb", "",
                "gdb inserts its breakpoints when the kernel resumes (Z0 "
                "packets before `c`) and takes them out when it stops; kgdb "
                "itself writes them into the text at resume "
                "(dbg_activate_sw_breakpoints) and lifts them as soon as the "
                "kernel stops (dbg_deactivate_sw_breakpoints). So the two "
                "views differ:", "",
                f"- QEMU, while the kernel runs with the breakpoint in: "
                + ("; ".join(f"+{a}: `{b}` → `{w}`" for a, b, w in kb["runs"])
                   or "unchanged"),
                *[f"  `{ln}`" for o in kb.get("qemu_while", {}).values()
                  for ln in o],
                f"- kgdb, stopped (sysrq-g) with the breakpoint still set in "
                f"gdb, raw `m` packet: `{kb.get('kgdb_stopped_raw_after')}` "
                f"(the original: `{kb.get('kgdb_stopped_raw')}`); QEMU at "
                f"that moment: `{kb.get('qemu_stopped')}`.",
                f"- After detach (kgdb removes every breakpoint on `D`) the "
                f"bytes equal the before: "
                f"**{'yes' if kb.get('after_ok') else 'NO'}**.", ""]
    qb = t.get("qemu-break", {})
    if qb.get("finished") is False:
        out += ["### QEMU's gdbstub lost the guest", "",
                f"With QEMU's breakpoint on `read_zero`, the {qb.get('n')} "
                f"reads never returned; gdb had counted {qb.get('count')} "
                "hits. Interrupted, QEMU's vCPUs were here:", "",
                "```", qb.get("lost_bt", "").strip(), "```", "",
                "The rest of this boot (the unregistered patch value, the "
                "breakpoint in module text) was skipped.", ""]
    if "kgdb_while_raw" in qb:
        out += ["### gdb breakpoint through QEMU's gdbstub", "",
                "QEMU implements it as a TCG breakpoint: the translator ends "
                "the block at the address and stops the machine there; guest "
                "memory is never written. The guest's own debugger, asked "
                "while QEMU's breakpoint is in (kgdb entered by sysrq-g), "
                f"reads `{qb['kgdb_while_raw']}` at the entry — "
                f"{qb.get('bytes_written', 0)} bytes differ from the before. "
                "No guest exception per hit either: the guest cannot tell it "
                "was stopped, except by the time lost.", ""]
    w = t.get("kgdb-write", {})
    if w and "error" not in w:
        out += ["### A patch value nobody registered", "",
                f"The ISA's patch value (xdt's `{w['mnem']}`, `{w['patch']}`) "
                f"written at +{w['off']} (was `{w['orig']}`) by gdb's memory "
                "write through kgdb:", "",
                "```", w.get("kgdb_write_output") or "(accepted)", "```", "",
                f"Written by: **{w['writer_used']}**."
                + (" kgdb writes memory with copy_to_kernel_nofault(), which "
                   "faults on read-only kernel text (CONFIG_STRICT_KERNEL_RWX)"
                   "; its breakpoints go through the architecture's text "
                   "poke instead. QEMU writes guest RAM whatever the guest's "
                   "page tables say." if "QEMU" in w["writer_used"] else
                   " This kernel has no CONFIG_STRICT_KERNEL_RWX, so kgdb's "
                   "plain memory write reaches the text."), "",
                "Then one call of the function. No kprobe, no xdt probe and "
                "no kgdb breakpoint is at that address, so no handler claims "
                "the trap."]
        if w.get("outcome") == "kgdb":
            out += ["", "kgdb, registered on the trap notifiers, takes it "
                    "(the trap comes as SIGTRAP) and waits for a debugger, "
                    "silently. gdb attaching then sees:", "",
                    "```", w.get("attach", ""), "", w.get("pc", ""), "",
                    w.get("bt", ""), "```", "",
                    f"The debugger puts the original bytes back "
                    f"(by {w.get('restored_by')}) and sets the PC to the "
                    "instruction — nothing in the kernel rewinds it — and "
                    f"detaches: the call completes ({w.get('calls')} call), "
                    f"the guest is {'alive' if w.get('alive') else 'NOT alive'}"
                    ".", ""]
        else:
            out += ["", "The kernel oopses: arm64's BRK handler has no hook "
                    "for the immediate and calls die(); riscv64's kgdb trap "
                    "notifier passes on an ebreak that is not its own "
                    "(kgdb_riscv_kgdbbreak()), and the trap handler takes it "
                    "for a BUG(). kgdb is on the die notifier too, "
                    "but an oops reaches it with SIGSEGV, and "
                    "kgdb_handle_exception() declines anything but SIGTRAP "
                    "while panic_timeout is set — the lab boots with "
                    "`panic=-1`, so the oops runs its course: the task that "
                    "made the call (read-loop) is killed. QEMU's gdbstub put "
                    "the "
                    f"original bytes back; the guest is "
                    f"{'alive' if w.get('alive') else 'NOT alive'}.", ""]
        out += ["The console:", "", "```", *w.get("console", []), "```", ""]
    m = t.get("module-break", {})
    if m and "error" not in m:
        out += ["### A kgdb breakpoint in module text", "",
                f"Last, kgdb is asked for a breakpoint at `{m['func']}` "
                f"(`{m['addr']:#x}`, module text, read-only under "
                "CONFIG_STRICT_MODULE_RWX): "]
        if m["outcome"] == "accepted":
            out[-1] += ("it is accepted (" + m.get("reply", "").replace(
                "\n", " ") + "): this ISA's kgdb writes breakpoints through "
                "the architecture's text poke.")
            out.append("")
        else:
            out[-1] += ("kgdb never answers the Z0 packet. riscv64's kgdb "
                        "writes breakpoints with copy_to_kernel_nofault(); "
                        "the store faults on the read-only page, and 6.1's "
                        "do_page_fault() sends every kernel fault in the "
                        "module area to vmalloc_fault(), which finds the page "
                        "present, flushes the TLB and returns to the same "
                        "store — forever, with every CPU held by kgdb. "
                        "QEMU's gdbstub shows where the vCPUs are:")
            out += ["", "```", m.get("qemu_bt", "").strip(), "```", "",
                    "The guest is lost; the study kills it. This is why "
                    "the debugger rows above probe `read_zero` (vmlinux "
                    "text, writable on this riscv64 kernel, which has no "
                    "CONFIG_STRICT_KERNEL_RWX).", ""]
    return out


def write(out, res):
    isa = res["isa"]
    tcg = res.get("tcg", {})
    lines = [f"# kgdb probe-insertion study: {isa}", "",
             f"Produced by `{res['command']}` on {res['date']} "
             f"(`make study` runs it for every ISA). Linux 6.1 guest under "
             "QEMU TCG. The DTrace-style mechanisms probe the bench module's "
             "`xdt_bench_target` (the function `make bench` measures), called "
             f"N = {res['size']['n']} times × {res['size']['reps']} by its "
             "debugfs trigger; the debugger breakpoints probe `read_zero`, "
             f"called {res['size']['dn']} times by one-byte reads of "
             "/dev/zero (bench/read-loop.c), beside xdt on the same function "
             "(why not the module: the last section). Per-hit figures "
             "subtract the unprobed loop measured just before. Ratios are to "
             "an xdt fbt entry firing with the default mechanism "
             "(trampoline) on the same function. Wall time is the guest clock in the "
             "TCG boot; instructions are from a second boot under "
             "`-icount shift=0,sleep=off`. Insertion/removal: xdt and "
             "kprobes measured in the guest (xdt-bpfbench: enable + go, stop "
             "+ free; kprobe_events define + enable, disable + remove); the "
             "debuggers' Z0/z0 packet round trips measured on the host "
             "(kgdb only records a breakpoint at Z0 and writes it at "
             "resume).", ""]
    if res.get("rerun"):
        lines += [f"*{res['rerun']}*", ""]
    lines += table(res)
    lines += ["", "Reading the table:", "",
              "- Exceptions per hit of a debugger breakpoint are counted on "
              "the serial line: every stop reply kgdb sends is one debug "
              "exception (the breakpoint, then the single-step gdb needs to "
              "step over it). kprobes' are from the 6.1 source and the "
              "attach's `via`.",
              "- A debugger breakpoint's \"instructions\" per hit are the "
              "guest clock of the icount boot, not a pure instruction count: "
              "through kgdb they include the stopped kernel polling the UART "
              "while gdb works (so they grow with the host's speed), and "
              "through QEMU's gdbstub the guest clock moves on while the "
              "machine is stopped, although the guest runs nothing; neither "
              "repeats exactly like the others. The wall time is dominated by "
              "the remote-protocol round trips (packets from gdb per hit: "
              "kgdb Python "
              f"{tcg.get('rows', {}).get('kgdb-break', {}).get('packets', 0):.0f},"
              ", `commands` "
              f"{tcg.get('rows', {}).get('kgdb-break-cli', {}).get('packets', 0):.0f}"
              ", count-run "
              f"{tcg.get('rows', {}).get('kgdb-step', {}).get('packets', 0):.0f}"
              "; a stop reply is a few hundred bytes, a register read over a "
              "kilobyte on arm64).",
              ""]
    if tcg:
        lines += observations(res)
    lines += ["## Transcripts", ""]
    for title, tr in tcg.get("transcripts", []):
        lines += transcript(title, tr)
    lines += ["## Checks", ""]
    for key in ("tcg", "icount"):
        for ok, what in res.get(key, {}).get("checks", []):
            if not ok:
                lines.append(f"- FAILED ({key}): {what}")
        n = len(res.get(key, {}).get("checks", []))
        if n:
            bad = sum(1 for ok, _ in res[key]["checks"] if not ok)
            lines.append(f"- {key} boot: {n - bad} of {n} checks passed "
                         f"({res[key]['seconds']:.0f} s)")
    with open(os.path.join(out, f"{isa}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    index(out)


def index(out):
    isas = sorted(os.path.basename(p)[:-5]
                  for p in glob.glob(os.path.join(out, "*.json")))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("# kgdb probe-insertion study\n\n"
                + "".join(f"- [{i}]({i}.md)\n" for i in isas))


if __name__ == "__main__":
    d = sys.argv[1]
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        with open(p) as f:
            write(d, json.load(f))
