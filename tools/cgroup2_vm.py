"""Run the kit's cgroup v2 tests against a real kernel in a small virtual machine.

A hybrid machine (controllers bound to the cgroup v1 hierarchies, as this project's test
machine) cannot offer memory and pids to a cgroup v2 group without unmounting the v1
hierarchies its other users rely on. This boots a Debian kernel under QEMU with an
initramfs of busybox that mounts this machine's root folder read-only over 9p, mounts
only cgroup2 (so every controller is v2's), gives the tests writable /tmp, /dev/shm and
/run, switches root to it (switch_root, not chroot: a chrooted process may not create
the user namespaces bwrap needs) and runs pytest there on the console::

    apt-get install qemu-system-x86 busybox-static
    apt-get download linux-image-6.1.0-47-amd64     # any Debian 6.x amd64 kernel package
    python3 tools/cgroup2_vm.py linux-image-6.1.0-47-amd64_*.deb \\
        [-- PYTEST ARGUMENTS]   # default: tests/test_grading_cgroup2.py -k kernel

Uses KVM with ``--kvm`` (where nested virtualisation works), else QEMU's emulation
(TCG: slow, but a Python test that takes 2 s here takes about a minute there). Prints
the console; exit code 0 when the console shows the job's pytest run ended with no
failure. Stdlib only; needs ``dpkg-deb``, ``qemu-system-x86_64`` and a static busybox.
"""

import argparse
import gzip
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Modules the Debian kernel keeps out of its image, in load order (virtio PCI, 9p).
MODULES = ("drivers/virtio/virtio.ko", "drivers/virtio/virtio_ring.ko",
           "drivers/virtio/virtio_pci_modern_dev.ko", "drivers/virtio/virtio_pci_legacy_dev.ko",
           "drivers/virtio/virtio_pci.ko", "fs/netfs/netfs.ko", "fs/fscache/fscache.ko",
           "net/9p/9pnet.ko", "net/9p/9pnet_virtio.ko", "fs/9p/9p.ko")
INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read module; do insmod "/lib/modules/$module" || echo "insmod $module failed"; done \\
    < /lib/modules/order
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 host /host || exit 1
H=/host
mount -t proc proc $H/proc
mount -t sysfs sys $H/sys
mount -t cgroup2 none $H/sys/fs/cgroup
mount -t devtmpfs dev $H/dev
mkdir -p $H/dev/shm && mount -t tmpfs -o mode=1777 shm $H/dev/shm
mount -t tmpfs -o mode=1777 tmp $H/tmp
mount -t tmpfs -o mode=755 run $H/run
cp /job.sh $H/run/job.sh
echo "vm: kernel $(uname -r), cgroup2 controllers: $(cat $H/sys/fs/cgroup/cgroup.controllers)"
exec switch_root $H /bin/sh /run/job.sh
"""
JOB = """export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/tmp LANG=C.UTF-8
export PYTHONDONTWRITEBYTECODE=1
cd /tmp
{python} -m pytest -p no:cacheprovider -p no:xdist -rs -v --tb=short \\
    --rootdir={repo} -c {repo}/pytest.ini {arguments}
echo "vm: pytest exit $?"
echo o > /proc/sysrq-trigger
"""


def newc_archive(root, target):
    """Write the folder ``root`` as a gzipped newc cpio archive (an initramfs)."""
    with gzip.open(target, "wb", compresslevel=1) as out:
        number = 1

        def entry(name, mode, data):
            nonlocal number
            encoded = name.encode() + b"\0"
            fields = (number, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0)
            out.write(b"070701" + b"".join(b"%08X" % value for value in fields) + encoded)
            out.write(b"\0" * (-(110 + len(encoded)) % 4) + data + b"\0" * (-len(data) % 4))
            number += 1

        for folder, folders, files in os.walk(root):
            for name in sorted(folders) + sorted(files):
                path = os.path.join(folder, name)
                status = os.lstat(path)
                if stat.S_ISLNK(status.st_mode):
                    data = os.readlink(path).encode()
                elif stat.S_ISREG(status.st_mode):
                    data = Path(path).read_bytes()
                else:
                    data = b""
                entry(os.path.relpath(path, root), status.st_mode, data)
        entry("TRAILER!!!", 0, b"")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kernel_deb", help="a Debian linux-image-*-amd64 package")
    parser.add_argument("--busybox", default="/bin/busybox", help="a static busybox")
    parser.add_argument("--kvm", action="store_true", help="use KVM instead of TCG")
    parser.add_argument("--memory", default="3072", help="the VM's MB (default 3072)")
    parser.add_argument("pytest", nargs="*", help="pytest arguments (after --)")
    options = parser.parse_args(argv)
    arguments = options.pytest or [str(REPO / "tests" / "test_grading_cgroup2.py"),
                                   "-k", "kernel"]
    with tempfile.TemporaryDirectory(prefix="cgroup2-vm-") as work:
        kernel_root = Path(work, "kernel")
        subprocess.run(["dpkg-deb", "-x", options.kernel_deb, str(kernel_root)], check=True)
        [image] = kernel_root.glob("boot/vmlinuz-*")
        [modules] = kernel_root.glob("lib/modules/*/kernel")
        initrd = Path(work, "initrd")
        for folder in ("bin", "lib/modules", "proc", "sys", "dev", "host"):
            (initrd / folder).mkdir(parents=True)
        shutil.copy(options.busybox, initrd / "bin" / "busybox")
        for module in MODULES:
            shutil.copy(modules / module, initrd / "lib" / "modules")
        (initrd / "lib" / "modules" / "order").write_text(
            "".join(os.path.basename(module) + "\n" for module in MODULES))
        (initrd / "init").write_text(INIT)
        (initrd / "init").chmod(0o755)
        python = REPO / ".venv" / "bin" / "python"
        (initrd / "job.sh").write_text(JOB.format(
            python=python if python.exists() else "python3", repo=REPO,
            arguments=" ".join(arguments)))
        archive = Path(work, "initrd.cpio.gz")
        newc_archive(initrd, archive)
        command = ["qemu-system-x86_64", "-smp", "2", "-m", options.memory, "-nographic",
                   "-no-reboot", "-kernel", str(image), "-initrd", str(archive),
                   # no_timer_check: under emulation on a busy host the kernel's check of
                   # the timer interrupt fails and it panics ("IO-APIC + timer doesn't work").
                   "-append", "console=ttyS0 panic=-1 rdinit=/init loglevel=3 "
                              "lsm=capability,landlock,yama no_timer_check",
                   "-virtfs", "local,path=/,mount_tag=host,security_model=none,"
                              "readonly=on,multidevs=remap"]
        command[1:1] = (["-enable-kvm"] if options.kvm
                        else ["-accel", "tcg,thread=multi", "-cpu", "max"])
        shown = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL).stdout.decode("utf-8", "replace")
    sys.stdout.write(shown)
    ended = re.search(r"vm: pytest exit (\d+)", shown)
    return 0 if ended and ended.group(1) == "0" else 1


if __name__ == "__main__":
    sys.exit(main())
