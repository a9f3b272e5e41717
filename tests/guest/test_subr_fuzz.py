"""Every subroutine called from D with random pointers and lengths, in every
guest: kernel addresses near real objects (the struct file vfs_read is
given), user addresses near the buffer it reads into, NULL, small and wild
values, lengths up to past strsize and the scratch space.  Each call is its
own clause, so one fault (an ERROR, as it must be) does not hide the next.
The kernel must neither oops nor sleep in probe context (the console is
watched) and dtrace must finish with its errors reported, not crash."""
import re

from test_providers import sysc  # noqa: F401 (fixture)
from test_xdt_kernel import xdt  # noqa: F401 (fixture)

# Addresses: near a kernel object, near a user buffer, NULL, small, wild.
ADDRS = [
    "(arg0 + (rand() % 8192) - 4096)",
    "(arg1 + (rand() % 8192) - 4096)",
    "0",
    "(rand() % 4096)",
    "((uint64_t)rand() << 33 | rand())",
    "(0xffffffffffffffff - rand() % 4096)",
]
LENS = ["(rand() % 64)", "(rand() % 600)", "(rand() % 70000)", "0", "-1"]

CALLS = [
    "copyin({a}, {n} & 4095)",
    "copyinstr({a})",
    "copyinstr({a}, {n})",
    "strlen(stringof({a}))",
    "substr(stringof({a}), {n}, {n})",
    "strjoin(stringof({a}), stringof({b}))",
    "index(stringof({a}), stringof({b}), {n})",
    "rindex(stringof({a}), \"/\")",
    "strchr(stringof({a}), '/')",
    "strrchr(stringof({a}), 'e')",
    "strstr(stringof({a}), stringof({b}))",
    "strtok(stringof({a}), \"/\")",
    "basename(stringof({a}))",
    "dirname(stringof({a}))",
    "cleanpath(stringof({a}))",
    "lltostr({a}, {n} % 40)",
    "strtoll(stringof({a}), {n} % 40)",
    "toupper(stringof({a}))",
    "tolower(stringof({a}))",
    "inet_ntoa((ipaddr_t *){a})",
    "inet_ntoa6((in6_addr_t *){a})",
    "inet_ntop(rand() % 12, (void *){a})",
    "json(stringof({a}), stringof({b}))",
    "progenyof({a})",
    "getmajor({a})",
    "d_path((struct path *){a})",
    "mutex_owned((struct mutex *){a})",
    "mutex_owner({a})",
    "mutex_type_adaptive({a})",
    "mutex_type_spin({a})",
    "rw_read_held((struct rw_semaphore *){a})",
    "rw_write_held({a})",
    "rw_iswriter({a})",
]


def program():
    """One clause per (call, address) pair; printf of a string result
    records it too, so the string action's own copy is exercised."""
    clauses = []
    for i, call in enumerate(CALLS):
        for j, a in enumerate(ADDRS):
            b = ADDRS[(j + 1 + i) % len(ADDRS)]
            n = LENS[(i + j) % len(LENS)]
            expr = call.format(a=a, b=b, n=n)
            if call.startswith("copyin("):
                body = f"this->p = (char *){expr}; trace(*this->p);"
            elif call.split("(")[0] in ("strlen", "index", "rindex", "strtoll",
                                        "progenyof", "getmajor") or \
                    call.startswith(("mutex_", "rw_")):
                body = f"trace({expr});"
            else:
                body = f'printf("%s", {expr});'
            clauses.append(f'fbt::vfs_read:entry /execname == "sysc"/ {{ {body} }}')
    # bcopy and copyinto into scratch of random size, from random places
    for a in ADDRS:
        clauses.append('fbt::vfs_read:entry /execname == "sysc"/ '
                       f'{{ this->n = rand() % 300; this->d = alloca(this->n); '
                       f'bcopy((void *){a}, this->d, this->n); '
                       f'copyinto({a}, this->n, this->d); }}')
    return "\n".join(clauses) + "\n"


def test_subroutines_with_random_arguments(xdt, sysc):
    xdt.put(program().encode(), "/tmp/subrfuzz.d")
    # 200 reads: every clause runs 200 times with new random arguments
    r = xdt.run(["dtrace", "-q", "-x", "strsize=512", "-s", "/tmp/subrfuzz.d",
                 "-c", f"{sysc} threads 1 200"], timeout=600)
    assert r.how == "exited" and r.code == 0, (r, r.stderr[-2000:])
    m = re.search(r"dtrace: (\d+) errors?", r.stderr)
    assert m and int(m.group(1)) > 0, r.stderr[-2000:]
    faults = set(re.findall(r"\): ([a-z -]+?)(?: \(0x[0-9a-f]+\))? in action", r.stderr))
    assert "invalid address" in faults, faults
    assert xdt.run(["true"]).ok
