#!/usr/bin/env bash
# Runs the README's Slurm job array (scripts/slurm-bench.sbatch) on a one-node
# Slurm cluster started here on localhost, and checks that the merged shards
# hold the same cells and proven optima as a local odt bench of the same grid.
#
# As root (CI): installs slurm-wlm and munge when missing, starts munged (on
# its own socket), slurmctld and slurmd with a generated slurm.conf in a
# temporary folder (no cgroups: proctrack/linuxproc, task/none), submits the
# array with sbatch --wait, then stops the daemons it started and removes the
# folder. ODT=PATH uses that odt binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
[ -d /usr/local/go/bin ] && export PATH="/usr/local/go/bin:$PATH"
say() { echo "slurm-test.sh: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
	say "run as root: it installs slurm-wlm and munge and starts their daemons"
	exit 1
fi
missing=()
for p in slurm-wlm munge; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

T=$(mktemp -d /tmp/odtkit-slurm.XXXXXX)
chmod 755 "$T"
pids=()
cleanup() {
	local rc=$?
	if [ -n "${SLURM_CONF:-}" ] && [ -n "${JOB:-}" ]; then
		scancel "$JOB" 2>/dev/null || true
	fi
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[i]}" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	done
	if [ $rc != 0 ]; then
		for f in slurmctld.log slurmd.log munged.log; do
			[ -f "$T/$f" ] && { say "--- $f (last lines)"; tail -n 25 "$T/$f" >&2; }
		done
		for f in "$T"/out/*.log; do
			[ -f "$f" ] && { say "--- $f"; cat "$f" >&2; }
		done
	fi
	rm -rf "$T"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The odt binary the jobs run.
if [ -z "${ODT:-}" ]; then
	tags=""
	pkg-config --exists highs 2>/dev/null && tags="-tags highs"
	# shellcheck disable=SC2086
	go build $tags -o "$T/odt" ./cmd/odt
	ODT="$T/odt"
fi
ODT=$(readlink -f "$ODT")

# munged on a socket of its own, as the munge user.
mkdir -p "$T/munge"
chown munge: "$T/munge"
chmod 755 "$T/munge"
if [ ! -s /etc/munge/munge.key ]; then
	say "creating /etc/munge/munge.key"
	mungekey --create --keyfile=/etc/munge/munge.key
	chown munge: /etc/munge/munge.key
	chmod 600 /etc/munge/munge.key
fi
SOCK="$T/munge/munge.socket"
runuser -u munge -- /usr/sbin/munged --foreground --socket="$SOCK" \
	--pid-file="$T/munge/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge/seed" 2>>"$T/munged.log" &
pids+=($!)
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
munge --socket="$SOCK" -n | unmunge --socket="$SOCK" >/dev/null

# slurm.conf for one node: this machine, its CPUs and memory as slurmd sees them.
host=$(hostname -s)
node=$(slurmd -C | head -n 1)
node=${node/NodeName=* CPUs/NodeName=$host NodeAddr=127.0.0.1 CPUs}
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
d_port=$(free_port)
while [ "$d_port" = "$ctld_port" ]; do d_port=$(free_port); done
mkdir -p "$T/state" "$T/spool" "$T/out" "$T/results"
cat >"$T/slurm.conf" <<CONF
ClusterName=odtkit-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
$node State=UNKNOWN
PartitionName=odtkit Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >/dev/null 2>&1 &
pids+=($!)
/usr/sbin/slurmd -D -f "$SLURM_CONF" >/dev/null 2>&1 &
pids+=($!)
state=""
for _ in $(seq 300); do
	state=$(sinfo -h -N -o %T 2>/dev/null | head -n 1 || true)
	case "$state" in idle | mixed | allocated) break ;; esac
	sleep 0.2
done
case "$state" in idle | mixed | allocated) ;; *) say "the node did not come up (state '$state')"; exit 1 ;; esac
say "cluster up: $(sinfo -h -N -o '%N %c CPUs %m MB %T')"

# The grid: small enough to run in seconds, with proven optima and a heuristic.
export ODT OUT="$T/results"
export BACKENDS=dl85,cart DEPTHS=2,3 TIME_LIMIT=60s MEMORY_LIMIT=1000
export DATA="$REPO/testdata/iris.csv $REPO/testdata/vote.txt $REPO/testdata/monk1.csv"
out=$(timeout 600 sbatch --wait --parsable --array=1-4 --mem=1500M --time=10 \
	--chdir="$T" --output="$T/out/%A-%a.log" scripts/slurm-bench.sbatch)
JOB=${out%%;*}
say "job array $JOB done"
done_job=$JOB
JOB=""
n_logs=$(find "$T/out" -name "$done_job-*.log" | wc -l)
[ "$n_logs" = 4 ] || { say "expected 4 task logs of job $done_job, found $n_logs"; exit 1; }

"$ODT" bench merge -q -o "$T/results/all" "$T"/results/shard-* >"$T/merge.txt"
# shellcheck disable=SC2086
"$ODT" bench -q --backends "$BACKENDS" --depth "$DEPTHS" --time-limit "$TIME_LIMIT" \
	--memory-limit "$MEMORY_LIMIT" -o "$T/local" $DATA >"$T/local.txt"

/usr/bin/python3 - "$T/results/all/runs.jsonl" "$T/local/runs.jsonl" "$T"/results/shard-*/runs.jsonl <<'PY'
import json, sys

def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]

def key(r):
    return (r["dataset"], r["backend"], r.get("objective_name"), r["depth"], r.get("repeat", 0))

merged, local, shards = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3:]
problems = []
n_shard_runs = sum(len(load(p)) for p in shards)
if n_shard_runs != len(local):
    problems.append(f"the shards ran {n_shard_runs} runs, the local grid {len(local)}")
for name, runs in (("merged", merged), ("local", local)):
    keys = [key(r) for r in runs]
    if len(set(keys)) != len(keys):
        problems.append(f"{name} runs.jsonl repeats a cell")
m = {key(r): r for r in merged}
l = {key(r): r for r in local}
if set(m) != set(l):
    problems.append(f"cells differ: only merged {sorted(set(m) - set(l))}, only local {sorted(set(l) - set(m))}")
proven = 0
for k in sorted(set(m) & set(l)):
    a, b = m[k], l[k]
    if a["cell"] != b["cell"]:
        problems.append(f"{k}: cell index {a['cell']} merged, {b['cell']} local")
    if a["optimal"] != b["optimal"] or a["status"] != b["status"]:
        problems.append(f"{k}: merged {a['status']}/{a['optimal']}, local {b['status']}/{b['optimal']}")
    if a["objective"] != b["objective"]:
        problems.append(f"{k}: objective {a['objective']} merged, {b['objective']} local")
    proven += bool(a["optimal"] and b["optimal"])
if proven == 0:
    problems.append("no cell was proven optimal in both runs")
if problems:
    print("slurm-test.sh: merged shards differ from the local run:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"slurm-test.sh: {len(m)} cells from 4 Slurm shards equal the local run ({proven} proven optima)", file=sys.stderr)
PY
