#!/usr/bin/env bash
# Cross-build a static busybox for one ISA from Debian's busybox *source*
# package.  Bookworm ships no riscv64 binaries, so the guest userland is built
# here.  The source is fetched once with a project-local apt configuration
# (its own source list, lists and cache under $XDG_CACHE_HOME/xdt/apt), never
# by editing the system's, and is never committed.
set -euo pipefail
. "$(dirname "$0")/isa.sh"

RECIPE=1
isa=${1:?usage: build-busybox.sh ISA}
xdt_isa "$isa"

aptd=$XDT_CACHE/apt
srcd=$XDT_CACHE/busybox-src

fetch_source() {
	local codename uri keyring opts
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	# The mirror the system already uses for <codename>/main, as apt sees it.
	uri=$(apt-cache policy | awk -v s="$codename/main" '$3 == s && $2 ~ /^https?:/ { print $2; exit }')
	if [[ -z $uri ]]; then
		echo "xdt: no apt mirror for $codename/main configured (apt-get update?)" >&2
		exit 1
	fi
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$aptd"/{lists/partial,archives/partial,parts} "$srcd.tmp"
	if [[ -r $keyring ]]; then
		echo "deb-src [signed-by=$keyring] $uri $codename main" >"$aptd/sources.list"
	else
		echo "deb-src $uri $codename main" >"$aptd/sources.list"
	fi
	opts=(-o "Dir::Etc::SourceList=$aptd/sources.list"
		-o "Dir::Etc::SourceParts=$aptd/parts"
		-o "Dir::State::Lists=$aptd/lists"
		-o "Dir::Cache::Archives=$aptd/archives"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
		-o "APT::Sandbox::User=root" -qq)
	echo "busybox: fetching Debian's source package"
	apt-get "${opts[@]}" update
	(cd "$srcd.tmp" && apt-get "${opts[@]}" source --download-only busybox >/dev/null)
	# apt already checked the files against the signed Sources index; the
	# .dsc's own OpenPGP signature needs the uploader's key, which we lack.
	(cd "$srcd.tmp" && dpkg-source -q --no-check -x ./busybox_*.dsc tree >/dev/null)
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
