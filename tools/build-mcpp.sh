#!/usr/bin/env bash
# Cross-build a static mcpp (the C preprocessor `dtrace -C` runs) for one
# guest ISA from Debian's mcpp *source* package; the guests have no gcc and
# Debian has no static mcpp.  The host uses Debian's mcpp package instead.
# Like busybox (tools/build-busybox.sh), the source is fetched once with a
# project-local apt configuration under $XDG_CACHE_HOME/xdt/apt and is never
# committed.  The binary lands in $XDT_CACHE/mcpp/ISA-KEY/mcpp, KEY hashing
# the source version, this script and the cross compiler; ISA.current links
# to it.  Returns at once, silently, when that binary exists.
set -euo pipefail
. "$(dirname "$0")/isa.sh"
. "$(dirname "$0")/debsrc.sh"

isa=${1:?usage: build-mcpp.sh ISA}
xdt_isa "$isa"

srcd=$XDT_CACHE/mcpp-src

fetch_source() {
	debsrc_fetch mcpp "$srcd.tmp"
	# As debian/rules does: autotools-dev's config.sub knows aarch64/riscv64.
	ln -sf /usr/share/misc/config.sub /usr/share/misc/config.guess \
		"$srcd.tmp/tree/config/"
	# Debian's patch to configure.ac only modernises its syntax for newer
	# autoconf (debian/rules then autoreconfs); the shipped configure is
	# equivalent.  Make the generated files newer than it so that make
	# never tries to regenerate them with autotools we do not have.
	(cd "$srcd.tmp/tree" && touch aclocal.m4 && touch configure src/config.h.in &&
		find . -name Makefile.in -exec touch {} +)
	rm -rf "$srcd"
	mv "$srcd.tmp" "$srcd"
}

[[ -f $srcd/tree/configure && -e $srcd/tree/config/config.sub ]] || fetch_source

ver=$(sed -n 's/^Version: //p' "$srcd"/mcpp_*.dsc)
key=$( {
	echo "$ver"
	sha256sum <"$0"
	"${CROSS}gcc" --version | head -n1
} | sha256sum | cut -c1-16)
out=$XDT_CACHE/mcpp/$isa-$key
link=$XDT_CACHE/mcpp/$isa.current
if [[ -x $out/mcpp ]]; then
	[[ $(readlink "$link" 2>/dev/null) == "$out" ]] || ln -sfn "$out" "$link"
	exit 0
fi

echo "mcpp $isa: building $ver (about 5 s)"
start=$SECONDS
rm -rf "$out"
mkdir -p "$out/build"
log=$out/build.log
(
	cd "$out/build"
	# --build keeps configure quiet about --host alone; a static binary via
	# libtool's -all-static at link time (it drops a plain -static).
	"$srcd/tree/configure" --build="$(gcc -dumpmachine)" --host="${CROSS%-}" \
		CC="${CROSS}gcc" CFLAGS=-O2
	make -C src -j"$(nproc)" mcpp LDFLAGS=-all-static
) >"$log" 2>&1 &
pid=$!
xdt_progress "mcpp $isa" "$pid" "find '$out/build' -name '*.o' | wc -l" &
mon=$!
if ! wait "$pid"; then
	kill "$mon" 2>/dev/null || true
	echo "xdt: mcpp $isa build failed; see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
fi
kill "$mon" 2>/dev/null || true
"${CROSS}strip" -o "$out/mcpp.tmp" "$out/build/src/mcpp"
if "${CROSS}readelf" -l "$out/mcpp.tmp" | grep -q INTERP; then
	echo "xdt: mcpp $isa is not static; see $log" >&2
	exit 1
fi
mv "$out/mcpp.tmp" "$out/mcpp"
rm -rf "$out/build"
echo "mcpp $isa: built in $((SECONDS - start)) s"
ln -sfn "$out" "$link"
for old in "$XDT_CACHE/mcpp/$isa"-*; do
	[[ $old == "$out" || ! -d $old ]] || rm -rf "$old"
done
