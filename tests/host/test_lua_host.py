"""The host's xdt-lua (Debian's liblua5.4 + libxdt): compiling D and
reading its DIF from Lua needs no kernel; -x hostvm runs BEGIN/END in
libxdt's host VM, so records and aggregations reach Lua without a guest."""
import os
import subprocess

import pytest

import xdtvm

pytestmark = pytest.mark.host
XDTLUA = os.path.join(xdtvm.CACHE, "build", "host", "xdt-lua")
DTRACE = os.path.join(xdtvm.CACHE, "build", "host", "dtrace")


def lua(code, *args):
    assert os.path.exists(XDTLUA), "host xdt-lua not built (make libxdt)"
    return subprocess.run([XDTLUA, "-e", code, *args], capture_output=True,
                          text=True, timeout=60)


def test_compile_error_position_and_tag():
    r = lua('local h = require("xdt").open()\n'
            'local ok, e = pcall(h.compile, h, "BEGIN\\n{\\n  trace(1 +);\\n}")\n'
            'print(e.line, e.col, e.tag, e.file)')
    assert r.returncode == 0, r.stderr
    assert r.stdout == "3\t12\tD_SYNTAX\t<program>\n"


def test_dis_is_dtrace_S():
    prog = 'BEGIN { x = 3; trace(x * 2); printf("%d\\n", x); }'
    r = lua(f'local h = require("xdt").open(); h:compile[[{prog}]]; io.write(h:dis())')
    assert r.returncode == 0, r.stderr
    d = subprocess.run([DTRACE, "-e", "-S", "-n", prog], capture_output=True,
                       text=True, timeout=60)
    assert d.returncode == 0, d.stderr
    assert r.stdout == d.stdout and "DIFO" in r.stdout.upper(), (r.stdout, d.stdout)


def test_hostvm_records_and_aggregations():
    r = lua(r'''
local h = require("xdt").open()
h:setopt("hostvm"); h:setopt("quiet")
h:compile[[BEGIN { trace(1 + 2); trace("hi"); trace((uint8_t)300); trace((char)-1);
	@c["a"] = count(); @c["b"] = count(); @c["b"] = count(); @s = sum(-5); exit(7); }]]
h:go()
local got = {}
-- BEGIN's records, at the first work()
assert(h:work{ record = function(r) got[#got + 1] = r end } == "done" and #got == 1)
h:stop{ record = function(r) got[#got + 1] = r end }
local r = got[1]
print(#got, r[1], r["1 + 2"], r['"hi"'], r["(uint8_t)300"], r["(char)-1"],
	table.concat(r.probe.types, ","), r.probe.desc)
for _, a in ipairs(h:aggregations()) do
	for _, e in ipairs(a) do print(a.name, a.func, table.concat(e.keys, ","), e.value) end
end
print(h:exitstatus())''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "1\t3\t3\thi\t44\t-1\tint,string,uint8_t,char,int\tdtrace:::BEGIN",
        "c\tcount\ta\t1", "c\tcount\tb\t2", "s\tsum\t\t-5", "7"], r.stdout


def test_replay_reads_a_saved_json_run(tmp_path):
    """dtrace -x oformat=json's saved output read back by the host's
    xdt-lua (lua/lib/xdtjson.lua, examples/lua/replay.lua)."""
    out = tmp_path / "run.json"
    d = subprocess.run([DTRACE, "-x", "hostvm", "-x", "oformat=json", "-qn",
                        'BEGIN { trace("q\\"\\\\"); @c["x", 3] = count(); '
                        '@q = quantize(100); @q = quantize(3); } '
                        'BEGIN { trace(1); } END { trace(2); }', "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert d.returncode == 0, d.stderr
    env = dict(os.environ, XDT_LUA_PATH=os.path.join(xdtvm.TOP, "lua", "lib", "?.lua"))
    r = subprocess.run([XDTLUA, os.path.join(xdtvm.TOP, "examples", "lua", "replay.lua"),
                        str(out)], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "@c = count(), 1 entries", "  [x, 3] 1",
        "@q = quantize(), 1 entries", "  [] {2:1 64:1}",
        "       2 dtrace:::BEGIN", "       1 dtrace:::END", "0 faults, 0 drops"]
    r = subprocess.run([XDTLUA, "-e", 'local j = require "xdtjson"\n'
                        'local v = j.decode([[{"s": "a\\"\\u00e9\\ud83d\\ude00", '
                        '"n": [-7, 2.5, true, null]}]])\n'
                        'print(v.s, v.n[1], math.type(v.n[1]), v.n[2], v.n[3], v.n[4])\n'
                        'print(pcall(j.decode, "[1, 2"))'],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.stdout.splitlines() == [
        'a"\u00e9\U0001F600\t-7\tinteger\t2.5\ttrue\tnull',
        "false\tjson: expected ',' or ']' at byte 6"], r.stdout
