#!/usr/bin/env bash
# Issue 35's Done-when comparisons: replica-exchange Metropolis with two
# sets of replicas (--overlap), plain and with the cluster move
# (--cluster icm), on the same geometric ladder, TRIALS trials each (default
# 8) at equal thread CPU (--budget per sampler, shared by its trials),
# compared by the pooled bulk ESS per CPU-second of the target rung's
# energy and of q^2, computed from each run's draws.npz (the kept draws
# after burn-in that summary.json pools) by scripts/icmess, with their
# split-R-hat.
#
# Cases (each run plain and with --cluster icm):
#   glass2d-L32  spinglass2d:L=32,seed=1 at T = 0.3, 24 rungs from beta 0.3,
#                --budget 60s (Done when: icm >= 3x plain's q^2 ESS/CPU-s,
#                >= 1x its energy's, R-hat of both <= 1.01)
#   glass2d-L64  spinglass2d:L=64,seed=1 at T = 0.2, R64 rungs from beta 0.3
#                (default auto: --replicas auto's pilot chooses), --budget
#                240s (Done when: with the move energy R-hat <= 1.01, q^2
#                R-hat <= 1.05)
#   glass3d-L8   spinglass3d:L=8,seed=1 at beta 2, 16 rungs from beta 0.4,
#                --budget 60s (Done when: >= 1.5x the energy's ESS/CPU-s,
#                >= 0.8x q^2's, R-hat <= 1.01, mean energies within 4
#                combined standard errors)
#   f2d-L60      frustrated2d:L=60,seed=1 at T = 0.4 (random fields), F2D_R
#                rungs (default auto) from beta 0.4, --budget 120s: measured
#                and reported
# With HYBRID=1, hybrid (tuned cycles, work clock) with --cluster icm runs
# beside them on glass2d-L32 and f2d-L60.
#
# Writes OUT/TAG-plain, OUT/TAG-icm (the runs), OUT/ess.jsonl and
# OUT/table.md. Usage: scripts/icm-check.sh [BINARY] [OUT]
# (BINARY is built from this checkout when absent.)
# Environment: BUDGET replaces every run's --budget (e.g. BUDGET=2s for a
# smoke test); TRIALS (default 8); THREADS, --threads (default 0: all CPUs,
# shared by the trials); CASES, the cases to run (default all four);
# R64, F2D_R; HYBRID (default 0); KEEP=1 keeps the per-trial CSV traces.
# A smoke test:
#   BUDGET=1s TRIALS=2 CASES=glass3d-L8 scripts/icm-check.sh
# A --budget is the sampler's, shared by its trials: the full run is
# 2 x (60 + 240 + 60 + 120) s = 16 minutes of CPU, plus 60 + 120 s with
# HYBRID=1: run it on a quiet machine (CPU time is
# what is compared, but a busy machine still slows caches and clocks).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-}
OUT=${2:-results/icm}
N=${TRIALS:-8}
T=${THREADS:-0}
CASES=${CASES:-glass2d-L32 glass2d-L64 glass3d-L8 f2d-L60}
mkdir -p "$OUT"
if [ -z "$B" ]; then
	B="$OUT/.sardonics"
	go build -o "$B" .
fi
run() { # tag, budget, then sample's flags
	local tag=$1 budget=${BUDGET:-$2}
	shift 2
	rm -rf "${OUT:?}/$tag"
	echo "$tag: --budget $budget" >&2
	"$B" sample "$@" --budget "$budget" --trials "$N" --threads "$T" --seed 1 --quiet --no-figures \
		--out "$OUT/$tag" >/dev/null 2>"$OUT/$tag.log" || { cat "$OUT/$tag.log" >&2; exit 1; }
}
pair() { # tag, budget, then sample's flags: plain RE-Metropolis and with the move
	local tag=$1 budget=$2
	shift 2
	run "$tag-plain" "$budget" "$@" --sampler metropolis --overlap
	run "$tag-icm" "$budget" "$@" --sampler metropolis --overlap --cluster icm
}
for c in $CASES; do
	case $c in
	glass2d-L32)
		g=(--model spinglass2d:L=32,seed=1 --T 0.3 --replicas 24 --beta-min 0.3)
		pair "$c" 60s "${g[@]}"
		if [ "${HYBRID:-0}" = 1 ]; then run "$c-hybrid-icm" 60s "${g[@]}" --sampler hybrid --overlap --cluster icm; fi
		;;
	glass2d-L64)
		pair "$c" 240s --model spinglass2d:L=64,seed=1 --T 0.2 --replicas "${R64:-auto}" --beta-min 0.3
		;;
	glass3d-L8)
		pair "$c" 60s --model spinglass3d:L=8,seed=1 --beta 2 --replicas 16 --beta-min 0.4
		;;
	f2d-L60)
		f=(--model frustrated2d:L=60,seed=1 --T 0.4 --replicas "${F2D_R:-auto}" --beta-min 0.4)
		pair "$c" 120s "${f[@]}"
		if [ "${HYBRID:-0}" = 1 ]; then run "$c-hybrid-icm" 120s "${f[@]}" --sampler hybrid --overlap --cluster icm; fi
		;;
	*)
		echo "icm-check.sh: unknown case $c (expected glass2d-L32, glass2d-L64, glass3d-L8, f2d-L60)" >&2
		exit 2
		;;
	esac
done
dirs=()
for c in $CASES; do
	for d in "$OUT/$c"-*/; do dirs+=("${d%/}"); done
done
go run ./scripts/icmess "${dirs[@]}" >"$OUT/ess.jsonl"
# The per-trial CSV traces are not kept unless KEEP=1; draws.npz (what the
# ESS was computed from), summaries, stats.json and logs are.
if [ "${KEEP:-0}" != 1 ]; then
	for d in "${dirs[@]}"; do
		find "$d" \( -name energy.csv -o -name magnetization.csv -o -name overlap.csv -o -name walk.csv \) -delete
	done
fi
python3 scripts/icm_table.py "$OUT/ess.jsonl" "${BUDGET:-}" >"$OUT/table.md"
cat "$OUT/table.md"
