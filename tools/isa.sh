# Sourced by the build scripts: xdt_isa ISA sets XDT_ISA_NAME ISA_DIR KARCH
# CROSS KIMAGE QEMU TRAPVEC TCG ISA_SET
# from arch/isas, or fails naming the valid ISAs.
XDT_TOP=${XDT_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# XDT_CACHE as the Makefile and tools/xdtisa.py read it (a second
# worktree keeps its own cache), else $XDG_CACHE_HOME/xdt.
XDT_CACHE=${XDT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xdt}

# XDT_KVARIANT selects a kernel variant (arch/variants/NAME.config on top
# of the normal configuration: debug = the kernel's own checkers, kcsan =
# the data-race detector).  Its kernel trees live apart, under
# $XDT_CACHE/kernel/NAME/, so the normal kernels stay as they are.
XDT_KVARIANT=${XDT_KVARIANT:-}
if [[ -n $XDT_KVARIANT && ! -f $XDT_TOP/arch/variants/$XDT_KVARIANT.config ]]; then
	echo "xdt: unknown kernel variant '$XDT_KVARIANT'; valid:" \
		"$(cd "$XDT_TOP/arch/variants" && ls -- *.config | sed 's/\.config$//' | tr '\n' ' ')" >&2
	exit 1
fi
XDT_KDIR=$XDT_CACHE/kernel${XDT_KVARIANT:+/$XDT_KVARIANT}

xdt_isas() { awk '!/^#/ && NF { print $1 }' "$XDT_TOP/arch/isas"; }
# The ISAs taken when XDT_ISAS names none (arch/isas' set column).
xdt_default_isas() { awk '!/^#/ && NF && $9 == "default" { print $1 }' "$XDT_TOP/arch/isas"; }

xdt_isa() {
	local line
	line=$(awk -v i="$1" '!/^#/ && $1 == i' "$XDT_TOP/arch/isas")
	if [[ -z $line ]]; then
		echo "xdt: unknown ISA '$1'; valid ISAs: $(xdt_isas | tr '\n' ' ')" >&2
		return 1
	fi
	read -r XDT_ISA_NAME ISA_DIR KARCH CROSS KIMAGE QEMU TRAPVEC TCG ISA_SET <<<"$line"
}

# Print "label: elapsed, N files compiled" every 20 s while PID lives; N is
# what the shell command COUNT prints.
xdt_progress() {
	local label=$1 pid=$2 count=$3 start=$SECONDS n
	while kill -0 "$pid" 2>/dev/null; do
		sleep 20
		kill -0 "$pid" 2>/dev/null || break
		n=$(bash -c "$count" 2>/dev/null || true)
		printf '%s: %dm%02ds, %s files compiled\n' "$label" \
			$(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "${n:-0}"
	done
}
