"""gdb commands that make debugger breakpoints into counting probes.

    (gdb) source bench/kgdb_count.py
    (gdb) count-break *0xffffffffc0002000     # or a symbol: count-break vfs_read
    (gdb) continue
    ...   the kernel runs; every hit is counted and the kernel continues
    (gdb) count-report                          # "count-break 1 *0x... hits 200"
    (gdb) count-step *0xffffffffc0002000; count-run    # see below

This is what a DTrace-style probe costs when a debugger is the probe
mechanism (bench/kgdbstudy.py): each hit is a breakpoint
exception in the kernel, a stop reply over the remote protocol, gdb
evaluating stop() (which counts and returns False so gdb resumes without
reporting a stop), and gdb stepping over the breakpoint (take it out,
single-step, put it back) before it continues -- through kgdb that is the
guest kernel's own debugger talking over its serial console; through QEMU's
gdbstub, the emulator stopping the whole machine.

`count-break-cli LOCATION` does the same with a plain breakpoint whose
command list is `silent`, `set $xdt_hits = $xdt_hits + 1`, `continue` -- the
way one would type it -- for comparison.

Both leave the step over the breakpoint to gdb, and on arm64 that counts
wrong: 6.1's kgdb single-steps with interrupts enabled; when the timer has
fired while the kernel sat in the debugger, the step lands in the interrupt
handler (__el1_irq) instead of after the breakpoint; gdb takes that as the
step done, puts the breakpoint back and continues, the handler returns onto
the breakpoint, and the same call hits it again -- under TCG after every
stop, forever (the study shows it).  `count-step LOCATION` + `count-run` count with their own loop instead:
stop at the breakpoint, count, step over it with the ISA's interrupt mask
set for that one instruction (STEP_IRQ_MASK: arm64 PSTATE.I, what arm64
kprobes do for their own step), put the mask back as it was, continue;
`count-run` returns at the first stop that is not one of them.
"""
try:
    import gdb
except ImportError:     # imported outside gdb for STEP_IRQ_MASK only
    gdb = None

PROBES = []
STEPPED = {}            # address -> [breakpoint, hits]
# count-limit N: every counting breakpoint stops the target (for real) at
# its Nth hit, so a scheme that loops (above) ends; 0 = no limit.
LIMIT = [0]



def _step_irq_masks():
    """{gdb arch: (register, bit)}: where the ISA's kgdb needs interrupts
    masked for a single-step (arch/<dir>/isa.toml [gdb] step_irq_mask,
    which says why), read here because this file runs inside gdb."""
    import glob
    import os
    import tomllib
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    masks = {}
    for path in glob.glob(os.path.join(top, "arch", "*", "isa.toml")):
        with open(path, "rb") as f:
            g = tomllib.load(f).get("gdb", {})
        if "step_irq_mask" in g:
            masks[g["arch"]] = tuple(g["step_irq_mask"])
    return masks


STEP_IRQ_MASK = _step_irq_masks()


class CountingBreakpoint(gdb.Breakpoint if gdb else object):
    def __init__(self, spec):
        super().__init__(spec, gdb.BP_BREAKPOINT, internal=False)
        self.hits = 0

    def stop(self):
        self.hits += 1
        # counted: do not stop, continue (unless at the limit)
        return bool(LIMIT[0]) and self.hits >= LIMIT[0]


Command = gdb.Command if gdb else object


class CountBreak(Command):
    """count-break LOCATION: a breakpoint that counts its hits and lets the
    target continue."""

    def __init__(self):
        super().__init__("count-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        bp = CountingBreakpoint(arg)
        PROBES.append(bp)
        print(f"count-break {bp.number} at {arg}")


class CountBreakCli(Command):
    """count-break-cli LOCATION: the same with gdb's own command list."""

    def __init__(self):
        super().__init__("count-break-cli", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        gdb.execute("set $xdt_hits = 0")
        bp = gdb.Breakpoint(arg)
        bp.commands = ("silent\nset $xdt_hits = $xdt_hits + 1\n"
                       "if $xdt_limit == 0 || $xdt_hits < $xdt_limit\n"
                       "continue\nend")
        print(f"count-break-cli {bp.number} at {arg}")


class CountStep(Command):
    """count-step LOCATION: a breakpoint that count-run counts and steps
    over itself."""

    def __init__(self):
        super().__init__("count-step", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        bp = gdb.Breakpoint(arg)
        for loc in bp.locations if hasattr(bp, "locations") else []:
            STEPPED[loc.address] = [bp, 0]
        if not STEPPED:
            addr = int(gdb.parse_and_eval(arg.lstrip("*")))
            STEPPED[addr] = [bp, 0]
        print(f"count-step {bp.number} at {arg}")


def _arch():
    return gdb.selected_frame().architecture().name().split(":")[0]


class CountRun(Command):
    """count-run: continue, counting and stepping over count-step
    breakpoints, until the target stops anywhere else."""

    def __init__(self):
        super().__init__("count-run", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        mask = STEP_IRQ_MASK.get(_arch())
        while True:
            gdb.execute("continue", to_string=True)
            pc = int(gdb.parse_and_eval("$pc"))
            hit = STEPPED.get(pc)
            if hit is None:
                print(f"count-run: stopped at {pc:#x}")
                return
            hit[1] += 1
            if LIMIT[0] and hit[1] >= LIMIT[0]:
                print(f"count-run: limit at {pc:#x}")
                return
            if mask:
                reg, bit = mask
                saved = int(gdb.parse_and_eval(reg))
                gdb.execute(f"set {reg} = {saved | bit:#x}")
            gdb.execute("stepi", to_string=True)
            if mask:
                now = int(gdb.parse_and_eval(reg))
                gdb.execute(f"set {reg} = {(now & ~bit) | (saved & bit):#x}")


class CountLimit(Command):
    """count-limit N: stop for real at a counting breakpoint's Nth hit."""

    def __init__(self):
        super().__init__("count-limit", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        LIMIT[0] = int(arg)
        gdb.execute(f"set $xdt_limit = {LIMIT[0]}")


class CountReport(Command):
    """count-report: the hits of every counting breakpoint."""

    def __init__(self):
        super().__init__("count-report", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        for bp in PROBES:
            if bp.is_valid():
                print(f"count-break {bp.number} {bp.location} "
                      f"hits {bp.hits}")
        for addr, (bp, hits) in STEPPED.items():
            print(f"count-step {bp.number} *{addr:#x} hits {hits}")
        try:
            print(f"count-break-cli hits {int(gdb.parse_and_eval('$xdt_hits'))}")
        except gdb.error:
            pass


if gdb is not None:
    CountBreak()
    CountBreakCli()
    CountStep()
    CountRun()
    CountLimit()
    CountReport()
    gdb.execute("set $xdt_limit = 0")
