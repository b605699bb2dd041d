#!/usr/bin/env bash
# Issue 24, item 4: replica exchange with hybrid rungs (each rung's cycle of
# Metropolis sweeps and SARDONICS moves chosen during the burn-in, swaps on
# the work clock) beside RE-Metropolis and RE-SARDONICS, 8 trials each,
# compared by pooled bulk ESS of the target rung's energy per CPU-second
# (thread CPU of every replica and worker, burn-in and tuning included).
# Writes OUT/table.md. Usage: scripts/replica-hybrid.sh [BINARY] [OUT]
# Environment: SCALE multiplies every step count (default 1); THREADS is
# --threads (default: all CPUs; 8 trials then share them).
set -euo pipefail
B=${1:-out/sardonics}
OUT=${2:-results/replica-hybrid}
S=${SCALE:-1}
T=${THREADS:-0}
mkdir -p "$OUT"
run() { # tag, steps, then sample's flags
	local tag=$1 steps=$2
	shift 2
	steps=$(python3 -c "print(int($steps * $S))")
	rm -rf "$OUT/$tag"
	"$B" sample "$@" --steps "$steps" --burn $((steps / 5)) --trials 8 --threads "$T" --seed 1 --quiet --no-figures --out "$OUT/$tag" > /dev/null 2> "$OUT/$tag.log" || { cat "$OUT/$tag.log" >&2; exit 1; }
}
f2d=(--model frustrated2d:L=60,seed=1 --T 0.4 --replicas 16 --beta-min 0.4)
run f2d-metropolis 20000 "${f2d[@]}" --sampler metropolis
run f2d-sardonics 250000 "${f2d[@]}" --sampler sardonics
run f2d-hybrid 20000 "${f2d[@]}" --sampler hybrid
glass=(--model spinglass3d:L=9,seed=1 --beta 2 --replicas 16 --beta-min 0.4)
run glass-metropolis 100000 "${glass[@]}" --sampler metropolis
run glass-sardonics 100000 "${glass[@]}" --sampler sardonics
run glass-hybrid 100000 "${glass[@]}" --sampler hybrid
find "$OUT" \( -name energy.csv -o -name walk.csv \) -delete
python3 - "$OUT" > "$OUT/table.md" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
print("| case | sampler | trials | steps | R-hat | bulk ESS | CPU s | ESS/CPU-s | vs best pure | round trips/trial | cycles chosen (hot -> cold) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for case in ["f2d", "glass"]:
    rows = {}
    for s in ["metropolis", "sardonics", "hybrid"]:
        p = os.path.join(out, f"{case}-{s}", "summary.json")
        r = json.load(open(p))["results"][0]
        cyc = ""
        st = json.load(open(glob.glob(os.path.join(out, f"{case}-{s}", s, "trial-*", "stats.json"))[0]))
        c = (st.get("replica") or {}).get("cycles")
        if c:
            cyc = " ".join("%d:%d" % tuple(x["cycle"]) for x in c["rungs"])
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
