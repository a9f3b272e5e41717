"""The providers that are not breakpoints: profile/tick (timers),
syscall (raw_syscalls tracepoints with a per-syscall enable map) and rawtp
(every kernel tracepoint), on every ISA, plus dtrace loading xdt.ko itself.

System calls come from tests/guest/progs/sysc.c, run directly (a shell would
make calls of its own), so counts are exact.  Timer counts are checked
against an upper bound a correct rate can never pass and a lower bound a
stalled host can still meet: the tests do not depend on the host's speed.
"""
import os
import re
import struct
import subprocess

import pytest

import xdtvm
from test_xdt_kernel import tracing, xdt  # noqa: F401
from test_dtrace_guest import assert_pinned_while_traced, load_hello, script

PROGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs")


def dtrace(vm, *args, timeout=180):
    return vm.run(["dtrace", *args], timeout=timeout)


@pytest.fixture
def sysc(xdt):
    """/tmp/sysc in the guest, built statically for its ISA (cached)."""
    src = os.path.join(PROGS, "sysc.c")
    out = os.path.join(xdtvm.build_dir(xdt.isa), "progs", "sysc")
    if not (os.path.exists(out) and
            os.path.getmtime(out) >= os.path.getmtime(src)):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run([xdtvm.ISAS[xdt.isa]["cross"] + "gcc", "-std=gnu11",
                        "-O2", "-Wall", "-Wextra", "-Werror", "-static",
                        "-o", out, src], check=True)
    if xdt.run(["test", "-x", "/tmp/sysc"]).code != 0:
        xdt.put(out, "/tmp/sysc", mode="755")
    return "/tmp/sysc"


def agg_rows(out):
    """Aggregation lines as lists of integers."""
    rows = []
    for ln in out.splitlines():
        f = ln.split()
        if f and all(re.fullmatch(r"-?\d+", x) for x in f):
            rows.append([int(x) for x in f])
    return rows


# ---- dtrace loads the module ------------------------------------------------

def test_dtrace_loads_xdt_itself(xdt):
    """Without xdt.ko loaded, dtrace loads it (as DTrace loads its drivers
    on first use); if it cannot, the error says what to do."""
    ko = os.path.join(xdtvm.build_dir(xdt.isa), "xdt", "xdt.ko")
    xdt.put(ko, "/tmp/xdt.ko")
    # rmmod in the background, watched: it was seen (twice in ~6 full
    # runs, never alone) to leave the guest silent; if it is stuck, its
    # kernel stack says where before the test fails.
    r = xdt.run("rmmod xdt & p=$!; i=0; while kill -0 $p 2>/dev/null && "
                "[ $i -lt 60 ]; do sleep 1; i=$((i+1)); done; "
                "if kill -0 $p 2>/dev/null; then echo STUCK; cat /proc/$p/wchan; "
                "echo; cat /proc/$p/stack; exit 9; fi; wait $p", timeout=120)
    assert r.ok, (r, r.stdout, r.stderr)
    try:
        r = xdt.run("XDT_MODULE=/no/such/xdt.ko dtrace -n 'BEGIN { exit(0); }'")
        assert r.code == 1, r
        assert "failed to open /dev/xdt" in r.stderr, r.stderr
        assert "/no/such/xdt.ko" in r.stderr and "insmod" in r.stderr, \
            r.stderr
        r = xdt.run("XDT_MODULE=/tmp/xdt.ko dtrace -qn "
                    "'BEGIN { trace(42); exit(0); }'")
        assert r.ok, r
        assert r.stdout.strip() == "42", r.stdout
    finally:
        if "xdt " not in xdt.run(["cat", "/proc/modules"]).stdout:
            xdt.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
    assert "xdt " in xdt.run(["cat", "/proc/modules"]).stdout


# ---- profile ----------------------------------------------------------------

def test_profile_presets_are_listed(xdt):
    r = dtrace(xdt, "-l", "-P", "profile")
    assert r.ok, r
    names = {ln.split()[-1] for ln in r.stdout.splitlines()[1:]}
    for want in ("profile-97", "profile-997", "profile-4999", "tick-1",
                 "tick-1000", "tick-1s", "tick-10s"):
        assert want in names, r.stdout
    for ln in r.stdout.splitlines()[1:]:
        assert ln.split()[1:] == ["profile", ln.split()[-1]], ln


def test_tick_rates_in_every_unit(xdt):
    """tick-N in hz, ms, us, ns and bare hz, each 10 a second, counted
    until tick-1s: at least once, and never more often than the rate
    allows over the time that really passed (BEGIN to the end, from the
    guest's clock) -- true however slow or stalled the host is."""
    names = ["tick-10hz", "tick-100ms", "tick-100000us", "tick-100000000ns",
             "tick-10"]
    prog = " ".join(f"{n} {{ @[\"{n}\"] = count(); }}" for n in names)
    r = dtrace(xdt, "-qn", 'BEGIN { printf("t0 %d\\n", timestamp); } ' + prog +
               ' tick-1s { printf("t1 %d\\n", timestamp); exit(0); }')
    assert r.ok, r
    got, t = {}, {}
    for ln in r.stdout.splitlines():
        f = ln.split()
        if len(f) == 2 and f[0] in names:
            got[f[0]] = int(f[1])
        elif len(f) == 2 and f[0] in ("t0", "t1"):
            t[f[0]] = int(f[1])
    assert set(got) == set(names) and set(t) == {"t0", "t1"}, r.stdout
    most = (t["t1"] - t["t0"]) // 100_000_000 + 1
    for n, c in got.items():
        assert 1 <= c <= most, (n, c, most, r.stdout)
    # Made on demand, they are listed from now on.
    r = dtrace(xdt, "-l", "-n", "profile:::tick-100ms")
    assert r.ok and "tick-100ms" in r.stdout, r


def test_tick_1s_exits_after_a_second(xdt):
    r = dtrace(xdt, "-qn", 'BEGIN { printf("%d\\n", timestamp); } '
               'tick-1s { printf("%d\\n", timestamp); exit(0); }')
    assert r.ok, r
    t = [int(x) for x in r.stdout.split()]
    assert len(t) == 2 and t[1] - t[0] >= 990_000_000, r.stdout


@pytest.mark.parametrize("name", ["tick-100us", "tick-0", "tick-1parsec",
                                  "profile-abc", "tick-"])
def test_untimeable_rates_match_nothing(xdt, name):
    """Below 200 us (illumos' minimum), zero, or not a rate: no probe."""
    r = dtrace(xdt, "-n", f"{name} {{ exit(0); }}")
    assert r.code == 1, r
    assert "does not match any probes" in r.stderr, r.stderr


def test_profile_fires_on_every_cpu(xdt):
    ncpu = int(xdt.run(["nproc"], check=True).stdout)
    assert ncpu == 2
    r = dtrace(xdt, "-qn", 'BEGIN { printf("%d\\n", timestamp); } '
               "profile-97 { @[cpu] = count(); } "
               'tick-1s { printf("%d\\n", timestamp); exit(0); }')
    assert r.ok, r
    lines = r.stdout.split("\n")
    t0, t1 = int(lines[0]), int(lines[1])
    rows = agg_rows("\n".join(lines[2:]))
    assert sorted(c for c, _ in rows) == list(range(ncpu)), r.stdout
    # At most the rate over the time that passed (guest clock), at least 1.
    most = (t1 - t0) * 97 // 1_000_000_000 + 1
    for _, n in rows:
        assert 1 <= n <= most, (n, most, r.stdout)


def test_profile_timers_exist_only_while_enabled(xdt):
    """Disabled cost: the kernel's own list of armed hrtimers shows one
    profile timer per online CPU and one tick timer while they are
    enabled, and none of xdt's before or after."""
    def timers():
        out = xdt.run(["cat", "/proc/timer_list"], check=True).stdout
        return re.findall(r"(prof_cpu_timer|prof_tick_timer) \[xdt\]", out)

    assert timers() == []
    ncpu = int(xdt.run(["nproc"], check=True).stdout)
    want = ["prof_cpu_timer"] * ncpu + ["prof_tick_timer"]
    with tracing(xdt, "profile-97 { @ = count(); } tick-1 { @ = count(); }",
                 "prof"):
        # A timer whose callback is running at the moment of reading is
        # off the list: look a few times.
        for _ in range(5):
            t = sorted(timers())
            if t == want:
                break
    assert t == want, t
    assert timers() == []


def test_profile_follows_cpu_hotplug(xdt):
    """A CPU that comes online while profile-N is enabled gets its timer
    (the hotplug callback), one going offline loses it, and both are
    clean.  CPU 1 starts offline, so every sample on it comes from the
    hotplug path."""
    online = "/sys/devices/system/cpu/cpu1/online"
    if xdt.run(["test", "-w", online]).code != 0:
        pytest.skip(f"{xdt.isa}: kernel built without CONFIG_HOTPLUG_CPU "
                    f"(no {online})")
    xdt.run(f"echo 0 > {online}", check=True)
    try:
        r = dtrace(xdt, "-qn", "profile-97 { @[cpu] = count(); }", "-c",
                   script(xdt, "hotplug", f"sleep 0.5; echo 1 > {online}; "
                          f"sleep 0.5; echo 0 > {online}; sleep 0.2; "
                          f"echo 1 > {online}; sleep 0.5\n"))
        assert r.ok, r
        assert sorted(c for c, _ in agg_rows(r.stdout)) == [0, 1], r.stdout
    finally:
        xdt.run(f"echo 1 > {online}")
    assert xdt.run(["cat", online]).stdout.strip() == "1"


def test_profile_args_are_exclusive(xdt, sysc):
    """arg0 = kernel PC, arg1 = user PC; exactly one is set.  A spinning
    user process gives user samples, the other CPU (idle) kernel ones."""
    r = xdt.run(f"{sysc} spin 0 & p=$!; dtrace -qn "
                "'profile-997 { @[arg0 != 0, arg1 != 0] = count(); } "
                "tick-1s { exit(0); }'; s=$?; kill $p; exit $s", timeout=120)
    assert r.ok, r
    kinds = {(a, b) for a, b, _ in agg_rows(r.stdout)}
    assert kinds == {(1, 0), (0, 1)}, r.stdout


def test_profile_stack_is_the_interrupted_kernel_stack(xdt):
    """stack() in a profile clause starts at the interrupted PC (arg0) and
    walks the kernel stack it interrupted, symbolised in the kernel."""
    r = dtrace(xdt, "-qn", "profile-997 /arg0/ { @[arg0, stack()] = count(); }"
               " tick-1s { exit(0); }")
    assert r.ok, r
    syms = {}
    for ln in xdt.run(["cat", "/proc/kallsyms"], check=True).stdout.splitlines():
        f = ln.split()
        if f[1] in "tTwW":
            mod = f[3].strip("[]") if len(f) > 3 else "kernel"
            # (Local names repeat: an outlined static inline such as
            # arm64's __kern_my_cpu_offset has many copies.)
            syms.setdefault((mod, f[2]), set()).add(int(f[0], 16))
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    entries, deep = 0, 0
    for i, ln in enumerate(lines[:-1]):
        # A key (arg0) is an integer line followed by a frame; a count is
        # followed by the next key.
        if not re.fullmatch(r"-?\d+", ln) or "`" not in lines[i + 1]:
            continue
        pc = int(ln) & (2**64 - 1)
        first = lines[i + 1]
        # (The interrupted PC may be in a module: xdt's own ioctl, say.)
        m = re.fullmatch(r"(\w+)`([\w.]+)(?:\+0x([0-9a-f]+))?", first)
        assert m, (first, r.stdout)
        assert pc - int(m.group(3) or "0", 16) in syms[m.group(1, 2)], \
            (pc, first)
        entries += 1
        if i + 2 < len(lines) and "`" in lines[i + 2]:
            deep += 1
    assert entries >= 1 and deep >= 1, r.stdout


# ---- syscall ----------------------------------------------------------------

def test_syscall_probes_are_the_kernels_table(xdt):
    r = dtrace(xdt, "-l", "-P", "syscall")
    assert r.ok, r
    probes = [ln.split()[-2:] for ln in r.stdout.splitlines()[1:]]
    funcs = {f for f, _ in probes}
    assert {"read", "write", "openat", "getppid", "execve", "exit_group",
            "clone"} <= funcs, sorted(funcs)
    # Named by the kernel's symbols with the ISA's prefix dropped.
    assert not {f for f in funcs if "sys_" in f or f.startswith("_")}, \
        sorted(funcs)
    assert "ni_syscall" not in funcs
    # (xdt's tinyconfig-based kernels leave out networking, SysV IPC...:
    # riscv64 has 226 calls.)
    assert len(funcs) > 200, len(funcs)
    # Every call the kernel's own syscall metadata (ftrace's
    # syscalls:sys_enter_* events) knows has probes of the same name.
    ev = xdt.run("mount | grep -q ' /sys/kernel/debug ' || "
                 "mount -t debugfs none /sys/kernel/debug; "
                 "ls /sys/kernel/debug/tracing/events/syscalls", check=True)
    meta = {e[len("sys_enter_"):] for e in ev.stdout.split()
            if e.startswith("sys_enter_")}
    assert len(meta) > 150 and meta <= funcs, sorted(meta - funcs)
    assert sorted(probes) == sorted([f, n] for f in funcs
                                    for n in ("entry", "return"))


def test_syscall_entry_counts_exactly(xdt, sysc):
    n = 1234
    r = dtrace(xdt, "-qn", "syscall::getppid:entry /pid == $target/ "
               "{ @ = count(); }", "-c", f"{sysc} getppid {n}")
    assert r.ok, r
    assert agg_rows(r.stdout) == [[n]], r.stdout


def test_empty_clause_records_each_firing(xdt, sysc):
    """An empty clause's default action (one record: the probe) by the fast
    firing, and by the general one when a second clause shares the probe:
    one line per firing each."""
    n = 7
    for clauses, want in ((1, n), (2, 2 * n)):
        r = dtrace(xdt, "-n", " ".join(["syscall::getppid:entry {}"] *
                                       clauses),
                   "-c", f"{sysc} getppid {n}")
        assert r.ok, r
        got = [ln for ln in r.stdout.splitlines()
               if ln.split()[-1:] == ["getppid:entry"]]
        assert len(got) == want, r.stdout


def test_syscall_entry_arguments(xdt, sysc):
    r = dtrace(xdt, "-qn", "syscall::read:entry /pid == $target/ "
               '{ printf("read %d %d\\n", arg0, arg2); }',
               "-c", f"{sysc} read 777")
    assert r.ok, r
    fd = re.search(r"fd=(\d+)", r.stdout).group(1)
    assert f"read {fd} 777" in r.stdout.splitlines(), r.stdout


def test_syscall_return_value_and_errno(xdt, sysc):
    """A failed call returns -1 in arg0 and arg1 with errno set (illumos'
    systrace); a successful one its value, errno 0."""
    prog = ("syscall::openat:return /pid == $target/ "
            '{ printf("rv %d %d %d\\n", arg0, arg1, errno); }')
    r = dtrace(xdt, "-qn", prog, "-c", f"{sysc} openat /no/such/file")
    assert r.ok, r
    assert "rv -1 -1 2" in r.stdout.splitlines(), r.stdout
    assert "ret=-1 errno=2" in r.stdout, r.stdout
    r = dtrace(xdt, "-qn", prog, "-c", f"{sysc} read 1")
    assert r.ok, r
    fd = re.search(r"fd=(\d+)", r.stdout).group(1)
    assert f"rv {fd} {fd} 0" in r.stdout.splitlines(), r.stdout


def test_syscall_tracepoints_only_while_enabled(xdt, gdb, sysc):
    """Disabled cost: the raw_syscalls tracepoints are registered only
    while a syscall probe is enabled -- their static key (read over QEMU's
    gdbstub: struct tracepoint's key follows its name pointer) is 0 before
    and after, set during; with it off, no thread takes the syscall slow
    path for xdt (TIF_SYSCALL_TRACEPOINT is cleared with the key)."""
    def key():
        return struct.unpack("<i", gdb.read("__tracepoint_sys_enter", 12)[8:12])[0]

    assert key() == 0
    # While enabled (a background dtrace, held on by a gated command): set.
    with tracing(xdt, "syscall::getppid:entry { @ = count(); }", "sckey"):
        assert key() != 0
    assert key() == 0


# A process making system calls nonstop (getppid, so /pid == $target/
# leaves it out), so that whenever a cycle below writes the sys_enter
# static branch, the other vCPU is running through it.
HOG = "{sysc} getppid 2000000000 </dev/null >/dev/null 2>&1 & hog=$!; "
GETPPID = {isa: f["abi"]["nr_getppid"] for isa, f in xdtvm.FACTS.items()}
# Cycles per ISA: the stale-branch case is riscv64's (its MTTCG and its
# unsynchronized jump-label write, now stop_machine in the lab kernel), at
# about 1% of cycles on the stock write, so 300 ftrace cycles would catch
# its return 95% of the time; elsewhere a few cycles check each path.  The
# dtrace cycles each start a consumer, the costly part: a few everywhere.
FT_CYCLES = {"x86_64": 30, "aarch64": 30, "riscv64": 300}
XDT_CYCLES = {"x86_64": 4, "aarch64": 4, "riscv64": 8}


def test_syscall_entry_every_cycle(xdt, sysc):
    """The sys_enter tracepoint's static branch follows its key every time
    it is written while another CPU runs through it: N cycles of enabling
    sys_enter, 10 getppid(2) calls, disabling it -- through ftrace's own
    raw_syscalls event (the kernel alone, no xdt), through xdt's
    syscall::getppid:entry and through rawtp:raw_syscalls::sys_enter --
    each count exactly 10.  The stock riscv64 kernel wrote the branch with
    the other harts running, and QEMU's multi-threaded TCG could keep
    running the old nop until the branch was written again: a whole
    enabling with no sys_enter while sys_exit fired (the lab kernel writes
    it under stop_machine: arch/riscv/kernel.patch, jump_label.c)."""
    t = "/sys/kernel/tracing"
    e = f"{t}/events/raw_syscalls/sys_enter"
    # Nothing else holds a syscall tracepoint: each enable first sets
    # TIF_SYSCALL_TRACEPOINT on every thread, so the hog starts running
    # through do_syscall_trace_enter just as its branch is written (with
    # sys_exit held on as well, the stock riscv64 kernel missed 0 of 400
    # cycles; without, within 13).
    ft = (f"[ -e {t}/events ] || mount -t tracefs none {t}; "
          + HOG.format(sysc=sysc) +
          f"echo \"id == {GETPPID[xdt.isa]} && common_pid != $hog\" "
          f"> {e}/filter; echo > {t}/trace; "
          f"i=0; while [ $i -lt {FT_CYCLES[xdt.isa]} ]; do "
          f"echo 1 > {e}/enable; {sysc} getppid 10; echo 0 > {e}/enable; "
          f"grep -c ' NR {GETPPID[xdt.isa]} ' {t}/trace; echo > {t}/trace; "
          f"i=$((i+1)); done; kill $hog; echo 0 > {e}/filter")
    r = xdt.run(ft, timeout=600)
    assert r.ok, r
    counts = r.stdout.split()
    assert counts == ["10"] * FT_CYCLES[xdt.isa], counts
    for prog, n in (("syscall::getppid:entry /pid == $target/",
                     XDT_CYCLES[xdt.isa]),
                    ("rawtp:raw_syscalls::sys_enter "
                     f"/pid == $target && arg1 == {GETPPID[xdt.isa]}/",
                     XDT_CYCLES[xdt.isa] // 2)):
        r = xdt.run(HOG.format(sysc=sysc) +
                    f"i=0; while [ $i -lt {n} ]; do "
                    f"dtrace -qn '{prog} {{ @ = count(); }} "
                    "END { printa(\"%@d\\n\", @); }' "
                    f"-c '{sysc} getppid 10' | tr -d ' ' | grep . || echo 0; "
                    "i=$((i+1)); done; kill $hog", timeout=1200)
        assert r.ok, r
        counts = r.stdout.split()
        assert counts == ["10"] * n, (prog, counts, r.stderr[-2000:])


# ---- rawtp ------------------------------------------------------------------

def test_rawtp_lists_the_kernels_tracepoints(xdt):
    r = dtrace(xdt, "-l", "-P", "rawtp")
    assert r.ok, r
    rows = [ln.split()[1:] for ln in r.stdout.splitlines()[1:]]
    assert ["rawtp", "sched", "sched_switch"] in rows, r.stdout[:2000]
    assert ["rawtp", "raw_syscalls", "sys_enter"] in rows
    assert ["rawtp", "sched", "sched_process_exec"] in rows
    assert len(rows) > 200, len(rows)


def test_rawtp_fires_once_per_event_with_its_arguments(xdt, sysc):
    """sched_process_exec(p, old_pid, bprm): one firing per exec of the
    target (the first exec of the command, then 5 re-execs), and arg1 is
    the pid before the exec, which exec keeps."""
    r = dtrace(xdt, "-qn", "rawtp:sched::sched_process_exec /pid == $target/ "
               "{ @[arg1 == pid] = count(); }", "-c", f"{sysc} exec 5")
    assert r.ok, r
    assert agg_rows(r.stdout) == [[1, 6]], r.stdout


def test_rawtp_stack_starts_at_the_tracepoints_caller(xdt, sysc):
    """The first frame is the function that hit the tracepoint, not xdt
    or the tracepoint's iterator."""
    r = dtrace(xdt, "-qn", "rawtp:sched::sched_process_exec /pid == $target/ "
               "{ stack(); }", "-c", f"{sysc} exec 1")
    assert r.ok, r
    frames = [ln.strip() for ln in r.stdout.splitlines() if "`" in ln]
    assert frames, r.stdout
    first = frames[0].split("+")[0]
    assert first in ("kernel`exec_binprm", "kernel`bprm_execve"), r.stdout
    assert not [f for f in frames if f.startswith("xdt`")], r.stdout
    assert any("execve" in f for f in frames), r.stdout


def test_module_tracepoints_come_and_go_with_the_module(xdt):
    """xdt_hello's tracepoint (system xdt_hello) is a probe while the
    module is loaded, fires with its arguments, pins the module while
    enabled, and is gone after rmmod."""
    xdt.run("rmmod xdt_hello 2>/dev/null; true")
    r = dtrace(xdt, "-l", "-n", "rawtp:xdt_hello::")
    assert r.code == 1 and "xdt_hello_chain" not in r.stdout, r
    load_hello(xdt)
    try:
        r = dtrace(xdt, "-l", "-n", "rawtp:xdt_hello::")
        assert r.ok, r
        assert [ln.split()[1:] for ln in r.stdout.splitlines()[1:]] == \
            [["rawtp", "xdt_hello", "xdt_hello_chain"]], r.stdout
        r = dtrace(xdt, "-qn", "rawtp:xdt_hello::xdt_hello_chain "
                   '{ printf("chain %d %d %d\\n", arg0, arg1, arg2); } '
                   "rawtp:xdt_hello::xdt_hello_chain { stack(1); }",
                   "-c", script(xdt, "chain2", "echo 7 > "
                                "/sys/module/xdt_hello/parameters/chain\n"))
        assert r.ok, r
        lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
        # (arity 2: arg2 reads 0)
        assert lines[0] == "chain 7 10 0", r.stdout
        assert lines[1].startswith("xdt_hello`chain_set+"), r.stdout
        # An enabled module tracepoint pins its module.
        assert_pinned_while_traced(
            xdt, "rawtp:xdt_hello::xdt_hello_chain", "xdt_hello")
    finally:
        xdt.run(["rmmod", "xdt_hello"])
    r = dtrace(xdt, "-l", "-n", "rawtp:xdt_hello::")
    assert r.code == 1 and "xdt_hello_chain" not in r.stdout, r


def test_every_syscall_and_tracepoint_at_once(xdt, gdb):
    """syscall:::entry, syscall:::return and every tracepoint under a busy
    workload: no oops (the console watch), a clean disable, sane counts."""
    # The workload is dtrace's -c command, so it starts after GO and has
    # ended before STOP: no call of it is in flight at either edge (a
    # background loop cut by tick-3s was, by a count that grew with the
    # host's load and once passed the margin below).
    xdt.put(b"i=0; while [ $i -lt 100 ]; do ls /proc >/dev/null; "
            b"cat /proc/version >/dev/null; i=$((i+1)); done\n",
            "/tmp/every-syscall-load.sh")
    r = xdt.run(["dtrace", "-qn",
                 'syscall:::entry { @["entry"] = count(); } '
                 'syscall:::return { @["return"] = count(); } '
                 'syscall::exit_group:entry { @["exits"] = count(); } '
                 'syscall::clone:entry { @["clones"] = count(); } '
                 'rawtp::: { @["rawtp"] = count(); } '
                 'rawtp:raw_syscalls::sys_enter { @["rawenter"] = count(); }',
                 "-c", "sh /tmp/every-syscall-load.sh"], timeout=300)
    assert r.ok, r
    keys = ("entry", "return", "rawtp", "exits", "clones", "rawenter")
    got = {}
    for ln in r.stdout.splitlines():
        f = ln.split()
        if len(f) == 2 and f[0] in keys:
            got[f[0]] = int(f[1])
    # (riscv64 runs once saw no sys_enter at all, rawtp's or syscall's,
    # while sys_exit fired thousands of times: QEMU's MTTCG kept running
    # the old nop of the kernel's static branch to the tracepoint; the lab
    # kernel now writes it under stop_machine -- arch/riscv/kernel.patch,
    # test_syscall_entry_every_cycle, docs/mechanisms.md.)
    assert set(got) == set(keys), \
        (r.stdout, r.stderr, xdt.run("dmesg | tail -20").stdout)
    assert got["entry"] > 100 and got["rawtp"] > got["entry"], got
    # (rawenter and entry differ by the calls made while GO enabled
    # the ~300 syscall probes before the rawtp ones.)
    # Entries and returns pair up, but for exit_group (which never
    # returns), the child's return from clone (traced on x86_64, whose
    # ret_from_fork leaves through the syscall exit path; not on
    # arm64), and calls in flight at the edges (dtrace's own, the
    # guest agent's).
    unpaired = got["entry"] - got["exits"] - got["return"]
    assert abs(unpaired) <= got["clones"] + 50, got
    # Clean disable: no tracepoint is left registered (static keys off).
    for tp in ("__tracepoint_sys_enter", "__tracepoint_sched_switch",
               "__tracepoint_sched_process_exec"):
        assert struct.unpack("<i", gdb.read(tp, 12)[8:12])[0] == 0, tp
    assert xdt.run(["true"]).ok
    r = dtrace(xdt, "-qn", "BEGIN { trace(1); exit(0); }")
    assert r.ok and r.stdout.strip() == "1", r
