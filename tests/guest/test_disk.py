"""The lab disk: every guest has a virtio disk, /dev/vda, with an ext2
filesystem its init (guest/init.c) mounts at /mnt, so block I/O (the io
provider) has a device under it.  Its files are known on the host
(xdtvm.disk_files), so what a read of them moves is known too.
"""
import hashlib

import xdtvm


def test_mnt_is_ext2_on_vda(vm):
    mounts = vm.run(["cat", "/proc/mounts"], check=True).stdout
    entries = [ln.split()[:4] for ln in mounts.splitlines()]
    mnt = [e for e in entries if e[1] == "/mnt"]
    assert len(mnt) == 1, mounts
    dev, _, fstype, opts = mnt[0]
    assert (dev, fstype) == ("/dev/vda", "ext2"), mounts
    # noatime: a read must not cost an inode write (guest/init.c).
    assert "noatime" in opts.split(","), mounts
    size = vm.run(["cat", "/sys/block/vda/size"], check=True).stdout
    assert int(size) * 512 == xdtvm.DISK_SIZE


def test_files_read_back(vm):
    for name, data in xdtvm.disk_files().items():
        r = vm.run(f"wc -c < /mnt/{name}; md5sum /mnt/{name}", check=True)
        size, md5 = r.stdout.split()[:2]
        assert int(size) == len(data), (name, r.stdout)
        assert md5 == hashlib.md5(data).hexdigest(), (name, r.stdout)


def disk_reads(vm):
    """Read requests /dev/vda has completed (the first field of its stat)."""
    return int(vm.run(["cat", "/sys/block/vda/stat"],
                      check=True).stdout.split()[0])


def test_direct_read_of_one_block(vm):
    """busybox dd's iflag=direct (O_DIRECT) reads the block asked for, and
    goes past the page cache: with the file cached, each such read is still
    a request on the device."""
    n = 37
    vm.run("cat /mnt/data >/dev/null", check=True)
    before = disk_reads(vm)
    for _ in range(2):
        r = vm.run(f"dd if=/mnt/data of=/tmp/block bs={xdtvm.DISK_BLOCK} "
                   f"skip={n} count=1 iflag=direct 2>/dev/null && "
                   "md5sum /tmp/block && rm /tmp/block", check=True)
        assert r.stdout.split()[0] == \
            hashlib.md5(xdtvm.disk_data_block(n)).hexdigest(), r.stdout
    assert disk_reads(vm) - before >= 2
