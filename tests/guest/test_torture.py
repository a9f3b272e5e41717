"""The kinst torture module (tests/guest/modules/xdt_torture): functions in
hand-written assembly, one per instruction class kinst must relocate or
emulate, each returning a value that is only right if every instruction ran
correctly.  Here: the module has the instruction forms it promises (host
disassembly), every function returns what an independent Python model says,
and fbt sees each one as a separate, exactly-counted function.  kinst's own
tests probe every instruction of these functions.

The asm functions open with the prologue fbt's per-ISA fallback accepts
(x86 `push %rbp`, arm64 the two ftrace NOPs, riscv `addi sp, sp, -N`), so
all are fbt-probeable; each ISA's *_leaf opens without one on purpose, and
fbt's refusal reason for it is checked."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import missing

import xdtvm
from test_dtrace_guest import dtrace, script
from test_xdt_kernel import xdt  # noqa: F401  (fixture)

M = (1 << 64) - 1
D0, D1 = 0x1122334455667788, 0x0f0f0f0f0f0f0f0f
A64_LIT = 0x0123456789abcdef


def leaf(x):
    return (3 * x + 1) & M


def call_chain(x):
    """The *_call functions: leaf by direct call, by register, by pointer."""
    return ((leaf(x) ^ (leaf((x + 5) & M) << 1)) + leaf((x + 7) & M)) & M


def rol(v, n):
    return ((v << n) | (v >> (64 - n))) & M


def x86_loop(x):
    acc = 0
    for _ in range(5):
        acc = rol((acc + x) & M, 7)
    return (acc + 0x200) & M


def c_loop(x):
    acc = 0x9e3779b97f4a7c15
    for i in range((x & 7) + 1):
        acc ^= (x + i) & M
        acc = rol(acc, 5)
    return acc


# name -> model, per ISA (the debugfs `functions` file must list exactly
# these, plus xdt_torture_c_loop).
MODELS = {
    "x86_64": {
        "xdt_torture_x86_leaf": leaf,
        "xdt_torture_x86_riprel":
            lambda x: ((((D0 + x + 3) & M) ^ D1) + 0x11 + 0x1000) & M,
        "xdt_torture_x86_jmp": lambda x: (x + 0xa4) & M,
        "xdt_torture_x86_call": call_chain,
        "xdt_torture_x86_loop": x86_loop,
    },
    "aarch64": {
        "xdt_torture_a64_leaf": leaf,
        "xdt_torture_a64_adr":
            lambda x: ((((x + A64_LIT) & M) ^ D1) + D0 + 0x80) & M,
        "xdt_torture_a64_ldrlit":
            lambda x: ((((x + A64_LIT) & M) ^ 0x89abcdef) - 16) & M,
        "xdt_torture_a64_branch": lambda x: (x + 20) & M,
        "xdt_torture_a64_cbz": lambda x: (x + 1130) & M,
        "xdt_torture_a64_call": call_chain,
        "xdt_torture_a64_excl": lambda x: (x + 3 * 0x123) & M,
    },
    "riscv64": {
        "xdt_torture_rv_leaf": leaf,
        "xdt_torture_rv_auipc": lambda x: ((((x + D0) & M) ^ D1) + 0x400) & M,
        "xdt_torture_rv_branch": lambda x: (x + 5460) & M,
        "xdt_torture_rv_call": call_chain,
        "xdt_torture_rv_compressed": lambda x: leaf((x + 20) & M),
        "xdt_torture_rv_lrsc": lambda x: (x + 3 * 0x123) & M,
    },
}

# The function each ISA leaves without an fbt-acceptable first instruction,
# and what fbt says about it (arch/*/fbt_isa.c).
BARE = {
    "x86_64": ("xdt_torture_x86_leaf", "no ftrace NOP or push %rbp at entry"),
    "aarch64": ("xdt_torture_a64_leaf", "no ftrace NOP at entry"),
    "riscv64": ("xdt_torture_rv_leaf",
                "no ftrace nops or frame-opening instruction at entry"),
}

ARGS = [0, 1, 2, 41, 0x7fffffff, 0x80000000, 0xdeadbeefcafe, 1 << 63,
        M - 4, M]

DBG = "/sys/kernel/debug/xdt_torture"


def models(isa):
    return dict(MODELS[isa], xdt_torture_c_loop=c_loop)


def ko_path(isa):
    ko = os.path.join(xdtvm.build_dir(isa), "modules", "xdt_torture",
                      "xdt_torture.ko")
    assert os.path.isfile(ko), f"{ko} not built (make modules)"
    return ko


@pytest.fixture
def torture(xdt):
    xdt.put(ko_path(xdt.isa), "/tmp/xdt_torture.ko")
    xdt.run("rmmod xdt_torture 2>/dev/null; insmod /tmp/xdt_torture.ko",
            check=True)
    yield xdt
    xdt.run(["rmmod", "xdt_torture"], check=True)


def call_all(vm, calls, count=1):
    """Call each (name, arg) through debugfs in one guest command; returns
    the results in order (None where the write failed)."""
    lines = [f'echo "{n} {a} {count}" > {DBG}/call && cat {DBG}/result '
             f'|| echo FAIL' for n, a in calls]
    r = vm.run("\n".join(lines), timeout=300, check=True)
    out = r.stdout.split()
    assert len(out) == len(calls), r
    return [None if v == "FAIL" else int(v) for v in out]


# ---- host: the .ko has the instruction forms the headers promise ----------

def elf_syms(isa):
    """[(name, value, size, type, section index)] of the .ko's symtab."""
    out = subprocess.run([xdtvm.ISAS[isa]["cross"] + "readelf", "-sW",
                          ko_path(isa)], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for ln in out.splitlines():
        f = ln.split()
        if len(f) == 8 and f[0].endswith(":") and f[6].isdigit():
            syms.append((f[7], int(f[1], 16), int(f[2]), f[3], f[6]))
    return syms


def disassemble(isa):
    """{function: [(offset, size, mnemonic, operands)]} from the .ko, each
    function cut at its ELF size (padding after it is not its own)."""
    objdump = xdtvm.ISAS[isa]["cross"] + "objdump"
    if not shutil.which(objdump):
        missing(objdump)
    args = [objdump, "-d", ko_path(isa)]
    if isa == "riscv64":
        args[1:1] = ["-M", "no-aliases"]
    out = subprocess.run(args, capture_output=True, text=True,
                         check=True).stdout
    funcs, cur, base = {}, None, 0
    for ln in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", ln)
        if m:
            if m.group(2).startswith((".L", "$")):
                continue
            base, cur = int(m.group(1), 16), m.group(2)
            funcs[cur] = []
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2,8} )+)\s*(\S+)\s*(.*)",
                     ln)
        if m and cur:
            raw = m.group(2).split()
            size = sum(len(b) // 2 for b in raw)
            funcs[cur].append((int(m.group(1), 16) - base, size,
                               m.group(3), m.group(4)))
    sizes = {n: sz for n, _, sz, t, _ in elf_syms(isa) if t == "FUNC"}
    return {n: [i for i in insns if i[0] < sizes.get(n, 1 << 30)]
            for n, insns in funcs.items()}


def mnems(insns):
    return [i[2] for i in insns]


def test_instruction_forms_are_there(isa):
    f = disassemble(isa)
    for name in MODELS[isa]:
        assert name in f, sorted(f)
    if isa == "x86_64":
        rip = [i for i in f["xdt_torture_x86_riprel"] if "(%rip)" in i[3]]
        assert len(rip) >= 6, f["xdt_torture_x86_riprel"]
        j = f["xdt_torture_x86_jmp"]
        # (mnemonic, size): rel8 forms are 2 bytes, rel32 jmp 5, jcc 6.
        forms = {(m, s) for _, s, m, _ in j}
        for want in [("jmp", 2), ("je", 2), ("jne", 2), ("jmp", 5),
                     ("jb", 6), ("jae", 6), ("jl", 2), ("jb", 2)]:
            assert want in forms, (want, j)
        calls = [(s, o) for _, s, m, o in f["xdt_torture_x86_call"]
                 if m == "call"]
        # rel32 (e8), register (ff d0), RIP-relative memory (ff 15 disp32)
        assert [s for s, _ in calls] == [5, 2, 6], calls
        assert calls[1][1] == "*%rax" and "(%rip)" in calls[2][1], calls
        assert {"loop", "jrcxz"} <= set(mnems(f["xdt_torture_x86_loop"]))
    elif isa == "aarch64":
        allm = [m for fn in MODELS[isa] for m in mnems(f[fn])]
        for m in ["adr", "adrp", "b", "bl", "b.eq", "b.ne", "b.lt", "b.hi",
                  "cbz", "cbnz", "tbz", "tbnz", "ldr", "ldrsw", "prfm", "br",
                  "blr", "ret", "ldxr", "stxr"]:
            assert m in allm, m
        lit = [(m, o) for _, _, m, o in f["xdt_torture_a64_ldrlit"]
               if m in ("ldr", "ldrsw", "prfm")]
        assert len(lit) == 4 and not any("[" in o for _, o in lit), lit
        tb = [o for _, _, m, o in f["xdt_torture_a64_cbz"]
              if m in ("tbz", "tbnz")]
        bits = {int(re.search(r"#(\d+)", o).group(1)) for o in tb}
        assert min(bits) < 32 <= max(bits), tb
        cb = [o.split(",")[0] for _, _, m, o in f["xdt_torture_a64_cbz"]
              if m in ("cbz", "cbnz")]
        assert {r[0] for r in cb} == {"w", "x"}, cb
    else:
        allm = [(m, s) for fn in MODELS[isa] for _, s, m, _ in f[fn]]
        for m in ["auipc", "jal", "jalr", "beq", "bne", "blt", "bge", "bltu",
                  "bgeu", "lr.d", "sc.d"]:
            assert (m, 4) in allm, m
        comp = {m for fn in MODELS[isa] for _, s, m, _ in f[fn] if s == 2}
        assert {"c.j", "c.jr", "c.jalr", "c.beqz", "c.bnez"} <= comp, comp
        # Nothing else got compressed behind the file's `.option norvc`.
        other = [i for fn in MODELS[isa] if fn != "xdt_torture_rv_compressed"
                 for i in f[fn] if i[1] == 2]
        assert not other, other


def test_kallsyms_sizes_cover_whole_functions(isa):
    """6.1's module kallsyms sizes a symbol up to the next named symbol,
    skipping only `.L*` and the mapping symbols `$a $d $t $x` (optionally
    followed by `.`).  binutils 2.40 on riscv also emits `$x<isa string>`
    at every `.option rvc`/`norvc` switch, which it does not skip: one
    inside a function would end the function there for fbt and kinst."""
    syms = elf_syms(isa)
    skipped = re.compile(r"^(\.L|\$[adtx](\.|$))")
    funcs = {n: (v, sz, sec) for n, v, sz, t, sec in syms if n in MODELS[isa]}
    assert set(funcs) == set(MODELS[isa]), sorted(funcs)
    for name, (v, sz, sec) in funcs.items():
        inside = [n for n, v2, _, t, s2 in syms if s2 == sec and v < v2 < v + sz
                  and t != "SECTION" and not skipped.match(n)]
        assert not inside, (name, inside)


# ---- guest: results ---------------------------------------------------------

def test_functions_file_lists_every_function(torture):
    r = torture.run(["cat", f"{DBG}/functions"], check=True)
    assert sorted(r.stdout.split()) == sorted(models(torture.isa)), r.stdout


def test_every_function_returns_the_model_value(torture):
    ms = models(torture.isa)
    calls = [(n, a) for n in sorted(ms) for a in ARGS]
    got = call_all(torture, calls)
    bad = [(n, hex(a), g if g is None else hex(g), hex(ms[n](a)))
           for (n, a), g in zip(calls, got) if g != ms[n](a)]
    assert not bad, bad


def test_repeated_calls_agree(torture):
    """COUNT calls in the kernel, each compared with the first (EIO if one
    differs): the exclusive loops and the global slots behave every time."""
    ms = models(torture.isa)
    calls = [(n, 12345) for n in sorted(ms)]
    got = call_all(torture, calls, count=2000)
    assert got == [ms[n](12345) for n, _ in calls]


def test_bad_requests_are_refused(torture):
    r = torture.run(f'echo "xdt_torture_nope 1" > {DBG}/call')
    assert r.code != 0 and "No such file" in r.stderr, r
    r = torture.run(f'echo "xdt_torture_c_loop" > {DBG}/call')
    assert r.code != 0 and "Invalid argument" in r.stderr, r


# ---- guest: fbt -------------------------------------------------------------

def fbt_listing(vm):
    r = dtrace(vm, "-l", "-n", "fbt:xdt_torture::")
    assert r.ok, r
    probes = {}
    for ln in r.stdout.splitlines()[1:]:
        f = ln.split()
        probes.setdefault(f[-2], set()).add(f[-1])
    return probes


def test_fbt_probes_every_asm_function_but_the_bare_leaf(torture):
    bare, reason = BARE[torture.isa]
    probes = fbt_listing(torture)
    for name in models(torture.isa):
        if name == bare:
            assert name not in probes, probes
        else:
            assert probes.get(name) == {"entry", "return"}, (name, probes)
    r = dtrace(torture, "-l", "-v", "-n", f"fbt:xdt_torture:{bare}:")
    assert f"refused: {reason}" in r.stdout, r


def test_fbt_counts_are_exact_and_results_unchanged(torture):
    """K calls of each function under fbt entry+return on the whole module:
    every torture function's entry and return fire exactly K times (the
    bare leaf, called by the *_call functions, has no probes), and every
    result is still the model's."""
    k, arg = 7, 99
    ms = models(torture.isa)
    bare = BARE[torture.isa][0]
    body = "".join(f'echo "{n} {arg} {k}" > {DBG}/call && '
                   f'cat {DBG}/result >> /tmp/torture.out || '
                   f'echo FAIL >> /tmp/torture.out\n' for n in sorted(ms))
    torture.run("rm -f /tmp/torture.out", check=True)
    r = dtrace(torture, "-qn", "fbt:xdt_torture::entry,"
               "fbt:xdt_torture::return { @[probefunc, probename] = count(); }",
               "-c", script(torture, "torture_fbt", body), timeout=300)
    assert r.ok, r
    counts = {}
    for ln in r.stdout.splitlines():
        f = ln.split()
        if len(f) == 3 and f[2].isdigit():
            counts[(f[0], f[1])] = int(f[2])
    for n in ms:
        for p in ("entry", "return"):
            want = 0 if n == bare else k
            assert counts.get((n, p), 0) == want, (n, p, r.stdout)
    out = torture.run(["cat", "/tmp/torture.out"], check=True).stdout.split()
    assert out == [str(ms[n](arg)) for n in sorted(ms)], out
