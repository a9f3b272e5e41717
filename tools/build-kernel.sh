#!/usr/bin/env bash
# Build Linux 6.1 for one ISA from Debian's linux-source-6.1:
#   tinyconfig + arch/common.config + arch/<dir>/kernel.config, with
#   arch/common.patch and arch/<dir>/kernel.patch applied to a private copy
#   of the source.  XDT_KVARIANT=NAME adds arch/variants/NAME.config (and
#   arch/<dir>/NAME.config where the ISA needs its own lines): the debug
#   and kcsan kernels, from the same source.
# The tree is cached under $XDG_CACHE_HOME/xdt/kernel/[NAME/]<isa>-<key> (key:
# hash of source version, fragments, patch, toolchain and RECIPE) and left in
# place so out-of-tree modules build against it; <isa>.current points at the
# live one.
set -euo pipefail
. "$(dirname "$0")/isa.sh"

# Bump when the steps below change in a way that changes the output.
RECIPE=1

isa=${1:?usage: build-kernel.sh ISA}
xdt_isa "$isa"
frag_common=$XDT_TOP/arch/common.config
frag_isa=$XDT_TOP/arch/$ISA_DIR/kernel.config
frags=("$frag_common" "$frag_isa")
if [[ -n $XDT_KVARIANT ]]; then
	frags+=("$XDT_TOP/arch/variants/$XDT_KVARIANT.config")
	v=$XDT_TOP/arch/$ISA_DIR/$XDT_KVARIANT.config
	if [[ -f $v ]]; then
		# An ISA's fragment may say the variant cannot exist there.
		if why=$(sed -n 's/^# xdt: unsupported -- //p' "$v") && [[ -n $why ]]; then
			echo "xdt: kernel $isa has no $XDT_KVARIANT variant: $why" >&2
			exit 2
		fi
		frags+=("$v")
	fi
fi
patches=("$XDT_TOP/arch/common.patch" "$XDT_TOP/arch/$ISA_DIR/kernel.patch")
# A variant may need the kernel changed where the checker itself is wrong
# on an ISA (arch/<dir>/<variant>.patch: each hunk says why).
if [[ -n $XDT_KVARIANT && -f $XDT_TOP/arch/$ISA_DIR/$XDT_KVARIANT.patch ]]; then
	patches+=("$XDT_TOP/arch/$ISA_DIR/$XDT_KVARIANT.patch")
fi
tarball=/usr/src/linux-source-6.1.tar.xz
[[ -r $tarball ]] || { echo "xdt: $tarball missing (run make deps)" >&2; exit 1; }

key=$( {
	echo "recipe $RECIPE"
	dpkg-query -W -f='${Version}\n' linux-source-6.1
	"${CROSS}gcc" --version | head -n1
	"${CROSS}ld" --version | head -n1
	pahole --version
	cat "${frags[@]}" "${patches[@]}"
} | sha256sum | cut -c1-16)
out=$XDT_KDIR/$isa-$key
link=$XDT_KDIR/$isa.current
name="kernel $isa${XDT_KVARIANT:+ ($XDT_KVARIANT)}"

# One builder per tree: a second `make` (another shell, a test building a
# module) waits here and then finds the tree done, instead of wiping it
# half-way through the first build.
mkdir -p "$XDT_KDIR"
exec 9>"$out.lock"
if ! flock -n 9; then
	echo "$name: another build of $out is running; waiting for it"
	flock 9
fi

if [[ -f $out/.xdt-done ]]; then
	ln -sfn "$out" "$link"
	exit 0
fi

echo "$name: cold build into $out (about 5-10 minutes on 2 cores${XDT_KVARIANT:+, more for a variant})"
start=$SECONDS
rm -rf "$out"
mkdir -p "$out"
tar -xf "$tarball" -C "$out" --strip-components=1
for p in "${patches[@]}"; do
	if [[ -s $p ]]; then
		patch -d "$out" -p1 --quiet --no-backup-if-mismatch <"$p" ||
			{ echo "xdt: $p does not apply to linux-source-6.1" >&2; exit 1; }
	fi
done

km=(make -C "$out" -s ARCH="$KARCH" CROSS_COMPILE="$CROSS")
"${km[@]}" tinyconfig >/dev/null
"$out/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"${frags[@]}" >/dev/null
"${km[@]}" olddefconfig >/dev/null

# Every option the fragments ask for must have survived olddefconfig; an
# "is not set" line holds when the option is absent or unset.  A later
# fragment overrides an earlier one (an ISA's variant lines come after the
# variant's own), as merge_config.sh does: only the last word counts.
declare -A want=()
order=()
while read -r line; do
	if [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]] ||
	   [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]]; then
		[[ -v want[${BASH_REMATCH[1]}] ]] || order+=("${BASH_REMATCH[1]}")
		want[${BASH_REMATCH[1]}]=$line
	fi
done < <(cat "${frags[@]}")
bad=
for opt in "${order[@]}"; do
	line=${want[$opt]}
	if [[ $line == "#"* ]]; then
		! grep -q "^$opt=" "$out/.config" || bad+="$line"$'\n'
	else
		grep -qxF "$line" "$out/.config" || bad+="$line"$'\n'
	fi
done
if [[ -n $bad ]]; then
	echo "xdt: $name: these options did not survive olddefconfig" \
		"(unmet dependencies?):" >&2
	printf '%s' "$bad" >&2
	exit 1
fi

log=$out/build.log
"${km[@]}" -j"$(nproc)" all >"$log" 2>&1 &
pid=$!
xdt_progress "$name" "$pid" "find '$out' -name '*.o' | wc -l" &
mon=$!
if ! wait "$pid"; then
	kill "$mon" 2>/dev/null || true
	echo "xdt: $name build failed; last lines of $log:" >&2
	grep -E 'error|Error' "$log" | tail -n 20 >&2 || tail -n 30 "$log" >&2
	exit 1
fi
kill "$mon" 2>/dev/null || true
echo "$name: built in $((SECONDS - start)) s;" \
	"$(stat -c %s "$out/$KIMAGE") byte image," \
	"$(stat -c %s "$out/vmlinux") byte vmlinux"
touch "$out/.xdt-done"
ln -sfn "$out" "$link"
# Keep one tree per ISA: older keys are dead weight (a few GiB each).
for old in "$XDT_KDIR/$isa"-*; do
	[[ $old == "$out" || $old == "$out.lock" ]] || rm -rf "$old"
done
