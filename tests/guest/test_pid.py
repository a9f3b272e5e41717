"""The pid provider (providers/pid.c, libxdt/uproc.c) in a booted guest:
exact counts, arguments and return values against guest/xdt-utarget.c,
whose calls are known; a forked child not traced; -c and -p; two
consumers on one process; probes gone with the process; and the bad
inputs, each with its message."""
import json
import os
import re
import struct
import subprocess
import time

import pytest

import xdtelf
import xdtvm
from test_privileges import UID, as_user, dtrace_as, runas  # noqa: F401
from test_xdt_kernel import xdt  # noqa: F401

UT = "/tmp/xdt-utarget"


def dtrace(vm, *args, timeout=180):
    return vm.run(["dtrace", *args], timeout=timeout)


def ut_build(isa):
    return os.path.join(xdtvm.build_dir(isa), "xdt-utarget")


@pytest.fixture
def ut(xdt):
    """The freshly built target in the guest (the initramfs has one too, as
    of when it was made)."""
    xdt.put(ut_build(xdt.isa), UT, mode="755")
    return xdt


def funcs_of(path):
    """{name: (address, size)} of the FUNC symbols of an ELF64 LE file."""
    data, secs = xdtelf._elf64(path)
    out = {}
    for s in secs:
        if s[1] != 2:
            continue
        stroff = secs[s[6]][4]
        for off in range(s[4] + 24, s[4] + s[5], 24):
            name, info, _, _, value, size = struct.unpack_from(
                "<IBBHQQ", data, off)
            if info & 0xf == 2:
                end = data.index(b"\0", stroff + name)
                out[data[stroff + name:end].decode()] = (value, size)
    return out


def aggs(stdout):
    """{key: value} of a one-key count() aggregation's lines."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^\s+(\S+)\s+(-?\d+)\s*$", stdout, re.M)}


def test_entry_probes_count_every_call(ut):
    r = dtrace(ut, "-n", "pid$target::ut_*:entry { @[probefunc] = count(); }",
               "-c", f"{UT} calls 7")
    assert r.ok, r
    assert "matched 3 probes" in r.stderr, r.stderr
    assert aggs(r.stdout) == {"ut_mid": 7, "ut_leaf": 14, "ut_args8": 1}, \
        r.stdout
    assert "sum 617" in r.stdout, r.stdout


def test_every_entry_probe_of_a_program(ut):
    """Every function's entry probe at once (1100-odd in the static
    target): functions whose first instruction 6.1's uprobes will not take
    (x86's AVX2 string functions begin with vpxor or vmovd, riscv's stubs
    with c.jr) get no probe -- refused, with the reason in dtrace -l -v --
    instead of failing the whole enabling at GO."""
    r = dtrace(ut, "-n", "pid$target:::entry { @ = count(); }",
               "-c", f"{UT} calls 3", timeout=600)
    assert r.ok, r
    m = re.search(r"matched (\d+) probes", r.stderr)
    assert m and int(m.group(1)) > 500, r.stderr
    assert int(r.stdout.split()[-1]) > 50, r.stdout


def test_arguments_and_return_values(ut):
    """Every call of ut_leaf(a, b) with its arguments, and every return
    with a * 10 + b, in call order (by timestamp: the records of a thread
    that moved to another CPU come out in that CPU's buffer, as DTrace's
    do)."""
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry "
               '{ printf("%d E %d %d\\n", timestamp, arg0, arg1); } '
               "pid$target::ut_leaf:return "
               '{ printf("%d R %d\\n", timestamp, arg1); }',
               "-c", f"{UT} calls 3")
    assert r.ok, r
    got = [ln.split(" ", 1) for ln in r.stdout.splitlines()
           if re.match(r"\d+ [ER] ", ln)]
    got = [t for _, t in sorted(got, key=lambda x: int(x[0]))]
    want = []
    for i in range(1, 4):
        for b in (1, 2):
            want += [f"E {i} {b}", f"R {i * 10 + b}"]
    assert got == want, r.stdout


def test_arguments_past_the_registers(ut):
    """ut_args8(1, ..., 8): x86_64 passes 7 and 8 on the stack."""
    r = dtrace(ut, "-qn", "pid$target::ut_args8:entry { printf(\"A %d %d "
               "%d %d %d %d %d %d\\n\", arg0, arg1, arg2, arg3, arg4, arg5, "
               "arg6, arg7); }", "-c", f"{UT} calls 1")
    assert r.ok, r
    assert "A 1 2 3 4 5 6 7 8" in r.stdout.splitlines(), r.stdout


def test_return_probe_arg0_is_the_return_address(ut):
    """uretprobes do not know the returning instruction: arg0 is where the
    function returns to -- in ut_mid, for ut_leaf (docs/d-language.md)."""
    fn = funcs_of(ut_build(ut.isa))
    lo, size = fn["ut_mid"]
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:return "
               '{ printf("X %x\\n", arg0); }', "-c", f"{UT} calls 2")
    assert r.ok, r
    xs = [int(ln.split()[1], 16) for ln in r.stdout.splitlines()
          if ln.startswith("X ")]
    assert len(xs) == 4 and all(lo < x < lo + size for x in xs), \
        (r.stdout, hex(lo), size)


def test_forked_child_is_not_traced(ut):
    """The child calls ut_leaf 5 times, the parent 3: only the parent's."""
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry { @ = count(); }",
               "-c", f"{UT} fork 5")
    assert r.ok, r
    assert re.search(r"^\s+3\s*$", r.stdout, re.M), r.stdout


def test_module_names(ut):
    """The executable by its base name and as a.out; a glob."""
    for mod in ("xdt-utarget", "a.out", "xdt-*"):
        r = dtrace(ut, "-qn", f"pid$target:{mod}:ut_mid:entry "
                   "{ @ = count(); }", "-c", f"{UT} calls 4")
        assert r.ok, (mod, r)
        assert re.search(r"^\s+4\s*$", r.stdout, re.M), (mod, r.stdout)


def test_list_shows_entry_and_return(ut):
    r = ut.run(f"{UT} wait calls 1 & p=$!; sleep 0.5; "
               f"dtrace -l -n pid$p::ut_leaf:; kill -USR1 $p; wait", timeout=120)
    assert r.ok, r
    rows = [ln.split() for ln in r.stdout.splitlines() if "ut_leaf" in ln]
    assert [(m, f, n) for _, _, m, f, n in rows[:2]] == [
        ("xdt-utarget", "ut_leaf", "entry"),
        ("xdt-utarget", "ut_leaf", "return")], r.stdout
    # then its instructions, by their offsets (test_offset_probes_... has
    # the exact set)
    assert all(int(n, 16) in objdump_offsets(ut.isa, "ut_leaf")
               for _, _, _, _, n in rows[2:]) and rows[2:], r.stdout


def start_waiting(vm, name, runas=None):
    """xdt-utarget waiting for SIGUSR1 in the background: its pid."""
    pre = f"{runas} {UID} {UID} none " if runas else ""
    vm.run(f"rm -f /tmp/{name}.ut; {pre}{UT} wait calls 4 > /tmp/{name}.ut "
           "2>&1 &", check=True)
    r = vm.run(f"while ! grep -q waiting /tmp/{name}.ut; do sleep 0.1; done; "
               f"cat /tmp/{name}.ut", timeout=60, check=True)
    return int(r.stdout.split()[1])


def wait_tracing(vm, n):
    """Until @n consumers are past GO (/sys/module/xdt/parameters/tracing)."""
    vm.run(f"while [ $(cat /sys/module/xdt/parameters/tracing) -lt {n} ]; do "
           "sleep 0.1; done", timeout=120, check=True)


def test_dtrace_p_and_two_consumers_on_one_process(ut):
    """dtrace -p on a running process, twice at once: each consumer sees
    every call; both end when it exits."""
    pid = start_waiting(ut, "twop")
    prog = "pid$target::ut_mid:entry { @ = count(); }"
    for k in (1, 2):
        ut.run(f"dtrace -qn '{prog}' -p {pid} > /tmp/twop{k}.out 2>&1 &",
               check=True)
    wait_tracing(ut, 2)
    ut.run(["kill", "-USR1", str(pid)], check=True)
    ut.run("while pidof dtrace >/dev/null; do sleep 0.2; done", timeout=120,
           check=True)
    for k in (1, 2):
        out = ut.run(["cat", f"/tmp/twop{k}.out"], check=True).stdout
        assert re.search(r"^\s+4\s*$", out, re.M), (k, out)
        assert f"pid {pid} has exited" in out, out


def test_probes_go_with_the_process(ut):
    r = dtrace(ut, "-qn", "pid$target::ut_mid:entry { @ = count(); }",
               "-c", f"{UT} calls 2")
    assert r.ok, r
    pid = re.search(r"pid (\d+) has exited", r.stderr).group(1)
    # a glob names only probes that exist: none of a process that is gone
    # (the provider goes from a work item queued when the process exits)
    deadline = time.time() + 30
    while True:
        r = dtrace(ut, "-l", "-n", f"pid{pid[:-1]}*:::")
        if f"pid{pid} " not in r.stdout or time.time() > deadline:
            break
        time.sleep(0.5)
    assert f"pid{pid} " not in r.stdout, r.stdout


# The tag is DTrace's for the same failure under -x errtags (illumos
# dt_pid.c); a module that is not there, or a function that is not in any
# module, is no pid error in DTrace, the description just matches nothing
# (D_PDESC_ZERO); one function in one module named is D_PROC_FUNC.
@pytest.mark.parametrize("desc,why,tag", [
    ("pid999999:::entry", "failed to grab pid 999999: No such process",
     "D_PROC_GRAB"),
    ("pid$target:nosuch::entry", "has no module matching 'nosuch'",
     "D_PDESC_ZERO"),
    ("pid$target::no_such_function:entry", "does not match any probes",
     "D_PDESC_ZERO"),
    ("pid$target:a.out:no_such_function:entry",
     "failed to lookup 'no_such_function' in module 'xdt-utarget'",
     "D_PROC_FUNC"),
    ("pid$target::ut_leaf:1", "0x1 is not an instruction boundary",
     "D_PROC_ALIGN"),
    ("pid$target::ut_leaf:fff0", "0xfff0 is past the function's end",
     "D_PROC_OFF"),
    ("pid$target::ut_leaf:nosuch", "a pid provider probe is entry, return "
     "or an instruction offset in hex", "D_PROC_NAME"),
])
def test_bad_descriptions_are_clear_errors(ut, desc, why, tag):
    r = dtrace(ut, "-n", f"{desc} {{ @ = count(); }}", "-c", f"{UT} calls 1")
    assert r.code == 1, r
    assert why in r.stderr, r.stderr
    assert "[D_" not in r.stderr, r.stderr
    assert "sum " not in r.stdout, "the command ran: " + r.stdout
    r = dtrace(ut, "-x", "errtags", "-n", f"{desc} {{ @ = count(); }}",
               "-c", f"{UT} calls 1")
    assert r.code == 1, r
    # where the description is, as DTrace's dt_pid_error() says it
    assert re.search(rf": \[{tag}\] line 1:1: ", r.stderr), r.stderr
    assert why in r.stderr, r.stderr


def test_stripped_binary_says_so(ut, isa):
    cross = xdtvm.ISAS[isa]["cross"]
    out = ut_build(isa) + ".stripped"
    subprocess.run([f"{cross}strip", "-o", out, ut_build(isa)], check=True)
    ut.put(out, "/tmp/xdt-ustripped", mode="755")
    r = dtrace(ut, "-n", "pid$target::ut_leaf:entry { @ = count(); }",
               "-c", "/tmp/xdt-ustripped calls 1")
    assert r.code == 1, r
    assert "no symbol table in the matching module (stripped?)" in r.stderr, \
        r.stderr
    r = dtrace(ut, "-x", "errtags", "-n",
               "pid$target::ut_leaf:entry { @ = count(); }",
               "-c", "/tmp/xdt-ustripped calls 1")
    assert r.code == 1 and ": [D_PDESC_ZERO] line 1:1: " in r.stderr, r.stderr


def test_another_users_process_is_refused(ut, runas):
    """uid 1000's process: a CAP_PERFMON consumer of another uid may not
    trace it; uid 1000 itself with CAP_PERFMON may; root may."""
    pid = start_waiting(ut, "other", runas=runas)
    prog = "pid$target::ut_mid:entry { @ = count(); }"
    try:
        r = ut.run([runas, "1001", "1001", "perfmon", "dtrace", "-qn", prog,
                    "-p", str(pid)], timeout=120)
        assert r.code == 1 and "permission denied" in r.stderr, r
        r = ut.run(f"dtrace -qn '{prog}' -p {pid} > /tmp/other.out 2>&1 & "
                   f"{runas} {UID} {UID} perfmon dtrace -qn '{prog}' -p {pid} "
                   f"> /tmp/other1000.out 2>&1 &", timeout=60)
        assert r.ok, r
        wait_tracing(ut, 2)
    finally:
        ut.run(["kill", "-USR1", str(pid)])
    ut.run("while pidof dtrace >/dev/null; do sleep 0.2; done", timeout=120,
           check=True)
    for f in ("other", "other1000"):
        out = ut.run(["cat", f"/tmp/{f}.out"], check=True).stdout
        assert re.search(r"^\s+4\s*$", out, re.M), (f, out)


def frames(stdout):
    """The frames of the stacks printed, one list per stack."""
    out, cur = [], []
    for ln in stdout.splitlines():
        if ln.startswith(" " * 14) and ln.strip() and "`" in ln:
            cur.append(ln.strip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def check_frame(fn, frame, func):
    """@frame is xdt-utarget`@func(+0x...) with the offset inside it."""
    mod, _, rest = frame.partition("`")
    name, _, off = rest.partition("+")
    assert mod == "xdt-utarget" and name == func, (frame, func)
    assert int(off or "0", 16) < fn[func][1], (frame, fn[func])


def test_ustack_is_the_call_chain(ut):
    """At ut_leaf's entry, whose frame is not made yet: ut_leaf, ut_mid,
    main, each offset inside its function (the ELF's own sizes)."""
    fn = funcs_of(ut_build(ut.isa))
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry /arg1 == 2/ "
               "{ ustack(); }", "-c", f"{UT} calls 2")
    assert r.ok, r
    st = frames(r.stdout)
    assert len(st) == 2, r.stdout
    for s in st:
        for frame, func in zip(s, ("ut_leaf", "ut_mid", "main")):
            check_frame(fn, frame, func)
        assert s[0] == "xdt-utarget`ut_leaf", s


def test_ustack_at_return_and_as_a_key(ut):
    """A uretprobe's stack starts in the caller; two distinct call sites
    in ut_mid make two keys of 2 calls each; -x ustackframes bounds it."""
    fn = funcs_of(ut_build(ut.isa))
    r = dtrace(ut, "-x", "ustackframes=2", "-qn",
               "pid$target::ut_leaf:return { @[ustack()] = count(); }",
               "-c", f"{UT} calls 2")
    assert r.ok, r
    st = frames(r.stdout)
    assert len(st) == 2 and st[0] != st[1], r.stdout
    for s in st:
        assert len(s) == 2, s
        check_frame(fn, s[0], "ut_mid")
        check_frame(fn, s[1], "main")
    assert re.findall(r"^\s+(\d+)\s*$", r.stdout, re.M) == ["2", "2"], \
        r.stdout


def test_ustack_and_stack_in_one_key(ut):
    """A system call's user stack (libc's write, from main's printf)
    beside its kernel stack, in one aggregation key.  Debian's libc is
    built without frame pointers, so the walk may end at its first frame
    (docs/d-language.md): only that frame is known for sure."""
    r = dtrace(ut, "-qn", "syscall::write:entry /pid == $target/ "
               "{ @[ustack(), stack(2)] = count(); }", "-c", f"{UT} calls 1")
    assert r.ok, r
    st = frames(r.stdout)
    assert len(st) == 2, r.stdout
    assert st[0][0].startswith("xdt-utarget`") and "write" in st[0][0], st
    assert all(f.startswith("kernel`") for f in st[1]), st


def test_stack_and_ustack_in_one_key_position(ut):
    """@s[stack(2)] and @s[ustack()] in one aggregation (illumos
    printa/tst.stack.d): one key position of DTrace's "stack" type holds
    either kind, at either depth; each entry prints as its kind, in the
    default printa, through %k (whose width pads or indents), and in JSON."""
    prog = ("syscall::write:entry /pid == $target/ "
            "{ @s[stack(2)] = count(); @s[ustack()] = count(); "
            "@s[stack(1)] = count(); } "
            "END { printa(@s); printa(\"%-20k%@u\\n\", @s); }")
    r = dtrace(ut, "-qn", prog, "-c", f"{UT} calls 1")
    assert r.ok, r
    st = frames(r.stdout)
    # each printa: the user stack, the kernel's 2 frames (riscv64's walk
    # has only 2 above a system call's tracepoint), its innermost 1
    kern = [s for s in st if s[0].startswith("kernel`")]
    user = [s for s in st if s[0].startswith("xdt-utarget`")]
    assert len(kern) == 4 and len(user) == 2 and len(st) == 6, r.stdout
    assert sorted(len(s) for s in kern) == [1, 1, 2, 2], kern
    assert all(f.startswith("kernel`") for s in kern for f in s), kern
    assert all("write" in s[0] for s in user), user
    # %-20k indents each frame by the width (DTrace's left-aligned %k)
    assert re.search(r"^ {20}xdt-utarget`", r.stdout, re.M), r.stdout
    r = dtrace(ut, "-x", "oformat=json", "-qn",
               prog.split(" END")[0], "-c", f"{UT} calls 1")
    assert r.ok, r
    aggs = [o for o in map(json.loads, (ln for ln in r.stdout.splitlines()
                                        if ln.startswith("{")))
            if o["type"] == "aggregation"]
    assert len(aggs) == 1, r.stdout[-3000:]
    keys = [e["keys"][0] for e in aggs[0]["entries"]]
    assert sorted((k[0].split("`")[0], len(k)) for k in keys
                  if k[0].startswith("kernel`")) == \
        [("kernel", 1), ("kernel", 2)], keys
    assert [k for k in keys if k[0].startswith("xdt-utarget`")], keys


def objdump_offsets(isa, func):
    """The instruction offsets of @func in xdt-utarget, by binutils."""
    cross = xdtvm.ISAS[isa]["cross"]
    out = subprocess.run([f"{cross}objdump", "-d", "--no-show-raw-insn",
                          ut_build(isa)], capture_output=True, text=True,
                         check=True).stdout
    body = out.split(f"<{func}>:\n", 1)[1].split("\n\n", 1)[0]
    addrs = [int(ln.split(":")[0], 16) for ln in body.splitlines()
             if re.match(r"^\s+[0-9a-f]+:", ln)]
    return [a - addrs[0] for a in addrs]


def test_offset_probes_are_every_instruction(ut):
    """pid<PID>::ut_mid: makes entry, return and a probe at every
    instruction -- binutils' boundaries exactly, less the ones the ISA
    refuses, listed with the reason (riscv64: 6.1's uprobes reject
    compressed jumps, so ut_mid's c.ret) -- and ut_mid runs straight
    through, so each fires once per call."""
    want = objdump_offsets(ut.isa, "ut_mid")
    pid = start_waiting(ut, "offs")
    try:
        r = ut.run(["dtrace", "-l", "-v", "-n", f"pid{pid}::ut_mid:"],
                   timeout=120)
        assert r.ok, r
        made, refused = [], []
        for ln in r.stdout.splitlines():
            f = ln.split()
            if len(f) >= 5 and f[1] == f"pid{pid}" and f[4] not in (
                    "entry", "return"):
                (refused if f[0] == "-" else made).append(int(f[4], 16))
        assert sorted(made + refused) == want, (r.stdout, want)
        assert len(refused) <= 2, r.stdout
        ut.run(f"dtrace -qn 'pid$target::ut_mid: {{ @[probename] = "
               f"count(); }}' -p {pid} > /tmp/offs.out 2>&1 &", check=True)
        wait_tracing(ut, 1)
    finally:
        ut.run(["kill", "-USR1", str(pid)])
    ut.run("while pidof dtrace >/dev/null; do sleep 0.2; done", timeout=120,
           check=True)
    out = ut.run(["cat", "/tmp/offs.out"], check=True).stdout
    got = aggs(out)
    assert got.pop("entry") == 4 and got.pop("return") == 4, out
    assert sorted(int(k, 16) for k in got) == sorted(made), (out, made)
    assert set(got.values()) == {4}, out


def test_one_offset_probe(ut):
    off = objdump_offsets(ut.isa, "ut_mid")[2]
    r = dtrace(ut, "-qn", f"pid$target::ut_mid:{off:x} {{ @ = count(); }}",
               "-c", f"{UT} calls 5")
    assert r.ok, r
    assert re.search(r"^\s+5\s*$", r.stdout, re.M), r.stdout


def test_uregs(ut):
    """uregs[] by DTrace's generic names (/usr/lib/xdt/regs.d, made from
    arch/<isa>/user_isa.c's table): R_PC at ut_leaf's entry is ut_leaf's
    address; at its return R_R0 is the return value; an index the ISA
    does not have is an ERROR, and the program goes on."""
    fn = funcs_of(ut_build(ut.isa))
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry "
               '{ printf("PC %x SP %x\\n", uregs[R_PC], uregs[R_SP]); } '
               "pid$target::ut_leaf:return "
               '{ printf("R0 %d %d\\n", uregs[R_R0], arg1); }',
               "-c", f"{UT} calls 2")
    assert r.ok, r
    pcs = re.findall(r"^PC (\w+) SP (\w+)$", r.stdout, re.M)
    assert len(pcs) == 4 and all(int(pc, 16) == fn["ut_leaf"][0] and
                                 int(sp, 16) for pc, sp in pcs), r.stdout
    r0 = re.findall(r"^R0 (\d+) (\d+)$", r.stdout, re.M)
    assert len(r0) == 4 and all(a == b for a, b in r0), r.stdout
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry { trace(uregs[999]); }",
               "-c", f"{UT} calls 1")
    assert r.ok, r
    assert "illegal operation in action #1" in r.stderr, r.stderr


def test_ucaller_and_ustackdepth_agree_with_ustack(ut):
    """ucaller is ustack()'s second frame (at ut_leaf's entry, in ut_mid),
    ustackdepth its number of frames."""
    fn = funcs_of(ut_build(ut.isa))
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry /arg1 == 1/ "
               '{ printf("U %x %d\\n", ucaller, ustackdepth); ustack(); }',
               "-c", f"{UT} calls 1")
    assert r.ok, r
    m = re.search(r"^U (\w+) (\d+)$", r.stdout, re.M)
    st = frames(r.stdout)
    assert m and len(st) == 1, r.stdout
    lo, size = fn["ut_mid"]
    assert lo < int(m.group(1), 16) < lo + size, r.stdout
    assert int(m.group(2)) == len(st[0]), r.stdout


def test_exec_ends_the_old_images_probes(ut):
    """A process's probes are its image's: after it execs (here into a
    new run of the same program), the old ones are gone -- the IDs listed
    before are not listed after -- and the new image's are made anew."""
    ut.run(f"rm -f /tmp/exec.ut; {UT} exec {UT} wait calls 1 > /tmp/exec.ut "
           "2>&1 & echo $! > /tmp/exec.pid", check=True)
    pid = ut.run(["cat", "/tmp/exec.pid"], check=True).stdout.strip()
    ut.run("while ! grep -q waiting /tmp/exec.ut; do sleep 0.1; done",
           timeout=60, check=True)
    try:
        r = dtrace(ut, "-l", "-n", f"pid{pid}::ut_leaf:entry")
        assert r.ok, r
        before = [ln.split()[0] for ln in r.stdout.splitlines()[1:]]
        assert len(before) == 1, r.stdout
        ut.run(["kill", "-USR1", pid], check=True)
        ut.run("while [ $(grep -c waiting /tmp/exec.ut) -lt 2 ]; do "
               "sleep 0.1; done", timeout=60, check=True)
        r = dtrace(ut, "-l", "-n", f"pid{pid}::ut_leaf:entry")
        assert r.ok, r
        after = [ln.split()[0] for ln in r.stdout.splitlines()[1:]]
        assert len(after) == 1 and after != before, (before, after)
        r = dtrace(ut, "-l", "-P", f"pid{pid}")
        ids = [ln.split()[0] for ln in r.stdout.splitlines()[1:]]
        assert before[0] not in ids and after[0] in ids, r.stdout
    finally:
        ut.run(["kill", "-USR1", pid])


def test_ufunc_usym_umod_uaddr(ut):
    """The four forms of a user address, as actions and as keys: at
    ut_leaf's entry ucaller is in ut_mid -- ufunc/usym name ut_mid, umod
    the program, uaddr ut_mid+off; as keys, every address in a function
    (object) aggregates under it, as DTrace's consumer makes them."""
    fn = funcs_of(ut_build(ut.isa))
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry /arg1 == 1/ "
               "{ ufunc(ucaller); usym(ucaller); umod(ucaller); "
               'uaddr(ucaller); printf("\\n"); }', "-c", f"{UT} calls 1")
    assert r.ok, r
    ln = next(ln for ln in r.stdout.splitlines() if "`" in ln).split()
    assert ln[:3] == ["xdt-utarget`ut_mid", "xdt-utarget`ut_mid",
                      "xdt-utarget"], r.stdout
    check_frame(fn, ln[3], "ut_mid")
    assert "+0x" in ln[3], r.stdout
    r = dtrace(ut, "-qn", "pid$target::ut_leaf:entry { "
               "@f[ufunc(ucaller)] = count(); @m[umod(ucaller)] = count(); "
               "@a[uaddr(ucaller)] = count(); }", "-c", f"{UT} calls 3")
    assert r.ok, r
    got = aggs(r.stdout)
    assert got.pop("xdt-utarget`ut_mid") == 6, r.stdout
    assert got.pop("xdt-utarget") == 6, r.stdout
    # two call sites in ut_mid: two uaddr keys of 3 calls each
    assert sorted(got.values()) == [3, 3], r.stdout
    for k in got:
        check_frame(fn, k, "ut_mid")
