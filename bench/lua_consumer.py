#!/usr/bin/env python3
"""What a record costs the consumer: dtrace(1) printing it against xdt-lua
handing it to a Lua callback (`make bench-lua`; docs/lua.md, "Cost").

Per ISA, one TCG boot: the same clause (three values and a printf, on
fbt::read_zero:entry for dd) consumed four ways, R rounds interleaved:

  dtrace      dtrace -q, the printf's text to /dev/null
  lua-count   xdt-lua, a callback that only counts (the record table is
              built: values by position and name, r.probe, r.text)
  lua-format  xdt-lua, the callback formats the values itself
  lua-text    xdt-lua, the callback writes r.text (libxdt's printf)

The workload (dd, N one-byte reads) runs beside the consumer, not under
it; the consumer's CPU time is its user+system time from the shell that
waits for it (cutime+cstime deltas, in USER_HZ ticks), so dd's own time is
not in it.  Every run must consume exactly N records with no drop, else it
is reported and left out.  Figures: median CPU µs per record per variant,
and the ratio to dtrace within the boot.  With --icount (one vCPU, guest
time = guest instructions) the CPU time is instructions: per record.

    bench/lua_consumer.py [--isas x86_64,...] [-n N] [-r ROUNDS] [--icount]
"""
import argparse
import os
import statistics
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
import xdtvm  # noqa: E402

PRED = 'fbt::read_zero:entry /execname == "dd"/'
BODY = '{ printf("%s %d %d\\n", execname, pid, args[2]); trace(pid); trace(args[2]); }'

LUA = r'''
local xdt = require "xdt"
local how = arg[1]
local h = xdt.open()
h:setopt("quiet"); h:setopt("bufsize", "16m"); h:setopt("switchrate", "10hz")
h:compile([[%s %s]])
h:go()
io.open("/tmp/lc.started", "w"):close()
local n, drops = 0, 0
local out = io.open("/tmp/lc.out", "w")	-- where dtrace -o writes too
local cb = { drop = function(k, c, d) drops = drops + d end }
if how == "lua-count" then
	cb.record = function(r) n = n + 1 end
elseif how == "lua-format" then
	cb.record = function(r)
		n = n + 1
		out:write(string.format("%%s %%d %%d\n", r.execname, r.pid, r["args[2]"]))
	end
else
	cb.record = function(r) n = n + 1; out:write(r.text) end
end
h:loop(cb)
h:stop(cb)
io.stderr:write(string.format("records %%d drops %%d\n", n, drops))
''' % (PRED, BODY)

VARIANTS = ["dtrace", "lua-count", "lua-format", "lua-text"]


def consumer_cmd(v):
    if v == "dtrace":
        # the clause counts its own firings for the check (an aggregation
        # printed to stderr's neighbour file, not to the timed output)
        return (f"dtrace -q -x bufsize=16m -x switchrate=10hz -n "
                f"'{PRED} {BODY} {PRED} {{ @n = count(); }} "
                f"BEGIN {{ system(\"touch /tmp/lc.started\"); }}' "
                f"-w -o /tmp/lc.out")
    return f"xdt-lua /tmp/lc.lua {v}"


def one(vm, v, n):
    """One run: (CPU ticks of the consumer, records consumed or None)."""
    script = (
        "rm -f /tmp/lc.started /tmp/lc.out /tmp/lc.err; "
        f"{consumer_cmd(v)} 2> /tmp/lc.err & p=$!; "
        "while [ ! -e /tmp/lc.started ]; do "
        "kill -0 $p 2>/dev/null || break; sleep 0.1; done; "
        f"dd if=/dev/zero of=/dev/null bs=1 count={n} 2>/dev/null; "
        "set -- $(cut -d' ' -f16,17 /proc/$$/stat); t0=$(($1 + $2)); "
        "sleep 1; kill -INT $p; wait $p; "
        "set -- $(cut -d' ' -f16,17 /proc/$$/stat); echo ticks $(($1 + $2 - t0)); "
        "cat /tmp/lc.err; tail -n 2 /tmp/lc.out 2>/dev/null; rm -f /tmp/lc.out")
    r = vm.run(script, timeout=900)
    ticks = int(r.stdout.split("ticks ")[1].split()[0]) if "ticks " in r.stdout else None
    if v == "dtrace":
        # the count() aggregation is the last line of -o's file
        tail = r.stdout.strip().splitlines()
        got = int(tail[-1]) if tail and tail[-1].strip().isdigit() else None
        drops = "drop" in r.stdout
    else:
        got = drops = None
        for line in r.stdout.splitlines():
            if line.startswith("records "):
                f = line.split()
                got, drops = int(f[1]), int(f[3]) > 0
    ok = got == n and not drops and ticks is not None
    return ticks, got, ok, r.stdout


def bench(isa, n, rounds, icount):
    ko = os.path.join(xdtvm.build_dir(isa), "xdt", "xdt.ko")
    kw = dict(icount=True) if icount else {}
    with xdtvm.VM(isa, **kw) as vm:
        vm.put(ko, "/tmp/xdt.ko")
        vm.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=600)
        vm.put(LUA.encode(), "/tmp/lc.lua")
        hz = int(vm.run("getconf CLK_TCK 2>/dev/null || echo 100").stdout.split()[0])
        res = {v: [] for v in VARIANTS}
        bad = []
        for rnd in range(rounds):
            for v in VARIANTS[rnd % len(VARIANTS):] + VARIANTS[:rnd % len(VARIANTS)]:
                ticks, got, ok, out = one(vm, v, n)
                print(f"  {isa} round {rnd} {v}: {ticks} ticks, {got} records"
                      f"{'' if ok else '  (BAD)'}", flush=True)
                if ok:
                    res[v].append(ticks)
                else:
                    bad.append((v, out))
    per = {v: statistics.median(t) * 1e6 / hz / n for v, t in res.items() if t}
    return per, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--isas", default=",".join(xdtvm.env_isas()))
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("--icount", action="store_true")
    a = ap.parse_args()
    # under -icount shift=0 a guest µs is 1000 instructions
    unit = "thousand instructions" if a.icount else "CPU µs"
    rows, failed = [], False
    for isa in a.isas.split(","):
        t = time.time()
        per, bad = bench(isa, a.n, a.rounds, a.icount)
        failed |= bool(bad)
        for v, out in bad:
            print(f"{isa} {v}: bad run\n{out}", file=sys.stderr)
        base = per.get("dtrace")
        cells = []
        for v in VARIANTS:
            x = per.get(v)
            cells.append("–" if x is None else
                         f"{x:.1f} ({x / base:.2f}×)" if base else f"{x:.1f}")
        rows.append(f"| {isa} | " + " | ".join(cells) + " |")
        print(f"{isa}: {time.time() - t:.0f} s", flush=True)
    print(f"\nper record, {unit} (× dtrace), N = {a.n}, median of {a.rounds}:\n")
    print("| ISA | " + " | ".join(VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
