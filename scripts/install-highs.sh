#!/usr/bin/env bash
# install-highs.sh — build and install the HiGHS MILP solver (library, headers,
# pkg-config file and the `highs` command-line program) into /usr/local.
#
# Debian 12 has no HiGHS package, so this script fetches the upstream tarball
# of Debian's `highs` source package from the next Debian release (1.10.0)
# through a temporary apt configuration whose mirror is taken from the
# machine's own apt sources, checks its SHA-256, and builds it with cmake.
#
# Idempotent: it does nothing when `pkg-config --exists highs` succeeds.
# Must run as root. Any failure ends the script with a message and exit 1.
#
# Usage: install-highs.sh                  check, fetch, build, install
#        install-highs.sh --print-mirrors  list the mirrors it would try, in order
#        install-highs.sh --fetch-only DIR fetch and verify the tarball into DIR
# INSTALL_HIGHS_APT_DIR (default /etc/apt) and INSTALL_HIGHS_OS_RELEASE
# (default /etc/os-release) name where the apt sources and the release
# codename are read, INSTALL_HIGHS_PREFIX (default /usr/local) where HiGHS
# goes (for tests; pkg-config and the loader find only /usr/local by default).
set -euo pipefail

HIGHS_VERSION=1.10.0
HIGHS_SHA256=5964fc1ca4f0b23dd45987bbed1838f2e570e96aa624635ac63d277152b6c94a
NEXT_RELEASE=trixie   # the Debian release that ships highs 1.10.0
PREFIX=${INSTALL_HIGHS_PREFIX:-/usr/local}

say() { printf 'install-highs: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

APT_DIR=${INSTALL_HIGHS_APT_DIR:-/etc/apt}
OS_RELEASE=${INSTALL_HIGHS_OS_RELEASE:-/etc/os-release}

# The Debian mirrors of this machine, best first: the URIs of the `deb` entries
# in $APT_DIR/sources.list, $APT_DIR/sources.list.d/*.list (one-line format)
# and $APT_DIR/sources.list.d/*.sources (deb822) that serve the release's own
# suite (e.g. bookworm, from VERSION_CODENAME in os-release), then those of
# any other suite but the security archive. Disabled deb822 stanzas are skipped.
# Output: "rank URI" lines (rank 0 = the release's suite, 1 = other).
list_sources() {
	local codename=$1 f
	for f in "$APT_DIR"/sources.list "$APT_DIR"/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		# deb [options] URI suite components...
		awk -v cn="$codename" '$1 == "deb" {
			i = 2
			if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			if ($(i+1) ~ /-security/) next
			print ($(i+1) == cn && cn != "" ? 0 : 1), $i
		}' "$f"
	done
	for f in "$APT_DIR"/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v cn="$codename" '
			function flush(   n, k, s, rank) {
				if (uris != "" && types ~ /(^|[[:space:]])deb([[:space:]]|$)/ && tolower(enabled) !~ /no/) {
					rank = 1
					n = split(suites, s, /[[:space:]]+/)
					for (k = 1; k <= n; k++) if (s[k] == cn && cn != "") rank = 0
					if (suites !~ /-security/) {
						n = split(uris, s, /[[:space:]]+/)
						for (k = 1; k <= n; k++) if (s[k] != "") print rank, s[k]
					}
				}
				uris = ""; suites = ""; types = ""; enabled = ""
			}
			/^[[:space:]]*$/ { flush(); next }
			/^[[:space:]]*#/ { next }
			{ key = tolower($1); $1 = "" }
			key == "uris:" { uris = $0 }
			key == "suites:" { suites = $0 }
			key == "types:" { types = $0 }
			key == "enabled:" { enabled = $0 }
			END { flush() }
		' "$f"
	done
}
find_mirrors() {
	local codename=""
	if [ -r "$OS_RELEASE" ]; then
		codename=$(. "$OS_RELEASE" && printf '%s' "${VERSION_CODENAME:-}")
	fi
	list_sources "$codename" | awk '$2 ~ /^(https?|file):\/\// { sub(/\/+$/, "", $2); print }' |
		sort -s -k1,1n | awk '!seen[$2]++ { print $2 }'
}

# fetch_tarball DIR: fetch highs_$HIGHS_VERSION*.orig.tar.* into DIR from the
# first mirror that serves it with the right SHA-256; print its path.
fetch_tarball() {
	local dest=$1 mirror tmp tarball got tried=()
	mapfile -t MIRRORS < <(find_mirrors)
	[ ${#MIRRORS[@]} -gt 0 ] || die "could not find a Debian mirror (a deb entry) in $APT_DIR/sources.list or $APT_DIR/sources.list.d/"
	for mirror in "${MIRRORS[@]}"; do
		tried+=("$mirror")
		say "trying the mirror $mirror (from the local apt sources)"
		tmp=$(mktemp -d "$dest/apt.XXXXXX")
		mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
		# The downloaded file is checked by its SHA-256 below, which is the trust anchor.
		printf 'deb-src [trusted=yes] %s %s main\n' "$mirror" "$NEXT_RELEASE" >"$tmp/sources.list"
		local opts=(
			-o "Dir::Etc::SourceList=$tmp/sources.list"
			-o "Dir::Etc::SourceParts=$tmp/parts"
			-o "Dir::State::Lists=$tmp/lists"
			-o "Dir::Cache=$tmp/cache"
			-o "APT::Sandbox::User=root"
		)
		if ! apt-get "${opts[@]}" update -qq >"$tmp/update.log" 2>&1; then
			say "  no $NEXT_RELEASE source index there: $(tail -n 1 "$tmp/update.log")"
			continue
		fi
		# The mirror may serve the .orig.tar.xz but not the .dsc, in which
		# case apt-get exits non-zero after fetching the tarball: judge by the file.
		(cd "$tmp/src" && apt-get "${opts[@]}" source --download-only highs) >"$tmp/source.log" 2>&1 || true
		tarball=$(ls "$tmp"/src/highs_"$HIGHS_VERSION"*.orig.tar.* 2>/dev/null | head -n 1 || true)
		if [ -z "$tarball" ]; then
			say "  no highs_${HIGHS_VERSION}*.orig.tar.* fetched: $(tail -n 1 "$tmp/source.log")"
			continue
		fi
		got=$(sha256sum "$tarball" | cut -d' ' -f1)
		if [ "$got" != "$HIGHS_SHA256" ]; then
			say "  SHA-256 mismatch for $(basename "$tarball"): got $got, want $HIGHS_SHA256"
			continue
		fi
		mv "$tarball" "$dest/"
		rm -rf "$tmp"
		say "verified $(basename "$tarball") (SHA-256 $HIGHS_SHA256)"
		printf '%s\n' "$dest/$(basename "$tarball")"
		return 0
	done
	die "could not fetch highs $HIGHS_VERSION with SHA-256 $HIGHS_SHA256 from ${tried[*]} (deb-src $NEXT_RELEASE main)"
}

case "${1:-}" in
--print-mirrors)
	find_mirrors
	exit 0
	;;
--fetch-only)
	[ -n "${2:-}" ] || die "usage: $0 --fetch-only DIR"
	mkdir -p "$2" || die "cannot create $2"
	[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get fetches as root here); try: sudo bash $0 $*"
	command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian-based system"
	fetch_tarball "$(cd "$2" && pwd)"
	exit 0
	;;
"") ;;
*) die "unknown argument $1 (usage: $0 [--print-mirrors | --fetch-only DIR])" ;;
esac


if pkg-config --exists highs 2>/dev/null; then
	say "HiGHS $(pkg-config --modversion highs) already installed; nothing to do"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (it installs packages and writes to $PREFIX); try: sudo bash $0"
command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian-based system"

# Build tools.
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v xz >/dev/null || missing+=(xz-utils)
command -v make >/dev/null || missing+=(make)
if [ ${#missing[@]} -gt 0 ]; then
	say "installing build tools: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" ||
		die "could not install ${missing[*]}"
fi

WORK=$(mktemp -d /tmp/install-highs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
TARBALL=$(fetch_tarball "$WORK")

mkdir -p "$WORK/highs"
tar -xf "$TARBALL" -C "$WORK/highs" --strip-components=1 || die "could not unpack $TARBALL"
say "building HiGHS (takes a few minutes)"
cmake -S "$WORK/highs" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
	-DFAST_BUILD=ON -DBUILD_TESTING=OFF -DBUILD_SHARED_LIBS=ON >"$WORK/cmake.log" 2>&1 ||
	{ tail -n 30 "$WORK/cmake.log" >&2; die "cmake configure failed"; }
cmake --build "$WORK/build" --parallel "$(nproc)" >"$WORK/build.log" 2>&1 ||
	{ tail -n 30 "$WORK/build.log" >&2; die "build failed"; }
cmake --install "$WORK/build" >"$WORK/install.log" 2>&1 ||
	{ tail -n 30 "$WORK/install.log" >&2; die "install failed"; }
ldconfig || die "ldconfig failed"

export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$PREFIX/lib64/pkgconfig:${PKG_CONFIG_PATH:-}"
pkg-config --exists highs || die "installed, but pkg-config cannot find highs.pc under $PREFIX"
[ -x "$PREFIX/bin/highs" ] || die "installed, but the highs command-line program is not in $PREFIX/bin"
say "installed HiGHS $(pkg-config --modversion highs) into $PREFIX"
