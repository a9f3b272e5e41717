#!/usr/bin/env python3
"""Assemble the guest initramfs as a newc cpio archive, without root.

Ownership, device nodes and modes are written straight into the archive
headers, so nothing needs mknod or chown on the host.  Timestamps are zero so
the same inputs give the same bytes.

usage: mkinitramfs.py OUT --init INIT --busybox DIR [--file SRC:DST]...
                      [--symlink LINK:TARGET]...
"""
import argparse
import os
import stat
import sys

DIRS = ["bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys",
        "tmp", "root", "etc", "lib", "lib/modules", "run", "var", "var/tmp"]
ETC = {
    "etc/passwd": b"root:x:0:0:root:/root:/bin/sh\n"
                  b"nobody:x:65534:65534:nobody:/:/bin/sh\n",
    "etc/group": b"root:x:0:\nnogroup:x:65534:\n",
    "etc/hostname": b"xdt\n",
}


class Cpio:
    def __init__(self, f):
        self.f = f
        self.ino = 1
        self.names = set()

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        if name in self.names:
            raise SystemExit(f"mkinitramfs: duplicate entry {name}")
        self.names.add(name)
        nb = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0,
                  rdev[0], rdev[1], len(nb), 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % v for v in fields)
        self.f.write(hdr + nb)
        self.f.write(b"\0" * (-(len(hdr) + len(nb)) % 4))
        self.f.write(data)
        self.f.write(b"\0" * (-len(data) % 4))

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor, mode=0o600):
        self._entry(name, stat.S_IFCHR | mode, rdev=(major, minor))

    def close(self):
        self._entry("TRAILER!!!", 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--init", required=True)
    ap.add_argument("--busybox", required=True,
                    help="busybox build dir (busybox, busybox.links)")
    ap.add_argument("--file", action="append", default=[],
                    help="SRC:DST, DST relative to the root")
    ap.add_argument("--symlink", action="append", default=[],
                    help="LINK:TARGET, LINK relative to the root (after "
                    "the files: its directory must be made by one)")
    a = ap.parse_args()

    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        c = Cpio(f)
        made = set(DIRS)
        for d in DIRS:
            c.dir(d)
        # The kernel opens /dev/console before /init runs; devtmpfs comes later.
        c.chardev("dev/console", 5, 1)
        for name, data in ETC.items():
            c.file(name, data)
        with open(a.init, "rb") as g:
            c.file("init", g.read(), 0o755)
        with open(os.path.join(a.busybox, "busybox"), "rb") as g:
            c.file("bin/busybox", g.read(), 0o755)
        with open(os.path.join(a.busybox, "busybox.links")) as g:
            for link in sorted(set(g.read().split())):
                link = link.lstrip("/")
                # linuxrc is for initrd-style boots; our /init is our own.
                if "/" not in link or link == "bin/busybox" or link in c.names:
                    continue
                parent = os.path.dirname(link)
                if parent not in made:
                    raise SystemExit(f"mkinitramfs: no directory for {link}")
                c.symlink(link, "/bin/busybox")
        for spec in a.file:
            src, _, dst = spec.partition(":")
            # the kernel's unpacker makes no parents: each must be listed
            parts = dst.lstrip("/").split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in made:
                    c.dir(d)
                    made.add(d)
            with open(src, "rb") as g:
                mode = stat.S_IMODE(os.stat(src).st_mode)
                c.file(dst.lstrip("/"), g.read(), mode)
        for spec in a.symlink:
            link, _, target = spec.partition(":")
            link = link.lstrip("/")
            if os.path.dirname(link) not in made:
                raise SystemExit(f"mkinitramfs: no directory for {link}")
            c.symlink(link, target)
        c.close()
    os.replace(tmp, a.out)


if __name__ == "__main__":
    sys.exit(main())
