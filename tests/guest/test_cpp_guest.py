"""`dtrace -C`'s preprocessor in every booted guest: the static mcpp of the
initramfs (/usr/bin/mcpp) and tests/host/test_cpp.py's driver, cross-built,
give the same output as on the host, with the guest's own ISA macro.
"""
import os
import subprocess
import tempfile

import xdtvm
from test_cpp import BASIC_ARGS, DIR, ISA_PROBE, SRCS, body, cflags


def test_guest_mcpp(vm):
    """The initramfs's static mcpp and a cross-built driver in the guest:
    the same output as on the host, and this ISA's macro alone."""
    with tempfile.TemporaryDirectory() as d:
        drv = os.path.join(d, "driver")
        r = subprocess.run([xdtvm.ISAS[vm.isa]["cross"] + "gcc", "-static"]
                           + cflags(vm.isa) + ["-o", drv] + SRCS,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        r = vm.run(["mcpp", "-v"])
        assert "MCPP V.2" in r.stderr, r
        vm.run(["mkdir", "-p", "/tmp/cpp"], check=True)
        vm.put(drv, "/tmp/cpp/driver", mode="755")
        for f in ("basic.d", "inc.h", "error.d", "column1.d"):
            vm.put(os.path.join(DIR, f), "/tmp/cpp/" + f)
        vm.put(ISA_PROBE.encode(), "/tmp/cpp/isa.d")
    r = vm.run("cd /tmp/cpp && ./driver basic.d basic.d " + " ".join(BASIC_ARGS))
    assert r.ok and r.stderr == "", r
    with open(os.path.join(DIR, "basic.d.out")) as f:
        assert r.stdout == f.read()
    r = vm.run("cd /tmp/cpp && ./driver column1.d column1.d")
    assert r.ok and r.stderr == "", r
    with open(os.path.join(DIR, "column1.d.out")) as f:
        assert r.stdout == f.read()
    r = vm.run("cd /tmp/cpp && ./driver error.d error.d")
    assert r.code == 1 and "error.d:11: error: End of input within #if" \
        in r.stderr, r
    r = vm.run("cd /tmp/cpp && ./driver isa.d isa.d")
    assert r.ok, r
    assert body(r.stdout) == ["isa " + vm.isa], r.stdout
