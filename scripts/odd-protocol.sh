#!/bin/bash
# The ODD paper's protocol on HiGHS, in odt bench terms:
# the N smallest uci54 datasets (default 20), a 50 % stratified training split
# (seed 1), univariate diagrams on skeletons 1,2,4,8 and 1,2,2,2,2,2,2,2,
# alpha 0.01 and 1, a time limit per run (default 60s). One bench per
# (skeleton, alpha, configuration); the summary counts proven runs, runs that
# improved on the construction heuristic (the first incumbent) and the mean
# final gap (objective - bound) / objective.
#
#   scripts/odd-protocol.sh [-n N] [-t 60s] [-j J] [-T THREADS] [-o DIR] [-c 'NAME KEY=VALUE ...']... [DATA_DIR]
#
# -j J runs each bench as J shards side by side (odt bench --shard I/J, then
# odt bench merge): J runs at a time, each one HiGHS thread; J = cores halves
# the wall time of the 80-run default protocol (about 80 min at 60 s).
#
# -T THREADS gives each run's solve --threads THREADS (HiGHS threads); without
# it the solver's default (the cores the process may use) applies.
#
# -c names a configuration of milp-odd options (passed as --opt KEY=VALUE);
# with several -c the configurations run alternately, one bench each per
# (skeleton, alpha), so an A/B comparison shares the machine's state, e.g.
#   scripts/odd-protocol.sh -n 10 -t 20s -c 'base error-cuts=false' -c 'cuts error-cuts=true'
# Without -c one configuration, "default", runs with the backend's defaults.
# Needs an odt built with -tags highs on PATH (or ODT=path).
set -euo pipefail
n=20 limit=60s jobs=1 out=odd-protocol configs=() threads=()
while getopts n:t:j:T:o:c: f; do
  case $f in
    n) n=$OPTARG ;; t) limit=$OPTARG ;; j) jobs=$OPTARG ;; o) out=$OPTARG ;; c) configs+=("$OPTARG") ;; T) threads=(--threads "$OPTARG") ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ ${#configs[@]} -gt 0 ] || configs=(default)
data=${1:-../shared/data/uci54}
odt=${ODT:-odt}
mapfile -t files < <(for f in "$data"/*.csv; do echo "$(($(wc -l <"$f") - 1)) $f"; done | sort -n -k1,1 -s | head -n "$n" | cut -d' ' -f2-)
[ ${#files[@]} -gt 0 ] || { echo "odd-protocol: no .csv files in $data" >&2; exit 2; }
mkdir -p "$out"
for sk in 1,2,4,8 1,2,2,2,2,2,2,2; do
  for a in 0.01 1; do
    for c in "${configs[@]}"; do
      read -r -a words <<<"$c"
      name=${words[0]} opts=()
      for kv in "${words[@]:1}"; do opts+=(--opt "$kv"); done
      cell=$out/$name/sk${sk//,/}-a$a
      args=(bench -q --backends milp-odd --split 50/50 --seeds 1 --skeleton "$sk" --alpha "$a"
        --time-limit "$limit" "${threads[@]}" "${opts[@]}")
      if [ "$jobs" -le 1 ]; then
        "$odt" "${args[@]}" -o "$cell" "${files[@]}" >/dev/null
        continue
      fi
      pids=()
      for ((i = 1; i <= jobs; i++)); do
        "$odt" "${args[@]}" --shard "$i/$jobs" -o "$cell.shard-$i" "${files[@]}" >/dev/null &
        pids+=($!)
      done
      for p in "${pids[@]}"; do wait "$p"; done
      "$odt" bench merge -o "$cell" "$cell".shard-* >/dev/null
      rm -rf "$cell".shard-*
    done
  done
done
python3 - "$out" "${configs[@]}" <<'PY'
import glob, json, sys
out, names = sys.argv[1], [c.split()[0] for c in sys.argv[2:]]
print("| configuration | skeleton | alpha | runs | proven | improved on the heuristic | mean gap |")
print("|---|---|---|---|---|---|---|")
cells = sorted({d.rstrip("/").split("/")[-1] for n in names for d in glob.glob(f"{out}/{n}/sk*/")},
               key=lambda s: (-len(s.split("-a")[0]), s))
for cell in cells:
    for n in names:
        try:
            rs = [json.loads(l) for l in open(f"{out}/{n}/{cell}/runs.jsonl")]
        except FileNotFoundError:
            continue
        sk, a = cell[2:].split("-a")
        proven = sum(bool(r["optimal"]) for r in rs)
        imp = sum(1 for r in rs if r.get("incumbents") and r["objective"] is not None
                  and r["objective"] < r["incumbents"][0]["objective"] - 1e-12)
        gaps = [(r["objective"] - r["lower_bound"]) / r["objective"] for r in rs
                if r["objective"] and r["lower_bound"] is not None]
        print(f"| {n} | {','.join(sk)} | {a} | {len(rs)} | {proven} | {imp} | {sum(gaps)/max(len(gaps),1):.3f} |")
PY
