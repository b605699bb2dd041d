#!/usr/bin/env bash
# ESS per CPU-second of the energy on equal CPU: SARDONICS runs --trials
# trials of --steps moves (the first --burn discarded); Gibbs and Metropolis
# then get the same total CPU time. A short calibration run of each measures
# its CPU seconds per step, from which its --steps follow (its burn-in is the
# same fraction of its steps, so every sampler's CPU covers its burn-in too);
# a run more than 10% off the budget is repeated once with corrected steps.
# ESS is the bulk ESS pooled over the trials (summary.json's "ess": split,
# rank-normalized, Geyer's initial monotone sequence, as Stan computes it).
#
# Usage: scripts/equal-cpu.sh [--model SPEC] [--T T] [--steps S] [--burn B]
#          [--trials N] [--seed N] [--params THETA] [OUTDIR]
# Defaults: frustrated2d:L=60,seed=1, T = 1, S = 100000 and B = 20000 at
# T >= 1 (S = 400000, B = 80000 below), 4 trials, seed 1, OUTDIR
# results/equal-cpu/<model>_T<T>. Prints the table and writes it to
# OUTDIR/table.md (OUTDIR/table.json: the numbers); the runs are in
# OUTDIR/SAMPLER, the calibration runs in OUTDIR/calibration. OUTDIR and
# $ESS_REFERENCE, when relative, are taken from the repository root (as in
# the other scripts). A few minutes at T = 1 on 2 cores.
#
# Cross-check: if ../shared/tools/ess_reference.py (or $ESS_REFERENCE) exists,
# its bulk ESS and bulk R-hat of the same energy.csv files are added to the
# table; otherwise it is skipped with a note.
#
# SARDONICS_BIN=PATH runs that binary instead of building one (a machine
# without Go).
set -euo pipefail
cd "$(dirname "$0")/.."

model="frustrated2d:L=60,seed=1" temp=1 steps="" burn="" trials=4 seed=1 params="" out=""
while [ $# -gt 0 ]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --T) temp=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --burn) burn=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --params) params=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "equal-cpu.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
cold=$(awk -v t="$temp" 'BEGIN { print (t < 1) ? 1 : 0 }')
if [ -z "$steps" ]; then
  if [ "$cold" = 1 ]; then steps=400000; else steps=100000; fi
fi
if [ -z "$burn" ]; then burn=$((steps / 5)); fi
if [ -z "$out" ]; then
  tag="${model%%:*}_T${temp}"
  out="results/equal-cpu/$tag"
fi
ref=${ESS_REFERENCE:-../shared/tools/ess_reference.py}
helper=scripts/equal_cpu.py
mkdir -p "$out"
if [ -n "${SARDONICS_BIN:-}" ]; then
  bin=$(cd "$(dirname "$SARDONICS_BIN")" && pwd)/$(basename "$SARDONICS_BIN")
else
  bin="$out/.sardonics"
  go build -o "$bin" .
  trap 'rm -f "$bin"' EXIT
fi

log() { echo "equal-cpu: $*" >&2; }

# sample SAMPLER STEPS BURN TRIALS DIR: one run, its folder replaced.
sample() {
  local extra=()
  if [ "$1" = sardonics ] && [ -n "$params" ]; then extra=(--params "$params"); fi
  rm -rf "$5"
  "$bin" sample --model "$model" --T "$temp" --sampler "$1" --steps "$2" --burn "$3" \
    --trials "$4" --seed "$seed" --quiet "${extra[@]}" --out "$5" >/dev/null
}
field() { python3 "$helper" get "$1" "$2"; }

log "sardonics: $trials trials x $steps steps (burn-in $burn), $model at T = $temp"
sample sardonics "$steps" "$burn" "$trials" "$out/sardonics"
cpu=$(field "$out/sardonics" cpu_seconds)
log "sardonics: $cpu CPU seconds in all"

for s in gibbs metropolis; do
  # Calibration: seconds per step from a short run of 2 trials, then from
  # one sized to about 10% of the budget (timer and start-up noise).
  c=500
  sample "$s" "$c" 0 2 "$out/calibration/$s"
  per=$(python3 "$helper" per-step "$out/calibration/$s" "$c")
  c2=$(python3 "$helper" steps "$cpu" "$per" 10 2)
  if [ "$c2" -gt $((2 * c)) ]; then
    c=$c2
    sample "$s" "$c" 0 2 "$out/calibration/$s"
    per=$(python3 "$helper" per-step "$out/calibration/$s" "$c")
  fi
  n=$(python3 "$helper" steps "$cpu" "$per" 1 "$trials")
  for attempt in 1 2; do
    b=$(( n * burn / steps ))
    if [ "$n" -lt 2 ] || [ "$b" -ge "$n" ]; then
      echo "equal-cpu.sh: $s would get $n steps: too little CPU to compare ($cpu s)" >&2
      exit 1
    fi
    log "$s: $per CPU seconds per step: $trials trials x $n steps (burn-in $b)"
    sample "$s" "$n" "$b" "$trials" "$out/$s"
    # Off by more than 10% (a noisy calibration): once more, with the
    # seconds per step of this run.
    per=$(python3 "$helper" per-step "$out/$s" "$n")
    n2=$(python3 "$helper" steps "$cpu" "$per" 1 "$trials")
    within=$(( 10 * n2 >= 9 * n && 10 * n2 <= 11 * n ))
    if [ "$within" = 1 ] || [ "$attempt" = 2 ]; then
      break
    fi
    log "$s: $(field "$out/$s" cpu_seconds) CPU seconds instead of $cpu: again with $n2 steps"
    n=$n2
  done
done

refnote=""
if [ ! -f "$ref" ]; then
  refnote="(cross-check skipped: no $ref)"
  ref=""
fi
python3 "$helper" table "$out" "$ref" "$model" "$temp" "$seed" sardonics gibbs metropolis | tee "$out/table.md"
[ -z "$refnote" ] || echo "$refnote" | tee -a "$out/table.md"
