#!/usr/bin/env bash
# Wall-clock speedup of the partitioned parallel engine over the serial
# engines (issue 26, item 3), in under 6 minutes on a 16-core machine:
#
#  1. `sardonics bench --only parallel`: P = 2 sections against the serial
#     dense engine on rbm-random 784 x 500, 2048 x 2048 and 4096 x 4096, the
#     median of 5 interleaved rounds of wall time per flip each (the model
#     and engines built outside the timing), and whether --engine auto's
#     crossover (parallelsaw.MinFlipUnits) picks the faster engine; and
#     the same for the dense engine on sk:N=8192 (parallelsaw.MinDenseSpins);
#  2. whole trials as `sample` runs them (building the engine included) on
#     rbm-random:V=4096,H=4096 and on sk:N=8192: the serial engine (dense;
#     denseising for sk), then P = 1, 2, 4, 8 and 16 sections (those the
#     machine has; taskset -c 0..P-1), one trial each, wall seconds from
#     stats.json.
#
#   scripts/parallel-speedup.sh [BINARY] [OUT]   # defaults: out/sardonics, results/parallel-speedup
#
# Writes OUT/bench.json, OUT/bench.txt, OUT/trials.csv and OUT/trials.md.
set -euo pipefail
B=${1:-out/sardonics}
OUT=${2:-results/parallel-speedup}
mkdir -p "$OUT"
max=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$B" bench --only parallel --budget "${BUDGET:-2s}" --out "$OUT" | tee "$OUT/bench.txt"

csv="$OUT/trials.csv"
echo "model,engine,cpus,wall_s,cpu_s,flips,steps" > "$csv"
one() { # ENGINE P ARGS...
	local eng=$1 p=$2
	shift 2
	local d="$tmp/$eng-$p"
	rm -rf "$d"
	taskset -c "0-$((p - 1))" "$B" sample --model "$model" --sampler sardonics --steps "$steps" --burn 0 \
		--trials 1 --threads 1 --seed 1 --beta 1 --quiet --no-figures --out "$d" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	python3 - "$d/sardonics/trial-0/stats.json" "$model" "$eng" "$p" "$steps" >> "$csv" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print('"%s",%s,%s,%.3f,%.3f,%d,%s' % (sys.argv[2], sys.argv[3], sys.argv[4], s["wall_seconds"], s["cpu_seconds"], s["flips"], sys.argv[5]))
PY
}
# --engine dense is the serial engine of both: dense for RBMs, denseising
# for dense models.
# sk's flips are cheaper than the RBM's: more steps, so that the flips,
# not the engine's build, dominate the trial.
for model in rbm-random:V=4096,H=4096,seed=1,scale=0.02 sk:N=8192,seed=1; do
	steps=${STEPS:-4000}
	[[ $model != sk:* ]] || steps=${SK_STEPS:-40000}
	one dense 1 --engine dense
	for p in 1 2 4 8 16; do
		[ "$p" -le "$max" ] || continue
		one parallel "$p" --engine parallel --engine-threads "$p"
	done
done
python3 - "$csv" > "$OUT/trials.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| model | engine | CPUs | wall s | CPU s | flips | wall us/flip | speedup over serial |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    d = [x for x in rows if x["model"] == r["model"] and x["engine"] == "dense"][0]
    dw = float(d["wall_s"]) / int(d["flips"])
    w = float(r["wall_s"]) / int(r["flips"])
    print("| %s | %s | %s | %s | %s | %s | %.2f | %.2f |" % (r["model"], r["engine"], r["cpus"], r["wall_s"], r["cpu_s"], r["flips"], w * 1e6, dw / w))
PY
cat "$OUT/trials.md"
