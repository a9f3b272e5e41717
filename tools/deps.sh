#!/usr/bin/env bash
# Install the Debian packages xdt needs, only those that are missing.
# Silent when everything is present; one clear message when not root.
set -euo pipefail

PKGS=(
	make gcc libc6-dev bc bison flex libssl-dev libelf-dev cpio rsync kmod
	xz-utils dwarves python3 python3-pytest python3-pytest-xdist dpkg-dev
	qemu-system-x86 qemu-system-arm qemu-system-misc
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
	qemu-system-ppc gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	linux-source-6.1 gdb-multiarch
	libcapstone-dev liblua5.4-dev
	python3-matplotlib
	mcpp autotools-dev
	e2fsprogs libdw-dev
	systemtap-sdt-dev
)
# Tests inject a package that cannot exist to exercise the not-root message.
PKGS+=(${XDT_DEPS_EXTRA:-})

missing=()
for p in "${PKGS[@]}"; do
	# dpkg-query is ~10x faster than dpkg -s on a cold cache.
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $st == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "xdt: missing Debian packages; install them as root with:" >&2
	echo "  apt-get install ${missing[*]}" >&2
	exit 1
fi

echo "xdt: installing ${#missing[@]} missing package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A stale or absent package list makes installs fail; refresh once per run.
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "xdt: packages installed"
