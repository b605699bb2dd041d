#!/usr/bin/env bash
# Whole trials of the partitioned engine against the serial engine on this
# machine (issue 33's Done-when): `--engine parallel --engine-threads 2`
# against `--engine dense` (denseising for sk), alternating, REPS times
# each, on rbm-random 4096 x 4096 (4,000 steps), sk:N=8192 (40,000) and
# rbm-random 784 x 500 (20,000); wall seconds from each trial's
# stats.json (the engine's build included), then the median speedup.
#
#   scripts/parallel-trials.sh [BINARY] [REPS]   # defaults: out/sardonics, 3
#
# MODELS replaces the list: "SPEC STEPS;SPEC STEPS;..." (for the crossovers
# of --engine auto, parallelsaw/crossover.go).
#
# Time it on a quiet machine (check `uptime`): a busy core halves the
# parallel engine's speed by design (its policy falls back to one thread).
set -euo pipefail
B=${1:-out/sardonics}
R=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
models=("rbm-random:V=4096,H=4096,seed=1,scale=0.02 4000" "sk:N=8192,seed=1 40000" "rbm-random:V=784,H=500,seed=1 20000")
[ -z "${MODELS:-}" ] || IFS=';' read -r -a models <<<"$MODELS"
for m in "${models[@]}"; do
	set -- $m
	for r in $(seq "$R"); do
		for e in dense parallel; do
			args=(--engine "$e")
			[ "$e" = dense ] || args+=(--engine-threads 2)
			rm -rf "$tmp/o"
			"$B" sample --model "$1" --sampler sardonics --steps "$2" --burn 0 --trials 1 --threads 1 --seed 1 --beta 1 \
				--quiet --no-figures --out "$tmp/o" "${args[@]}" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
			python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], s["wall_seconds"], s["cpu_seconds"], s["flips"])' \
				"$tmp/o/sardonics/trial-0/stats.json" "$1" "$e"
		done
	done
done | tee "$tmp/runs"
python3 - "$tmp/runs" <<'PY'
import statistics, sys
w = {}
for line in open(sys.argv[1]):
    m, e, wall, cpu, flips = line.split()
    w.setdefault(m, {}).setdefault(e, []).append(float(wall))
for m, d in w.items():
    dm, pm = statistics.median(d["dense"]), statistics.median(d["parallel"])
    print(f"{m}: dense {dm:.3f} s, parallel P=2 {pm:.3f} s (medians of {len(d['dense'])}): {dm / pm:.2f}x")
PY
