"""Rows of docs/d-language.md's "The D reference, row by row" that are
small enough to test together, on the host (the host VM runs what needs
running; no guest):
  - built-in variables and D library names (gid, chip, lgrp, pset,
    zonename, DTRACEFLT_LIBRARY);
  - character and string constants (escapes, multi-character constants);
  - -x option values (time and size suffixes, as DTrace's dt_options.c);
  - compile errors with DTrace's tag (-x errtags) and message, one row of
    ERRORS each: the program, the tag, a piece of the message.
"""
import os
import subprocess

import pytest

import xdtvm
from test_btf import vmlinux
from test_compiler import dtrace  # noqa: F401 (fixture)

pytestmark = pytest.mark.host

DLIB = os.path.join(xdtvm.TOP, "dlib")


def _run(dtrace, prog, *extra):  # noqa: F811
    return subprocess.run([dtrace, "-x", "hostvm", "-q", *extra, "-n", prog],
                          capture_output=True, text=True, timeout=60)


def test_gid_is_the_real_gid(dtrace):  # noqa: F811
    r = _run(dtrace, 'BEGIN { printf("%d %d\\n", uid, gid); exit(0); }')
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(os.getuid()), str(os.getgid())]


def test_cpu_inlines_and_zonename(dtrace):  # noqa: F811
    """sched.d's pset/chip/lgrp are curcpu's members, as DTrace's; Linux
    has no zones: zonename is "global"."""
    r = _run(dtrace, 'BEGIN { printf("%d %d %d %d %s %d\\n", pset, chip, lgrp, '
             'pset == curcpu->cpu_pset, zonename, DTRACEFLT_LIBRARY); exit(0); }',
             "-x", f"vmlinux={vmlinux('x86_64')}", "-L", DLIB)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["-1", "0", "0", "1", "global", "1000"]


def test_escapes_and_character_constants(dtrace):  # noqa: F811
    """C's escapes in strings and character constants, \\x taking every
    hex digit (low byte kept) and an escape C does not have keeping its
    backslash, as DTrace's stresc2chr(); a character constant is an int
    of its bytes, the first the most significant."""
    prog = r'''BEGIN {
        printf("%d %d %d %d %d %d %d %d\n", '\a', '\b', '\f', '\n', '\r', '\t', '\v', '\0');
        printf("%d %d %d %d %d %d %d\n", '\\', '\'', '\"', '\?', '\101', '\x41', '\x141');
        printf("%x %x %x %d\n", 'ab', 'abcdefgh', '\377', sizeof ('ab'));
        printf("[%s] [%s] [%s]\n", "\x41\x42c\x41-", "a\?\'\"\\", "\q");
        exit(0);
    }'''
    r = _run(dtrace, prog)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:4] == [
        "7 8 12 10 13 9 11 0", "92 39 34 63 65 65 65",
        "6162 6162636465666768 ff 4", "[A,A-] [a?'\"\\] [\\q]"], r.stdout


# (program, DTrace's tag, a piece of its message): -x errtags -e -s
ERRORS = [
    ("BEGIN { x = ''; }", "D_CHR_NULL", "1:13: empty character constant"),
    ("BEGIN { x = 'abcdefghi'; }", "D_CHR_OFLOW", "1:13: character constant is too long"),
    ("BEGIN { x = 'a\n'; }", "D_CHR_NL", "newline encountered in character constant"),
]


@pytest.mark.parametrize("prog,tag,msg", ERRORS, ids=[t for _, t, _ in ERRORS])
def test_errtag(dtrace, tmp_path, prog, tag, msg):  # noqa: F811
    d = tmp_path / "e.d"
    d.write_text(prog + "\n")
    r = subprocess.run([dtrace, "-x", "errtags", "-e", "-s", str(d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert f"[{tag}]" in r.stderr and msg in r.stderr, r.stderr
