"""The stable providers (proc, sched, io: providers/stable.c) and the D
library's translators (dlib/, /usr/lib/xdt in the guests), in every guest:
seed 000's proc:::exec-success one-liner prints the command; exec/exit
arguments; sched's on-cpu and off-cpu balance for one process; io:::start
counts a known amount of direct I/O on the lab's virtio disk; `dtrace -l -v`
prints translated argument types.  The library's compilation against each
kernel is tested on the host (tests/host/test_stable_host.py).
"""
import re

from conftest import missing

from test_dtrace_guest import begun
from test_providers import sysc  # noqa: F401 (fixture)
from test_xdt_kernel import xdt  # noqa: F401 (fixture)


def test_exec_success_one_liner(xdt):  # noqa: F811
    """Seed 000's one-liner, on the -c command: its arguments, as ps shows them."""
    r = xdt.run(["dtrace", "-q", "-n",
                 'proc:::exec-success /pid == $target/ '
                 '{ printf("%s\\n", curpsinfo->pr_psargs); }',
                 "-c", "/bin/true stable providers 1 2 3"], timeout=120)
    assert r.ok, r
    assert r.stdout.rstrip("\n") == "/bin/true stable providers 1 2 3", r


def test_proc_probes(xdt):  # noqa: F811
    r = xdt.run(["dtrace", "-q", "-n",
                 'proc:::exec /pid == $target/ { printf("exec %s\\n", args[0]); } '
                 'proc:::exec-success /pid == $target/ { printf("success %s %d %d\\n", '
                 'curpsinfo->pr_fname, curpsinfo->pr_ppid == $pid, '
                 'curlwpsinfo->pr_lwpid == tid); } '
                 'proc:::lwp-exit /pid == $target/ { printf("lwp-exit\\n"); } '
                 'proc:::exit /pid == $target/ { printf("exit %d\\n", args[0]); }',
                 "-c", "/bin/true"], timeout=120)
    assert r.ok, r
    # Each CPU's records come in order, the CPUs' one after another (as in
    # DTrace): the command may move between CPUs, but it exits on one.
    lines = r.stdout.rstrip("\n").split("\n")
    assert sorted(lines) == ["exec /bin/true", "exit 1", "lwp-exit", "success true 1 1"], r
    assert lines.index("exit 1") == lines.index("lwp-exit") + 1, r


def test_exec_failure_and_create(xdt):  # noqa: F811
    """A shell forks a child (create: its psinfo is the child's) that fails
    to exec a missing file (exec-failure: ENOENT)."""
    r = xdt.run(["dtrace", "-q", "-n",
                 'proc:::create /pid == $target/ { printf("create %d\\n", '
                 'args[0]->pr_ppid == $target); } '
                 'proc:::exec-failure /progenyof($target)/ { printf("failure %d\\n", args[0]); }',
                 "-c", "/bin/sh -c /no/such/file;true"], timeout=120)
    assert r.ok, r
    assert "create 1\n" in r.stdout and "failure 2\n" in r.stdout, r


def test_sched_on_off_cpu_balance(xdt):  # noqa: F811
    """Every time the -c command goes on a CPU it comes off it again, except
    the last: that off-cpu is the dead thread's final switch (excluded by its
    exit_state, since it may come after dtrace has already stopped).  It sleeps
    at least once, and something wakes it at most once per sleep (+1: the
    SIGCONT that starts it)."""
    r = xdt.run(["dtrace", "-q", "-n",
                 'sched:::on-cpu /pid == $target/ { @on = count(); } '
                 'sched:::off-cpu /pid == $target && curthread->exit_state == 0/ '
                 '{ @off = count(); } '
                 'sched:::sleep /pid == $target/ { @sl = count(); } '
                 'sched:::wakeup /args[1]->pr_pid == $target/ { @wk = count(); } '
                 'END { printa("on %@d\\n", @on); printa("off %@d\\n", @off); '
                 'printa("sleep %@d\\n", @sl); printa("wakeup %@d\\n", @wk); }',
                 "-c", "/bin/sleep 0.2"], timeout=120)
    assert r.ok, r
    n = {k: int(v) for k, v in re.findall(r"^(\w+) (\d+)$", r.stdout, re.M)}
    assert set(n) == {"on", "off", "sleep", "wakeup"}, r
    assert n["on"] == n["off"] + 1, r
    assert n["sleep"] >= 1 and 1 <= n["wakeup"] <= n["sleep"] + 1, r


def test_io_start_counts_direct_io(xdt, sysc):  # noqa: F811
    """16 direct reads of 4 KiB from the lab's virtio disk are 16 requests
    of 4096 bytes each (O_DIRECT: no page cache, no readahead, no merging of
    requests the reader waits for one at a time)."""
    if xdt.run(["test", "-b", "/dev/vda"]).code:
        missing("/dev/vda in the guest (the lab's virtio disk)")
    r = xdt.run(["dtrace", "-q", "-n",
                 'io:::start /args[1]->dev_statname == "vda" && args[0]->b_flags & B_READ/ '
                 '{ @n[args[1]->dev_name, args[1]->dev_pathname, args[0]->b_bcount] = count(); } '
                 'io:::done /args[1]->dev_statname == "vda"/ { @d = count(); } '
                 'END { printa("%s %s %d %@d\\n", @n); printa("done %@d\\n", @d); }',
                 "-c", "/tmp/sysc direct /dev/vda 4096 16"], timeout=120)
    assert r.ok, r
    assert r.stdout.rstrip("\n") == "virtio_blk /dev/vda 4096 16\ndone 16", r


def test_list_verbose_argument_types(xdt):  # noqa: F811
    r = xdt.run(["dtrace", "-l", "-v", "-n", "io:::start"], timeout=60)
    assert r.ok, r
    assert re.search(r"^\s*\d+\s+io\s+vmlinux\s+block_rq_issue start$", r.stdout, re.M), r
    assert ("\tArgument Types\n\t\targs[0]: bufinfo_t *\n\t\targs[1]: devinfo_t *\n"
            "\t\targs[2]: fileinfo_t *\n") in r.stdout, r
    r = xdt.run(["dtrace", "-l", "-v", "-n", "fbt::vfs_read:return"], timeout=60)
    assert r.ok, r
    assert "\t\targs[0]: int\n\t\targs[1]: ssize_t\n" in r.stdout, r
    r = xdt.run(["dtrace", "-l", "-v", "-n", "proc:::exec-success"], timeout=60)
    assert r.ok and "\tArgument Types\n\t\tNone\n" in r.stdout, r


def test_kprobe_and_fbt_site_exclude_each_other(xdt):  # noqa: F811
    """sched:::on-cpu holds a kprobe on finish_task_switch's entry, where
    fbt's breakpoint mechanism would put its own breakpoint: in one program,
    or in two consumers in either order, the second to come is refused
    (EBUSY, said as such), and each works alone afterwards.  The ftrace
    mechanism shares the function with the kprobe instead."""
    busy = "an instruction is already patched"
    bp = "-x fbtmode=breakpoint"
    r = xdt.run(["dtrace", "-q", "-x", "fbtmode=breakpoint", "-n",
                 "sched:::on-cpu { @ = count(); } "
                 "fbt::finish_task_switch*:entry { @f = count(); } tick-1s { exit(0); }"],
                timeout=120)
    assert r.code == 1 and busy in r.stderr, r
    # another consumer holds the kprobe: fbt there is refused
    r = xdt.run(begun("dtrace -q -n 'BEGIN { printf(\"go\\n\"); } "
                      "sched:::on-cpu { @ = count(); }'", "/tmp/h.out") +
                f"dtrace -q {bp} -n 'fbt::finish_task_switch*:entry "
                "{ @ = count(); } tick-1s { exit(0); }'; s=$?; kill -INT $d; wait; "
                "exit $s", timeout=120)
    assert r.code == 1 and busy in r.stderr, r
    # another consumer holds the fbt site: the kprobe is refused
    r = xdt.run(begun(f"dtrace -q {bp} -n 'BEGIN {{ printf(\"go\\n\"); }} "
                      "fbt::enqueue_task_fair:entry { @ = count(); }'",
                      "/tmp/h.out") +
                "dtrace -q -n 'sched:::enqueue { @ = count(); } "
                "tick-1s { exit(0); }'; s=$?; kill -INT $d; wait; exit $s", timeout=120)
    assert r.code == 1 and busy in r.stderr, r
    for prog in ("sched:::on-cpu { @ = count(); } tick-2s { exit(0); }",
                 "fbt::finish_task_switch*:entry { @ = count(); } tick-2s { exit(0); }"):
        r = xdt.run(["dtrace", "-q", "-x", "fbtmode=breakpoint", "-n", prog],
                    timeout=120)
        assert r.ok and r.stdout.split() and int(r.stdout.split()[0]) > 0, r
    # a calling mechanism and the kprobe, together in one program
    r = xdt.run(["dtrace", "-q", "-x", "fbtmode=ftrace", "-n",
                 "sched:::on-cpu { @k = count(); } "
                 "fbt::finish_task_switch*:entry { @f = count(); } tick-2s { exit(0); } "
                 'END { printa("k %@d\\n", @k); printa("f %@d\\n", @f); }'],
                timeout=120)
    assert r.ok, r
    n = dict(re.findall(r"^(\w) (\d+)$", r.stdout, re.M))
    assert int(n.get("k", 0)) > 0 and int(n.get("f", 0)) > 0, r


def test_signals_threads_and_run_queues(xdt, sysc):  # noqa: F811
    """signal-send in the sender with the target's psinfo and the signal;
    signal-handle in the receiver; lwp-create for each new thread (and no
    create: threads are not processes); enqueue/dequeue of the command with
    a CPU that exists."""
    xdt.put(b"trap 'true' USR1\nkill -USR1 $$\ntrue\n", "/tmp/sig.sh")
    r = xdt.run(["dtrace", "-q", "-n",
                 'proc:::signal-send /pid == $target && args[2] == 10/ '
                 '{ printf("send %d %d\\n", args[1]->pr_pid == $target, '
                 'args[0]->pr_lwpid == $target); } '
                 'proc:::signal-handle /pid == $target/ { printf("handle %d\\n", args[0]); }',
                 "-c", "sh /tmp/sig.sh"], timeout=120)
    assert r.ok, r
    assert sorted(r.stdout.split("\n")) == ["", "", "handle 10", "send 1 1"], r
    r = xdt.run(["dtrace", "-q", "-n",
                 'proc:::lwp-create /pid == $target/ { @l = count(); } '
                 'proc:::create /pid == $target/ { @c = count(); } '
                 'sched:::enqueue /args[1]->pr_pid == $target/ '
                 '{ @e = count(); @cpu = max(args[2]->cpu_id); } '
                 'sched:::dequeue /args[1]->pr_pid == $target/ { @d = count(); } '
                 'END { printa("lwp %@d\\n", @l); printa("create %@d\\n", @c); '
                 'printa("enq %@d\\n", @e); printa("deq %@d\\n", @d); '
                 'printa("cpu %@d\\n", @cpu); }',
                 "-c", f"{sysc} threads 3 50"], timeout=120)
    assert r.ok, r
    n = {k: int(v) for k, v in re.findall(r"^(\w+) (\d+)$", r.stdout, re.M)}
    assert n.get("lwp") == 3 and "create" not in n, r
    assert n.get("enq", 0) >= 1 and n.get("deq", 0) >= 1 and 0 <= n["cpu"] < 8, r
