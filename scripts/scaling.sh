#!/usr/bin/env bash
# Multi-core scaling (issue 26, item 4): wall-clock time of one trial of the
# partitioned parallel RBM engine at P sections, beside the serial dense
# engine, and of one replica-exchange trial whose replicas run on P threads,
# for P = 1, 2, 4, 8, 16 CPUs (taskset -c 0..P-1, so the program sees P
# usable CPUs). Writes OUT/scaling.csv (kind, model, sampler, cpus, wall s,
# cpu s, flips or updates, steps) and OUT/scaling.md.
#
#   scripts/scaling.sh [BINARY] [OUT]    # defaults: out/sardonics, results/scaling
set -euo pipefail
B=${1:-out/sardonics}
OUT=${2:-results/scaling}
mkdir -p "$OUT"
max=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv="$OUT/scaling.csv"
echo "kind,model,sampler,cpus,wall_s,cpu_s,work,steps" > "$csv"

# one KIND MODEL SAMPLER CPUS STEPS ARGS...: one trial, its stats.json read back.
one() {
	local kind=$1 model=$2 sampler=$3 p=$4 steps=$5
	shift 5
	local d="$tmp/$kind-$p"
	rm -rf "$d"
	taskset -c "0-$((p - 1))" "$B" sample --model "$model" --sampler "$sampler" --steps "$steps" --burn 0 \
		--trials 1 --threads 1 --seed 1 --quiet --no-figures --out "$d" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	python3 - "$d/$sampler/trial-0/stats.json" "$kind" "$model" "$sampler" "$p" "$steps" >> "$csv" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))
work = s["flips"] if s["flips"] > 0 else s["proposed"]
csv.writer(sys.stdout, lineterminator="\n").writerow(sys.argv[2:6] + ["%.3f" % s["wall_seconds"], "%.3f" % s["cpu_seconds"], work, sys.argv[6]])
PY
}

for p in 1 2 4 8 16; do
	[ "$p" -le "$max" ] || continue
	one dense-serial rbm-random:V=784,H=500,seed=1,scale=0.1 sardonics "$p" 50000 --beta 1 --engine dense
	one parallel rbm-random:V=784,H=500,seed=1,scale=0.1 sardonics "$p" 50000 --beta 1 --engine parallel --engine-threads "$p"
	one dense-serial rbm-random:V=4096,H=4096,seed=1,scale=0.02 sardonics "$p" 8000 --beta 1 --engine dense
	one parallel rbm-random:V=4096,H=4096,seed=1,scale=0.02 sardonics "$p" 8000 --beta 1 --engine parallel --engine-threads "$p"
	one replica spinglass3d:L=9,seed=1 metropolis "$p" 40000 --beta 2 --replicas 16 --beta-min 0.4
	one replica spinglass3d:L=9,seed=1 sardonics "$p" 40000 --beta 2 --replicas 16 --beta-min 0.4
	one replica frustrated2d:L=60,seed=1 metropolis "$p" 10000 --T 0.4 --replicas 16 --beta-min 0.4
done

python3 - "$csv" > "$OUT/scaling.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
base = {}
for r in rows:
    if r["cpus"] == "1":
        base[(r["kind"], r["model"], r["sampler"])] = float(r["wall_s"])
serial = {r["model"]: float(r["wall_s"]) for r in rows if r["kind"] == "dense-serial" and r["cpus"] == "1"}
print("| kind | model | sampler | CPUs | wall s | speedup vs 1 CPU | speedup vs serial dense |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    if r["kind"] == "dense-serial" and r["cpus"] != "1":
        continue
    w = float(r["wall_s"])
    b = base[(r["kind"], r["model"], r["sampler"])]
    vs = "%.2f" % (serial[r["model"]] / w) if r["kind"] == "parallel" else ""
    print("| %s | %s | %s | %s | %.2f | %.2f | %s |" % (r["kind"], r["model"], r["sampler"], r["cpus"], w, b / w, vs))
PY
cat "$OUT/scaling.md"
