#!/usr/bin/env bash
# Replica exchange (issue 16) on the cases single chains do not
# equilibrate: the 3D +-J glass at beta = 2 and at the paper's beta = 1
# (below its glass transition, T_c ~ 1.12), replica-exchange Metropolis
# against replica-exchange SARDONICS, and the bundled paper-rbm at beta = 1,
# replica-exchange SARDONICS against replica-exchange block Gibbs and
# Metropolis.
# 8 trials each; writes results/replica/table.md (split-R-hat, mean energies
# and their agreement, pooled bulk ESS per CPU-second, swap acceptance,
# round trips). Usage: scripts/replica.sh [OUTDIR] (about 15 min on 2 idle cores).
# Environment: STEPS_GLASS (default 100000), STEPS_RBM (sardonics on the
# RBM, default 100000), STEPS_RBM_BLOCKGIBBS (default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/replica}
sg=${STEPS_GLASS:-100000}
sr=${STEPS_RBM:-100000}
sb=${STEPS_RBM_BLOCKGIBBS:-20000}
mkdir -p "$out"
go build -o "$out/.sardonics" .
bin="$out/.sardonics"
run() { # tag, then sample's flags
  local tag=$1; shift
  "$bin" sample "$@" --trials 8 --seed 1 --quiet --out "$out/$tag" >/dev/null
}
run glass-beta2 --model spinglass3d:L=9,seed=1 --beta 2 --sampler sardonics,metropolis \
  --replicas 16 --beta-min 0.4 --steps "$sg" --burn $((sg / 5))
run glass-beta1 --model spinglass3d:L=9,seed=1 --beta 1 --sampler sardonics,metropolis \
  --replicas 8 --beta-min 0.4 --steps "$sg" --burn $((sg / 5))
# SARDONICS moves cost ~7x less than block-Gibbs sweeps of 16 rungs here but
# decorrelate slower per step: each gets the steps it needs.
rbm=(--model paper-rbm --beta 1 --replicas 16 --beta-min 0.2 --ladder adaptive)
run rbm-beta1-sardonics "${rbm[@]}" --sampler sardonics --steps "$sr" --burn $((sr / 5))
run rbm-beta1-blockgibbs "${rbm[@]}" --sampler blockgibbs --steps "$sb" --burn $((sb / 5))
run rbm-beta1-metropolis "${rbm[@]}" --sampler metropolis --steps "$sb" --burn $((sb / 5))
rm -f "$bin"
# The per-step traces (about 90 MB) are not kept unless KEEP=1; summaries,
# stats.json and figures are.
if [ "${KEEP:-0}" != 1 ]; then
  find "$out" \( -name energy.csv -o -name walk.csv -o -name overlap.csv -o -name states.npy \) -delete
fi
python3 scripts/replica_table.py "$out" > "$out/table.md"
cat "$out/table.md"
