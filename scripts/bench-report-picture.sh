#!/usr/bin/env bash
# Makes the picture of an `odt bench` report shown in docs/formats.md:
# a grid of dl85, blossom and sat-depth over five inferdt data sets
# (../shared/data/inferdt), its report.html opened in headless Chromium,
# and a screenshot written to docs/img/bench-report.png.
#
# Usage: scripts/bench-report-picture.sh [DATA_DIR]   (default ../shared/data/inferdt)
# Needs Go and Chromium (Debian: apt-get install chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-../shared/data/inferdt}
[ -d "$data" ] || { echo "bench-report-picture: no data folder $data" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "bench-report-picture: no chromium on the PATH" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/odt" ./cmd/odt
"$tmp/odt" bench --backends dl85,blossom,sat-depth --time-limit 60s --scatter dl85:blossom -q --out "$tmp/report" \
	"$data"/iris.csv "$data"/zoo.csv "$data"/monk1.csv "$data"/monk3.csv "$data"/mouse.csv >/dev/null
"$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
	--disable-component-update --user-data-dir="$tmp/profile" --window-size=1280,2000 \
	--screenshot="$tmp/shot.png" "file://$tmp/report/report.html" 2>/dev/null
mkdir -p docs/img
mv "$tmp/shot.png" docs/img/bench-report.png
echo "bench-report-picture: wrote docs/img/bench-report.png"
