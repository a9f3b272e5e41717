#!/usr/bin/env bash
# Cross-build Lua 5.4 as a static library (liblua.a and its public headers)
# for one guest ISA from Debian's lua5.4 *source* package, for the guest
# binaries that embed Lua; Debian has no static liblua for riscv64 and the
# guests link statically.  The host uses Debian's liblua5.4-dev instead
# (tools/deps.sh).  Like mcpp (tools/build-mcpp.sh), the source is fetched
# once with a project-local apt configuration under $XDG_CACHE_HOME/xdt/apt
# and is never committed.  The result lands in $XDT_CACHE/lua/ISA-KEY/
# (liblua.a, include/), KEY hashing the source version, this script and the
# cross compiler; ISA.current links to it.  Returns at once, silently, when
# that library exists.
set -euo pipefail
. "$(dirname "$0")/isa.sh"
. "$(dirname "$0")/debsrc.sh"

isa=${1:?usage: build-lua.sh ISA}
xdt_isa "$isa"

srcd=$XDT_CACHE/lua-src

fetch_source() {
	debsrc_fetch lua5.4 "$srcd.tmp"
	rm -rf "$srcd"
	mv "$srcd.tmp" "$srcd"
}

[[ -f $srcd/tree/src/lua.h ]] || fetch_source

ver=$(sed -n 's/^Version: //p' "$srcd"/lua5.4_*.dsc)
key=$( {
	echo "$ver"
	sha256sum <"$0"
	"${CROSS}gcc" --version | head -n1
} | sha256sum | cut -c1-16)
out=$XDT_CACHE/lua/$isa-$key
link=$XDT_CACHE/lua/$isa.current
if [[ -f $out/liblua.a ]]; then
	[[ $(readlink "$link" 2>/dev/null) == "$out" ]] || ln -sfn "$out" "$link"
	exit 0
fi

echo "lua $isa: building $ver (about 5 s)"
start=$SECONDS
src=$srcd/tree/src
rm -rf "$out"
mkdir -p "$out/build" "$out/include"
log=$out/build.log

# The public headers.  Debian's patch 0002-lua-modules-paths makes luaconf.h
# include "lua5.4-deb-multiarch.h" (for the C module path's
# /usr/lib/<multiarch>/lua/5.4/), which debian/rules generates; so does
# this, per ISA (the source tree is shared), and ships it with the others.
for h in lua.h luaconf.h lualib.h lauxlib.h lua.hpp; do
	[[ ! -f $src/$h ]] || cp "$src/$h" "$out/include/"
done
cat >"$out/include/lua5.4-deb-multiarch.h" <<EOF
#ifndef _LUA_DEB_MULTIARCH_
#define _LUA_DEB_MULTIARCH_
#define DEB_HOST_MULTIARCH "${CROSS%-}"
#endif
EOF

# The library is the core and the standard libraries: every src/*.c but the
# two programs' lua.c and luac.c (in 5.4.4 exactly the CORE_O and LIB_O of
# src/Makefile; Debian adds no source files).  Flags as Debian's build has
# them (debian/rules: CC='$(CC) -std=gnu99'; src/Makefile's
# -DLUA_COMPAT_5_3, which upstream sets too), but LUA_USE_POSIX where
# Debian's `make linux-readline` sets LUA_USE_LINUX: that also sets
# LUA_USE_DLOPEN, and the guest binaries are static (no dlopen; require of
# a C module fails cleanly).  Readline only concerns lua.c.  Debian's -Os
# for the compiler's llex/lparser/lcode and its dpkg-buildflags hardening
# are left out: plain -O2 throughout.
objs=()
for c in "$src"/*.c; do
	c=${c##*/}
	[[ $c == lua.c || $c == luac.c ]] || objs+=("${c%.c}.o")
done
# A make of our own, blind to any calling make's MAKEFLAGS (say CFLAGS=).
(
	env -u MAKEFLAGS -u MFLAGS make -r -f - -C "$out/build" -j"$(nproc)" \
		VPATH="$src" OBJS="${objs[*]}" INC="$out/include" \
		CC="${CROSS}gcc" AR="${CROSS}ar" <<'EOF'
CFLAGS := -std=gnu99 -O2 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX
liblua.a: $(OBJS)
	$(AR) rcs $@ $^
%.o: %.c
	$(CC) $(CFLAGS) -I$(INC) -c $< -o $@
EOF
) >"$log" 2>&1 &
pid=$!
xdt_progress "lua $isa" "$pid" "find '$out/build' -name '*.o' | wc -l" &
mon=$!
if ! wait "$pid"; then
	kill "$mon" 2>/dev/null || true
	echo "xdt: lua $isa build failed; see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
fi
kill "$mon" 2>/dev/null || true
mv "$out/build/liblua.a" "$out/liblua.a"
rm -rf "$out/build"
echo "lua $isa: built in $((SECONDS - start)) s"
ln -sfn "$out" "$link"
for old in "$XDT_CACHE/lua/$isa"-*; do
	[[ $old == "$out" || ! -d $old ]] || rm -rf "$old"
done
