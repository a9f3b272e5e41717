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


HOST = os.path.join(xdtvm.CACHE, "build", "host")
CROSS = {"x86_64": "gcc", "aarch64": "aarch64-linux-gnu-gcc",
         "riscv64": "riscv64-linux-gnu-gcc"}


@pytest.fixture(scope="module")
def usdt_demo(tmp_path_factory):
    """guest/xdt-usdt.c built for the host, with the header dtrace -h made
    (the Makefile's rule) and systemtap's <sys/sdt.h>: a static ELF64 with
    notes of both kinds and every operand form x86 has."""
    hdr = os.path.join(HOST, "xdt_usdt.h")
    r = subprocess.run(["make", "-s", "-C", TOP, hdr], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    exe = str(tmp_path_factory.mktemp("usdt") / "xdt-usdt")
    r = subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra",
                        "-Werror", "-static", "-I" + HOST, "-o", exe,
                        os.path.join(TOP, "guest", "xdt-usdt.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.parametrize("seed", [7, 20261128])
def test_elf_reader_takes_any_file(elffuzz, usdt_demo, tmp_path, seed):
    # an ELF64 file of the host's byte order, symbols and USDT notes in
    r = subprocess.run([elffuzz, usdt_demo, "1500", str(seed),
                        str(tmp_path / "mutant")], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    m = re.search(r"elffuzz: (\d+) files, (\d+) opened, (\d+) symbols, "
                  r"(\d+) usdt", r.stdout)
    # most mutants still open, name functions and hold notes: the walks
    # are exercised
    assert m and int(m.group(2)) > 300 and int(m.group(3)) > 1000 and \
        int(m.group(4)) > 1000, r.stdout


def test_usdt_notes_as_the_kernel_gets_them(elffuzz, usdt_demo):
    """Every note of the host build, parsed: kinds 1 register, 2 memory at
    a register, 3 constant, 4 a global's address (gcount(%rip)); sizes
    signed or not as the provider definition says."""
    got = {}
    for prov in ("xdt_usdt", "xdt_sdt"):
        r = subprocess.run([elffuzz, "--notes", usdt_demo, prov],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for ln in r.stdout.splitlines():
            probe, sem, *args = ln.split()
            assert sem == "refctr=1", ln
            got.setdefault(probe, []).append(
                [tuple(a.split(":")[:2]) for a in args])
    assert got == {
        "work:tick": [[("-4", "1"), ("-8", "1"), ("8", "1")]],
        "slow:tick": [[("-4", "2"), ("-8", "2"), ("8", "1")]],
        "work:query-start": [[("8", "1"), ("2", "1")]],
        "work:neg": [[("-1", "1"), ("-2", "3")]],
        "main:done": [[("-4", "3")], [("-4", "3")]],
        "sdt_work:step": [[("-4", "1"), ("-8", "1")]],
        "sdt_work:global": [[("-8", "4")]],
    }, got


@pytest.mark.parametrize("op,want", [
    ("%edi", "1:edi:0"), ("$-300", "3::-300"), ("$0x10", "3::16"),
    ("-20(%rbp)", "2:rbp:-20"), ("(%rax)", "2:rax:0"),
    ("0x10(%rsp)", "2:rsp:16"), ("8(%rax,%rbx,8)", "0::0"), ("$foo", "0::0"),
    ("[sp, 12]", "2:sp:12"), ("[x0]", "2:x0:0"), ("[x29, #-8]", "2:x29:-8"),
    ("x1", "1:x1:0"), ("w3", "1:w3:0"), ("7", "3::7"), ("#7", "3::7"),
    ("a0", "1:a0:0"), ("-36(s0)", "2:s0:-36"), ("8(sp)", "2:sp:8"),
    ("[sp, 12", "0::0"), ("(%rax", "0::0"), ("", "0::0"),
    ("waytoolongregister", "0::0"),
])
def test_usdt_operand_forms(elffuzz, op, want):
    """The operand syntax of all three assemblers in one parser; what it
    cannot evaluate is kind 0 (reads as 0), never a guess."""
    r = subprocess.run([elffuzz, "--operand", op], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{op} -> {want}\n"


@pytest.fixture(scope="module")
def dtrace():
    r = subprocess.run(["make", "-s", "-C", TOP, "host-dtrace"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return os.path.join(HOST, "dtrace")


@pytest.mark.parametrize("isa", sorted(CROSS))
def test_header_makes_notes_on_every_isa(dtrace, tmp_path, isa):
    """dtrace -h's macros compile with each ISA's compiler into the notes
    readelf knows as NT_STAPSDT, one per site, with the definition's sizes."""
    d = tmp_path / "prov.d"
    d.write_text("provider demo {\n\tprobe start(int, char *, "
                 "unsigned char);\n\tprobe stop__now();\n};\n"
                 # as provider files write their stability
                 "#pragma D attributes Evolving/Evolving/Common "
                 "provider demo provider\n"
                 "#pragma D attributes Private/Private/Unknown "
                 "provider demo function\n")
    r = subprocess.run([dtrace, "-h", "-s", str(d)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "#define\tDEMO_START(arg0, arg1, arg2)" in \
        (tmp_path / "prov.h").read_text()
    (tmp_path / "p.c").write_text(
        '#include "prov.h"\n'
        "int main(int argc, char **argv)\n{\n"
        "\tif (DEMO_START_ENABLED())\n\t\treturn 1;\n"
        "\tDEMO_START(argc, argv[0], 200);\n\tDEMO_STOP_NOW();\n"
        "\tDEMO_STOP_NOW();\n\treturn 0;\n}\n")
    r = subprocess.run([CROSS[isa], "-O2", "-Wall", "-Werror", "-c", "-o",
                        "p.o", "p.c"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["readelf", "-n", "p.o"], cwd=tmp_path,
                       capture_output=True, text=True)
    names = re.findall(r"Name: (\S+)", r.stdout)
    args = re.findall(r"Arguments: (.*)", r.stdout)
    assert r.stdout.count("NT_STAPSDT") == 3, r.stdout
    assert names == ["start", "stop__now", "stop__now"], r.stdout
    assert [a.count("@") for a in args] == [3, 0, 0], r.stdout
    assert re.match(r"-4@\S+ 8@\S+ 1@\S+$", args[0].strip()), args
    # -D_DTRACE_VERSION=0: no probes at all
    r = subprocess.run([CROSS[isa], "-O2", "-Wall", "-Werror",
                        "-D_DTRACE_VERSION=0", "-c", "-o", "q.o", "p.c"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["readelf", "-n", "q.o"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert "stapsdt" not in r.stdout


def test_header_needs_providers_and_G_has_nothing_to_do(dtrace, tmp_path):
    d = tmp_path / "none.d"
    d.write_text("BEGIN { exit(0); }\n")
    r = subprocess.run([dtrace, "-h", "-s", str(d)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "no provider definitions found" in r.stderr
    assert not (tmp_path / "none.h").exists()
    d.write_text("provider p { probe q(int); };\n")
    r = subprocess.run([dtrace, "-G", "-s", str(d)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0 and "-G: nothing to do" in r.stderr, r.stderr
    r = subprocess.run([dtrace, "-h", "-G", "-s", str(d)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode != 0 and "cannot be used together" in r.stderr


@pytest.fixture(scope="module")
def shared_lib(tmp_path_factory):
    """guest/xdt-ulib.c built for the host as the guests' libxdtu.so.1: a
    shared object with a dynamic section and its DT_SONAME."""
    so = str(tmp_path_factory.mktemp("ulib") / "libxdtu.so.1")
    r = subprocess.run(["gcc", "-std=gnu11", "-O1", "-fPIC", "-shared",
                        "-Wl,-soname,libxdtu.so.1", "-o", so,
                        os.path.join(TOP, "guest", "xdt-ulib.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return so


def test_elf_reader_takes_any_shared_object(elffuzz, shared_lib, tmp_path):
    """The same over a shared library: its dynamic section, where the
    module's name (DT_SONAME) comes from, mutated too."""
    r = subprocess.run([elffuzz, shared_lib, "1500", "11",
                        str(tmp_path / "mutant")], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    m = re.search(r"elffuzz: (\d+) files, (\d+) opened, (\d+) symbols, "
                  r"(\d+) usdt, (\d+) sonames", r.stdout)
    assert m and int(m.group(2)) > 300 and int(m.group(5)) > 300, r.stdout
