#!/usr/bin/env bash
# The whole-command measurements of issue 31 (runs of any length): for each
# case, wall and CPU of the whole `sample` command, peak RSS (GNU time), the
# size of its output folder, the summary's own wall and CPU (the line sample
# prints after it), each --budget trial's CPU against its share, the ETA the
# first progress line gave against the time the run then took, and, for the
# 10^8-step ferromagnet, the mean energy against Kaufman's exact value.
# Prints one markdown row per run, with the load average beside it.
# Usage: scripts/pipeline-check.sh [-r REPS] [-c CASES] BINARY
#   CASES: a comma-separated subset of q20,f400,ferro,ferro2m,replica (default q20,f400,ferro2m)
set -euo pipefail
reps=1
cases=q20,f400,ferro2m
while [ $# -gt 0 ]; do
  case "$1" in
    -r) reps=$2; shift 2 ;;
    -c) cases=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: scripts/pipeline-check.sh [-r REPS] [-c CASES] BINARY" >&2; exit 2; }
bin=$(readlink -f "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A random dense 20-variable QUBO (qbsolv format), the same every time.
python3 - "$tmp/q20.qubo" <<'PY'
import random, sys
random.seed(20)
n = 20
with open(sys.argv[1], "w") as f:
    f.write(f"p qubo 0 {n} {n} {n*(n-1)//2}\n")
    for i in range(n):
        f.write(f"{i} {i} {random.uniform(-1, 1):.6f}\n")
    for i in range(n):
        for j in range(i + 1, n):
            f.write(f"{i} {j} {random.uniform(-1, 1):.6f}\n")
PY
declare -A args=(
  [q20]="--model $tmp/q20.qubo --beta 1 --sampler metropolis --budget 4s --trials 2"
  [f400]="--model frustrated2d:L=400,seed=1 --T 1 --sampler sardonics,metropolis --budget 60s --trials 2"
  [ferro]="--model ferro2d:L=16 --T 2.27 --sampler metropolis --steps 100000000 --burn 1000000 --trials 2"
  [ferro2m]="--model ferro2d:L=16 --T 2.27 --sampler metropolis --steps 2000000 --burn 1000000 --trials 2"
  [replica]="--model spinglass3d:L=8,seed=1 --beta 2 --replicas 16 --beta-min 0.4 --overlap --sampler metropolis --budget 20s --trials 4"
)
echo "| case | load | wall s | user+sys s | peak RSS MB | files MB | summary wall s | summary CPU s | trial CPU / share | first ETA / actual | E mean (z vs exact) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
IFS=, read -ra which <<< "$cases"
for rep in $(seq "$reps"); do
  for c in "${which[@]}"; do
    out="$tmp/$c-$rep"
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$bin" sample ${args[$c]} --out "$out" 2> >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > "$tmp/err") > /dev/null
    sleep 0.2
    read -r wall user sys rss < "$tmp/time"
    python3 - "$out/summary.json" "$tmp/err" "$start" "$wall" "$c" "$load" "$user" "$sys" "$rss" "$(du -sm "$out" | cut -f1)" <<'PY'
import json, re, sys
summ, err, start, wall, case, load, user, sys_, rss, files = sys.argv[1:]
start, wall = float(start), float(wall)
s = json.load(open(summ))
lines = [l.split(" ", 1) for l in open(err) if " " in l]
sw = sc = "-"
eta = "-"
for t, l in lines:
    m = re.search(r"summary and files: ([\d.e+-]+) s wall, ([\d.e+-]+) s CPU", l)
    if m:
        sw, sc = m.group(1), m.group(2)
    m = re.search(r"ETA (?:(\d+)m)?([\d.]+)(ms|s)", l)
    if m and eta == "-":
        e = float(m.group(2)) * (1e-3 if m.group(3) == "ms" else 1) + 60 * float(m.group(1) or 0)
        left = start + wall - float(t)
        eta = f"{e:.0f} / {left:.0f} s ({100*(e-left)/left:+.0f}%)"
share = []
for r in s["results"]:
    b = r.get("budget")
    if b:
        share += [f"{c/b['cpu_seconds_per_trial']:.4f}" for c in b["trial_cpu_seconds"]]
share = ", ".join(share) or "-"
emean = "-"
if case.startswith("ferro"):
    exact = -371.6718536443  # Kaufman, L = 16, T = 2.27 (internal/kaufman)
    r = s["results"][0]
    emean = f"{r['energy_mean']:.4f} +- {r['energy_stderr']:.3g} (z {(r['energy_mean']-exact)/r['energy_stderr']:+.2f})"
print(f"| {case} | {load} | {wall:.2f} | {float(user)+float(sys_):.1f} | {int(rss)/1024:.0f} | {files} | {sw} | {sc} | {share} | {eta} | {emean} |")
PY
  done
done
