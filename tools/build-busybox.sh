#!/usr/bin/env bash
# Cross-build a static busybox for one ISA from Debian's busybox *source*
# package.  Bookworm ships no riscv64 binaries, so the guest userland is built
# here.  The source is fetched once with a project-local apt configuration
# (its own source list, lists and cache under $XDG_CACHE_HOME/xdt/apt), never
# by editing the system's, and is never committed.
set -euo pipefail
. "$(dirname "$0")/isa.sh"
. "$(dirname "$0")/debsrc.sh"

RECIPE=1
isa=${1:?usage: build-busybox.sh ISA}
xdt_isa "$isa"

srcd=$XDT_CACHE/busybox-src

fetch_source() {
	debsrc_fetch busybox "$srcd.tmp"
	rm -rf "$srcd"
	mv "$srcd.tmp" "$srcd"
}

[[ -f $srcd/tree/Makefile ]] || fetch_source

ver=$(sed -n 's/^Version: //p' "$srcd"/busybox_*.dsc)
key=$( {
	echo "recipe $RECIPE $ver"
	"${CROSS}gcc" --version | head -n1
	sed -n '/^tweak_config()/,/^}/p' "$0"
} | sha256sum | cut -c1-16)
out=$XDT_CACHE/busybox/$isa-$key
link=$XDT_CACHE/busybox/$isa.current
if [[ -x $out/busybox && -f $out/busybox.links ]]; then
	ln -sfn "$out" "$link"
	exit 0
fi

# defconfig, static, minus what does not build or is not wanted in a guest.
tweak_config() {
	sed -i -e 's/^# CONFIG_STATIC is not set/CONFIG_STATIC=y/' \
		-e 's/^CONFIG_TC=y/# CONFIG_TC is not set/' \
		-e 's/^CONFIG_FEATURE_TC_INGRESS=y/# CONFIG_FEATURE_TC_INGRESS is not set/' \
		"$1"
}

echo "busybox $isa: building $ver (about a minute)"
start=$SECONDS
rm -rf "$out"
mkdir -p "$out"
bm=(make -C "$srcd/tree" O="$out" CROSS_COMPILE="$CROSS" -s)
"${bm[@]}" defconfig >/dev/null
tweak_config "$out/.config"
# `yes` dies of SIGPIPE when oldconfig is done; only oldconfig's status counts.
(set +o pipefail; yes '' | "${bm[@]}" oldconfig >/dev/null)
log=$out/build.log
"${bm[@]}" -j"$(nproc)" busybox busybox.links >"$log" 2>&1 &
pid=$!
xdt_progress "busybox $isa" "$pid" "find '$out' -name '*.o' | wc -l" &
mon=$!
if ! wait "$pid"; then
	kill "$mon" 2>/dev/null || true
	echo "xdt: busybox $isa build failed; see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
fi
kill "$mon" 2>/dev/null || true
echo "busybox $isa: built in $((SECONDS - start)) s"
ln -sfn "$out" "$link"
for old in "$XDT_CACHE/busybox/$isa"-*; do
	[[ $old == "$out" || ! -d $old ]] || rm -rf "$old"
done
