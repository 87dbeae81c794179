#!/usr/bin/env bash
# The project's test command (README, CI): set up, vet, test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
go vet -tags highs ./...
# The default (pure-Go) build must hold on every platform users run it on.
for os in windows darwin; do
	GOOS=$os GOARCH=amd64 go build -o /dev/null ./... || { echo "test.sh: GOOS=$os build failed" >&2; exit 1; }
done
go test -tags highs -count=1 ./...
