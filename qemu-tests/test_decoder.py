"""Host-only tests of the x86-64 instruction decoder (arch/x86_64/decode.c).

1. Hand-written byte sequences: one table row per class and per tricky
   length case (prefixes, REX.W, moffs, group 3, enter, VEX/EVEX, ...).
2. The whole x86_64 vmlinux: tools/xdt-decode-check walks every function,
   and every instruction boundary and length must match GNU objdump's.
3. decode.c builds as kernel code (Kbuild, against the x86_64 tree) and
   uses no library function.

No guest: nothing here requests the `vm` or `isa` fixtures.
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import xdtvm  # noqa: E402

TOP = xdtvm.TOP
ARCH = os.path.join(TOP, "arch", "x86_64")
CHECK_SRC = os.path.join(TOP, "tools", "xdt-decode-check.c")
OBJDUMP = "x86_64-linux-gnu-objdump"
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror"]
# Functions that must be in the walk whatever else happens.
IMPORTANT = ["vfs_read", "vfs_write", "ksys_read", "__x64_sys_getppid",
             "schedule", "memcpy"]

pytestmark = pytest.mark.host


@pytest.fixture(scope="module")
def check_tool(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("xdtdec") / "xdt-decode-check")
    subprocess.run(["gcc", *CFLAGS, "-I" + ARCH, "-o", out, CHECK_SRC,
                    os.path.join(ARCH, "decode.c")], check=True)
    return out


# --- 1. Byte sequences ------------------------------------------------------

def h(*parts):
    return " ".join(parts)


I8 = "11 22 33 44 55 66 77 88"
I4 = "78 56 34 12"
D4 = "00 01 00 00"

# hex -> (len, class, {field: value}); len 0 <=> class "bad".
CASES = [
    # returns
    ("c3", 1, "ret", {"opcode_len": 1, "imm_off": 0}),
    ("c2 08 00", 3, "ret", {"imm_off": 1}),
    ("f3 c3", 2, "ret", {}),                      # repz ret
    ("48 c3", 2, "ret", {}),
    ("66 c3", 2, "refused", {}),                  # 16-bit pop of the RIP
    ("cb", 1, "refused", {}),                     # lret
    ("ca 08 00", 3, "refused", {}),
    # relative jumps, calls, jcc, loop
    ("eb fe", 2, "jmp", {"rel_size": 1, "rel": -2, "imm_off": 1}),
    ("eb 80", 2, "jmp", {"rel": -128}),
    ("e9 fb ff ff ff", 5, "jmp", {"rel_size": 4, "rel": -5}),
    ("f2 e9 00 00 00 00", 6, "jmp", {"rel": 0}),  # bnd jmp
    ("48 e9 10 00 00 00", 6, "jmp", {"rel": 16}),  # REX.W ignored
    ("2e e9 10 00 00 00", 6, "jmp", {}),
    ("66 e9 00 00", 0, "bad", {}),                # rel16 vs rel32: vendor
    ("66 eb 00", 0, "bad", {}),
    ("74 05", 2, "jcc", {"rel_size": 1, "rel": 5}),
    ("7f 80", 2, "jcc", {"rel": -128}),
    ("3e 74 05", 3, "jcc", {"rel": 5}),           # branch hint
    ("0f 84 10 00 00 00", 6, "jcc", {"opcode_len": 2, "rel_size": 4,
                                     "rel": 16, "imm_off": 2}),
    ("0f 85 00 00 00 80", 6, "jcc", {"rel": -2**31}),
    ("66 0f 84 00 00", 0, "bad", {}),
    ("e8 fb ff ff ff", 5, "call", {"rel_size": 4, "rel": -5}),
    ("2e e8 00 00 00 00", 6, "call", {}),
    ("e0 fe", 2, "loop", {"rel_size": 1, "rel": -2}),
    ("e1 fe", 2, "loop", {}),
    ("e2 fe", 2, "loop", {}),
    ("e3 10", 2, "loop", {"rel": 16}),            # jrcxz
    ("67 e3 10", 3, "loop", {}),                  # jecxz
    # indirect
    ("ff e0", 2, "jmp_ind", {"modrm_off": 1}),    # jmp *%rax
    ("41 ff e3", 3, "jmp_ind", {"modrm_off": 2}),  # jmp *%r11
    ("3e ff e0", 3, "jmp_ind", {}),               # notrack jmp
    ("ff 25 00 00 00 00", 6, "jmp_ind", {"rip_rel": 1, "disp_off": 2}),
    ("ff 24 c5 00 00 00 00", 7, "jmp_ind", {"disp_off": 3, "rip_rel": 0}),
    ("ff 2c 24", 3, "jmp_ind", {}),               # ljmp *(%rsp)
    ("ff d0", 2, "call_ind", {}),
    ("41 ff d3", 3, "call_ind", {}),
    ("ff 15 00 00 00 00", 6, "call_ind", {"rip_rel": 1}),
    ("ff 1c 24", 3, "call_ind", {}),              # lcall *(%rsp)
    ("ff d8", 0, "bad", {}),                      # lcall needs memory
    ("ff e8", 0, "bad", {}),
    ("ff f8", 0, "bad", {}),                      # ff /7
    ("ff 30", 2, "other", {}),                    # push (%rax)
    ("ff c0", 2, "other", {}),                    # inc %eax
    # int3, prologue
    ("cc", 1, "int3", {}),
    ("55", 1, "push_rbp", {}),
    ("41 55", 2, "other", {}),                    # push %r13
    ("66 55", 2, "other", {}),
    ("48 89 e5", 3, "mov_rsp_rbp", {"modrm_off": 2}),
    ("48 8b ec", 3, "mov_rsp_rbp", {}),
    ("89 e5", 2, "other", {}),                    # mov %esp,%ebp
    ("49 89 e5", 3, "other", {}),                 # mov %rsp,%r13
    ("4c 89 e5", 3, "other", {}),                 # mov %r12,%rbp
    # nops
    ("90", 1, "nop", {}),
    ("66 90", 2, "nop", {}),
    ("48 90", 2, "nop", {}),
    ("41 90", 2, "other", {}),                    # xchg %eax,%r8d
    ("f3 90", 2, "other", {}),                    # pause
    ("0f 1f 00", 3, "nop", {"opcode_len": 2, "modrm_off": 2}),
    ("0f 1f 40 00", 4, "nop", {"disp_off": 3}),
    ("0f 1f 44 00 00", 5, "nop", {}),
    ("66 0f 1f 44 00 00", 6, "nop", {}),
    ("0f 1f 80 00 00 00 00", 7, "nop", {}),
    ("0f 1f 84 00 00 00 00 00", 8, "nop", {}),
    ("66 0f 1f 84 00 00 00 00 00", 9, "nop", {}),
    ("66 2e 0f 1f 84 00 00 00 00 00", 10, "nop", {}),
    ("66 66 2e 0f 1f 84 00 00 00 00 00", 11, "nop", {}),
    ("0f 1f c0", 3, "nop", {}),
    ("0f 1f 48 00", 4, "other", {}),              # 0f 1f /1: hint, not /0
    ("f3 0f 1e fa", 4, "nop", {"opcode_len": 2}),  # endbr64
    ("f3 0f 1e fb", 4, "nop", {}),                # endbr32
    ("f3 48 0f 1e c8", 5, "other", {}),           # rdsspq %rax
    # refused
    ("fa", 1, "refused", {}),                     # cli
    ("fb", 1, "refused", {}),                     # sti
    ("9d", 1, "refused", {}),                     # popf
    ("9c", 1, "other", {}),                       # pushf
    ("cf", 1, "refused", {}),                     # iret
    ("48 cf", 2, "refused", {}),                  # iretq
    ("f4", 1, "refused", {}),                     # hlt
    ("0f 07", 2, "refused", {}),                  # sysret
    ("48 0f 07", 3, "refused", {}),               # sysretq
    ("0f 35", 2, "refused", {}),                  # sysexit
    ("0f 05", 2, "refused", {}),                  # syscall
    ("0f 34", 2, "refused", {}),                  # sysenter
    ("0f 01 f8", 3, "refused", {}),               # swapgs
    ("0f 01 c1", 3, "refused", {}),               # vmcall
    ("0f 01 ca", 3, "refused", {}),               # clac
    ("0f 01 cb", 3, "refused", {}),               # stac
    ("0f 01 10", 3, "refused", {}),               # lgdt (%rax)
    ("0f 01 1d 00 00 00 00", 7, "refused", {"rip_rel": 1}),  # lidt
    ("0f 01 38", 3, "refused", {}),               # invlpg (%rax)
    ("0f 00 d8", 3, "refused", {}),               # ltr %ax
    ("0f 00 d0", 3, "refused", {}),               # lldt %ax
    ("0f 30", 2, "refused", {}),                  # wrmsr
    ("0f 32", 2, "refused", {}),                  # rdmsr
    ("0f 31", 2, "other", {}),                    # rdtsc
    ("0f 09", 2, "refused", {}),                  # wbinvd
    ("0f 22 d8", 3, "refused", {}),               # mov %rax,%cr3
    ("0f 20 d8", 3, "refused", {}),               # mov %cr3,%rax
    ("0f 23 f8", 3, "refused", {}),               # mov %rax,%db7
    ("0f 20 05", 3, "refused", {"rip_rel": 0}),   # mod ignored: register
    ("e4 60", 2, "refused", {"imm_off": 1}),      # in $0x60,%al
    ("e7 80", 2, "refused", {}),                  # out %eax,$0x80
    ("ec", 1, "refused", {}),                     # in (%dx),%al
    ("ef", 1, "refused", {}),                     # out %eax,(%dx)
    ("6c", 1, "refused", {}),                     # insb
    ("f3 6f", 2, "refused", {}),                  # rep outsl
    ("cd 80", 2, "refused", {}),                  # int $0x80
    ("f1", 1, "refused", {}),                     # int1
    ("0f 0b", 2, "refused", {}),                  # ud2
    ("0f b9 c8", 3, "refused", {}),               # ud1
    ("8e d0", 2, "refused", {}),                  # mov %eax,%ss
    ("66 0f 38 82 10", 5, "refused", {"opcode_len": 3}),  # invpcid
    ("0f c7 30", 3, "refused", {}),               # vmptrld (%rax)
    ("0f c7 28", 3, "refused", {}),               # xsaves (%rax)
    ("0f c7 f0", 3, "other", {}),                 # rdrand %eax
    ("48 0f c7 0e", 4, "other", {}),              # cmpxchg16b (%rsi)
    ("0f 78 c0", 3, "refused", {}),               # vmread
    ("c7 f8 00 00 00 00", 6, "refused", {}),      # xbegin
    ("c6 f8 01", 3, "refused", {}),               # xabort
    # bad: invalid in 64-bit mode, truncated, too long
    ("ce", 0, "bad", {}),                         # into: invalid in 64-bit
    ("06", 0, "bad", {}),                         # push %es
    ("1f", 0, "bad", {}),
    ("27", 0, "bad", {}),                         # daa
    ("60", 0, "bad", {}),                         # pusha
    ("82 c0 01", 0, "bad", {}),
    ("9a 00 00 00 00 00 00", 0, "bad", {}),       # callf ptr16:32
    ("ea 00 00 00 00 00 00", 0, "bad", {}),       # jmpf ptr16:32
    ("d4 0a", 0, "bad", {}),                      # aam
    ("d6", 0, "bad", {}),                         # salc
    ("0f 0f c1 b4", 0, "bad", {}),                # 3DNow: not supported
    ("0f 04", 0, "bad", {}),
    ("8f c8", 0, "bad", {}),                      # 8f /1: XOP space
    ("8f e8 78 c2 c0 01", 0, "bad", {}),          # XOP
    ("c6 c8 01", 0, "bad", {}),                   # c6 /1
    ("fe d0", 0, "bad", {}),                      # fe /2
    ("", 0, "bad", {}),
    ("66", 0, "bad", {}),
    ("48", 0, "bad", {}),
    ("0f", 0, "bad", {}),
    ("0f 38", 0, "bad", {}),
    ("e8 00 00", 0, "bad", {}),
    ("48 b8 00 00 00 00", 0, "bad", {}),
    ("8b 84 24 00", 0, "bad", {}),                # truncated disp32
    ("8b 04", 0, "bad", {}),                      # truncated SIB
    ("c5 f8", 0, "bad", {}),
    ("62 f1 fd 48", 0, "bad", {}),
    (h("66 " * 14, "90"), 15, "nop", {}),
    (h("66 " * 15, "90"), 0, "bad", {}),          # 16 bytes
    (h("2e " * 11, "48 b8", I8), 0, "bad", {}),
    ("48 66 90", 0, "bad", {}),                   # REX not last
    ("48 f0 01 00", 0, "bad", {}),
    ("40 48 01 c0", 0, "bad", {}),                # two REX
    ("66 c7 f8 00 00", 0, "bad", {}),             # xbeginw: rel16
    ("66 c5 f8 77", 0, "bad", {}),                # VEX after 66: #UD
    ("f0 c5 f8 77", 0, "bad", {}),                # VEX after lock: #UD
    ("48 c5 f8 77", 0, "bad", {}),                # VEX after REX: #UD
    ("c4 e8 78 c2 c0 01", 0, "bad", {}),          # VEX map 8
    ("62 f1 f9 48 6f 00", 0, "bad", {}),          # EVEX fixed bit clear
    ("62 f4 7c 48 00 c0", 0, "bad", {}),          # EVEX map 4
    # immediates and operand size
    ("04 01", 2, "other", {"imm_off": 1}),
    ("05 " + I4, 5, "other", {"imm_off": 1}),
    ("66 05 34 12", 4, "other", {"imm_off": 2}),
    ("48 05 " + I4, 6, "other", {}),              # iz stays 32 with REX.W
    ("66 48 05 " + I4, 7, "other", {}),           # REX.W beats 66
    ("b0 01", 2, "other", {}),
    ("b8 " + I4, 5, "other", {"imm_off": 1}),
    ("66 b8 34 12", 4, "other", {}),
    ("41 b8 " + I4, 6, "other", {}),
    ("48 b8 " + I8, 10, "other", {"imm_off": 2}),  # movabs imm64
    ("49 bf " + I8, 10, "other", {}),
    ("66 48 b8 " + I8, 11, "other", {}),
    ("a0 " + I8, 9, "other", {"imm_off": 1}),     # moffs8
    ("a1 " + I8, 9, "other", {}),
    ("48 a1 " + I8, 10, "other", {}),
    ("48 a3 " + I8, 10, "other", {}),
    ("66 a3 " + I8, 10, "other", {}),
    ("67 a1 " + I4, 6, "other", {}),              # moffs32 with 67
    ("67 48 a2 " + I4, 7, "other", {}),
    ("f6 c0 01", 3, "other", {"imm_off": 2}),     # test $1,%al
    ("f6 48 10 05", 4, "other", {"disp_off": 2, "imm_off": 3}),  # /1
    ("f6 44 24 08 01", 5, "other", {}),
    ("f6 d0", 2, "other", {"imm_off": 0}),        # not %al
    ("f6 30", 2, "other", {}),                    # div (%rax)
    ("f7 c0 " + I4, 6, "other", {}),              # test $iz,%eax
    ("66 f7 c0 34 12", 5, "other", {}),
    ("48 f7 c0 " + I4, 7, "other", {}),
    ("f7 44 24 08 " + I4, 8, "other", {}),
    ("f7 d8", 2, "other", {}),                    # neg %eax
    ("48 f7 74 24 08", 5, "other", {}),           # div 8(%rsp)
    ("c8 10 00 00", 4, "other", {"imm_off": 1}),  # enter $16,$0
    ("c8 10 00 01", 4, "other", {}),
    ("c9", 1, "other", {}),                       # leave
    ("68 " + I4, 5, "other", {}),                 # push $imm32
    ("66 68 34 12", 4, "other", {}),
    ("6a 01", 2, "other", {}),
    ("69 c0 " + I4, 6, "other", {}),
    ("66 69 c0 34 12", 5, "other", {}),
    ("6b c0 05", 3, "other", {}),
    ("c6 00 01", 3, "other", {}),
    ("c7 c0 " + I4, 6, "other", {}),
    ("48 c7 c0 " + I4, 7, "other", {}),
    ("66 c7 00 34 12", 5, "other", {}),
    ("c0 e0 04", 3, "other", {}),
    ("d1 e0", 2, "other", {}),
    ("80 3d 00 00 00 00 01", 7, "other", {"rip_rel": 1, "disp_off": 2,
                                          "imm_off": 6}),
    ("48 81 c4 " + D4, 7, "other", {}),
    ("48 83 ec 08", 4, "other", {}),
    # ModRM / SIB / displacement
    ("8b 04 24", 3, "other", {"modrm_off": 1, "disp_off": 0}),
    ("8b 44 24 08", 4, "other", {"disp_off": 3}),
    ("8b 84 24 " + D4, 7, "other", {"disp_off": 3}),
    ("8b 04 25 " + D4, 7, "other", {"rip_rel": 0, "disp_off": 3}),  # abs
    ("8b 04 2d " + D4, 7, "other", {"rip_rel": 0}),  # index, no base
    ("8b 05 " + D4, 6, "other", {"rip_rel": 1, "disp_off": 2}),
    ("48 8b 05 " + D4, 7, "other", {"rip_rel": 1, "disp_off": 3}),
    ("4c 8b 2d " + D4, 7, "other", {"rip_rel": 1}),
    ("41 8b 05 " + D4, 7, "other", {"rip_rel": 1}),  # REX.B: still RIP
    ("67 8b 05 " + D4, 7, "other", {"rip_rel": 1}),  # EIP-relative
    ("8b 45 00", 3, "other", {"rip_rel": 0, "disp_off": 2}),
    ("41 8b 45 00", 4, "other", {"rip_rel": 0}),  # (%r13) needs disp8
    ("42 8b 04 25 " + D4, 8, "other", {}),
    ("8b 00", 2, "other", {"disp_off": 0}),
    ("48 c7 05 d1 d2 d3 d4 01 00 00 00", 11, "other",
     {"rip_rel": 1, "disp_off": 3, "imm_off": 7, "modrm_off": 2}),
    ("c7 84 24 " + D4 + " " + I4, 11, "other", {"disp_off": 3,
                                                "imm_off": 7}),
    ("f0 48 0f b1 0a", 5, "other", {}),           # lock cmpxchg
    ("65 48 8b 04 25 " + D4, 9, "other", {}),     # mov %gs:abs,%rax
    ("65 48 03 05 " + D4, 8, "other", {"rip_rel": 1}),
    ("66 67 f0 48 81 84 8b " + D4 + " " + I4, 15, "other",
     {"disp_off": 7, "imm_off": 11}),             # 15 bytes exactly
    ("26 66 67 f0 48 81 84 8b " + D4 + " " + I4, 0, "bad", {}),  # 16
    # two- and three-byte maps
    ("0f a4 c0 04", 4, "other", {"imm_off": 3}),  # shld $4
    ("0f ba e0 03", 4, "other", {}),              # bt $3
    ("0f c2 c1 00", 4, "other", {}),              # cmpps
    ("66 0f 73 d8 04", 5, "other", {}),           # psrldq $4
    ("66 0f 3a 0f c1 08", 6, "other", {"opcode_len": 3, "imm_off": 5}),
    ("66 0f 38 00 c1", 5, "other", {"opcode_len": 3, "modrm_off": 4}),
    ("66 0f 38 00 05 " + D4, 9, "other", {"rip_rel": 1}),
    ("f2 0f 38 f1 c1", 5, "other", {}),           # crc32
    ("66 0f 78 c0 04 08", 6, "other", {}),        # extrq $4,$8
    ("f2 0f 78 c1 04 08", 6, "other", {}),        # insertq
    ("f3 48 0f b8 c0", 5, "other", {}),           # popcnt
    ("0f 0d 08", 3, "other", {}),                 # prefetchw
    ("0f 18 08", 3, "other", {}),                 # prefetcht0
    ("0f ae f0", 3, "other", {}),                 # mfence
    ("0f ae 38", 3, "other", {}),                 # clflush
    ("0f a2", 2, "other", {}),                    # cpuid
    ("f3 0f a7 c8", 4, "other", {}),              # VIA rep xcryptecb
    ("0f a7 c0", 3, "other", {}),                 # VIA xstore
    ("f3 0f a6 d0", 4, "other", {}),              # VIA rep xsha256
    ("0f c8", 2, "other", {}),                    # bswap
    ("0f 44 c1", 3, "other", {}),                 # cmove
    ("0f 94 c0", 3, "other", {}),                 # sete
    ("0f b6 04 24", 4, "other", {}),              # movzbl
    ("d9 ee", 2, "other", {}),                    # fldz
    ("dd 04 24", 3, "other", {}),
    ("8f c0", 2, "other", {}),                    # pop %rax via 8f /0
    # VEX / EVEX
    ("c5 f8 77", 3, "other", {"opcode_len": 1, "modrm_off": 0}),
    ("c5 fd 6f 00", 4, "other", {"modrm_off": 3}),
    ("c5 fd 6f 05 " + D4, 8, "other", {"rip_rel": 1, "disp_off": 4}),
    ("c5 f9 70 c1 1b", 5, "other", {"imm_off": 4}),   # vpshufd
    ("c5 f1 73 d0 04", 5, "other", {}),           # vpsrlq $4
    ("c5 fc c6 c1 01", 5, "other", {}),           # vshufps
    ("c4 e2 7d 00 c1", 5, "other", {"modrm_off": 4}),  # vpshufb
    ("c4 e3 7d 0f c1 08", 6, "other", {"imm_off": 5}),  # vpalignr
    ("c4 e3 fd 00 c1 1b", 6, "other", {}),        # vpermq
    ("c4 e2 78 f2 c1", 5, "other", {}),           # andn
    ("c4 c1 7d 6f 44 24 20", 7, "other", {"disp_off": 6}),
    ("62 f1 fd 48 6f 00", 6, "other", {"modrm_off": 5}),  # vmovdqa64
    ("62 f1 7d 48 6f 40 01", 7, "other", {"disp_off": 6}),  # disp8*N
    ("62 f1 fd 48 6f 05 " + D4, 10, "other", {"rip_rel": 1}),
    ("62 f3 fd 48 00 c1 1b", 7, "other", {"imm_off": 6}),  # vpermq
    ("62 f2 7d 48 00 c1", 6, "other", {}),        # vpshufb
    ("62 f5 7c 48 58 c1", 6, "other", {}),        # vaddph (map 5)
]


def decode_many(tool, hexes):
    r = subprocess.run([tool, "-x"], input="\n".join(hexes) + "\n",
                       capture_output=True, text=True, check=True)
    fields = ("len", "class", "opcode_len", "modrm_off", "rip_rel",
              "disp_off", "imm_off", "rel_size", "rel")
    out = []
    for line in r.stdout.splitlines():
        v = line.split()
        out.append({k: (x if k == "class" else int(x))
                    for k, x in zip(fields, v)})
    return out


def test_decoder_byte_sequences(check_tool):
    got = decode_many(check_tool, [c[0] for c in CASES])
    assert len(got) == len(CASES)
    wrong = []
    for (hx, length, cls, extra), g in zip(CASES, got):
        want = dict(extra, len=length, **{"class": cls})
        diff = {k: (g[k], v) for k, v in want.items() if g[k] != v}
        if diff:
            wrong.append(f"{hx!r}: (got, want) {diff}")
        if cls == "bad":
            if any(g[k] for k in g if k != "class"):
                wrong.append(f"{hx!r}: BAD must clear every field: {g}")
        elif cls in ("jmp", "jcc", "call", "loop"):
            if g["rel_size"] not in (1, 4) or \
                    g["imm_off"] + g["rel_size"] != g["len"]:
                wrong.append(f"{hx!r}: rel8/rel32 must end the insn: {g}")
        elif g["rel_size"] or g["rel"]:
            wrong.append(f"{hx!r}: rel set on a non-branch: {g}")
    assert not wrong, "\n".join(wrong)


def test_every_class_is_covered():
    classes = {c[2] for c in CASES}
    assert classes == {"other", "ret", "jmp", "jcc", "call", "jmp_ind",
                       "call_ind", "loop", "int3", "push_rbp",
                       "mov_rsp_rbp", "nop", "refused", "bad"}


LEGACY = (0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x3e, 0x26, 0x36, 0x64, 0x65, 0xf0)


def random_encodings(n, seed):
    """Prefixes, REX, an opcode from every map or a VEX/EVEX header, then
    random bytes: ModRM/SIB/displacement/immediate forms of everything."""
    import random
    rnd = random.Random(seed)
    onebyte = [x for x in range(256) if x not in LEGACY and not 0x40 <= x < 0x50]
    out = []
    for _ in range(n):
        b = [rnd.choice(LEGACY) for _ in range(rnd.choice([0, 0, 0, 1, 1, 2]))]
        if rnd.random() < 0.4:
            b.append(rnd.randrange(0x40, 0x50))
        k = rnd.random()
        if k < 0.35:
            b.append(rnd.choice(onebyte))
        elif k < 0.65:
            b += [0x0f, rnd.randrange(256)]
        elif k < 0.75:
            b += [0x0f, rnd.choice([0x38, 0x3a]), rnd.randrange(256)]
        elif k < 0.88:
            b = []
            if rnd.random() < 0.5:
                b += [0xc5, rnd.randrange(256), rnd.randrange(256)]
            else:
                b += [0xc4, rnd.randrange(8) << 5 | rnd.choice([1, 2, 3]),
                      rnd.randrange(256), rnd.randrange(256)]
        else:
            b = [0x62, rnd.randrange(16) << 4 | rnd.choice([1, 2, 3, 5, 6]),
                 rnd.randrange(256) | 4, rnd.randrange(256), rnd.randrange(256)]
        b += [rnd.randrange(256) for _ in range(16)]
        out.append(bytes(b[:15]))
    return out


def deliberate_divergence(c, dec_len, dec_cls, od_text):
    """Where the decoder and objdump differ on purpose (see decode.c)."""
    j = 0
    while c[j] in LEGACY:
        j += 1
    nxt = c[j + 1] if j + 1 < len(c) else None
    if c[j] == 0x9b or (0x40 <= c[j] < 0x50 and nxt == 0x9b):
        return True             # objdump folds fwait into the x87 insn
    if dec_cls != "bad":
        return False
    if 0x40 <= c[j] < 0x50 and (nxt in LEGACY or 0x40 <= nxt < 0x50 or
                                nxt in (0xc4, 0xc5, 0x62)):
        return True             # REX not last / REX + VEX: CPU ignores, #UD
    if j and c[j] in (0xc4, 0xc5, 0x62):
        return True             # VEX/EVEX after 66/f2/f3/f0: #UD
    if c[j:j + 2] == b"\x0f\x0f" or (0x40 <= c[j] < 0x50 and
                                      c[j + 1:j + 3] == b"\x0f\x0f"):
        return True             # 3DNow: not supported
    if 0x66 in c[:j] and re.match(r"(\S+ )*(j|call|loop|xbegin)", od_text):
        return True             # 66 on a near branch: vendor-dependent
    return False


def test_random_encodings_match_objdump(check_tool, tmp_path):
    if not shutil.which(OBJDUMP):
        pytest.skip(f"{OBJDUMP} not installed (binutils-x86-64-linux-gnu)")
    cases = random_encodings(40000, seed=20240601)
    got = decode_many(check_tool, [c.hex() for c in cases])
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"".join(c.ljust(32, b"\x90") for c in cases))
    out = subprocess.run([OBJDUMP, "-D", "-w", "-z", "-b", "binary", "-m",
                          "i386:x86-64", str(blob)], capture_output=True,
                         text=True, check=True).stdout
    od = {}
    for line in out.splitlines():
        p = line.split("\t")
        if len(p) >= 3 and p[0].endswith(":"):
            a = int(p[0].strip()[:-1], 16)
            if a % 32 == 0:
                od[a // 32] = (len(p[1].split()), p[2].strip())
    wrong, compared = [], 0
    for i, c in enumerate(cases):
        olen, text = od[i]
        if "(bad)" in text:
            continue            # objdump: invalid; the decoder may differ
        g = got[i]
        if g["len"] == olen or deliberate_divergence(c, g["len"],
                                                      g["class"], text):
            compared += 1
            continue
        wrong.append(f"{c.hex()}: decoder {g['len']} {g['class']}, "
                     f"objdump {olen} {text!r}")
    assert compared > 15000, compared   # the rest objdump calls (bad)
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong[:40])


# --- 2. The whole vmlinux against objdump -----------------------------------

def stable_vmlinux(dest_dir, wait_s=900):
    """Copy the x86_64 vmlinux to @dest_dir.  A kernel rebuild may swap the
    tree underneath; wait for it and retry.  Skip if none was ever built."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            src = xdtvm.vmlinux("x86_64")
            dst = os.path.join(dest_dir, "vmlinux")
            shutil.copyfile(src, dst)
            return dst
        except xdtvm.XdtError as e:
            if not os.path.isdir(os.path.join(xdtvm.CACHE, "kernel")) or \
                    time.monotonic() > deadline:
                pytest.skip(f"no x86_64 vmlinux: {e}")
            if not _rebuild_running():
                pytest.skip(f"no x86_64 vmlinux: {e}")
        except (FileNotFoundError, OSError) as e:
            if time.monotonic() > deadline:
                pytest.skip(f"x86_64 vmlinux kept disappearing: {e}")
        time.sleep(10)


def _rebuild_running():
    d = os.path.join(xdtvm.CACHE, "kernel")
    return any(n.startswith("x86_64-") and
               not os.path.exists(os.path.join(d, n, ".xdt-done"))
               for n in os.listdir(d))


@pytest.fixture(scope="module")
def vmlinux_copy(tmp_path_factory):
    if not shutil.which(OBJDUMP):
        pytest.skip(f"{OBJDUMP} not installed (binutils-x86-64-linux-gnu)")
    return stable_vmlinux(str(tmp_path_factory.mktemp("vmlinux")))


def objdump_insns(vmlinux):
    """{address: length} of every instruction objdump disassembles, and
    the set of addresses where objdump printed (bad)."""
    insns, bad = {}, set()
    proc = subprocess.Popen([OBJDUMP, "-d", "-w", "-z", vmlinux],
                            stdout=subprocess.PIPE, text=True,
                            errors="replace", bufsize=1 << 20)
    for line in proc.stdout:
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].endswith(":"):
            continue
        try:
            addr = int(parts[0][:-1], 16)
        except ValueError:
            continue
        insns[addr] = len(parts[1].split())
        if len(parts) > 2 and "(bad)" in parts[2]:
            bad.add(addr)
    assert proc.wait() == 0, f"{OBJDUMP} failed"
    return insns, bad


def walk(tool, vmlinux):
    """Run the check tool: ({func: (addr, [(off, len, class)])}, summary)."""
    r = subprocess.run([tool, vmlinux], capture_output=True, text=True,
                       check=True)
    funcs, summary = {}, {}
    cur = None
    for line in r.stdout.splitlines():
        v = line.split()
        if v[0] == "@":
            cur = []
            for name in [v[1]] + v[4:]:       # the name and its aliases
                funcs[name] = (int(v[2], 16), cur)
        elif v[0] == "#":
            summary[" ".join(v[1:-1])] = int(v[-1])
        else:
            cur.append((int(v[1]), int(v[2]), v[3]))
    return funcs, summary


_ELF = {}


def _byte(vmlinux, addr):
    """The byte at virtual address @addr of @vmlinux (rarely needed)."""
    if vmlinux not in _ELF:
        _ELF[vmlinux] = xdtvm._elf64(vmlinux)
    data, secs = _ELF[vmlinux]
    for _, typ, flags, saddr, offset, size, *_ in secs:
        if typ == 1 and saddr <= addr < saddr + size:
            return data[offset + addr - saddr]
    return None


def test_vmlinux_boundaries_match_objdump(check_tool, vmlinux_copy):
    funcs, summary = walk(check_tool, vmlinux_copy)
    insns, objbad = objdump_insns(vmlinux_copy)
    missing = [f for f in IMPORTANT if f not in funcs]
    assert not missing, f"functions not walked: {missing}"

    mismatches = []
    walked = {base: (name, lst) for name, (base, lst) in funcs.items()}
    folded = 0
    for base, (name, lst) in sorted(walked.items()):
        skip = 0
        for i, (off, length, cls) in enumerate(lst):
            addr = base + off
            olen = insns.get(addr)
            if skip:
                skip -= 1
                continue
            # objdump prints fwait (9b) and the no-wait x87 instruction
            # after it as one (finit = 9b db e3, fstsw = 9b df e0, ...);
            # the CPU executes two instructions, and so does the decoder.
            if length == 1 and olen and olen > 1 and i + 1 < len(lst) and \
                    1 + lst[i + 1][1] == olen and \
                    _byte(vmlinux_copy, addr) == 0x9b:
                folded += 1
                skip = 1
                continue
            if length == 0:
                why = "objdump: (bad) too" if addr in objbad else ""
                mismatches.append(f"{name}+{off:#x} ({addr:x}): decoder BAD,"
                                  f" objdump length {olen} {why}")
            elif olen != length:
                mismatches.append(f"{name}+{off:#x} ({addr:x}): decoder "
                                  f"{length} ({cls}), objdump {olen}")
    classes = {k.split()[1]: n for k, n in summary.items()
               if k.startswith("class ")}
    report = (f"functions {summary['functions']}, instructions "
              f"{summary['instructions']}, mismatches {len(mismatches)}, "
              f"bad {summary['bad']}, fwait folds {folded}; classes: "
              + ", ".join(f"{k} {n}" for k, n in classes.items()))
    print(report)
    assert summary["functions"] > 1000 and summary["instructions"] > 100000
    # Every class the kernel is known to contain shows up.
    for c in ("ret", "jmp", "jcc", "call", "jmp_ind", "call_ind", "nop",
              "refused", "int3"):
        assert classes[c] > 0, report
    assert not mismatches, (report + "\n" + "\n".join(mismatches[:50]))


def test_vmlinux_prologues(check_tool, vmlinux_copy):
    """Sanity for fbt on the functions it will probe first: -f finds them
    (aliases included), every instruction decodes, the walk ends exactly at
    the symbol's end, and vfs_read has a return site."""
    args = [check_tool]
    for f in IMPORTANT:
        args += ["-f", f]
    r = subprocess.run(args + [vmlinux_copy], capture_output=True,
                       text=True, check=True)
    per = collections.defaultdict(list)
    size = {}
    for line in r.stdout.splitlines():
        v = line.split()
        if v[0] == "@":
            names = [v[1]] + v[4:]
            for n in names:
                size[n] = int(v[3])
        elif v[0] != "#":
            for n in names:
                per[n].append((int(v[1]), int(v[2]), v[3]))
    assert set(IMPORTANT) <= set(per), sorted(per)
    for f in IMPORTANT:
        lst = per[f]
        assert all(n > 0 for _, n, _ in lst), (f, lst)
        last_off, last_len, _ = lst[-1]
        assert last_off + last_len == size[f], (f, lst[-3:], size[f])
    assert any(c == "ret" for _, _, c in per["vfs_read"]), per["vfs_read"]


# --- 3. Kernel build --------------------------------------------------------

KMOD_SRC = r"""
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include "decode.h"

static int __init xdtdec_init(void)
{
	static const u8 code[] = { 0x55, 0x48, 0x89, 0xe5, 0xc3 };
	struct xdt_insn in;

	return xdt_x86_decode(code, sizeof(code), &in) == 1 &&
	       in.cls == XDT_INSN_PUSH_RBP ? 0 : -EINVAL;
}
module_init(xdtdec_init);
MODULE_LICENSE("GPL");
"""


def test_decoder_uses_no_library_function(tmp_path):
    """User-space object of decode.c: no undefined symbols at all."""
    obj = str(tmp_path / "decode.o")
    subprocess.run(["gcc", *CFLAGS, "-pedantic", "-ffreestanding",
                    "-fno-builtin", "-mgeneral-regs-only", "-fno-pie", "-c",
                    os.path.join(ARCH, "decode.c"), "-o", obj], check=True)
    und = subprocess.run(["nm", "-u", obj], capture_output=True, text=True,
                         check=True).stdout.split()
    assert und == [], f"decode.c calls out to: {und}"
    defined = subprocess.run(["nm", "-g", "--defined-only", obj],
                             capture_output=True, text=True,
                             check=True).stdout
    syms = sorted(ln.split()[-1] for ln in defined.splitlines())
    assert syms == ["xdt_insn_class_name", "xdt_x86_decode"], syms
    # No writable state: no .data/.bss symbols.
    allsyms = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
    assert not [ln for ln in allsyms.splitlines()
                if ln.split()[-2:-1] and ln.split()[-2] in "bBdD"], allsyms


def test_decoder_builds_as_kernel_code(tmp_path):
    """decode.c as part of a module built by Kbuild against the x86_64
    tree, with -Werror and the kernel's own flags (no SSE, no libc)."""
    try:
        kdir = xdtvm.kernel_dir("x86_64")
    except xdtvm.XdtError as e:
        pytest.skip(str(e))
    if not os.path.isfile(os.path.join(kdir, "Module.symvers")):
        pytest.skip(f"{kdir}: no Module.symvers (kernel build unfinished)")
    d = tmp_path / "mod"
    d.mkdir()
    for f in ("decode.c", "decode.h"):
        shutil.copy(os.path.join(ARCH, f), d / f)
    (d / "xdtdec_main.c").write_text(KMOD_SRC)
    (d / "Kbuild").write_text("obj-m := xdtdec.o\n"
                              "xdtdec-y := xdtdec_main.o decode.o\n"
                              "ccflags-y := -Werror -I$(src)\n")
    isa = xdtvm.check_isa("x86_64")
    r = subprocess.run(["make", "-s", "-C", kdir, f"M={d}",
                        f"ARCH={isa['karch']}",
                        f"CROSS_COMPILE={isa['cross']}", "modules"],
                       capture_output=True, text=True)
    if r.returncode and not os.path.isdir(kdir):
        pytest.skip(f"{kdir} vanished during the build (kernel rebuild)")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (d / "xdtdec.ko").is_file()
    warn = [ln for ln in (r.stdout + r.stderr).splitlines()
            if "warning" in ln.lower()]
    assert not warn, "\n".join(warn)
