#!/usr/bin/env bash
# The project's test command (README, CI): set up, vet, test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
go vet -tags highs ./...
go test -tags highs -count=1 ./...
