"""Lua on libxdt (docs/lua.md), in every guest: the bindings (lua/lxdt.c) in
the static xdt-lua, xdt-watch's profiles against known workloads, the
examples, and a 20,000-record stream whose memory must not grow."""
import re

import pytest

from test_xdt_kernel import load_xdt, xdt  # noqa: F401


def lua(vm, text, *args, timeout=300):
    """Run Lua text with xdt-lua in the guest."""
    vm.put(text.encode(), "/tmp/t.lua")
    return vm.run(["xdt-lua", "/tmp/t.lua", *args], timeout=timeout)


def lines(text):
    return [x for x in text.splitlines() if x.strip()]


# ---- a 20,000-record stream, beside the other tests ------------------------------
STREAM = r'''
local xdt = require "xdt"
local h = xdt.open()
h:setopt("bufsize", "1m")
h:setopt("switchrate", "20hz")
-- a steady stream that needs no workload and no probe the other tests use
h:compile[[profile-500 { trace(cpu); trace(timestamp); trace(execname);
	printf("%d %s\n", cpu, execname); }]]
h:go()
io.open("/tmp/stream.started", "w"):close()
local n, drops, bytes = 0, 0, 0
local function rss()
	for l in io.lines("/proc/self/status") do
		local kb = l:match("^VmRSS:%s+(%d+)")
		if kb then return tonumber(kb) end
	end
end
local samples = {}
-- Counted, not timed: N records, a sample every EVERY of them.
local N, EVERY = 20000, 1000
h:loop{
	record = function(r)
		n = n + 1; bytes = bytes + #r.execname + #r.text
		if n % EVERY == 0 then
			collectgarbage()
			samples[#samples + 1] = string.format("%d:%d:%d", n, rss(),
				math.floor(collectgarbage("count")))
		end
		return n >= N
	end,
	drop = function(kind, cpu, k) drops = drops + k end,
}
h:stop{ record = function() n = n + 1 end }
print("records", n, "drops", drops)
print("samples", table.concat(samples, " "))
'''


@pytest.fixture(scope="module")
def stream(vm):
    """A 20,000-record stream through Lua (profile-500: about a thousand
    records a second on two CPUs), started with the module's first test
    and checked by its last (test_long_stream...): the other tests run
    meanwhile, so the stream costs little test time.  (It was 60 s of
    wall time; the module's other tests take ~20 s, so ~40 s per ISA were
    spent waiting.)"""
    load_xdt(vm)
    vm.put(STREAM.encode(), "/tmp/stream.lua")
    vm.run("rm -f /tmp/stream.started; "
           "xdt-lua /tmp/stream.lua > /tmp/stream.out 2> /tmp/stream.err & "
           "echo $! > /tmp/stream.pid",
           check=True)
    r = vm.run("read p < /tmp/stream.pid; while [ ! -e /tmp/stream.started ]; do "
               "kill -0 $p 2>/dev/null || exit 3; sleep 0.1; done", timeout=300)
    assert r.ok, vm.run("cat /tmp/stream.out /tmp/stream.err").stdout
    return vm


# ---- the bindings ---------------------------------------------------------

def test_compile_error_is_a_lua_error_with_its_position(xdt, stream):
    r = lua(xdt, r'''
local h = require("xdt").open()
local ok, e = pcall(h.compile, h, "syscall::read:entry\n{ trace(arg0 +); }")
print(ok, e.file, e.line, e.col, e.tag)
print(tostring(e))
print(pcall(h.setopt, h, "nosuchoption"))
''')
    assert r.ok, r
    out = r.stdout.splitlines()
    assert out[0] == "false\t<program>\t2\t15\tD_SYNTAX", r.stdout
    assert out[1] == ('dtrace: failed to compile script <program>:2:15: '
                      'syntax error near ")"'), r.stdout
    assert out[2] == "{ trace(arg0 +); }" and out[3] == " " * 14 + "^", r.stdout
    assert out[4] == ("false\tfailed to set -x nosuchoption: Invalid option "
                      "name"), r.stdout
    # uncaught: xdt-lua prints dtrace(1)'s message and fails
    r = xdt.run(["xdt-lua", "-e", 'require("xdt").open():compile("BEGIN { x = ; }")'])
    assert r.code == 1, r
    assert r.stderr.startswith("dtrace: failed to compile script <program>:1:13: "
                               "syntax error"), r.stderr
    # a probe that matches nothing is an error of go(), as a string
    r = lua(xdt, '''
local h = require("xdt").open()
h:compile("fbt::no_such_function_xdt:entry { }")
print(pcall(h.go, h))''')
    assert r.ok and "does not match any probes" in r.stdout, r


RECORDS = r'''
local h = require("xdt").open()
h:compile[[fbt::read_zero:entry /execname == "dd"/ {
	trace(pid); trace(args[2]); trace(execname); trace(probefunc);
	stack(3);
}]]
h:go()
-- the workload, after go: its pid from the shell that becomes dd
local p = io.popen("sh -c 'echo $$; exec dd if=/dev/zero of=/dev/null bs=123 count=17 2>/dev/null'")
local ddpid = p:read("n")
p:close()
local n, bad = 0, {}
local function check(r)
	n = n + 1
	local why = r.pid ~= ddpid and "pid" or r["args[2]"] ~= 123 and "size" or
		r.execname ~= "dd" and "execname" or r.probefunc ~= "read_zero" and "func" or
		r[1] ~= r.pid and "r[1]" or r[2] ~= 123 and "r[2]" or #r ~= 5 and "#r" or
		(type(r[5]) ~= "table" or not table.concat(r[5], " "):match("vfs_read")) and "stack"
	if why then bad[#bad + 1] = why end
end
h:loop{ record = check, seconds = 1 }
h:stop{ record = check }
local p1 = (h:aggregations())
print("n", n, "bad", #bad, bad[1])
'''


def test_records_arrive_with_exact_count_and_field_values(xdt):
    r = lua(xdt, RECORDS + r'''
-- the layout, from the probe table the records share
local h2 = require("xdt").open()
h2:compile[[fbt::read_zero:entry /execname == "dd"/ { trace(pid); trace(args[2]); }]]
h2:go()
os.execute("dd if=/dev/zero of=/dev/null bs=5 count=2 2>/dev/null")
local seen
h2:loop{ seconds = 1, record = function(r)
	seen = r.probe
	return true		-- stops the loop
end }
h2:stop{ record = function() end }
print(seen.desc, seen.provider, seen.module, seen.func, seen.name, seen.clause,
	table.concat(seen.fields, ","), table.concat(seen.types, ","), seen.id > 0)
''')
    assert r.ok, r
    out = r.stdout.splitlines()
    assert out[0] == "n\t17\tbad\t0\tnil", r.stdout
    assert out[1] == ("fbt:kernel:read_zero:entry\tfbt\tkernel\tread_zero\tentry"
                      "\t1\tpid,args[2]\tpid_t,size_t\ttrue"), r.stdout


def test_faults_and_drops_reach_their_callbacks(xdt):
    r = lua(xdt, r'''
local h = require("xdt").open()
h:setopt("bufsize", "4k")
-- the first firing faults, the others record (a fault before a probe's
-- first record must not leave its probe table without the layout)
h:compile[[fbt::read_zero:entry /execname == "dd"/ { n++; trace(n > 1 ? 7 : *(int *)8); }
fbt::read_zero:entry /execname == "dd"/ { trace(args[2]); trace(execname); }]]
h:go()
os.execute("dd if=/dev/zero of=/dev/null bs=3 count=2000 2>/dev/null")
local faults, what, fprobe, drops, kinds, recs, fields = 0, nil, nil, 0, {}, 0, {}
local cb = {
	fault = function(f) faults = faults + 1; what = f.what; fprobe = f.probe.desc end,
	drop = function(kind, cpu, n) drops = drops + n; kinds[kind] = true end,
	record = function(r) recs = recs + 1; fields[r.probe.clause] = table.concat(r.probe.fields, ",") end,
}
h:loop(setmetatable({ seconds = 1 }, { __index = cb }))
h:stop(cb)
-- every record the clauses made was either delivered or counted as a
-- drop: the first clause's 1999 (its first firing faulted), the second's
-- 2000
print(faults == 1, what, fprobe, drops > 0, kinds.principal, recs > 0,
	fields[1] .. ";" .. fields[2], recs + drops)
''')
    assert r.ok, r
    assert r.stdout.split("\t") == [
        "true", "invalid address", "fbt:kernel:read_zero:entry", "true", "true",
        "true", "n > 1 ? 7 : *(int *)8;args[2],execname", "3999\n"], r.stdout


AGGPROG = ('fbt::read_zero:entry /execname == "dd"/ {'
           ' @c[execname, probefunc] = count(); @s = sum(args[2]);'
           ' @a = avg(args[2]); @m = max(args[2]);'
           ' @q = quantize(args[2]); @l = lquantize(args[2], 0, 1000, 100); }')
WORK = ("dd if=/dev/zero of=/dev/null bs=100 count=5 2>/dev/null; "
        "dd if=/dev/zero of=/dev/null bs=700 count=3 2>/dev/null")


def dtrace_aggs(text):
    """dtrace -q's end-of-run aggregations as one flat list: ("v", keys,
    value) per entry of a scalar aggregation, ("d", rows) per distribution
    with its non-zero rows.  (DTrace prints no line between aggregations,
    so which entries belong together is not in the text; the order is.)"""
    items, dist = [], None
    for line in text.splitlines():
        if not line.strip():
            dist = None
            continue
        if "Distribution" in line:
            dist = []
            items.append(("d", dist))
            continue
        m = re.match(r"^\s*(-?\d+) \|[@ ]+ (\d+)\s*$", line)
        if dist is not None and m:
            if int(m.group(2)):
                dist.append((int(m.group(1)), int(m.group(2))))
            continue
        dist = None
        f = line.split()
        items.append(("v", tuple(f[:-1]), int(f[-1])))
    return items


def test_aggregation_snapshot_equals_what_dtrace_prints(xdt):
    xdt.put(WORK.encode(), "/tmp/work.sh")
    r = xdt.run(["dtrace", "-qn", AGGPROG, "-c", "sh /tmp/work.sh"], timeout=300)
    assert r.ok, r
    want = dtrace_aggs(r.stdout)
    r = lua(xdt, f'''
local h = require("xdt").open()
h:compile[[{AGGPROG}]]
h:go()
os.execute("{WORK}")
h:loop{{ seconds = 1 }}
h:stop()
for _, a in ipairs(h:aggregations()) do
	print("AGG " .. a.name .. " " .. a.func)
	for _, e in ipairs(a) do
		if e.buckets then
			for _, b in ipairs(e.buckets) do print("B " .. b.value .. " " .. b.count) end
		else
			print("E " .. table.concat(e.keys, " ") .. "|" .. e.value ..
				(e.count and (" " .. e.count .. " " .. e.sum) or ""))
		end
	end
end''')
    assert r.ok, r
    got, names = [], []
    for line in r.stdout.splitlines():
        if line.startswith("AGG "):
            names.append(line[4:])
            got.append([])
        elif line.startswith("B "):
            v, c = line[2:].split()
            got[-1].append((int(v), int(c)))
        elif line.startswith("E "):
            keys, _, val = line[2:].partition("|")
            got[-1].append((tuple(keys.split()), int(val.split()[0])))
    assert names == ["c count", "s sum", "a avg", "m max", "q quantize",
                     "l lquantize"], r.stdout
    # the known workload, then dtrace's own printout of the same program
    assert got == [[(("dd", "read_zero"), 8)], [((), 2600)], [((), 325)],
                   [((), 700)], [(64, 5), (512, 3)], [(100, 5), (700, 3)]], r.stdout
    flat = []
    for entries in got:
        if entries and isinstance(entries[0][0], int):
            flat.append(("d", entries))
        else:
            flat += [("v", k, v) for k, v in entries]
    assert flat == want, (r.stdout, want)
    assert "E |325 8 2600" in r.stdout      # avg's count and sum


# ---- xdt-watch: each profile against a known workload ------------------------

def watch(vm, args, workload, timeout=300):
    """xdt-watch @args in the background; once it says it is watching
    (after go), the @workload; then ^C, and its output."""
    vm.run("rm -f /tmp/w.out /tmp/w.err", check=True)
    vm.run(f"xdt-watch {args} > /tmp/w.out 2> /tmp/w.err & echo $! > /tmp/w.pid",
           check=True)
    # (no cat after the start: the open profile would see it open w.pid)
    r = vm.run("read p < /tmp/w.pid; while ! grep -q 'INFO: Watching' /tmp/w.err; do "
               "kill -0 $p 2>/dev/null || exit 3; sleep 0.1; done",
               timeout=timeout)
    assert r.ok, vm.run("cat /tmp/w.err").stdout
    w = vm.run(workload, timeout=timeout)
    vm.run("read p < /tmp/w.pid; kill -INT $p; "
           "while kill -0 $p 2>/dev/null; do sleep 0.1; done",
           timeout=120, check=True)
    out = vm.run("cat /tmp/w.out", check=True).stdout
    err = vm.run("cat /tmp/w.err", check=True).stdout
    return out, err, w


PREFIX = r"^\d\d:\d\d:\d\d\.\d{3} 0\.0 "


def test_watch_open(xdt):
    out, err, _ = watch(xdt, "-X open -k cat", "cat /etc/passwd /nonexist-xdt > /dev/null")
    got = lines(out)
    assert len(got) == 2, (out, err)
    assert re.match(PREFIX + r"cat\[\d+\]: openat? /etc/passwd = [3-9]$", got[0]), out
    assert re.match(PREFIX + r"cat\[\d+\]: openat? /nonexist-xdt = -1 ENOENT$",
                    got[1]), out


def test_watch_exec(xdt):
    out, err, _ = watch(xdt, "-X exec -k ls", "ls /proc/self > /dev/null")
    got = lines(out)
    assert len(got) == 1 and re.match(PREFIX + r"ls\[\d+\]: ls /proc/self$", got[0]), \
        (out, err)


@pytest.mark.parametrize("call,fd", [("read", 0), ("write", 1)])
def test_watch_read_write_sizes(xdt, call, fd):
    out, err, _ = watch(xdt, f"-X {call} -k dd -t 'arg0 == {fd}'",
                        "dd if=/dev/zero of=/dev/null bs=77 count=3")
    got = [re.sub(PREFIX + r"dd\[\d+\]: ", "", x) for x in lines(out)]
    assert got == [f"{call} fd {fd} 77 bytes = 77"] * 3, (out, err)


def test_watch_kill(xdt):
    out, err, _ = watch(xdt, "-X kill -t 'arg0 == 99999 || arg1 == 15'",
                        "sleep 100 & p=$!; kill -TERM $p; kill -9 99999; wait; echo $p")
    got = [re.sub(PREFIX + r"\S+\[\d+\]: ", "", x) for x in lines(out)]
    assert len(got) == 2 and re.match(r"kill -TERM \d+ = 0$", got[0]), (out, err)
    assert got[1] == "kill -KILL 99999 = -1 ESRCH", (out, err)


def test_watch_syscall_counts(xdt):
    # -k with a glob: a prefix, substr() in the profile's predicate
    out, err, _ = watch(xdt, "-X syscall -k 'd*'", "dd if=/dev/zero of=/dev/null bs=9 count=4")
    # the final table: after the last header
    final = out.rsplit("EXECNAME", 1)[1].splitlines()[1:]
    rows = {tuple(x.split()[:2]): int(x.split()[2]) for x in final if x.strip()}
    assert rows[("dd", "read")] == 4, out
    # four blocks, and dd's three lines of statistics on stderr
    assert rows[("dd", "write")] >= 4, out
    assert all(k[0].startswith("d") for k in rows), out


def test_watch_latency_percentiles(xdt):
    out, err, _ = watch(xdt, "-X latency -k dd read_zero",
                        "dd if=/dev/zero of=/dev/null bs=64 count=50")
    m = re.search(r"^read_zero: (\d+) calls, ns: min (\d+) avg (\d+) max (\d+) "
                  r"p50 (\d+) p90 (\d+) p99 (\d+)$", out, re.M)
    assert m, (out, err)
    calls, mn, avg, mx, p50, p90, p99 = map(int, m.groups())
    assert calls == 50, out
    assert 0 < mn <= p50 <= p90 <= p99 <= mx and mn <= avg <= mx, out
    rows = re.findall(r"^\s+(\d+) \|[@ ]+ (\d+)$", out, re.M)
    assert sum(int(c) for _, c in rows) == 50, out
    # the rows are quantize()'s: the min and max fall in the used range
    used = [int(v) for v, c in rows if int(c)]
    assert used[0] <= mn and mx < 2 * used[-1], out


def test_watch_default_count_and_errors(xdt):
    out, err, _ = watch(xdt, "-N 2 -k wc fbt::vfs_read:entry", "wc -c /proc/version")
    got = lines(out)
    assert len(got) == 2, (out, err)
    assert all(re.match(PREFIX + r"wc\[\d+\]: fbt:kernel:vfs_read:entry$", x)
               for x in got), out
    r = xdt.run(["xdt-watch", "-X", "read", "-t", "arg0 +"])
    assert r.code == 1 and "syntax error" in r.stderr and "^" in r.stderr, r
    r = xdt.run(["xdt-watch", "-X", "nosuch"])
    assert r.code == 2 and "no profile 'nosuch'" in r.stderr, r


# ---- the examples a researcher copies --------------------------------------

# Shell: wait until the background consumer $p is tracing -- its /dev/xdt
# says so in fdinfo from GO to STOP; another consumer (the module's Lua
# stream) may be tracing all along -- or fail if it ended first.
STARTED = ("while ! grep -qs '^xdt-tracing:.*1$' /proc/$p/fdinfo/*; do "
           'kill -0 $p 2>/dev/null || exit 3; sleep 0.1; done; ')


def test_examples(xdt):
    ex = "/usr/share/xdt/examples"
    r = xdt.run(f"xdt-lua {ex}/csv.lua 2 'fbt::read_zero:entry /execname == \"dd\"/ "
                f"{{ trace(execname); trace(args[2]); trace(\"a,b\"); }}' > /tmp/csv.out & "
                f"p=$!; {STARTED}"
                "dd if=/dev/zero of=/dev/null bs=33 count=4 2>/dev/null; wait $p; "
                "cat /tmp/csv.out", timeout=300)
    assert r.ok, r
    assert lines(r.stdout) == ['probe,execname,args[2],"""a,b"""'] + \
        ['fbt:kernel:read_zero:entry,dd,33,"a,b"'] * 4, r.stdout
    r = xdt.run(f"xdt-lua {ex}/topn.lua 3 3 & p=$!; "
                "dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null; wait $p",
                timeout=300)
    assert r.ok and re.search(r"^EXECNAME\s+PID\s+SYSCALLS$", r.stdout, re.M), r
    r = xdt.run(f"xdt-lua {ex}/join.lua read_zero 3 & p=$!; {STARTED}"
                "dd if=/dev/zero of=/dev/null bs=10 count=5 2>/dev/null; wait $p",
                timeout=300)
    assert r.ok, r
    joined = re.findall(r"read_zero\(count 10\) = 10 in \d+ ns", r.stdout)
    assert 1 <= len(joined) <= 5 and "0 entries without a return" in r.stderr, r


def test_long_stream_keeps_memory_stable(xdt, stream):
    """The stream the module's first test started: 20,000 records through
    Lua; the process's RSS and Lua's heap after the first 2,000 must not
    keep growing."""
    r = xdt.run("read p < /tmp/stream.pid; while kill -0 $p 2>/dev/null; do "
                "sleep 0.5; done; cat /tmp/stream.out", timeout=300)
    assert r.ok, r
    print(r.stdout)     # (pytest -s shows the figures)
    out = r.stdout.splitlines()
    assert len(out) == 2 and out[0].startswith("records\t"), \
        r.stdout + xdt.run("cat /tmp/stream.err").stdout
    n = int(out[0].split()[1])
    assert n >= 20000, r.stdout
    samples = [tuple(int(x) for x in s.split(":")) for s in out[1].split()[1:]]
    assert [s[0] for s in samples] == list(range(1000, 20001, 1000)), r.stdout
    after = [s for s in samples if s[0] >= 2000]
    base_rss, base_heap = after[0][1], after[0][2]
    # a leak of even 100 bytes per record would be 1.8 MB by the end
    assert max(s[1] for s in after) - base_rss <= 512, r.stdout
    assert max(s[2] for s in after) <= 2 * base_heap + 256, r.stdout
