"""Destructive actions and subroutines (dtrace -w) in every guest: refused
without -w, as DTrace refuses them; copyout()/copyoutstr() write the traced
process's memory; raise() and stop() signal it; chill() spins within
DTrace's budget and faults past it; system(), freopen(), ftruncate() and -o
act in the consumer; panic() panics a throw-away guest with DTrace's
message.  (breakpoint() enters kgdb, which the lab's kernels run on the
console; driving it from a debugger is the kgdb study's part.)"""
import re

import pytest

import xdtvm
from test_providers import sysc  # noqa: F401 (fixture)
from test_xdt_kernel import xdt  # noqa: F401 (fixture)


def dtrace(vm, *args, timeout=120):
    return vm.run(["dtrace", *args], timeout=timeout)


def test_refused_without_w(xdt):
    for prog in ("BEGIN { chill(1); }", "BEGIN { raise(0); }", "BEGIN { stop(); }",
                 "BEGIN { panic(); }", "BEGIN { breakpoint(); }",
                 'BEGIN { system("true"); }', 'BEGIN { freopen("/tmp/x"); }',
                 'BEGIN { copyoutstr("x", 0, 1); }'):
        r = dtrace(xdt, "-q", "-n", prog)
        assert r.code == 1, (prog, r)
        assert ("dtrace: could not enable tracing: Destructive actions not "
                "allowed") in r.stderr, (prog, r.stderr)
    # -x destructive is -w; a program without destructive actions needs neither
    assert dtrace(xdt, "-x", "destructive", "-qn", "BEGIN { chill(1); exit(0); }").ok
    assert dtrace(xdt, "-qn", "BEGIN { exit(0); }").ok


def test_copyout_writes_the_process(xdt, sysc):
    """write(-1, buf, 8) of 8 dots: the clause overwrites buf in the caller
    before the kernel fails the call with EBADF; the process prints it."""
    pred = "/pid == $target && (int)arg0 == -1/"
    r = dtrace(xdt, "-wq", "-n",
               f'syscall::write:entry {pred} {{ copyoutstr("xdt", arg1, 8); }}',
               "-c", f"{sysc} write-bad 8")
    assert r.ok, r
    assert r.stdout.splitlines()[0] == "xdt", r.stdout
    r = dtrace(xdt, "-wq", "-n",
               f"syscall::write:entry {pred} {{ this->p = (char *)alloca(2); "
               "this->p[0] = 'o'; this->p[1] = 'k'; copyout(this->p, arg1 + 3, 2); }",
               "-c", f"{sysc} write-bad 8")
    assert r.ok, r
    assert r.stdout.splitlines()[0] == "...ok...", r.stdout
    # a user address that is not there: ERROR, and the process goes on
    r = dtrace(xdt, "-wq", "-n",
               f'syscall::write:entry {pred} {{ copyoutstr("xdt", 16, 4); }}',
               "-c", f"{sysc} write-bad 4")
    assert r.code == 0 and r.stdout.splitlines()[0] == "....", r
    assert "invalid address (0x10)" in r.stderr, r.stderr


def test_raise_and_stop_signal_the_process(xdt, sysc):
    xdt.put(f"{sysc} getppid 1000\necho status=$?\n".encode(), "/tmp/raise.sh")
    r = dtrace(xdt, "-wq", "-n",
               'syscall::getppid:entry /execname == "sysc"/ { raise(9); }',
               "-c", "sh /tmp/raise.sh")
    assert r.ok, r
    assert "status=137" in r.stdout, r.stdout          # 128 + SIGKILL
    # waits for the stop however slow the host is (a minute at most)
    xdt.put(f"{sysc} getppid 1 &\n"
            "for i in $(seq 600); do\n"
            "  grep -q 'State:.*T' /proc/$!/status && break; sleep 0.1\n"
            "done\n"
            "grep State /proc/$!/status\nkill -9 $!\n".encode(), "/tmp/stop.sh")
    r = dtrace(xdt, "-wq", "-n",
               'syscall::getppid:entry /execname == "sysc"/ { stop(); }',
               "-c", "sh /tmp/stop.sh")
    assert r.ok, r
    assert re.search(r"State:\s+T \(stopped\)", r.stdout), r.stdout
    # a signal number is all 64 bits: 0x100000009 is no SIGKILL (BEGIN
    # fires in dtrace itself, which would die of one)
    r = dtrace(xdt, "-wq", "-n", "BEGIN { raise(0x100000009); } BEGIN { exit(0); }")
    assert r.ok and "illegal operation in action #1" in r.stderr, r


def test_chill_within_and_past_its_budget(xdt):
    """DTrace allows 500 ms of chill() per CPU per second: more is an
    illegal operation, reported through ERROR; the kernel carries on."""
    r = dtrace(xdt, "-wq", "-n",
               'BEGIN { chill(50000000); printf("chilled\\n"); } '
               "BEGIN { chill(600000000); } BEGIN { exit(0); }")
    assert r.ok, r
    assert r.stdout.startswith("chilled\n"), r.stdout
    assert "illegal operation in action #1" in r.stderr, r.stderr
    assert "dtrace: 1 error" in r.stderr, r.stderr
    assert xdt.run(["true"]).ok


def test_consumer_actions_system_freopen_ftruncate_o(xdt):
    r = dtrace(xdt, "-wq", "-n",
               'BEGIN { printf("one\\n"); system("echo sys %d", 42); '
               'printf("two\\n"); freopen("/tmp/fre.out"); printf("in file\\n"); '
               'freopen(""); printf("back\\n"); exit(0); }')
    assert r.ok, r
    assert r.stdout.split() == ["one", "sys", "42", "two", "back"], r.stdout
    assert xdt.run(["cat", "/tmp/fre.out"]).stdout == "in file\n"
    xdt.run(["sh", "-c", "echo old > /tmp/o.out"], check=True)
    r = dtrace(xdt, "-q", "-o", "/tmp/o.out", "-n",
               'BEGIN { printf("appended\\n"); @a = count(); exit(0); }')
    assert r.ok and r.stdout == "", r
    out = xdt.run(["cat", "/tmp/o.out"]).stdout
    assert out.startswith("old\nappended\n") and out.split()[-1] == "1", out
    r = dtrace(xdt, "-q", "-o", "/tmp/o.out", "-n",
               'BEGIN { printf("gone\\n"); ftruncate(); printf("kept\\n"); exit(0); }')
    assert r.ok, r
    assert xdt.run(["cat", "/tmp/o.out"]).stdout.startswith("kept\n")


def test_panic_in_a_throwaway_guest(isa):
    """panic() panics the kernel with DTrace's message (the lab boots with
    panic=-1 and QEMU with -no-reboot: the guest ends)."""
    with xdtvm.VM(isa, smp=1) as vm:
        vm.run(["insmod", "/lib/modules/xdt.ko"], check=True, timeout=300)
        mark = vm.console_mark()
        with pytest.raises(xdtvm.XdtError):
            vm.run(["dtrace", "-w", "-n", "BEGIN { panic(); }"], timeout=120,
                   watch=False)
        console = vm.console(mark)
    want = ("Kernel panic - not syncing: dtrace: panic action at probe "
            "dtrace:::BEGIN")
    assert interleaved_in(want, console), console[-3000:]


def interleaved_in(want, text, slack=2):
    """@want in @text, its characters in order, within slack x its length:
    a late boot message (x86_64's "sched_clock: Marking stable ...") can
    come out on the serial console between the panic line's characters
    (seen: "Kernel panic - no_t syncing: ... dtrace:::BEGIcN")."""
    for start in (i for i, c in enumerate(text) if c == want[0]):
        j, k = start, 0
        while j < len(text) and k < len(want) and \
                j - start < slack * len(want):
            if text[j] == want[k]:
                k += 1
            j += 1
        if k == len(want):
            return True
    return False
