#!/bin/sh
# bench-milp.sh: milp-flowoct, milp-odt and dl85 on the cp4im depth-2
# cells and the small depth-3 ones, one thread, a per-cell time limit.
# Prints one TSV line per cell: dataset, depth, backend, status,
# objective, lower bound, LP-relaxation bound (MILP backends), CPU
# seconds (user+sys of the odt process). Needs an odt binary built with
# -tags highs and ../shared/data/cp4im. Not run by CI (a benchmark, not
# a test): run it alone on the machine.
#
#   go build -tags highs -o /tmp/odt ./cmd/odt
#   scripts/bench-milp.sh /tmp/odt 20s > bench.tsv
#
# BACKENDS (default "dl85 milp-flowoct milp-odt+lp-bound=true") lists the
# runs per cell: NAME or NAME+KEY=VALUE (one --opt KEY=VALUE), e.g.
# BACKENDS="milp-flowoct milp-flowoct+method=benders". DEPTH2 and
# DEPTH3 replace the dataset lists (DEPTH3="" skips depth 3).
set -eu
odt=${1:?usage: bench-milp.sh ODT TIME_LIMIT [DATA_DIR]}
limit=${2:?usage: bench-milp.sh ODT TIME_LIMIT [DATA_DIR]}
data=${3:-../shared/data/cp4im}
backends=${BACKENDS:-dl85 milp-flowoct milp-odt+lp-bound=true}
depth2=${DEPTH2-anneal audiology australian-credit breast-wisconsin diabetes german-credit heart-cleveland hepatitis hypothyroid ionosphere kr-vs-kp lymph mushroom pendigits primary-tumor segment soybean splice-1 tic-tac-toe vehicle vote yeast zoo-1}
depth3=${DEPTH3-zoo-1 hepatitis lymph primary-tumor}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'dataset\tdepth\tbackend\tstatus\tobjective\tlower_bound\tlp_bound\tcpu_s\n'
cell() { # dataset depth backend[+key=value]
	ds=$1 d=$2 b=${3%%+*} label=$3
	set --
	case $label in *+*) set -- --opt "${label#*+}" ;; esac
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$odt" solve --backend "$b" --depth "$d" --threads 1 --time-limit "$limit" \
		--format json "$@" "$data/$ds.txt" > "$tmp/out.json" 2> "$tmp/err" || true
	cpu=$(awk '{printf "%.2f", $1 + $2}' "$tmp/time")
	python3 - "$ds" "$d" "$label" "$cpu" "$tmp/out.json" <<'PY'
import json, sys
ds, d, b, cpu, path = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception:
    print(f"{ds}\t{d}\t{b}\terror\t-\t-\t-\t{cpu}")
    sys.exit()
lp = r.get("stats", {}).get("lp_bound")
lp = "-" if lp is None else f"{lp:.2f}"
print(f"{ds}\t{d}\t{b}\t{r['status']}\t{r['objective']:g}\t{r['lower_bound']:g}\t{lp}\t{cpu}")
PY
}
for ds in $depth2; do
	for b in $backends; do cell "$ds" 2 "$b"; done
done
for ds in $depth3; do
	for b in $backends; do cell "$ds" 3 "$b"; done
done
