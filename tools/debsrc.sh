# debsrc_fetch PKG DIR: fetch Debian's source package PKG for this system's
# release into DIR (fresh) and unpack it, Debian's patches applied, into
# DIR/tree.  Sourced by the build scripts of what the static guests need
# and Debian has only as source (busybox, mcpp).  A project-local apt
# configuration (its own source list, lists and cache under $XDT_CACHE/apt),
# never the system's; nothing fetched is ever committed.
debsrc_fetch() {
	local pkg=$1 dir=$2 aptd=$XDT_CACHE/apt codename uri keyring opts
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	# The mirror the system already uses for <codename>/main, as apt sees it.
	uri=$(apt-cache policy | awk -v s="$codename/main" '$3 == s && $2 ~ /^https?:/ { print $2; exit }')
	if [[ -z $uri ]]; then
		echo "xdt: no apt mirror for $codename/main configured (apt-get update?)" >&2
		exit 1
	fi
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	rm -rf "$dir"
	mkdir -p "$aptd"/{lists/partial,archives/partial,parts} "$dir"
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
	echo "$pkg: fetching Debian's source package"
	apt-get "${opts[@]}" update
	(cd "$dir" && apt-get "${opts[@]}" source --download-only "$pkg" >/dev/null)
	# apt already checked the files against the signed Sources index; the
	# .dsc's own OpenPGP signature needs the uploader's key, which we lack.
	(cd "$dir" && dpkg-source -q --no-check -x ./"${pkg}"_*.dsc tree >/dev/null)
}
