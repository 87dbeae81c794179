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
set -euo pipefail

HIGHS_VERSION=1.10.0
HIGHS_SHA256=5964fc1ca4f0b23dd45987bbed1838f2e570e96aa624635ac63d277152b6c94a
NEXT_RELEASE=trixie   # the Debian release that ships highs 1.10.0
PREFIX=/usr/local

say() { printf 'install-highs: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

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

# The Debian mirror of this machine: first URI of a deb822 entry in
# /etc/apt/sources.list.d/*.sources or of a one-line `deb` entry in
# /etc/apt/sources.list(.d/*.list) that serves the main archive (not security).
find_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# Print the URIs of every stanza whose Suites do not mention -security.
		awk '
			function flush() { if (uris != "" && suites !~ /-security/) print uris; uris=""; suites="" }
			/^[[:space:]]*$/ { flush(); next }
			/^[[:space:]]*#/ { next }
			tolower($1) == "uris:" { $1=""; uris=$0 }
			tolower($1) == "suites:" { $1=""; suites=$0 }
			END { flush() }
		' "$f"
	done | tr ' ' '\n' | grep -E '^(https?|file)://' || true
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		# deb [options] URI suite components...
		awk '$1 == "deb" {
			i = 2
			if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			if ($(i+1) !~ /-security/) print $i
		}' "$f"
	done | grep -E '^(https?|file)://' || true
}
MIRROR=$(find_mirror | head -n 1)
[ -n "$MIRROR" ] || die "could not find a Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/"
MIRROR=${MIRROR%/}
say "mirror from the local apt sources: $MIRROR"

WORK=$(mktemp -d /tmp/install-highs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/apt/parts" "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/src"
# The downloaded file is checked by its SHA-256 below, which is the trust anchor.
printf 'deb-src [trusted=yes] %s %s main\n' "$MIRROR" "$NEXT_RELEASE" >"$WORK/apt/sources.list"
APT_OPTS=(
	-o "Dir::Etc::SourceList=$WORK/apt/sources.list"
	-o "Dir::Etc::SourceParts=$WORK/apt/parts"
	-o "Dir::State::Lists=$WORK/apt/lists"
	-o "Dir::Cache=$WORK/apt/cache"
	-o "APT::Sandbox::User=root"
)
say "reading the $NEXT_RELEASE source index"
apt-get "${APT_OPTS[@]}" update -qq || die "apt-get update with a deb-src entry for $NEXT_RELEASE failed"

say "fetching the highs $HIGHS_VERSION source tarball"
# The mirror may serve the .orig.tar.xz but not the .dsc, in which case
# apt-get exits non-zero after fetching the tarball: judge by the file.
(cd "$WORK/src" && apt-get "${APT_OPTS[@]}" source --download-only highs) || true
TARBALL=$(ls "$WORK"/src/highs_"$HIGHS_VERSION"*.orig.tar.* 2>/dev/null | head -n 1 || true)
[ -n "$TARBALL" ] || die "apt-get source did not fetch highs_${HIGHS_VERSION}*.orig.tar.xz (files: $(ls "$WORK/src" | tr '\n' ' '))"
GOT=$(sha256sum "$TARBALL" | cut -d' ' -f1)
[ "$GOT" = "$HIGHS_SHA256" ] || die "SHA-256 mismatch for $(basename "$TARBALL"): got $GOT, want $HIGHS_SHA256"
say "verified $(basename "$TARBALL")"

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
command -v highs >/dev/null || die "installed, but the highs command-line program is not on PATH"
say "installed HiGHS $(pkg-config --modversion highs) into $PREFIX"
