#!/usr/bin/env bash
# Issue 24: replica exchange with hybrid rungs (each rung's cycle of
# Metropolis sweeps and SARDONICS moves chosen during the burn-in, swaps on
# the work clock) beside the untuned hybrid default cycle, RE-Metropolis
# and RE-SARDONICS, and single chains of the same kernels, TRIALS trials
# each (default 8), compared by pooled bulk ESS of the target rung's
# energy per CPU-second (thread CPU of every replica and worker, burn-in
# and tuning included), with round trips per trial.
#
# Cases:
#   f2d    frustrated2d:L=60,seed=1 at T = 0.4, F2D_R replicas (default 33,
#          what the energy variance says the range needs: 16 rungs from
#          beta 0.4 accept about 0.012 and make no round trips) from beta
#          0.4, --ladder variance;
#   glass  spinglass3d:L=9,seed=1 at beta 2, 16 replicas from beta 0.4,
#          geometric;
#   single frustrated2d:L=60,seed=1 at T = 0.5, one chain per trial.
# "hybrid" is tuned (no --mix); "hybrid-default" is --mix 1:M0, the
# untuned default cycle (M0 = ceil(N / 11): 328 on the 60 x 60 torus, 67
# on the 9^3 glass). Step counts aim at comparable CPU per sampler.
#
# Writes OUT/table.md. Usage: scripts/replica-hybrid.sh [BINARY] [OUT]
# Environment: SCALE multiplies every step count (default 1); THREADS is
# --threads (default: all CPUs; the trials then share them); TRIALS
# (default 8); F2D_R (default 33); TUNE, --tune-cycles (default 1). About 8 minutes wall with THREADS=16
# on a 16-core machine at SCALE=1; a smoke test:
#   SCALE=0.02 TRIALS=2 THREADS=2 F2D_R=6 TUNE=0.05 scripts/replica-hybrid.sh out/sardonics /tmp/rh
set -euo pipefail
B=${1:-out/sardonics}
OUT=${2:-results/replica-hybrid}
S=${SCALE:-1}
T=${THREADS:-0}
N=${TRIALS:-8}
R=${F2D_R:-33}
TU=${TUNE:-1}
mkdir -p "$OUT"
run() { # tag, steps, least burn-in, then sample's flags
	local tag=$1 steps=$2 least=$3
	shift 3
	steps=$(python3 -c "print(int($steps * $S))")
	local burn=$((steps / 5))
	if ((burn < least)); then burn=$least; fi
	if ((steps < burn + 200)); then steps=$((burn + 200)); fi
	rm -rf "$OUT/$tag"
	echo "$tag: $steps steps, burn-in $burn" >&2
	"$B" sample "$@" --steps "$steps" --burn "$burn" --trials "$N" --threads "$T" --seed 1 --quiet --no-figures --out "$OUT/$tag" > /dev/null 2> "$OUT/$tag.log" || { cat "$OUT/$tag.log" >&2; exit 1; }
}
# The variance ladder moves during the first half of the burn-in and
# needs 64 rounds there (the check assumes rounds of up to 10 steps).
f2d=(--model frustrated2d:L=60,seed=1 --T 0.4 --replicas "$R" --beta-min 0.4 --ladder variance)
run f2d-metropolis 20000 1280 "${f2d[@]}" --sampler metropolis
run f2d-sardonics 250000 1280 "${f2d[@]}" --sampler sardonics
run f2d-hybrid 20000 1280 "${f2d[@]}" --sampler hybrid --tune-cycles "$TU"
run f2d-hybrid-default 3000 1280 "${f2d[@]}" --sampler hybrid --mix 1:328
glass=(--model spinglass3d:L=9,seed=1 --beta 2 --replicas 16 --beta-min 0.4)
run glass-metropolis 100000 0 "${glass[@]}" --sampler metropolis
run glass-sardonics 100000 0 "${glass[@]}" --sampler sardonics
run glass-hybrid 100000 0 "${glass[@]}" --sampler hybrid --tune-cycles "$TU"
run glass-hybrid-default 15000 0 "${glass[@]}" --sampler hybrid --mix 1:67
single=(--model frustrated2d:L=60,seed=1 --T 0.5)
run single-metropolis 200000 0 "${single[@]}" --sampler metropolis
run single-sardonics 2000000 0 "${single[@]}" --sampler sardonics
run single-hybrid 200000 0 "${single[@]}" --sampler hybrid --tune-cycles "$TU"
run single-hybrid-default 15000 0 "${single[@]}" --sampler hybrid --mix 1:328
find "$OUT" \( -name energy.csv -o -name walk.csv -o -name magnetization.csv \) -delete
python3 - "$OUT" > "$OUT/table.md" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
print("| case | sampler | trials | steps | R-hat | bulk ESS | CPU s | ESS/CPU-s | vs best pure | round trips/trial | cycles chosen (hot -> cold) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for case in ["f2d", "glass", "single"]:
    rows = {}
    for s in ["metropolis", "sardonics", "hybrid", "hybrid-default"]:
        d = os.path.join(out, f"{case}-{s}")
        r = json.load(open(os.path.join(d, "summary.json")))["results"][0]
        name = "hybrid" if s.startswith("hybrid") else s
        cyc, tune = "", []
        for f in sorted(glob.glob(os.path.join(d, name, "trial-*", "stats.json"))):
            st = json.load(open(f))
            c = (st.get("replica") or {}).get("cycles") or st.get("cycles")
            if c:
                tune.append(c["cpu_seconds"])
                if not cyc:
                    cyc = " ".join("%d:%d" % tuple(x["cycle"]) for x in c["rungs"])
        if tune:
            cyc += " (tuning %.1f CPU-s/trial)" % (sum(tune) / len(tune))
        elif s == "hybrid-default":
            cyc = "untuned --mix"
        rows[s] = (r, cyc)
    best = max(rows[s][0]["ess_per_cpu_second"] or 0 for s in ["metropolis", "sardonics"])
    for s, (r, cyc) in rows.items():
        rep = r.get("replica") or {}
        rt = rep.get("round_trips_per_trial")
        e = r["ess_per_cpu_second"] or 0
        print("| %s | %s | %d | %d | %s | %.1f | %.1f | %.2f | %.2fx | %s | %s |" % (case, s, r["trials"], r["steps"], "%.3f" % r["rhat"] if r.get("rhat") else "n/a",
              r["ess"] or 0, r["cpu_seconds"], e, e / best if best else float("nan"), "%.1f" % rt if rt is not None else "n/a", cyc))
PY
cat "$OUT/table.md"
