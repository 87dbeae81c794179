#!/usr/bin/env bash
# The project's test command (README, CI): set up, vet, test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
go vet -tags highs ./...
# staticcheck at a pinned version, installed once from the Go module proxy
# into .tools/ (git ignores it).
staticcheck_version=v0.8.2
staticcheck=".tools/staticcheck-$staticcheck_version"
if [ ! -x "$staticcheck" ]; then
	mkdir -p .tools/bin
	if ! GOBIN="$PWD/.tools/bin" go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"; then
		echo "test.sh: cannot fetch staticcheck $staticcheck_version from the Go module proxy (GOPROXY=$(go env GOPROXY)); install it and copy the binary to $staticcheck" >&2
		exit 1
	fi
	mv .tools/bin/staticcheck "$staticcheck"
fi
"$staticcheck" -tags highs ./...
# The default (pure-Go) build must hold on every platform users run it on.
for os in windows darwin; do
	GOOS=$os GOARCH=amd64 go build -o /dev/null ./... || { echo "test.sh: GOOS=$os build failed" >&2; exit 1; }
done
go test -tags highs -count=1 ./...

# The Python package: installed as the README says into a throw-away virtual
# environment (Debian's packages visible, no package index), then its tests.
# With HiGHS every test must run: ODTKIT_TEST_STRICT=1 turns skips into failures.
repo=$PWD
venv=$(mktemp -d /tmp/odtkit-venv.XXXXXX)
trap 'rm -rf "$venv"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install -q --no-build-isolation ./python
(cd "$venv" && "$venv/bin/python" -c '
from sklearn.datasets import load_iris
from odtkit import OptimalTreeClassifier
X, y = load_iris(return_X_y=True)
c = OptimalTreeClassifier(max_depth=3).fit(X, y)
assert c.optimal_ is True, c.status_
print("test.sh: installed odtkit fits iris at depth 3:", c.status_, "errors", c.result_["errors"])')
strict=0
pkg-config --exists highs 2>/dev/null && strict=1
rc=0
(cd "$venv" && ODTKIT_TEST_STRICT=$strict "$venv/bin/python" -m pytest -q -p no:cacheprovider \
	"$repo/python/tests") || rc=$?
case $rc in
0) ;;
5) echo "test.sh: pytest collected no tests in python/tests" >&2; exit 1 ;;
*) echo "test.sh: Python tests failed (pytest exit $rc)" >&2; exit "$rc" ;;
esac

# The README's Slurm job array on a one-node cluster, against a local run
# (with the odt binary the package built).
ODT=$("$venv/bin/python" -c 'import odtkit; print(odtkit.find_odt())') bash scripts/slurm-test.sh
