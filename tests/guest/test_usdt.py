"""USDT probes (libxdt/uproc.c's notes, providers/pid.c) in a booted guest,
against guest/xdt-usdt.c, whose probes and arguments are known: provider
xdt_usdt from dtrace -h's header (guest/xdt_usdt.d), provider xdt_sdt from
systemtap's own <sys/sdt.h>; register, constant and memory operands, signed
and unsigned sizes, is-enabled semaphores, a probe with two sites."""
import os
import re

import pytest

import xdtvm
from test_xdt_kernel import xdt  # noqa: F401

US = "/tmp/xdt-usdt"


@pytest.fixture
def us(xdt):
    """The freshly built demo in the guest (the initramfs has one too, as
    of when it was made)."""
    xdt.put(os.path.join(xdtvm.build_dir(xdt.isa), "xdt-usdt"), US, mode="755")
    return xdt


def dtrace(vm, *args, timeout=180):
    return vm.run(["dtrace", *args], timeout=timeout)


def test_list_names_both_providers_probes(us):
    """dtrace -l -c: every note is a probe, named as DTrace names USDT
    probes (query__start is query-start), in the function holding it."""
    r = dtrace(us, "-l", "-n", "xdt_usdt$target:::", "-n", "xdt_sdt$target:::",
               "-c", US)
    assert r.ok, r
    rows = sorted(tuple(ln.split()[1:]) for ln in r.stdout.splitlines()[1:])
    prov = [p for p, *_ in rows]
    assert len(set(prov)) == 2 and all(re.fullmatch(r"xdt_(usdt|sdt)\d+", p)
                                       for p in prov), r.stdout
    got = sorted((re.sub(r"\d+$", "", p), m, f, n) for p, m, f, n in rows)
    assert got == sorted([
        ("xdt_usdt", "xdt-usdt", "work", "tick"),
        ("xdt_usdt", "xdt-usdt", "slow", "tick"),
        ("xdt_usdt", "xdt-usdt", "work", "query-start"),
        ("xdt_usdt", "xdt-usdt", "work", "neg"),
        ("xdt_usdt", "xdt-usdt", "main", "done"),
        ("xdt_sdt", "xdt-usdt", "sdt_work", "step"),
        ("xdt_sdt", "xdt-usdt", "sdt_work", "global")]), r.stdout


def test_arguments_in_registers_and_memory(us):
    """tick's arguments: registers in work() (-O2), memory operands in
    slow() (-O0: -20(%rbp), [sp, 12], -36(s0)), a string by copyinstr."""
    r = dtrace(us, "-qn", "xdt_usdt$target:::tick "
               '{ printf("%s %d %d %s\\n", probefunc, arg0, arg1, '
               "copyinstr(arg2)); }", "-c", f"{US} 3")
    assert r.ok, r
    got = [ln for ln in r.stdout.splitlines() if ln.startswith(("work", "slow"))]
    # sorted: per-CPU buffers (test_systemtap_sdt_h_probes says why)
    assert sorted(got) == sorted(["work 0 100 query-0", "slow 0 110 slow",
                                  "work 1 110 query-1", "slow 1 121 slow",
                                  "work 2 120 query-2", "slow 2 132 slow"]), \
        r.stdout


def test_signed_and_unsigned_sizes(us):
    """The note's size decides the extension: signed char -2 and short -300
    stay negative; unsigned short 65531 stays positive."""
    r = dtrace(us, "-qn", "xdt_usdt$target:::neg "
               '{ printf("neg %d %d\\n", arg0, arg1); } '
               "xdt_usdt$target:::query-start "
               '{ printf("q %d %s\\n", arg1, copyinstr(arg0)); }',
               "-c", f"{US} 2")
    assert r.ok, r
    got = [ln for ln in r.stdout.splitlines() if ln.startswith(("neg", "q "))]
    assert sorted(got) == sorted(["q 65530 query-0", "neg -2 -300",
                                  "q 65531 query-1", "neg -3 -300"]), r.stdout


def test_systemtap_sdt_h_probes(us):
    """Probes from systemtap's own header read the same way; global's
    operand is a global variable (x86: gcount(%rip), an absolute address
    from the symbol table; arm64 and riscv: a register plus 8)."""
    r = dtrace(us, "-qn", "xdt_sdt$target:::step "
               '{ printf("step %d %d\\n", arg0, arg1); } '
               "xdt_sdt$target:::global "
               '{ printf("global %d\\n", arg0); }', "-c", f"{US} 3")
    assert r.ok, r
    got = [ln for ln in r.stdout.splitlines() if ln.startswith(("step", "gl"))]
    # As a set: records reach the consumer per CPU buffer (DTrace's order
    # too), and the program may move to the other vCPU between two probes
    # (seen with the ISAs' guests side by side); the values name the step.
    assert sorted(got) == sorted(["step 0 0", "global 0", "step 1 -3",
                                  "global 7", "step 2 -6", "global 14"]), \
        r.stdout


@pytest.mark.parametrize("probes,want", [
    ("xdt_usdt$target:::query-start", 3),
    ("xdt_sdt$target:::step", 3000),
    ("xdt_usdt$target:::query-start, xdt_sdt$target:::step", 3003),
    ("xdt_usdt$target:::tick", 0),
])
def test_is_enabled_semaphores(us, probes, want):
    """XDT_USDT_QUERY_START_ENABLED() and systemtap's semaphore are set
    exactly while their probe is enabled (uprobes counts the semaphore
    up), in the traced process only."""
    r = dtrace(us, "-qn", probes + " {}", "-c", f"{US} 3")
    assert r.ok, r
    assert f"enabled {want}\n" in r.stdout, r.stdout
    # untraced, the same program sees none
    r = us.run([US, "3"], check=True)
    assert "enabled 0" in r.stdout, r.stdout


def test_one_probe_two_sites(us):
    """done() is written twice in main(): one probe, both sites fire."""
    r = dtrace(us, "-qn", 'xdt_usdt$target:::done { printf("done %d\\n", arg0); }',
               "-c", f"{US} 2")
    assert r.ok, r
    got = [ln for ln in r.stdout.splitlines() if ln.startswith("done")]
    assert sorted(got) == ["done 1", "done 2"], r.stdout
    r = dtrace(us, "-l", "-v", "-n", "xdt_usdt$target:::done", "-c", US)
    assert r.ok, r
    assert len(re.findall(r"^\s*\d+\s+xdt_usdt\d+\s", r.stdout, re.M)) == 1, \
        r.stdout
    assert re.search(r"uprobe at xdt-usdt\+0x[0-9a-f]+ and 1 more sites, "
                     r"semaphore at \+0x[0-9a-f]+", r.stdout), r.stdout


def test_counts_match_the_rounds(us):
    """Aggregated: every firing, none lost, per probe."""
    r = dtrace(us, "-n", "xdt_usdt$target:::,xdt_sdt$target::: "
               "{ @[probename] = count(); }", "-c", f"{US} 50")
    assert r.ok, r
    got = {m.group(1): int(m.group(2)) for m in
           re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", r.stdout, re.M)}
    assert got == {"tick": 100, "query-start": 50, "neg": 50, "step": 50,
                   "global": 50, "done": 2}, r.stdout


def test_unknown_provider_matches_nothing(us):
    r = dtrace(us, "-n", "nosuch$target::: {}", "-c", US)
    assert not r.ok
    assert "does not match any probes" in r.stderr, r.stderr


def test_header_from_the_guest_dtrace(us):
    """dtrace -h in the guest makes the header the demo was built with."""
    r = us.run("dtrace -h -s /usr/share/xdt/xdt_usdt.d -o /tmp/xdt_usdt.h && "
               "cat /tmp/xdt_usdt.h", timeout=120)
    assert r.ok, r
    host = os.path.join(os.path.dirname(xdtvm.build_dir(us.isa)), "host")
    with open(os.path.join(host, "xdt_usdt.h")) as f:
        assert r.stdout == f.read()
