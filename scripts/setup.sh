#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (as root) to build and test odtkit.
# Idempotent: installs only what is missing and says what it did.
#   - Debian packages: the list below (apt-get update runs only when one is missing);
#   - Go: when `go` is missing, the toolchain $GO_VERSION from the Go module proxy ($GOPROXY) into /usr/local/go;
#   - scripts/install-highs.sh, when present (the MILP backend's HiGHS build).
set -euo pipefail

# Debian packages the project needs: minisat (external DIMACS solver in the SAT tests); cadical
# (its binary DRAT proofs, elaborated to LRAT and checked, in the sat and sat/drat tests);
# clasp and minisat+ (MaxSAT / pseudo-Boolean round trips of sat-odt and sat-odd); chromium
# (headless check of odt bench's report.html);
# glpk-utils (glpsol, in the MPS export/decode round trip); cmake, g++, make, pkg-config,
# xz-utils (HiGHS build for the `highs` build tag); python3-numpy, -sklearn, -pandas, -pytest,
# -pip, -setuptools, -wheel, -venv (the Python package, its install without a package index, its
# tests); slurm-wlm, munge (scripts/slurm-test.sh's one-node Slurm cluster); minizinc, flatzinc
# (cp-odt: the MiniZinc driver and Gecode's FlatZinc solver).
PACKAGES="minisat cadical clasp minisat+ glpk-utils chromium cmake g++ make pkg-config xz-utils
python3-numpy python3-sklearn python3-pandas python3-pytest python3-pip python3-setuptools
python3-wheel python3-venv slurm-wlm munge minizinc flatzinc"
# Installed when the release has them: coinor-cbc (cbc, in the MPS round trip); zsh and fish
# (the syntax check of `odt completion zsh|fish`); z3, lp-solve, coinor-symphony (odt decode's
# round trips through z3's MaxSAT/PB, lp_solve and SYMPHONY).
OPTIONAL_PACKAGES="coinor-cbc zsh fish z3 lp-solve coinor-symphony"
# Go toolchain fetched when no `go` is on the PATH (go.mod asks for 1.26).
GO_VERSION="1.26.8"

cd "$(dirname "$0")/.."
did=()

missing=()
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
for p in $OPTIONAL_PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" &&
		apt-cache show "$p" >/dev/null 2>&1; then
		missing+=("$p")
	fi
done
if [ -d /usr/local/go/bin ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
need_go=0
if ! command -v go >/dev/null 2>&1; then
	need_go=1
	for p in ca-certificates curl unzip; do # to fetch Go
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing+=("$p")
		fi
	done
fi

if [ ${#missing[@]} -gt 0 ] || [ $need_go = 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		what="${missing[*]}"
		[ $need_go = 1 ] && what="$what go"
		echo "setup.sh: missing:$what; run this script as root (it installs them with apt-get and the Go proxy)" >&2
		exit 1
	fi
fi

if [ ${#missing[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	did+=("installed Debian packages: ${missing[*]}")
fi

if [ $need_go = 1 ]; then
	# The toolchain comes from the Go module proxy named by $GOPROXY (its first
	# entry); this script names no host itself.
	proxy="${GOPROXY:-}"
	proxy="${proxy%%,*}"
	case "$proxy" in
	http://* | https://*) ;;
	*)
		echo "setup.sh: Go ${GO_VERSION} is needed and no 'go' is on the PATH; install it, or set GOPROXY to your Go module proxy so this script can fetch it" >&2
		exit 1
		;;
	esac
	arch=$(dpkg --print-architecture)
	tmp=$(mktemp -d)
	curl -fsSL -o "$tmp/go.zip" "${proxy%/}/golang.org/toolchain/@v/v0.0.1-go${GO_VERSION}.linux-${arch}.zip"
	unzip -q "$tmp/go.zip" -d "$tmp"
	rm -rf /usr/local/go
	mv "$tmp/golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-${arch}" /usr/local/go
	chmod +x /usr/local/go/bin/* /usr/local/go/pkg/tool/*/* 2>/dev/null || true
	rm -rf "$tmp"
	export PATH="/usr/local/go/bin:$PATH"
	did+=("installed Go ${GO_VERSION} into /usr/local/go (add /usr/local/go/bin to your PATH)")
fi

if [ -f scripts/install-highs.sh ]; then
	bash scripts/install-highs.sh
	did+=("ran scripts/install-highs.sh")
	# The MPS round trip runs HiGHS's command-line program too.
	if ! command -v highs >/dev/null 2>&1; then
		echo "setup.sh: the HiGHS library is installed but its 'highs' program is not on the PATH; the MPS round-trip test will skip HiGHS (reinstall HiGHS with its command-line program)" >&2
	fi
fi

if [ ${#did[@]} -eq 0 ]; then
	echo "setup.sh: nothing to do ($(go version | cut -d' ' -f3); packages present: $(echo $PACKAGES))"
else
	for d in "${did[@]}"; do echo "setup.sh: $d"; done
fi
