"""The dtrace CLI in a booted guest against xdt.ko: the first end-to-end
slice (D -> DIF -> /dev/xdt -> fbt breakpoints -> records/aggregations)."""
import collections
import re
import time

import pytest

import xdtvm
from test_xdt_kernel import tracing, wait_refcnt, xdt  # noqa: F401


def dtrace(vm, *args, timeout=180):
    return vm.run(["dtrace", *args], timeout=timeout)


def test_header_and_exact_count(xdt):
    n = 300
    r = dtrace(xdt, "-n", 'fbt::read_zero:entry /execname == "dd"/ '
               '{ @ = count(); }', "-c",
               f"dd if=/dev/zero of=/dev/null bs=1 count={n}")
    assert r.ok, r
    assert "dtrace: description 'fbt::read_zero:entry ' matched 1 probe" \
        in r.stderr, r.stderr
    assert re.search(rf"^\s+{n}\s*$", r.stdout, re.M), r.stdout


def test_count_by_execname(xdt):
    # (busybox cat copies with sendfile(2), which never calls vfs_read.)
    r = dtrace(xdt, "-n", "fbt::vfs_read:entry { @[execname] = count(); }",
               "-c", "wc -c /proc/version")
    assert r.ok, r
    m = re.search(r"^\s+wc\s+(\d+)\s*$", r.stdout, re.M)
    assert m and int(m.group(1)) >= 2, r.stdout


def test_return_value_and_quantize_exact(xdt):
    """read_zero returns the bytes it read: 10 reads of 100 bytes land in
    the [64, 128) bucket, with DTrace's zero rows around it."""
    r = dtrace(xdt, "-qn", 'fbt::read_zero:return /execname == "dd"/ '
               '{ @ = quantize(arg1); }', "-c",
               "dd if=/dev/zero of=/dev/null bs=100 count=10")
    assert r.ok, r
    lines = [ln.rstrip() for ln in r.stdout.splitlines() if ln.strip()]
    assert lines[0].split() == ["value", "-------------", "Distribution",
                                "-------------", "count"], r.stdout
    rows = [ln.split("|") for ln in lines[1:]]
    got = [(int(v), b.strip(), int(c)) for v, rest in rows
           for b, c in [rest.rsplit(" ", 1)]]
    assert got == [(32, "", 0), (64, "@" * 40, 10), (128, "", 0)], r.stdout


def test_list_shows_entry_and_return(xdt):
    r = dtrace(xdt, "-l", "-n", "fbt::vfs_read:")
    assert r.ok, r
    names = sorted(ln.split()[-1] for ln in r.stdout.splitlines()[1:])
    assert names == ["entry", "return"], r.stdout


def test_list_takes_macro_arguments(xdt):
    """-l -n's description has its macro variables replaced as a
    program's: $1 is the first argument after the options."""
    r = dtrace(xdt, "-l", "-n", "fbt::$1:", "vfs_read")
    assert r.ok, r
    assert sorted(ln.split()[-1] for ln in r.stdout.splitlines()[1:]) == \
        ["entry", "return"], r.stdout
    r = dtrace(xdt, "-l", "-n", "fbt::$2:")
    assert r.code != 0 and "Undefined macro variable" in r.stderr, r


def test_unknown_probe_is_an_error(xdt):
    r = dtrace(xdt, "-n", "fbt::xdt_no_such_function:entry { trace(1); }")
    assert r.code == 1
    assert "fbt::xdt_no_such_function:entry" in r.stderr
    assert "does not match any probes" in r.stderr, r.stderr


def test_bad_load_fires_error_and_kernel_carries_on(xdt):
    r = dtrace(xdt, "-n", "BEGIN { trace(*(int *)8); } BEGIN { exit(0); }")
    assert "invalid address (0x8)" in r.stderr, r
    assert xdt.run(["true"]).ok


def test_load_from_an_alias_above_the_paging_range_is_an_error(xdt):
    """A kernel pointer with a bit flipped above the paging's address range
    (bit 52: 4-level x86_64, arm64, riscv64 Sv39/48) is no address at all,
    though the page-table walk -- blind to those bits -- finds the page it
    aliases.  An ERROR and nothing on the console: on x86_64's debug kernel
    (4-level paging on an LA57 CPU) the load went to the nofault copy,
    which took the #GP but warned."""
    r = dtrace(xdt, "-qn", "BEGIN { this->p = (uintptr_t)curthread ^ (1ULL << 52); "
               "trace(*(int *)this->p); } "
               'ERROR { printf("fault %d\\n", arg4); } BEGIN { exit(0); }')
    assert "fault 1" in r.stdout, r
    assert xdt.run(["true"]).ok


def test_error_clause_sees_the_fault(xdt):
    r = dtrace(xdt, "-qn", "BEGIN { trace(*(long *)16); } "
               'ERROR { printf("fault %d at 0x%x\\n", arg4, arg5); } '
               "BEGIN { exit(0); }")
    assert "fault 1 at 0x10" in r.stdout, r


def test_default_output_printf_and_globs(xdt):
    """Per-firing lines (CPU, ID, FUNCTION:NAME), printf, and a comma list of
    globbed descriptions."""
    r = dtrace(xdt, "-n", 'fbt::read_zer?:entry,fbt::read_iter_zer[o]:entry '
               '/execname == "dd"/ { printf("%s %d|", probefunc, arg2); }',
               "-c", "dd if=/dev/zero of=/dev/null bs=7 count=3")
    assert r.ok, r
    assert "matched 2 probes" in r.stderr, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "read_zero:entry" in ln]
    assert len(lines) == 3, r.stdout
    for ln in lines:
        cpu, pid, rest = ln.split(None, 2)
        assert cpu.isdigit() and pid.isdigit()
        assert rest.split()[1:] == ["read_zero", "7|"], ln
    assert r.stdout.splitlines()[0].split() == ["CPU", "ID",
                                                "FUNCTION:NAME"], r.stdout


def test_list_verbose_says_why_a_function_has_no_probe(xdt):
    # Both are generic kernel code, so the same on every ISA.
    r = dtrace(xdt, "-l", "-v", "-n", "fbt::notifier_call_chain:")
    assert "refused: kprobes blacklist" in r.stdout, r
    r = dtrace(xdt, "-l", "-v", "-n", "fbt::ct_nmi_enter:")
    assert "refused: noinstr text" in r.stdout, r


def _attr_block(title, n, d, c):
    return (f"\n\t{title}\n\t\tIdentifier Names: {n}\n"
            f"\t\tData Semantics:   {d}\n\t\tDependency Class: {c}\n")


def test_list_verbose_attributes(xdt):
    """dtrace -l -v: DTrace's "Probe Description Attributes" and "Argument
    Attributes" blocks before "Argument Types", from the provider table
    (compiler/attr.c): fbt's the least of Evolving/Evolving/ISA and its
    Private module and function, syscall's of Evolving/Evolving/Common and
    its Private/Private/ISA function; a -v run reports the program."""
    for desc, dclass, types in (
            ("fbt::vfs_read:entry", "Unknown", "\t\targs[0]: struct file *\n"),
            ("syscall::read:entry", "ISA", "")):
        r = dtrace(xdt, "-l", "-v", "-n", desc)
        assert r.ok, r
        want = (_attr_block("Probe Description Attributes", "Private",
                            "Private", dclass) +
                _attr_block("Argument Attributes", "Private", "Private", "ISA") +
                "\n\tArgument Types\n" + types)
        assert want in r.stdout, r.stdout
    r = dtrace(xdt, "-v", "-n", "dtrace:::BEGIN { trace(curthread); exit(0); }")
    assert r.ok, r
    want = ("\nStability attributes for description dtrace:::BEGIN :\n" +
            _attr_block("Minimum Probe Description Attributes", "Stable",
                        "Stable", "Common") +
            _attr_block("Minimum Statement Attributes", "Stable", "Private",
                        "Common") + "\n")
    assert want in r.stdout, r.stdout


def test_module_functions_get_probes_and_stay_pinned(xdt):
    """A module loaded after xdt gets fbt probes; an enabling on one pins the
    module (rmmod refused) and its probes go when it unloads."""
    import os
    import xdtvm
    ko = os.path.join(xdtvm.build_dir(xdt.isa), "modules", "xdt_hello",
                      "xdt_hello.ko")
    xdt.put(ko, "/tmp/xdt_hello.ko")
    xdt.run("rmmod xdt_hello 2>/dev/null; insmod /tmp/xdt_hello.ko",
            check=True)
    r = dtrace(xdt, "-l", "-n", "fbt:xdt_hello::")
    assert r.ok, r
    # (Not xdt_hello_exit: __exit implies notrace, so on arm64, where
    # only ftrace's NOP is patched, it has no entry probe.)
    assert "xdt_hello_c entry" in " ".join(r.stdout.split()), r.stdout
    assert_pinned_while_traced(xdt, "fbt:xdt_hello:xdt_hello_c:entry",
                               "xdt_hello")
    xdt.run(["rmmod", "xdt_hello"], check=True)
    r = dtrace(xdt, "-l", "-n", "fbt:xdt_hello::")
    assert r.code == 1 and "No probe matches description" in r.stderr, r


def test_tracing_parameter_counts_consumers_between_go_and_stop(xdt):
    """/sys/module/xdt/parameters/tracing: 0 idle, 1 while one dtrace
    traces, still 1 after an enabling that never reached GO, 0 once the
    tracer stopped (scripts wait on it: test_lua.STARTED)."""
    def tracing_now():
        return xdt.run(["cat", "/sys/module/xdt/parameters/tracing"],
                       check=True).stdout.strip()
    assert tracing_now() == "0"
    with tracing(xdt, "fbt::vfs_read:entry { @ = count(); }", "count1"):
        assert tracing_now() == "1"
        r = dtrace(xdt, "-n", "fbt::no_such_function_xdt:entry")
        assert r.code != 0 and tracing_now() == "1", r
        # and per consumer, in its /dev/xdt's fdinfo
        r = xdt.run("grep -h '^xdt-' /proc/$(pidof dtrace)/fdinfo/*")
        assert r.stdout.split() == ["xdt-state:", "running",
                                    "xdt-tracing:", "1"], r
    assert tracing_now() == "0"


def assert_pinned_while_traced(vm, desc, module):
    """While a dtrace enabling of @desc is running (held on by a gated
    command), rmmod @module is refused: the enabling pins it."""
    with tracing(vm, f"{desc} {{ trace(1); }}", "pin"):
        wait_refcnt(vm, module)
        r = vm.run(["rmmod", module])
        assert "Resource temporarily unavailable" in r.stderr, r


def begun(cmd, out):
    """Shell: start @cmd (a dtrace whose BEGIN prints "go") in the
    background with its output in @out, its pid in $d, and wait until
    "go" is there -- tracing is on -- or fail (exit 3) if it ended first.
    @out goes first: the redirection truncates it only once the child
    runs, and a "go" left by an earlier command would be read as this
    one's (a sched:::enqueue that should have been refused was enabled
    before the fbt consumer it was to meet, on the aarch64 debug kernel)."""
    return (f"rm -f {out}; {cmd} >{out} 2>&1 & d=$!; "
            f"while ! grep -q '^go$' {out} 2>/dev/null; do "
            "kill -0 $d 2>/dev/null || exit 3; sleep 0.1; done; ")


def test_sigint_ends_tracing_and_prints_aggregations(xdt):
    # BEGIN fires at GO, once every probe is in: its line in the output is
    # the signal to start the workload (no sleep that a slow host outlasts).
    r = xdt.run(begun("dtrace -qn 'BEGIN { printf(\"go\\n\"); } "
                      "fbt::read_zero:entry { @ = count(); }'",
                      "/tmp/int.out") +
                "dd if=/dev/zero of=/dev/null bs=1 count=42 2>/dev/null; "
                "kill -INT $d; wait $d; echo status=$?; cat /tmp/int.out",
                timeout=120)
    assert "status=0" in r.stdout, r
    assert re.search(r"^\s+42\s*$", r.stdout, re.M), r.stdout


def test_small_buffer_counts_drops(xdt):
    """Records that do not fit the per-CPU buffer are dropped and reported,
    never half-written."""
    r = dtrace(xdt, "-x", "bufsize=4k", "-x", "switchrate=10s", "-qn",
               'fbt::read_zero:entry /execname == "dd"/ '
               '{ printf("%d\\n", arg2); }', "-c",
               "dd if=/dev/zero of=/dev/null bs=5 count=2000")
    lines = r.stdout.split()
    assert lines and set(lines) == {"5"}, r.stdout[-300:]
    m = re.findall(r"dtrace: (\d+) drops? on CPU \d+", r.stderr)
    assert m and len(lines) + sum(map(int, m)) == 2000, r.stderr


def test_probing_what_the_trap_path_calls(xdt):
    """Fetching a firing's arguments calls copy_from_kernel_nofault; with
    that function probed too, the nested trap must only be emulated (it once
    recursed without end).  Firings of the outer probe stay exact."""
    n = 50
    r = dtrace(xdt, "-qn", "fbt::copy_from_kernel_nofault*:entry,"
               'fbt::read_zero:entry /execname == "dd"/ '
               "{ @[probefunc] = count(); }", "-c",
               f"dd if=/dev/zero of=/dev/null bs=1 count={n}", timeout=120)
    assert r.ok, r
    assert re.search(rf"^\s+read_zero\s+{n}\s*$", r.stdout, re.M), r.stdout


def test_every_entry_probe_at_once(xdt, gdb):
    """fbt:::entry on all ~17k functions: patched in one batch, the kernel
    keeps running under a workload, and the text is restored after."""
    if xdtvm.KVARIANT:
        # Measured on the x86_64 debug kernel: no answer after 10 min.
        # Every allocation there saves a stack (KASAN, slab debugging)
        # through unwinder functions that are probes now, under TCG.
        # Broad enablings on the debug kernels: make soak's every-probe
        # stage.
        pytest.skip(f"fbt:::entry on the {xdtvm.KVARIANT} kernel takes more "
                    "than 10 minutes under TCG (a stack saved through "
                    "probed unwinder functions at every allocation)")
    before = {f: gdb.read(f, 8) for f in ("vfs_read", "schedule", "read_zero")}
    slab0 = unreclaimable_slab_kb(xdt)
    r = dtrace(xdt, "-qn", "fbt:::entry { @ = count(); }", "-c", "ls /sys/kernel/tracing /proc",
               timeout=300)
    assert r.ok, r
    n = int(r.stdout.split()[-1])
    assert n > 10000, r.stdout
    after = {f: gdb.read(f, 8) for f in before}
    assert after == before
    # ...and its memory is given back: on x86_64 each GO of all of them
    # through ftrace's direct calls once left 260 MB of slab behind for
    # good (6.1's direct-call hash, XDT_TRAMP_MAX in arch/x86_64/isa.h)
    grown = unreclaimable_slab_kb(xdt) - slab0
    assert grown < 32 * 1024, f"unreclaimable slab grew by {grown} kB"


def unreclaimable_slab_kb(vm):
    """SUnreclaim: the slab the kernel cannot give back under pressure.
    (What RCU frees a grace period later is a few MB at most, well inside
    the bound above, so nothing waits for it.)"""
    m = re.search(r"SUnreclaim:\s+(\d+) kB",
                  vm.run("cat /proc/meminfo", check=True).stdout)
    return int(m.group(1))


def load_hello(vm):
    import os
    ko = os.path.join(xdtvm.build_dir(vm.isa), "modules", "xdt_hello",
                      "xdt_hello.ko")
    vm.put(ko, "/tmp/xdt_hello.ko")
    vm.run("rmmod xdt_hello 2>/dev/null; insmod /tmp/xdt_hello.ko",
           check=True)


def script(vm, name, text):
    """A shell script in the guest, for dtrace -c (which, like DTrace's,
    splits its argument on blanks and does no shell quoting)."""
    path = f"/tmp/{name}.sh"
    vm.put(text.encode(), path, mode="755")
    return f"sh {path}"


@pytest.mark.parametrize("name", ["entry", "return"])
def test_stack_shows_the_known_call_chain(xdt, name):
    """stack() at xdt_hello_c (called as chain_set -> a -> b -> c when the
    module's `chain` parameter is written): frame-pointer unwinding in the
    kernel, symbolised by the consumer from /proc/kallsyms.  The innermost
    frames are the callers, innermost first, each inside the function it is
    named after; the write(2) that set it off is further out, in vmlinux."""
    load_hello(xdt)
    try:
        r = dtrace(xdt, "-qn", f"fbt:xdt_hello:xdt_hello_c:{name} "
                   "{ stack(); }", "-c", script(
                       xdt, "chain",
                       "echo 4 > /sys/module/xdt_hello/parameters/chain\n"))
        assert r.ok, r
        frames = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
        assert [f.split("+")[0] for f in frames[:3]] == [
            "xdt_hello`xdt_hello_b", "xdt_hello`xdt_hello_a",
            "xdt_hello`chain_set"], r.stdout
        for f in frames[:3]:
            assert re.fullmatch(r"\S+`\w+\+0x[0-9a-f]+", f), r.stdout
        kernel = [f.split("+")[0] for f in frames[3:]]
        assert "kernel`vfs_write" in kernel, r.stdout
        value = xdt.run(["cat", "/sys/module/xdt_hello/parameters/chain"])
        assert value.stdout.strip() == "7"
    finally:
        xdt.run(["rmmod", "xdt_hello"])


def test_arguments_in_registers_and_on_the_stack(xdt):
    """arg0..arg9 at fbt entry of a ten-argument function (x86_64 passes
    six in registers, arm64 and riscv64 eight: the rest come from the
    stack, loaded only when a clause reads them), and the return value as
    arg1 at return."""
    load_hello(xdt)
    try:
        r = dtrace(xdt, "-qn", "fbt:xdt_hello:xdt_hello_args:entry "
                   "{ printf(\"last %d\\n\", arg9); } "
                   "fbt:xdt_hello:xdt_hello_args:entry "
                   "{ printf(\"%d %d %d %d %d %d %d %d %d %d\\n\", arg0, "
                   "arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9); } "
                   "fbt:xdt_hello:xdt_hello_args:return "
                   "{ printf(\"rv %d\\n\", arg1); }",
                   "-c", script(xdt, "args", "echo 100 > "
                                "/sys/module/xdt_hello/parameters/args\n"))
        assert r.ok, r
        want = " ".join(str(100 + i) for i in range(10))
        rv = 0
        for i in range(10):
            rv ^= 100 + i
        assert [ln.strip() for ln in r.stdout.splitlines() if ln.strip()] \
            == ["last 109", want, f"rv {rv}"], r.stdout
    finally:
        xdt.run(["rmmod", "xdt_hello"])


def test_stack_as_aggregation_key(xdt):
    load_hello(xdt)
    try:
        r = dtrace(xdt, "-qn", "fbt:xdt_hello:xdt_hello_c:entry "
                   "{ @[stack(3), probename] = count(); }", "-c", script(
                       xdt, "chain5", "for i in 1 2 3 4 5; do echo $i > "
                       "/sys/module/xdt_hello/parameters/chain; done\n"))
        assert r.ok, r
        lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
        assert [ln.split("+")[0] for ln in lines[:3]] == [
            "xdt_hello`xdt_hello_b", "xdt_hello`xdt_hello_a",
            "xdt_hello`chain_set"], r.stdout
        assert lines[3].split() == ["entry", "5"], r.stdout
    finally:
        xdt.run(["rmmod", "xdt_hello"])


def test_broad_enabling_of_a_subsystem(xdt, gdb):
    """fbt::vfs_*: -- every entry and return site of the VFS layer at
    once -- under a file-reading workload: no oops
    (the console watch), every count non-zero where the workload must pass,
    and afterwards the text of every probed function equals the text
    before, byte for byte, as gdb reads it."""
    r = dtrace(xdt, "-l", "-n", "fbt::vfs_*:")
    assert r.ok, r
    funcs = sorted({ln.split()[3] for ln in r.stdout.splitlines()[1:]})
    assert len(funcs) > 20, r.stdout
    sizes = xdtvm.elf_function_sizes(xdtvm.vmlinux(xdt.isa))
    before = gdb.read_many({f: sizes[f] for f in funcs})
    # wc's own reads pair up exactly; other tasks' need not (the agent sits
    # in a read that began before tracing did and returns during it).
    r = dtrace(xdt, "-qn", "fbt::vfs_*: { @[probefunc, probename] = count(); }"
               " fbt::vfs_read:entry,fbt::vfs_read:return /execname == \"wc\"/"
               " { @wc[probename] = count(); }",
               # (one pass: a recursive listing of /sys/kernel, three
               # times, was a minute per ISA of the same few vfs_* calls)
               "-c", script(xdt, "vfsload", "for i in 1; do "
                            "wc -c /proc/version /proc/cpuinfo >/dev/null; "
                            "ls -l /sys/kernel /proc/self >/dev/null; "
                            # Namespace operations, so the variety of
                            # vfs_* that fire does not hang on whether
                            # ls happened to automount tracefs.
                            "mkdir /tmp/vd; echo x > /tmp/vd/f; "
                            "ln /tmp/vd/f /tmp/vd/h; ln -s f /tmp/vd/s; "
                            "readlink /tmp/vd/s >/dev/null; "
                            "mv /tmp/vd/h /tmp/vd/g; rm /tmp/vd/*; "
                            "rmdir /tmp/vd; done\n"),
               timeout=300)
    assert r.ok, r
    got = {(m.group(1), m.group(2)): int(m.group(3)) for m in re.finditer(
        r"^\s+(\w+)\s+(entry|return)\s+(\d+)\s*$", r.stdout, re.M)}
    # The workload opens, reads, stats, makes and removes files: those must
    # have fired (which other vfs_* run depends on the ISA's inlining).
    for f in ("vfs_read", "vfs_open", "vfs_fstatat", "vfs_mkdir",
              "vfs_unlink", "vfs_rename", "vfs_rmdir"):
        assert got.get((f, "entry"), 0) > 0, (f, r.stdout)
    assert len({f for f, _ in got}) >= 10, r.stdout
    wc = dict(re.findall(r"^\s+(entry|return)\s+(\d+)\s*$", r.stdout, re.M))
    assert wc and wc.get("entry") == wc.get("return"), r.stdout
    after = gdb.read_many({f: sizes[f] for f in funcs})
    assert [f for f in funcs if after[f] != before[f]] == []


def test_fbt_coverage_and_refusals(xdt):
    """How much of the kernel fbt covers on this ISA, and why the rest is
    refused (from `dtrace -l -v`, the list a user sees).  Every refusal has
    a reason, and the reasons are the ones the code gives."""
    from collections import Counter
    from conftest import REPORT
    r = dtrace(xdt, "-l", "-v", "-n", "fbt:kernel::", timeout=600)
    assert r.ok, r.stderr[-500:]
    probes, funcs, refused = 0, set(), Counter()
    for ln in r.stdout.splitlines()[1:]:
        if not ln or ln.startswith("\t"):
            continue  # a probe's "Argument Types" block
        m = re.search(r"\(refused: (.*)\)$", ln)
        if m:
            refused[m.group(1)] += 1
        else:
            probes += 1
            funcs.add(ln.split()[3])
    assert probes > 15000 and len(funcs) > 7000, (probes, len(funcs))
    known = ("noinstr text", "entry text", "kprobes text", "irqentry text",
             "softirqentry text", "cpuidle text", "kprobes blacklist",
             "xdt's own kernel hook", "ftrace owns the entry site",
             "no ftrace NOP", "no ftrace nops", "text not readable",
             "too small or misaligned", "too many sites",
             "first instruction does not decode", "no patchable site",
             "kernel checker's runtime", "ftrace's entry code",
             # ppc64le: a return or tail call counting down CTR (bdnzlr)
             "CTR-decrementing return")
    odd = [w for w in refused if not w.startswith(known)]
    assert odd == [], odd
    # ftrace copies (x86_64) and rewrites its entry code: a breakpoint
    # there trapped in a copy xdt does not own and stopped the machine
    assert "ftrace_caller" not in funcs and not any(
        f.startswith("ftrace_regs_caller") for f in funcs), r.stdout[-300:]
    caller = re.search(r"\sftrace_caller - \(refused: (.*)\)$",
                       r.stdout, re.M)
    assert caller, "ftrace_caller is neither a probe nor refused"
    # (aarch64's walker refused it before: no ftrace NOP; the name comes first now)
    assert caller.group(1).startswith("ftrace's entry code"), caller.group(0)
    top = ", ".join(f"{w} {n}" for w, n in refused.most_common(4))
    REPORT.append(f"xdt fbt coverage {xdt.isa}: {probes} probes on "
                  f"{len(funcs)} vmlinux functions; {sum(refused.values())} "
                  f"refused ({top})")


def test_notrace_function_gets_the_isa_fallback(xdt):
    """__do_sys_newuname is `inline` in the source, which the kernel makes
    notrace: no ftrace site.  x86_64 patches its `push %rbp`, riscv64 its
    frame-opening `c.addi16sp` (both emulated, exact counts); aarch64
    refuses it, saying why (its EL1 trap frame rules out emulating a
    prologue; see arch/aarch64/fbt_isa.c), and so does ppc64le (its
    notrace files are where tracing is unsafe: arch/ppc64le/fbt_isa.c)."""
    if xdt.isa in ("aarch64", "ppc64le"):
        r = dtrace(xdt, "-l", "-v", "-n", "fbt::__do_sys_newuname:")
        assert "refused: no ftrace NOP at entry" in r.stdout, r
        return
    r = dtrace(xdt, "-qn", "fbt::__do_sys_newuname:entry,"
               "fbt::__do_sys_newuname:return /execname == \"uname\"/ "
               "{ @[probename] = count(); }", "-c",
               script(xdt, "uname5",
                      "for i in 1 2 3 4 5; do uname >/dev/null; done\n"))
    assert r.ok, r
    got = dict(re.findall(r"^\s+(entry|return)\s+(\d+)\s*$", r.stdout, re.M))
    assert got == {"entry": "5", "return": "5"}, r.stdout


def test_unaligned_load_faults_where_dtrace_does(xdt):
    """DTrace checks the alignment of DIF loads everywhere but x86; the
    ISA's layer says which (arch/<isa>/isa.h, XDT_UNALIGNED_LOADS)."""
    import os
    with open(os.path.join(xdtvm.TOP, "arch", xdtvm.ISAS[xdt.isa]["dir"],
                           "isa.h")) as f:
        ok = int(re.search(r"#define XDT_UNALIGNED_LOADS\s+(\d)", f.read()).group(1))
    r = dtrace(xdt, "-qn", "int a[2]; BEGIN { a[0] = 0x12345678; "
               "a[1] = 0x9abcdef0; printf(\"%x\\n\", *(int *)((char *)&a[0] + 2)); } "
               "BEGIN { exit(0); }")
    assert r.ok, r
    if ok:
        assert r.stdout.split() == ["def01234"], r.stdout
    else:
        assert "invalid alignment (0x" in r.stderr and r.stdout.strip() == "", r


def test_caller_and_stackdepth_agree_with_stack(xdt):
    """caller is stack()'s first frame, stackdepth its number of frames
    (the same walk), at an fbt entry."""
    r = dtrace(xdt, "-qn", "fbt::vfs_read:entry /pid == $target/ "
               '{ printf("K %a %d\\n", caller, stackdepth); stack(); }',
               "-c", "wc -c /proc/version")
    assert r.ok, r
    blocks = re.findall(r"^K (\S+) (\d+)\n\n((?: {14}\S+\n)+)", r.stdout, re.M)
    assert blocks, r.stdout
    for caller, depth, st in blocks:
        fr = st.split()
        assert fr[0] == caller and int(depth) == len(fr), r.stdout


def test_ipl_is_what_the_cpu_serves(xdt):
    """ipl, Linux's meaning (docs/d-language.md): 0 in a task, 1 in a
    softirq, 2 in a hardware interrupt -- whichever fbt mechanism fires
    (x86_64's exc_int3 counts a kernel breakpoint as an NMI; xdt takes
    that level off for its own)."""
    for mode in ("breakpoint", "trampoline")[:1 + xdtvm.HAVE_TRAMP[xdt.isa]]:
        r = dtrace(xdt, "-x", f"fbtmode={mode}", "-qn",
                   'fbt::vfs_read:entry /pid == $target/ '
                   '{ @[probefunc, ipl] = count(); } '
                   'fbt::run_timer_softirq:entry '
                   '{ @[probefunc, ipl] = count(); } '
                   'profile-997 { @["profile", ipl] = count(); } '
                   'END { printa("%s %u %@u\\n", @); }',
                   "-c", script(xdt, "ipl", "sleep 2; exec wc -c "
                                "/proc/version\n"))
        assert r.ok, r
        got = collections.defaultdict(set)
        for fn, ipl, _ in re.findall(r"^(\S+) (\d+) (\d+)$", r.stdout, re.M):
            got[fn].add(int(ipl))
        assert got == {"vfs_read": {0}, "run_timer_softirq": {1},
                       "profile": {2}}, (mode, r.stdout)


def test_d_path_cwd_root_and_fds_walk_mounts(xdt):
    """d_path() (Oracle's subroutine), the cwd and root inlines and
    fileinfo_t's fi_pathname: a lock-free walk of d_parent and of the
    mounts (docs/d-language.md).  The target works in a directory below a
    tmpfs mounted for the test, so the walk must cross a mount; a tiny
    strsize keeps the path's first strsize - 1 characters; a bad pointer
    is an ERROR, not a fault of the kernel."""
    d = "/tmp/xdt-dpath/mnt"
    r = xdt.run(f"mkdir -p {d} && mount -t tmpfs none {d} && "
                f"mkdir -p {d}/sub/dir && echo hi > {d}/sub/dir/f")
    assert r.ok, r
    try:
        cmd = script(xdt, "dpath", f"cd {d}/sub/dir && exec cat f\n")
        r = dtrace(xdt, "-qn",
                   'syscall::openat:return /pid == $target && '
                   '(int)arg1 >= 0 && fds[arg1].fi_name == "f"/ '
                   '{ printf("cwd=%s root=%s path=%s dir=%s\\n", cwd, '
                   'root, fds[arg1].fi_pathname, fds[arg1].fi_dirname); }',
                   "-c", cmd)
        assert r.ok, r
        assert f"cwd={d}/sub/dir root=/ path={d}/sub/dir/f " \
            f"dir={d}/sub/dir\n" in r.stdout, r.stdout
        r = dtrace(xdt, "-qx", "strsize=16", "-n",
                   'syscall::openat:return /pid == $target && '
                   '(int)arg1 >= 0 && fds[arg1].fi_name == "f"/ '
                   '{ printf("[%s]\\n", cwd); exit(0); }',
                   "-c", cmd)
        assert r.ok, r
        assert f"[{d}/sub/dir"[:16] + "]\n" in r.stdout, r.stdout
        r = dtrace(xdt, "-qn", 'BEGIN { trace(d_path((struct path *)8)); } '
                   'BEGIN { exit(0); }')
        assert r.ok and re.search(r"invalid address \(0x8\)", r.stderr), r
    finally:
        xdt.run(f"umount {d}")


def test_x_cpu_runs_one_cpus_firings(xdt):
    """-x cpu=N, DTrace's option: only CPU N's firings run the clauses
    (profile-997 fires on every CPU; without the option both of the
    guest's CPUs count), BEGIN and END still run wherever the consumer
    is, and a CPU the machine does not have is refused at enabling."""
    prog = ('profile-997 { @[cpu] = count(); } '
            'END { printa("%d %@d\\n", @); }')
    for opt, want in ((None, {0, 1}), ("cpu=0", {0}), ("cpu=1", {1})):
        args = (["-x", opt] if opt else []) + ["-qn", prog, "-c", "sleep 1"]
        r = dtrace(xdt, *args)
        assert r.ok, r
        got = {int(c) for c, n in re.findall(r"^(\d+) (\d+)$", r.stdout, re.M)
               if int(n) > 0}
        assert got == want, (opt, r.stdout)
    r = dtrace(xdt, "-x", "cpu=64", "-qn", "BEGIN { exit(0); }")
    assert not r.ok and "cpu 64: no such CPU" in r.stderr, r


def test_x_cpu_allocates_one_cpus_buffers(xdt):
    """-x cpu=N allocates the principal, aggregation and speculation
    buffers of CPU N only, as DTrace does: the kernel's vmalloc'd memory
    while the program runs (/proc/meminfo's VmallocUsed, read by BEGIN's
    system()) grows by one CPU's worth, not one per CPU.  Each buffer is
    past kmalloc's largest (8 MiB where that is 4 MiB; ppc64's 4K-page
    kernel has MAX_ORDER 13, a 16 MiB kmalloc), so every buffer is
    vmalloc'd: per CPU two principal buffers, two aggregation arenas and
    one speculation buffer.  BEGIN's and END's records land in CPU N's
    buffer."""
    mib = 1 << 20
    # kmalloc's largest: PAGE_SIZE << (MAX_ORDER - 1), MAX_ORDER being the
    # number of orders /proc/buddyinfo counts ("Node 0, zone Normal ...").
    r = xdt.run("awk '/^KernelPageSize:/ { print $2 * 1024; exit }' "
                "/proc/self/smaps; awk '{ print NF - 4; exit }' "
                "/proc/buddyinfo", check=True)
    page, orders = map(int, r.stdout.split())
    size = max(8, (page << (orders - 1)) // mib + 1)
    per_cpu = 5 * size * mib
    prog = ('BEGIN { system("grep VmallocUsed /proc/meminfo"); '
            '@a[1] = count(); s = speculation(); } '
            'BEGIN { speculate(s); printf("spec\\n"); } '
            'BEGIN { commit(s); } '
            'END { printa("agg %@d\\n", @a); }')

    def used():
        r = xdt.run("grep VmallocUsed /proc/meminfo", check=True)
        return int(r.stdout.split()[1]) * 1024

    grew = {}
    for opt in (None, "cpu=1"):
        args = (["-x", opt] if opt else []) + [
            "-x", f"bufsize={size}m", "-x", f"aggsize={size}m",
            "-x", f"specsize={size}m",
            "-wqn", prog, "-c", "sleep 1"]
        before = used()
        r = dtrace(xdt, *args)
        assert r.ok, r
        m = re.search(r"VmallocUsed:\s+(\d+) kB", r.stdout)
        assert m, r.stdout
        assert "spec\n" in r.stdout and "agg 1\n" in r.stdout, r.stdout
        grew[opt] = int(m.group(1)) * 1024 - before
    ncpus = int(xdt.run("nproc", check=True).stdout)
    assert ncpus >= 2
    # one CPU's buffers, give or take what else the kernel vmallocs
    assert abs(grew["cpu=1"] - per_cpu) < per_cpu // 8, grew
    assert abs(grew[None] - grew["cpu=1"] - (ncpus - 1) * per_cpu) < \
        per_cpu // 4, grew


def test_x_temporal_orders_records_across_cpus(xdt):
    """-x temporal (illumos' option): the CPUs' records come out in time
    order -- each carries its firing's timestamp (hidden, first in the
    record), the consumer merges the CPUs' buffers and holds back what
    a later read could still precede.  profile-4999 fires on both of the
    guest's CPUs; each record prints the firing's own timestamp (fixed
    for the firing), which must never go backwards, with END last.
    Without the option the same records come CPU by CPU per read, which
    the check must be able to tell: it does go backwards there."""
    prog = ('profile-4999 { printf("%d %d\\n", cpu, timestamp); } '
            'END { printf("end %d\\n", timestamp); }')

    def stamps(*opts):
        r = dtrace(xdt, *opts, "-qn", prog, "-c", "sleep 2")
        assert r.ok, r
        lines = r.stdout.split("\n")
        rows = [tuple(map(int, ln.split())) for ln in lines
                if re.match(r"^\d+ \d+$", ln)]
        return r, rows
    r, rows = stamps("-x", "temporal")
    ts = [t for _, t in rows]
    assert {c for c, _ in rows} == {0, 1}, r.stdout[-500:]
    assert ts == sorted(ts), "not in time order"
    end = int(re.search(r"^end (\d+)$", r.stdout, re.M).group(1))
    assert r.stdout.rstrip().split("\n")[-1].startswith("end") and \
        end >= ts[-1], r.stdout[-300:]
    r, rows = stamps()
    ts = [t for _, t in rows]
    assert ts != sorted(ts), "per-CPU order happened to be time order"


def test_i_enables_a_probe_by_its_id(xdt):
    """dtrace -i probe-id [[predicate] action] (DTrace's flag): the probe
    whose ID `dtrace -l` shows, with the text after the ID as its clause;
    -l -i lists it; an ID no probe has is an error."""
    r = dtrace(xdt, "-l", "-n", "fbt::read_zero:entry")
    assert r.ok, r
    pid = int(r.stdout.splitlines()[1].split()[0])
    r = dtrace(xdt, "-qi", f"{pid} {{ @ = count(); }} ",
               "-c", "dd if=/dev/zero of=/dev/null bs=1 count=7")
    assert r.ok and re.search(r"^\s+7\s*$", r.stdout, re.M), r
    r = dtrace(xdt, "-l", "-i", str(pid))
    assert r.ok and re.search(rf"^\s*{pid}\s+fbt\s+\S+\s+read_zero\s+entry$",
                              r.stdout, re.M), r
    r = dtrace(xdt, "-i", "999999999")
    assert not r.ok and "invalid probe identifier 999999999" in r.stderr, r


def test_output_that_cannot_be_written_ends_the_drain(xdt):
    """printa() of an aggregation keyed by rand() at 1 kHz prints output
    quadratic in time: with its reader gone (SIGPIPE ignored, as a
    daemon's is) dtrace stops at the first write that fails, says why and
    exits 1, rather than format the rest of a full buffer for nothing --
    the aarch64 debug soak's three "hung (watchdog)" programs were this
    kind; xdt-dfuzz now gives every program an output budget and counts
    it cut."""
    prog = ("profile-1ms { @[rand()] = count(); printa(@); } "
            "tick-1ms { @[rand()] = count(); printa(@); }")
    r = xdt.run(["sh", "-c", "trap '' PIPE; (dtrace -q -x switchrate=1ms "
                 f"-x aggrate=1ms -n '{prog}'; echo rc=$? >&2) "
                 "| head -c 200000 >/dev/null"], timeout=180)
    assert r.ok, r
    assert "dtrace: failed to write output: Broken pipe" in r.stderr, r
    assert "rc=1" in r.stderr, r
    # the fuzzer's budget: a program printing without bound is cut, and
    # that is not a failure
    # (program 676 of seed 20261342 on aarch64, its core kept as a file:
    # a seed's programs differ by ISA)
    xdt.put(("this int64_t l0;\n"
             "ERROR { @a0[this->l0, lltostr(rand())] = count(); stack(); printa(@a0); }\n"
             "profile-1ms { @a0[this->l0, copyinstr(0)] = count(); exit(0); }\n"
             ).encode(), "/tmp/p676.d")
    r = xdt.run(["xdt-dfuzz", "-B", "-f", "/tmp/p676.d", "-n", "1"], timeout=300)
    assert r.ok, r
    m = re.search(r"output cut at 4 MiB (\d+)", r.stdout)
    assert m and int(m.group(1)) == 1, r.stdout
