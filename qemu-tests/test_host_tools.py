"""Host-only checks of the lab tooling: no guest needed, run first."""
import os
import subprocess
import tempfile

import pytest

import xdtvm

TOP = xdtvm.TOP
pytestmark = pytest.mark.host


def test_unknown_isa_is_refused_everywhere():
    with pytest.raises(xdtvm.XdtError, match="valid ISAs: x86_64, aarch64, riscv64"):
        xdtvm.check_isa("sparc64")
    r = subprocess.run([os.path.join(TOP, "tools", "xdt-vm"), "run", "--arch",
                        "sparc64", "--", "true"], capture_output=True, text=True)
    assert r.returncode != 0
    assert "unknown ISA 'sparc64'; valid ISAs: x86_64, aarch64, riscv64" in r.stderr
    r = subprocess.run([os.path.join(TOP, "tools", "build-kernel.sh"), "mips"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "valid ISAs: x86_64 aarch64 riscv64" in r.stderr
    r = subprocess.run(["make", "-C", TOP, "-n", "ISAS=x86_64,vax", "kernels"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "unknown ISA 'vax'" in r.stderr


def test_deps_names_missing_packages_when_not_root():
    """Not root and something missing: one message with the install line."""
    env = dict(os.environ, XDT_DEPS_EXTRA="xdt-no-such-package")
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", os.path.join(TOP, "tools", "deps.sh")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1, r
    assert "apt-get install xdt-no-such-package" in r.stderr, r.stderr


def test_deps_quiet_when_all_present():
    r = subprocess.run([os.path.join(TOP, "tools", "deps.sh")],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_initramfs_is_a_valid_newc_archive():
    """Built without root, readable by GNU cpio, with the entries boot needs."""
    with tempfile.TemporaryDirectory() as d:
        init = os.path.join(d, "init")
        with open(init, "wb") as f:
            f.write(b"\x7fELF fake init")
        bb = os.path.join(d, "bb")
        os.mkdir(bb)
        with open(os.path.join(bb, "busybox"), "wb") as f:
            f.write(b"busybox")
        with open(os.path.join(bb, "busybox.links"), "w") as f:
            f.write("/bin/sh\n/usr/bin/head\n/linuxrc\n")
        out = os.path.join(d, "out.cpio")
        subprocess.run(["python3", os.path.join(TOP, "tools", "mkinitramfs.py"),
                        out, "--init", init, "--busybox", bb], check=True)
        listing = subprocess.run(["cpio", "-itv", "--quiet"], stdin=open(out, "rb"),
                                 capture_output=True, text=True, check=True).stdout
        lines = {ln.split()[-1] if "->" not in ln else ln.split()[-3]: ln
                 for ln in listing.splitlines()}
        assert lines["init"].startswith("-rwxr-xr-x")
        assert lines["dev/console"].startswith("crw-------")
        assert "5,   1" in lines["dev/console"]
        assert lines["bin/sh"].endswith("bin/sh -> /bin/busybox")
        assert "usr/bin/head" in lines and "linuxrc" not in lines
        assert " root " in lines["init"]
        # Deterministic: the same inputs give the same bytes.
        out2 = out + "2"
        subprocess.run(["python3", os.path.join(TOP, "tools", "mkinitramfs.py"),
                        out2, "--init", init, "--busybox", bb], check=True)
        assert open(out, "rb").read() == open(out2, "rb").read()


def test_guest_init_builds_warning_clean_natively():
    """The agent's C builds with the project's flags on the host compiler."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra",
                        "-Werror", "-c", "-o", os.path.join(d, "init.o"),
                        os.path.join(TOP, "guest", "init.c")], check=True)
