"""libxdt's ELF reader (libxdt/uproc.c), which the pid provider and
ustack() run over the traced process's objects -- files dtrace does not
control -- fuzzed on the host under ASan and UBSan: mutated copies of a
real static binary (headers, section and program header tables, anything;
truncated ones too) through the symbol-table walk, the address-to-offset
map and ustack()'s loader (tests/host/progs/elffuzz.c).  It found two
things in its first second: a NULL base handed to qsort() for an object
without symbols, and tables read at a misaligned offset."""
import os
import re
import subprocess

import pytest

import xdtvm

pytestmark = pytest.mark.host
TOP = xdtvm.TOP
SAN = os.path.join(xdtvm.CACHE, "build", "host-san")
FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-fno-omit-frame-pointer", "-g"]


@pytest.fixture(scope="module")
def elffuzz(tmp_path_factory):
    r = subprocess.run(["make", "-s", "-C", TOP, "host-san", "host-dtrace"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    exe = str(tmp_path_factory.mktemp("elffuzz") / "elffuzz")
    r = subprocess.run(["gcc", "-std=gnu11", "-O1", *FLAGS, "-Wall", "-Wextra",
                        "-Werror", "-I" + os.path.join(TOP, "core", "uapi"),
                        "-I" + os.path.join(TOP, "core", "host"),
                        "-I" + os.path.join(TOP, "libxdt"), "-o", exe,
                        os.path.join(TOP, "tests", "host", "progs", "elffuzz.c"),
                        os.path.join(SAN, "libxdt.a")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    syms = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
    assert "__asan_init" in syms and "__ubsan_handle_" in syms
    return exe


@pytest.mark.parametrize("seed", [7, 20261128])
def test_elf_reader_takes_any_file(elffuzz, tmp_path, seed):
    # the host's dtrace: an ELF64 file of the host's byte order, symbols in
    target = os.path.join(xdtvm.CACHE, "build", "host", "dtrace")
    r = subprocess.run([elffuzz, target, "1500", str(seed),
                        str(tmp_path / "mutant")], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    m = re.search(r"elffuzz: (\d+) files, (\d+) opened, (\d+) symbols",
                  r.stdout)
    # most mutants still open and name functions: the walk is exercised
    assert m and int(m.group(2)) > 300 and int(m.group(3)) > 1000, r.stdout
