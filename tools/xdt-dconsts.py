#!/usr/bin/python3
"""Write the D library's constants for one ISA from Linux's uapi headers.

DTrace ships signal.d and errno.d (inlines SIGHUP ..., EPERM ...), made by
its build from the system's headers (illumos' mksignal.sh, mkerrno.sh), and
io.d/procfs.d hold open(2) flags and siginfo codes.  xdt makes the same
names for the ISA it traces, from the uapi headers that ISA's compiler
uses (Debian's linux-libc-dev, the kernel's `make headers_install` of
Linux 6.1): `CC -E -dM` lists every macro, each file below keeps the
names its pattern matches, and each value is worked out here from the
macros (some are expressions of others: O_SYNC is __O_SYNC|O_DSYNC,
SIGPOLL is SIGIO).  A name whose value is not an integer constant
expression of the headers' own macros is left out and said so in the
file (x86_64's uapi leaves _NSIG, hence SIGRTMAX, to the kernel).

    xdt-dconsts.py --cc aarch64-linux-gnu-gcc --isa aarch64 OUTDIR

writes OUTDIR/signal.d, errno.d and fcntl.d (installed in /usr/lib/xdt).
"""
import argparse
import os
import re
import subprocess
import sys

# file -> (what it is, headers, names kept, names that match but are not
# constants of that kind)
FILES = {
    "signal.d": (
        "signal numbers (SIGHUP ...) and siginfo si_code values (SI_USER, "
        "ILL_*, FPE_*, SEGV_*, BUS_*, TRAP_*, CLD_*, POLL_*)",
        ["asm/signal.h", "asm/siginfo.h"],
        r"SIG[A-Z0-9]+|(SI|ILL|FPE|SEGV|BUS|TRAP|CLD|POLL)_[A-Z0-9_]+",
        # sizes and flags, not signals or codes
        {"SIGSTKSZ", "MINSIGSTKSZ", "SI_MAX_SIZE", "TRAP_PERF_FLAG_ASYNC"}),
    "errno.d": (
        "error numbers (EPERM ...), as errno and syscall returns hold them",
        ["asm/errno.h"],
        r"E[A-Z0-9]+",
        set()),
    "fcntl.d": (
        "open(2) flags (O_RDONLY ...), as fileinfo_t's fi_oflags holds them",
        ["asm/fcntl.h"],
        r"O_[A-Z0-9_]+",
        {"O_TMPFILE_MASK"}),
}

TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|"
                   r"(<<|>>|[-+~|&^()]))")


def macros(cc, headers):
    src = "".join(f"#include <{h}>\n" for h in headers)
    r = subprocess.run(cc.split() + ["-E", "-dM", "-x", "c", "-"], input=src,
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"xdt-dconsts: {cc} -E failed:\n{r.stderr}")
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"#define ([A-Za-z_]\w*) (.*)$", line)  # not f(x)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def value(name, defs, seen=()):
    """The integer a macro stands for, or None: C literals, other macros
    and | & ^ << >> + - ~ ( ), nothing else (no casts, no sizeof)."""
    if name in seen or name not in defs:
        return None
    text, pos, expr = defs[name], 0, []
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            return None
        num, ident, op = m.groups()
        if num:
            n = int(num, 0) if not re.match(r"0\d", num) else int(num, 8)
            expr.append(str(n))
        elif ident:
            v = value(ident, defs, seen + (name,))
            if v is None:
                return None
            expr.append(f"({v})")
        else:
            expr.append(op)
        pos = m.end()
    try:
        # only digits, parentheses and the operators above reach eval
        return int(eval(" ".join(expr), {"__builtins__": {}}))  # noqa: S307
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--isa", required=True)
    ap.add_argument("outdir")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for fname, (what, headers, pattern, notconst) in FILES.items():
        defs = macros(a.cc, headers)
        names = sorted(n for n in defs
                       if re.fullmatch(pattern, n) and n not in notconst)
        got = [(n, value(n, defs)) for n in names]
        missing = [n for n, v in got if v is None]
        lines = [f"/*\n * {a.isa}: {what}.\n"
                 f" * Made by tools/xdt-dconsts.py from Linux's uapi headers\n"
                 f" * ({', '.join(headers)}) as {a.cc} sees them.\n"]
        if missing:
            lines.append(" * Not integer constants in those headers, left out: "
                         + " ".join(missing) + ".\n")
        lines.append(" */\n")
        # by value, then name: aliases (SIGIOT, SIGABRT) side by side
        for n, v in sorted(((n, v) for n, v in got if v is not None),
                           key=lambda nv: (nv[1], nv[0])):
            lines.append(f"inline int {n} = {v};\n")
        tmp = os.path.join(a.outdir, fname + ".tmp")
        with open(tmp, "w") as f:
            f.writelines(lines)
        os.replace(tmp, os.path.join(a.outdir, fname))


if __name__ == "__main__":
    main()
