"""Host-side facts about a guest kernel, read from its ELF files: symbols,
function sizes and bytes, a function's disassembly, what ftrace's boot
rewrite leaves at an entry.  tools/xdtvm.py re-exports it all.
"""
import os
import re
import shutil
import struct
import subprocess

from xdtisa import FACTS, ISAS, XdtError, kernel_dir  # noqa: F401

# ---- host-side kernel facts ---------------------------------------------

def vmlinux(isa):
    return os.path.join(kernel_dir(isa), "vmlinux")


def _elf64(path):
    """(file bytes, section headers) of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise XdtError(f"{path}: not an ELF64 little-endian file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    # (name, type, flags, addr, offset, size, link, info, align, entsize)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    return data, secs


def _elf_symbols(data, secs):
    """Yield (name, st_info, st_shndx, value) for every .symtab entry."""
    for s in secs:
        if s[1] != 2:           # SHT_SYMTAB
            continue
        stroff = secs[s[6]][4]
        for off in range(s[4] + 24, s[4] + s[5], 24):
            name, info, _, shndx, value, _ = struct.unpack_from(
                "<IBBHQQ", data, off)
            end = data.index(b"\0", stroff + name)
            yield data[stroff + name:end], info, shndx, value


# Symbols scripts/kallsyms leaves out: ELF mapping symbols ($x, $d), local
# labels, export-table bookkeeping and absolute symbols.
_KALLSYMS_SKIP = (b"$", b".L", b"__kstrtab_", b"__kstrtabns_", b"__crc_",
                  b"__efistub_", b"__kvm_nvhe_")


def elf_symbol_count(path):
    """vmlinux .symtab entries that kallsyms would carry."""
    data, secs = _elf64(path)
    return sum(1 for name, info, shndx, _ in _elf_symbols(data, secs)
               if name and info & 0xf in (0, 1, 2) and shndx != 0xfff1
               and not name.startswith(_KALLSYMS_SKIP))


def elf_function_sizes(path):
    """{name: size} of the FUNC symbols of an ELF64 LE file."""
    data, secs = _elf64(path)
    sizes = {}
    for s in secs:
        if s[1] != 2:           # SHT_SYMTAB
            continue
        stroff = secs[s[6]][4]
        for off in range(s[4] + 24, s[4] + s[5], 24):
            name, info, _, _, _, size = struct.unpack_from("<IBBHQQ", data,
                                                           off)
            if info & 0xf == 2:
                end = data.index(b"\0", stroff + name)
                sizes[data[stroff + name:end].decode()] = size
    return sizes


def elf_symbol_bytes(path, symbol, length):
    """(address, bytes) at function @symbol in an ELF64 LE file."""
    data, secs = _elf64(path)
    addr = next((v for name, info, _, v in _elf_symbols(data, secs)
                 if name == symbol.encode() and info & 0xf == 2), None)
    if addr is None:
        raise XdtError(f"{path}: no function symbol {symbol}")
    for s in secs:
        if s[1] == 1 and s[3] <= addr < s[3] + s[5]:   # SHT_PROGBITS
            off = s[4] + addr - s[3]
            return addr, data[off:off + length]
    raise XdtError(f"{path}: {symbol} at {addr:#x} is in no PROGBITS section")


def function_body(isa, obj, func):
    """@func's disassembly in object @obj (objdump -d, one line per
    instruction), up to the next symbol; local labels (.LFB*, .LVL*: riscv
    keeps them as symbols in objects built with -g) do not end it."""
    cross = ISAS[isa]["cross"]
    objdump = shutil.which(f"{cross}objdump") or "objdump"
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    lines = []
    for line in out.split(f"<{func}>:\n", 1)[1].splitlines():
        if re.match(r"[0-9a-f]+ <\.L[^>]*>:$", line) or not line.strip():
            continue
        if re.match(r"[0-9a-f]+ <[^>]*>:$", line):
            break
        lines.append(line)
    return "\n".join(lines)


def first_body_insn(isa, obj, func):
    """(offset, disassembly) of @func's first instruction after the
    ftrace/patchable-entry site and landing pads, in object @obj: where an
    instruction probe lands on straight-line code run once per call."""
    body = function_body(isa, obj, func)
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        off, mnem = int(m.group(1), 16), m.group(2)
        ft = FACTS[isa]["ftrace"]
        if mnem in ft["entry_pads"] or (
                ft["entry_call"] and off == ft["call"][0] and
                mnem == ft["linked"].split()[0]):
            continue
        return off, line.split(":", 1)[1].strip()
    raise XdtError(f"no body instruction in {func}:\n{body}")


# ftrace_init() rewrites every function's compiler-emitted patch site at boot,
# so live text differs from vmlinux there and only there.  This is the site
# xdt's fbt entry probe will meet first: (vmlinux bytes, boot-time bytes).
# (linked bytes or None, boot-time bytes): arch/<dir>/isa.toml [ftrace].
FTRACE_BOOT_REWRITE = {
    isa: (None if f["ftrace"]["entry_call"] else
          bytes.fromhex(f["ftrace"]["linked"]), bytes.fromhex(f["ftrace"]["boot"]))
    for isa, f in FACTS.items()}


def ftrace_call_target(isa, site, code):
    """The target of the call @code (call_len bytes at address @site) by
    isa.toml [ftrace] call_target = [shift, mask, sign_bits, base]: the
    displacement is the little-endian integer of the call's bytes shifted
    right by shift, masked, sign-extended from sign_bits, and counted
    from the site plus base (x86_64 `call rel32`: after the 5 bytes;
    ppc64le `bl`: from the bl itself)."""
    shift, mask, sign, base = FACTS[isa]["ftrace"]["call_target"]
    d = (int.from_bytes(code, "little") >> shift) & mask
    if d & (1 << (sign - 1)):
        d -= 1 << sign
    return site + base + d


def ftrace_boot_bytes(isa, vmlinux, addr, disk):
    """What ftrace_init() leaves at @addr, given the linked bytes @disk."""
    before, after = FTRACE_BOOT_REWRITE[isa]
    ft = FACTS[isa]["ftrace"]
    if ft["entry_call"]:
        # The linked site is a call to the profiling hook ([ftrace] linked,
        # "call __fentry__", "bl _mcount") at the call's offset; ftrace
        # makes it the boot bytes.
        (at, mask, value), n = ft["call"], ft["call_len"]
        code = disk[at:at + n]
        if int.from_bytes(code[:4], "little") & mask != value:
            raise XdtError(f"vmlinux: no call at entry+{at}: "
                           f"{disk.hex(' ')}")
        hook = ft["linked"].split()[-1]
        target, _ = elf_symbol_bytes(vmlinux, hook, 1)
        if ftrace_call_target(isa, addr + at, code) != target:
            raise XdtError(f"entry call is not to {hook}")
        return disk[:at] + after + disk[at + n:]
    if not disk.startswith(before):
        raise XdtError(f"vmlinux entry {disk.hex(' ')} is not the ftrace "
                       f"site {before.hex(' ')}")
    return after + disk[len(before):]
