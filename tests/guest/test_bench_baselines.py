"""The eBPF and ftrace baselines of the overhead benchmark (bench/README.md).

Every mechanism xdt is compared with attaches a counting program to the
bench module's noinline target (tests/guest/modules/xdt_bench); the module's
debugfs trigger calls it exactly N times, and the count read back must be N.
Mechanisms a kernel lacks skip with the reason, which is checked against the
kernel's .config and against what guest/xdt-bpfbench reports (exit 3).

guest/xdt-bpfbench is built here for the guest's ISA and pushed to /tmp, so
the test does not depend on it being in the initramfs yet.  Its other
modes, used by the enable/disable scaling test of bench/run.py (function
lists from a file, kprobe_events as one group, and xdt itself through the
raw ioctls), are checked here too, and so are the syscall mechanisms of the
bench's syscall trigger (bench/getppid-loop.c, built here too): the raw
tracepoint sys_enter with the program filtering on the ISA's __NR_getppid,
and the perf tracepoint syscalls:sys_enter_getppid, each counting exactly
the loop's N calls.
"""
import os
import subprocess

import pytest

from conftest import missing

import xdtvm

N = 1000
TRIGGER = "/sys/kernel/debug/xdt_bench/trigger"
CALLS = "/sys/kernel/debug/xdt_bench/calls"
TARGET = "xdt_bench_target"
GUEST_BIN = "/tmp/xdt-bpfbench"
TRAP = {isa: p[2] for isa, p in xdtvm.XDT_PATCH.items()}     # int3, brk, ...
SRC = os.path.join(xdtvm.TOP, "guest", "xdt-bpfbench.c")
MODSRC = os.path.join(xdtvm.TOP, "tests", "guest", "modules", "xdt_bench")
MECHS = ["kprobe", "kprobe-off", "kretprobe", "fentry", "fexit",
         "kprobe-multi", "kprobe-events"]
GETPPID_LOOP = "/tmp/getppid-loop"
GPSRC = os.path.join(xdtvm.TOP, "bench", "getppid-loop.c")
# The syscall mechanisms and their --func; __NR_getppid per ISA (x86_64's
# own table; arm64 and riscv64 use the generic one).
SYSCALL_MECHS = {"raw-tp": "sys_enter:getppid",
                 "tracepoint": "syscalls:sys_enter_getppid"}
NR_GETPPID = {isa: f["abi"]["nr_getppid"] for isa, f in xdtvm.FACTS.items()}


def kconfig(isa):
    cfg = {}
    with open(os.path.join(xdtvm.kernel_dir(isa), ".config")) as f:
        for line in f:
            k, eq, v = line.strip().partition("=")
            if eq:
                cfg[k] = v
    return cfg


def unsupported_reason(isa, mech, cfg):
    """Why @mech cannot work on @isa's 6.1 kernel, or None if it should."""
    y = lambda opt: cfg.get(opt) == "y"   # noqa: E731
    if mech in ("fentry", "fexit"):
        if isa == "riscv64":
            return "riscv64 6.1 has no BPF trampoline"
        if not y("CONFIG_DEBUG_INFO_BTF"):
            return f"{isa} kernel built without CONFIG_DEBUG_INFO_BTF"
        if not y("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"):
            # kernel/bpf/trampoline.c register_fentry(): an ftrace site
            # without direct-call ops is -ENOTSUPP; arm64 gets them in 6.4.
            return (f"{isa} 6.1 cannot call a BPF trampoline from a kernel "
                    "function's ftrace site (no "
                    "DYNAMIC_FTRACE_WITH_DIRECT_CALLS; arm64 has it from 6.4)")
    if mech == "tracepoint" and not y("CONFIG_FTRACE_SYSCALLS"):
        return (f"{isa} kernel built without CONFIG_FTRACE_SYSCALLS: no "
                "syscalls:sys_enter_* events")
    if mech == "raw-tp" and not y("CONFIG_HAVE_SYSCALL_TRACEPOINTS"):
        return f"{isa} has no syscall tracepoints (raw_syscalls:sys_enter)"
    if mech == "kprobe-multi" and not y("CONFIG_FPROBE"):
        if isa != "x86_64":
            return (f"{isa} 6.1 has no fprobe (FPROBE needs HAVE_RETHOOK, "
                    "x86_64 only in 6.1): no kprobe_multi")
        return "x86_64 kernel built without CONFIG_FPROBE: no kprobe_multi"
    return None


def _newer(out, srcs):
    return os.path.exists(out) and all(
        os.path.getmtime(out) >= os.path.getmtime(s) for s in srcs)


def build_bpfbench(isa, outdir):
    cross = xdtvm.ISAS[isa]["cross"]
    out = os.path.join(outdir, f"xdt-bpfbench.{isa}")
    made = os.path.join(xdtvm.build_dir(isa), "xdt-bpfbench")
    if _newer(made, [SRC, os.path.join(xdtvm.TOP, "core", "uapi", "xdt.h")]):
        return made                 # the Makefile's, when it builds it
    subprocess.run([f"{cross}gcc", "-std=c11", "-O2", "-Wall", "-Wextra",
                    "-Werror", "-I", os.path.join(xdtvm.TOP, "core", "uapi"),
                    "-static", "-o", out, SRC], check=True)
    return out


def build_getppid_loop(isa, outdir):
    out = os.path.join(outdir, f"getppid-loop.{isa}")
    subprocess.run([xdtvm.ISAS[isa]["cross"] + "gcc", "-std=gnu11", "-O2",
                    "-Wall", "-Wextra", "-Werror", "-static", "-o", out,
                    GPSRC], check=True)
    return out


def build_bench_module(isa):
    """$(BUILD)/<isa>/modules/xdt_bench/xdt_bench.ko, as `make modules`
    builds it, rebuilt here when missing or older than its sources."""
    d = os.path.join(xdtvm.build_dir(isa), "modules", "xdt_bench")
    ko = os.path.join(d, "xdt_bench.ko")
    srcs = [os.path.join(MODSRC, f) for f in os.listdir(MODSRC)]
    if not _newer(ko, srcs):
        os.makedirs(d, exist_ok=True)
        subprocess.run(["rsync", "-a", "--checksum", MODSRC + "/", d + "/"],
                       check=True)
        subprocess.run([os.path.join(xdtvm.TOP, "tools", "kmake"), isa,
                        f"M={d}", "modules"], check=True)
    return ko


def first_body_offset(isa, ko):
    """Offset in xdt_bench_target of its first instruction after the
    ftrace/patchable-entry site: straight-line code, run once per call."""
    return xdtvm.first_body_insn(isa, ko, TARGET)[0]


@pytest.fixture(scope="session")
def bench(vm, tmp_path_factory):
    """@vm with xdt-bpfbench at /tmp and the bench module loaded."""
    isa = vm.isa
    binary = build_bpfbench(isa, str(tmp_path_factory.mktemp("bpfbench")))
    ko = build_bench_module(isa)
    vm.put(binary, GUEST_BIN, mode="755")
    vm.put(build_getppid_loop(isa, str(tmp_path_factory.mktemp("gploop"))),
           GETPPID_LOOP, mode="755")
    if "xdt_bench " not in vm.run(["cat", "/proc/modules"]).stdout:
        vm.put(ko, "/tmp/xdt_bench.ko")
        vm.run(["insmod", "/tmp/xdt_bench.ko"], check=True, timeout=120)
    vm.bench_off = first_body_offset(isa, ko)
    vm.bench_cfg = kconfig(isa)
    yield vm
    vm.run(["rmmod", "xdt_bench"], timeout=120)


def calls(vm):
    return int(vm.run(["cat", CALLS], check=True).stdout)


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def bpfbench(vm, *args, timeout=180):
    return vm.run([GUEST_BIN, *args], timeout=timeout)


def trigger_cmd(n):
    return ["--", "sh", "-c", f"echo {n} > {TRIGGER}"]


def test_trigger_calls_target_n_times(bench):
    before = calls(bench)
    bench.run(["sh", "-c", f"echo {N} > {TRIGGER}"], check=True)
    assert calls(bench) - before == N
    assert int(bench.run(["cat", TRIGGER], check=True).stdout) == N
    ns = int(bench.run(["cat", "/sys/kernel/debug/xdt_bench/last_ns"],
                       check=True).stdout)
    assert ns > 0


@pytest.mark.parametrize("mech", MECHS)
def test_count_is_exact(bench, mech):
    """Attach `count` (per-CPU array increment; kprobe_events: the event's
    hits in kprobe_profile) to the target, trigger N calls, read N back."""
    isa = bench.isa
    reason = unsupported_reason(isa, mech, bench.bench_cfg)
    args = ["attach", "--mech", mech, "--func", TARGET]
    if mech != "kprobe-events":
        args += ["--prog", "count"]
    if mech == "kprobe-off":
        args += ["--off", str(bench.bench_off)]
    before = calls(bench)
    r = bpfbench(bench, *args, *trigger_cmd(N))
    if r.status == 3:
        assert "unsupported=" in r.stdout, r.stdout + r.stderr
        assert reason, (f"{isa}: {mech} should work on this kernel, but: "
                        f"{r.stdout.strip()}")
        pytest.skip(f"{reason} [xdt-bpfbench: "
                    f"{r.stdout.split('unsupported=', 1)[1].strip()}]")
    assert r.ok, f"status {r.status}\n{r.stdout}{r.stderr}"
    f = fields(r.stdout.strip().splitlines()[-1])
    assert calls(bench) - before == N
    assert int(f["count"]) == N, r.stdout
    assert f["status"] == "0"
    via = f["via"]
    kof = bench.bench_cfg.get("CONFIG_KPROBES_ON_FTRACE") == "y"
    if mech in ("kprobe", "kprobe-events"):
        assert via == ("ftrace" if kof else TRAP[isa]), r.stdout
    elif mech == "kretprobe":
        assert via == ("ftrace" if kof else TRAP[isa]) + "+ret", r.stdout
    elif mech == "kprobe-off":
        assert via in (TRAP[isa], "optprobe"), r.stdout
    elif mech in ("fentry", "fexit"):
        assert via.startswith("trampoline"), r.stdout
    elif mech == "kprobe-multi":
        assert via.startswith("fprobe"), r.stdout
    if mech != "kprobe-events":
        # Every kernel's config turns the JIT on (riscv64: BPF_JIT_ALWAYS_ON,
        # arch/riscv/kernel.config): an interpreted baseline would flatter
        # xdt.
        assert f["jit"] == "1", r.stdout
    from conftest import REPORT
    REPORT.append(f"bpf baseline {isa} {mech}: via={via} jit={f['jit']} "
                  f"count={f['count']} attach {int(f['attach_ns']) // 1000} "
                  f"us, detach {int(f['detach_ns']) // 1000} us")


def test_empty_program_attaches(bench):
    r = bpfbench(bench, "attach", "--mech", "kprobe", "--prog", "empty",
                 "--func", TARGET, *trigger_cmd(10))
    assert r.ok, r.stdout + r.stderr
    f = fields(r.stdout.strip().splitlines()[-1])
    assert f["count"] == "-" and f["status"] == "0"


def test_several_functions_share_one_count(bench):
    """Two attachments, one map: the count is the sum of both functions'
    firings (the target N times; vfs_read at least once, by cat)."""
    r = bpfbench(bench, "attach", "--mech", "kprobe", "--prog", "count",
                 "--func", f"{TARGET},vfs_read", "--", "sh", "-c",
                 f"echo {N} > {TRIGGER}; cat {CALLS} > /dev/null")
    assert r.ok, r.stdout + r.stderr
    assert int(fields(r.stdout.strip().splitlines()[-1])["count"]) > N


def test_kprobe_multi_by_symbol(bench):
    """A vmlinux function goes by name (6.1 resolves only vmlinux symbols:
    the module's target above needed the address fallback)."""
    reason = unsupported_reason(bench.isa, "kprobe-multi", bench.bench_cfg)
    r = bpfbench(bench, "attach", "--mech", "kprobe-multi", "--prog",
                 "count", "--func", "vfs_read", "--", "cat", "/proc/version")
    if r.status == 3 and reason:
        pytest.skip(reason)
    assert r.ok, r.stdout + r.stderr
    f = fields(r.stdout.strip().splitlines()[-1])
    assert f["via"] == "fprobe" and int(f["count"]) >= 1, r.stdout


@pytest.mark.parametrize("prog,reason", [
    ("nullderef", "R0 invalid mem access 'map_value_or_null'"),
    ("uninit", "R5 !read_ok"),
])
def test_verifier_refuses_malformed_programs(bench, prog, reason):
    r = bpfbench(bench, "load", "--prog", prog)
    assert r.status == 2, r.stdout + r.stderr
    assert "verifier log" in r.stderr and reason in r.stderr, r.stderr
    # The same refusal on the attach path, before anything is attached.
    r = bpfbench(bench, "attach", "--mech", "kprobe", "--prog", prog,
                 "--func", TARGET, "--", "true")
    assert r.status == 2 and reason in r.stderr, r.stdout + r.stderr


def test_valid_programs_load(bench):
    for prog in ("empty", "count"):
        r = bpfbench(bench, "load", "--prog", prog)
        assert r.ok and "loaded" in r.stdout, r.stdout + r.stderr


def test_kprobe_events_function_list(bench):
    """--func @FILE: one kprobe_events group for every function; the
    count is their hits summed; detach leaves no event behind."""
    bench.put(f"{TARGET}\nvfs_read\n", "/tmp/xdtb-funcs")
    r = bpfbench(bench, "attach", "--mech", "kprobe-events", "--func",
                 "@/tmp/xdtb-funcs", "--", "sh", "-c",
                 f"echo {N} > {TRIGGER}; cat {CALLS} > /dev/null")
    assert r.ok, r.stdout + r.stderr
    f = fields(r.stdout.strip().splitlines()[-1])
    assert f["nprobes"] == "2" and int(f["count"]) > N, r.stdout
    for k in ("define_ns", "arm_ns", "disarm_ns", "remove_ns"):
        assert int(f[k]) > 0, r.stdout
    assert int(f["attach_ns"]) == int(f["define_ns"]) + int(f["arm_ns"])
    left = bench.run(["cat", "/sys/kernel/tracing/kprobe_events"],
                     check=True).stdout
    assert "xdtb" not in left, left


@pytest.fixture
def bench_xdt(bench):
    """@bench with xdt.ko loaded (the xdt mechanism of xdt-bpfbench)."""
    if "xdt " not in bench.run(["cat", "/proc/modules"], check=True).stdout:
        ko = os.path.join(xdtvm.build_dir(bench.isa), "xdt", "xdt.ko")
        if not os.path.isfile(ko):
            missing(ko)
        bench.put(ko, "/tmp/xdt.ko")
        bench.run(["insmod", "/tmp/xdt.ko"], check=True, timeout=300)
    return bench


def test_xdt_mechanism_counts_and_times(bench_xdt):
    """--mech xdt: fbt::F:entry { @ = count(); } through the raw ioctls;
    exact count, one trap a firing, attach = ENABLE + GO."""
    r = bench_xdt.run(["env", "XDT_FBTMODE=breakpoint", GUEST_BIN, "attach",
                       "--mech", "xdt", "--func", TARGET, *trigger_cmd(N)],
                      timeout=180)
    assert r.ok, r.stdout + r.stderr
    f = fields(r.stdout.strip().splitlines()[-1])
    assert f["nprobes"] == "1" and int(f["count"]) == N, r.stdout
    assert int(f["traps"]) == N, r.stdout
    assert f["via"] == TRAP[bench_xdt.isa]
    assert int(f["attach_ns"]) == int(f["enable_ns"]) + int(f["go_ns"])
    assert int(f["detach_ns"]) == int(f["stop_ns"]) + int(f["free_ns"])


def test_xdt_mechanism_glob_clause(bench_xdt):
    """A description with colons is taken as the clause: here the bench
    module's debugfs handlers (trigger_write fires once per trigger).
    Not fbt:xdt_bench::entry: fbt lists both xdt_bench_exit and its alias
    cleanup_module, two probes on one instruction, and GO refuses those
    (EBUSY) -- an fbt matter, not the bench's."""
    r = bpfbench(bench_xdt, "attach", "--mech", "xdt", "--func",
                 "fbt:xdt_bench:[lt]*:entry", *trigger_cmd(N))
    assert r.ok, r.stdout + r.stderr
    f = fields(r.stdout.strip().splitlines()[-1])
    assert int(f["nprobes"]) >= 2 and int(f["count"]) >= 1, r.stdout
    r = bpfbench(bench_xdt, "attach", "--mech", "xdt", "--func",
                 "xdt_no_such_function_x", "--", "true")
    assert r.status == 1 and "matched no probe" in r.stderr, \
        r.stdout + r.stderr


def test_no_btf_func_is_unsupported(bench):
    """fentry on a function without a BTF FUNC (or without BTF at all) is
    "unsupported" with the reason, not an error."""
    r = bpfbench(bench, "attach", "--mech", "fentry", "--prog", "count",
                 "--func", "xdt_no_such_function_x", "--", "true")
    assert r.status == 3 and "unsupported=" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("mech", sorted(SYSCALL_MECHS))
def test_syscall_count_is_exact(bench, mech):
    """The bench's syscall rows: count getppid(2) on the raw tracepoint
    sys_enter (the program tests ctx->args[1] against this ISA's
    __NR_getppid) or on the perf tracepoint syscalls:sys_enter_getppid;
    getppid-loop calls it exactly N times (run directly, no shell, which
    would call getppid itself), and the program runs JIT-compiled."""
    isa = bench.isa
    reason = unsupported_reason(isa, mech, bench.bench_cfg)
    r = bpfbench(bench, "attach", "--mech", mech, "--prog", "count",
                 "--func", SYSCALL_MECHS[mech], "--", GETPPID_LOOP, str(N))
    if r.status == 3:
        assert reason, (f"{isa}: {mech} should work on this kernel, but: "
                        f"{r.stdout.strip()}")
        pytest.skip(f"{reason} [xdt-bpfbench: {r.stdout.strip()}]")
    assert r.ok, f"status {r.status}\n{r.stdout}{r.stderr}"
    assert f"@gp n={N} " in r.stdout, r.stdout
    f = fields(r.stdout.strip().splitlines()[-1])
    assert int(f["count"]) == N and f["status"] == "0", r.stdout
    assert f["nprobes"] == "1" and f["jit"] == "1", r.stdout
    if mech == "raw-tp":
        assert f["via"] == "raw_tp:sys_enter", r.stdout
        assert int(f["sysnr"]) == NR_GETPPID[isa], r.stdout
    else:
        assert f["via"] == "tracepoint:syscalls:sys_enter_getppid", r.stdout
        assert "sysnr" not in f, r.stdout
    from conftest import REPORT
    REPORT.append(f"bpf baseline {isa} {mech} (getppid): via={f['via']} "
                  f"jit={f['jit']} count={f['count']} attach "
                  f"{int(f['attach_ns']) // 1000} us, detach "
                  f"{int(f['detach_ns']) // 1000} us")


def test_raw_tp_without_filter_counts_every_syscall(bench):
    """sys_enter with no :SYSCALL counts every syscall of the system while
    attached: the loop's N getppid calls and more (its exit, the agent's
    own syscalls): the filter is what makes the count exact."""
    r = bpfbench(bench, "attach", "--mech", "raw-tp", "--prog", "count",
                 "--func", "sys_enter", "--", GETPPID_LOOP, str(N))
    assert r.ok, r.stdout + r.stderr
    f = fields(r.stdout.strip().splitlines()[-1])
    assert int(f["count"]) > N and "sysnr" not in f, r.stdout


def test_syscall_mechanisms_unknown_target_unsupported(bench):
    """A raw tracepoint or a tracepoint event the kernel does not have is
    "unsupported" with the reason (exit 3), not an error."""
    for mech, func in (("raw-tp", "xdt_no_such_tp"),
                       ("tracepoint", "syscalls:sys_enter_xdt_no_such")):
        r = bpfbench(bench, "attach", "--mech", mech, "--prog", "count",
                     "--func", func, "--", "true")
        assert r.status == 3 and "unsupported=" in r.stdout, \
            (mech, r.stdout + r.stderr)


def test_syscall_programs_load(bench):
    """The raw-tp (filtered) and tracepoint count programs pass the
    verifier alone, JIT-compiled."""
    for args in (("--type", "raw-tp", "--func", "sys_enter:getppid"),
                 ("--type", "tracepoint")):
        r = bpfbench(bench, "load", "--prog", "count", *args)
        assert r.ok and "loaded" in r.stdout and "jit=1" in r.stdout, \
            r.stdout + r.stderr


def test_kprobe_refused_instruction_is_unsupported(bench):
    """riscv64 6.1's kprobes reject compressed jumps (decode-insn.c:
    RISCV_INSN_REJECTED(c_jr)): a kprobe on the target's c.jr (ret) is
    "unsupported", with the reason."""
    if bench.isa != "riscv64":
        pytest.skip("only riscv64 6.1 refuses an instruction of the target")
    body = xdtvm.function_body("riscv64", build_bench_module("riscv64"), TARGET)
    ret = [int(ln.split(":")[0], 16) for ln in body.splitlines()
           if ln.split()[1:2] == ["ret"]]
    assert ret, body
    r = bpfbench(bench, "attach", "--mech", "kprobe-off", "--prog", "count",
                 "--func", TARGET, "--off", str(ret[0]), "--", "true")
    assert r.status == 3 and "kprobe refuses" in r.stdout, \
        r.stdout + r.stderr
