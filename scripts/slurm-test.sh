#!/usr/bin/env bash
# Integration test of examples/slurm on a real single-node Slurm cluster.
#
# As root on Debian: installs slurm-wlm, munge and jq if missing, starts a
# private munged, slurmctld and slurmd on localhost (own config, key, socket,
# ports and spool under a temporary folder; /etc is not touched), submits
# examples/slurm/sample-array.sbatch as a 4-task array plus merge.sbatch with
# --dependency=afterok, runs the same 4 trials in one process, and checks that
#   - every trial's energy.csv is byte-identical (task folders, merged folder,
#     single run), and
#   - the merged summary.json equals the single run's apart from timings.
# Stops the daemons it started and removes its folder on exit.
#
#   sudo scripts/slurm-test.sh          # KEEP=1 keeps the work folder
#
# Environment: SLURM_TEST_PORT (slurmctld port, slurmd uses +1; default: the
# first free pair from 16817),
# SLURM_TEST_TIMEOUT (seconds to wait for the jobs; default 300),
# SARDONICS_BIN (a prebuilt binary to test instead of `go build`).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
PORT=${SLURM_TEST_PORT:-}
JOB_TIMEOUT=${SLURM_TEST_TIMEOUT:-300}
MODEL='ferro2d:L=16'
TEMP=2.27
SAMPLERS='gibbs,sardonics'
STEPS=2000
BURN=500
SEED=7
NTASKS=4

start=$(date +%s)
log() { echo "slurm-test: $(date +%T) $*"; }
WORK=
PIDS=()
FAILED=1

dump_logs() {
  [ -n "$WORK" ] || return 0
  local f
  for f in "$WORK"/log/*.log "$WORK"/run/logs/*; do
    [ -s "$f" ] || continue
    echo "----- $f (last 60 lines) -----"
    tail -n 60 "$f"
  done
  if command -v scontrol >/dev/null && [ -f "$WORK/etc/slurm.conf" ]; then
    echo "----- scontrol show node / job -----"
    SLURM_CONF="$WORK/etc/slurm.conf" timeout 10 scontrol show node 2>&1 || true
    SLURM_CONF="$WORK/etc/slurm.conf" timeout 10 scontrol show job 2>&1 || true
  fi
}

cleanup() {
  local rc=$?
  set +e
  if [ "$FAILED" = 1 ]; then
    [ "$rc" = 0 ] && rc=1
    echo "slurm-test: FAILED (exit $rc); daemon and job logs follow" >&2
    dump_logs >&2
  fi
  if [ -n "$WORK" ] && [ -f "$WORK/etc/slurm.conf" ]; then
    # Cancel our jobs and give slurmd a moment to end their processes.
    export SLURM_CONF="$WORK/etc/slurm.conf"
    timeout 10 scancel --quiet --user=root >/dev/null 2>&1
    for _ in $(seq 15); do
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 1
    done
  fi
  # Stop what we started, newest first: slurmd, slurmctld, munged.
  local i pid
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    pid=${PIDS[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ -n "$WORK" ]; then
    if [ "${KEEP:-0}" = 1 ]; then
      echo "slurm-test: kept $WORK" >&2
    else
      rm -rf "$WORK"
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

die() { echo "slurm-test: error: $*" >&2; exit 1; }

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every second.
wait_for() {
  local limit=$1 what=$2 t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS - t0 >= limit)); then
      die "timed out after ${limit}s waiting for $what"
    fi
    sleep 1
  done
  log "$what after $((SECONDS - t0))s"
}

[ "$(id -u)" = 0 ] || die "must run as root (it installs packages and starts slurmd)"

# --- packages ---------------------------------------------------------------
missing=()
command -v slurmctld >/dev/null || missing+=(slurmctld)
command -v slurmd >/dev/null || missing+=(slurmd)
command -v sbatch >/dev/null || missing+=(slurm-client)
command -v munged >/dev/null || missing+=(munge)
command -v jq >/dev/null || missing+=(jq)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
  pkgs=(jq munge)
  [[ " ${missing[*]} " == *" slurm"* ]] && pkgs+=(slurm-wlm)
  log "installing ${pkgs[*]} (missing: ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -qq || die "apt-get update failed"
  timeout 900 apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null ||
    die "apt-get install ${pkgs[*]} failed"
fi
if [ -z "${SARDONICS_BIN:-}" ]; then
  command -v go >/dev/null || PATH="$PATH:/usr/local/go/bin"
  command -v go >/dev/null || die "go is not installed"
fi

# --- work folder, build -----------------------------------------------------
WORK=$(mktemp -d /tmp/sardonics-slurm.XXXXXX)
chmod 755 "$WORK" # munged wants every directory above its socket searchable
mkdir -p "$WORK"/{etc,log,munge,state,spool,run/logs,bin}
log "work folder $WORK"

if [ -n "${SARDONICS_BIN:-}" ]; then
  log "using $SARDONICS_BIN"
  cp "$SARDONICS_BIN" "$WORK/bin/sardonics" || die "cannot copy SARDONICS_BIN=$SARDONICS_BIN"
else
  log "building sardonics"
  go build -o "$WORK/bin/sardonics" . || die "go build failed"
fi

# --- munge ------------------------------------------------------------------
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$WORK/munge"
chmod 400 "$WORK/munge/munge.key"
SOCK="$WORK/munge/munge.socket"
chmod 755 "$WORK/munge"
munged -F --force --socket="$SOCK" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/munged.seed" \
  --log-file="$WORK/log/munged.log" >"$WORK/log/munged.out.log" 2>&1 &
PIDS+=($!)
wait_for 20 "munged up" bash -c "munge -n --socket='$SOCK' | unmunge --socket='$SOCK'"

# --- slurm.conf -------------------------------------------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -z "$PORT" ]; then
  for PORT in $(seq 16817 2 16897) ''; do
    port_busy "$PORT" || port_busy $((PORT + 1)) || break
  done
  [ -n "$PORT" ] || die "no free port pair in 16817-16898 (set SLURM_TEST_PORT)"
fi
HOST=$(hostname -s)
# The node exactly as slurmd sees it (CPUs, sockets, cores, threads, memory).
node=$(slurmd -C | head -n 1) || die "slurmd -C failed"
[[ $node == NodeName=* ]] || die "unexpected slurmd -C output: $node"
node=${node#NodeName=* }
CPUS=$(sed -n 's/.*\bCPUs=\([0-9]*\).*/\1/p' <<<"$node")
[ -n "$CPUS" ] || die "no CPUs in slurmd -C output: $node"
export SLURM_CONF="$WORK/etc/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# Minimal single-node cluster written by scripts/slurm-test.sh
ClusterName=sardtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/state/slurmctld.pid
SlurmdPidFile=$WORK/spool/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$HOST NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

# --- daemons ----------------------------------------------------------------
log "starting slurmctld and slurmd ($HOST, $CPUS CPUs, ports $PORT/$((PORT + 1)))"
slurmctld -D -i -f "$SLURM_CONF" >>"$WORK/log/slurmctld.out.log" 2>&1 &
PIDS+=($!)
wait_for 30 "slurmctld answering" scontrol ping
slurmd -D -N "$HOST" -f "$SLURM_CONF" >>"$WORK/log/slurmd.out.log" 2>&1 &
PIDS+=($!)
node_idle() { sinfo -h -N -n "$HOST" -o '%t' | grep -qx idle; }
wait_for 60 "node $HOST idle" node_idle
sinfo

# --- the array and its merge step -------------------------------------------
RUN="$WORK/run"
cd "$RUN"
export SARDONICS="$WORK/bin/sardonics" MODEL="$MODEL" T="$TEMP" SAMPLERS="$SAMPLERS"
export STEPS BURN SEED RUN_DIR="$RUN/array"
array=$(sbatch --parsable --array=0-$((NTASKS - 1)) "$ROOT/examples/slurm/sample-array.sbatch") ||
  die "sbatch of the array failed"
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" "$ROOT/examples/slurm/merge.sbatch") ||
  die "sbatch of the merge step failed"
merge=${merge%%;*}
log "submitted array job $array (tasks 0-$((NTASKS - 1))) and merge job $merge"
squeue

# Done when both have left the queue, or when the merge can never start
# (a task failed, so afterok cannot be satisfied).
jobs_done() {
  local q
  q=$(squeue -h -j "$array,$merge" -o '%i %r') || return 1
  [ -z "$q" ] || grep -q DependencyNeverSatisfied <<<"$q"
}
wait_for "$JOB_TIMEOUT" "array and merge jobs finished" jobs_done

# Every task and the merge step must have COMPLETED with exit code 0:0.
states=$(scontrol show job -o "$array" && scontrol show job -o "$merge") ||
  die "scontrol show job failed"
while read -r line; do
  echo "  $(grep -oE '\b(JobId|ArrayTaskId|JobName|JobState|ExitCode)=[^ ]*' <<<"$line" | tr '\n' ' ')"
done <<<"$states"
n_ok=$(echo "$states" | grep -c 'JobState=COMPLETED .*ExitCode=0:0' || true)
[ "$n_ok" = $((NTASKS + 1)) ] ||
  die "expected all $NTASKS array tasks and the merge job COMPLETED with exit 0:0, got $n_ok (see the job logs below)"

# --- the same trials in one process ------------------------------------------
log "running the $NTASKS trials in one process"
"$SARDONICS" sample --model "$MODEL" --T "$TEMP" --sampler "$SAMPLERS" \
  --steps "$STEPS" --burn "$BURN" --seed "$SEED" --trials "$NTASKS" --trial-offset 0 \
  --out "$RUN/single" --quiet >"$RUN/logs/single.out" 2>&1 ||
  die "single-process run failed: $(tail -n 20 "$RUN/logs/single.out")"

# --- compare ----------------------------------------------------------------
MERGED="$RUN/array/merged"
[ -f "$MERGED/summary.json" ] || die "merge step wrote no $MERGED/summary.json"
n=0
for s in ${SAMPLERS//,/ }; do
  for ((t = 0; t < NTASKS; t++)); do
    ref="$RUN/single/$s/trial-$t/energy.csv"
    [ -s "$ref" ] || die "single run has no $ref"
    lines=$(wc -l <"$ref")
    [ "$lines" = $((STEPS + 1)) ] || die "$ref has $lines lines, want $((STEPS + 1)) (header + every step)"
    for f in "$RUN/array/task-$t/$s/trial-$t/energy.csv" "$MERGED/$s/trial-$t/energy.csv"; do
      [ -f "$f" ] || die "missing $f"
      cmp -s "$ref" "$f" || die "$f differs from the single run's $ref: $(cmp "$ref" "$f" 2>&1)"
      n=$((n + 1))
    done
  done
done
log "$n energy.csv files byte-identical to the single run's"

# summary.json without timing fields, keys sorted.
strip='walk(if type == "object" then del(.wall_seconds, .cpu_seconds, .ess_per_cpu_second, .ns_per_flip, .machine) else . end)'
jq -S "$strip" "$MERGED/summary.json" >"$RUN/merged.cmp.json" || die "jq failed on merged summary.json"
jq -S "$strip" "$RUN/single/summary.json" >"$RUN/single.cmp.json" || die "jq failed on single summary.json"
if ! diff -u "$RUN/single.cmp.json" "$RUN/merged.cmp.json" >"$RUN/summary.diff"; then
  head -n 80 "$RUN/summary.diff"
  die "merged summary.json differs from the single run's (timings aside); diff above"
fi
got=$(jq -r '[.results[] | "\(.sampler):\(.trials)"] | sort | join(" ")' "$MERGED/summary.json")
want=$(for s in ${SAMPLERS//,/ }; do echo "$s:$NTASKS"; done | sort | paste -sd ' ')
[ "$got" = "$want" ] || die "merged summary.json has sampler:trials '$got', want '$want'"
log "merged summary.json equals the single run's (timings aside): $got"

FAILED=0
log "PASS in $(($(date +%s) - start))s"
