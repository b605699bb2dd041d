#!/usr/bin/env bash
# Measures the C yardstick of issues 2-4 (a tight single-spin Metropolis
# loop, bench/cref/metropolis.c) and the Go Gibbs and Metropolis sweeps on
# the same lattices, and prints ns per spin update side by side with the
# ratio Go / C. All figures are CPU time (C: CLOCK_PROCESS_CPUTIME_ID, Go:
# RUSAGE_THREAD), so they tolerate a loaded machine better than wall time.
#
# Usage: scripts/cref.sh [GO_BUDGET] [C_BUDGET]
#   GO_BUDGET: --budget of `sardonics bench` per line (default 2s)
#   C_BUDGET:  CPU seconds per C repetition (default 1; 5 repetitions)
# Output: out/cref/{metropolis,c.txt,go-gibbs.json,go-metropolis.json}
#
# Callgrind (load-independent instruction counts):
#   valgrind --tool=callgrind out/cref/metropolis --fixed 200 --lattice 2d
set -euo pipefail
cd "$(dirname "$0")/.."

go_budget=${1:-2s}
c_budget=${2:-1}
out=out/cref
mkdir -p "$out"

die() { echo "cref.sh: $*" >&2; exit 1; }
command -v gcc >/dev/null || die "gcc not found"
command -v go >/dev/null || die "go not found"
command -v python3 >/dev/null || die "python3 not found (used to read bench.json)"

echo "== compiling bench/cref/metropolis.c (gcc -O3 -march=native)"
gcc -O3 -march=native -Wall -Wextra -o "$out/metropolis" bench/cref/metropolis.c -lm \
  || die "C compile failed"

echo "== running C yardstick (5 x ${c_budget}s CPU per lattice, after variant selection)"
"$out/metropolis" --budget "$c_budget" --reps 5 | tee "$out/c.txt" \
  || die "C yardstick failed"

echo "== building Go binary"
go build -o "$out/sardonics" . || die "go build failed"
for g in gibbs metropolis; do
  echo "== go: sardonics bench --only $g --budget $go_budget"
  "$out/sardonics" bench --only "$g" --budget "$go_budget" --out "$out" \
    || die "go bench --only $g failed"
  mv "$out/bench.json" "$out/go-$g.json"
done

echo
python3 - "$out" <<'EOF'
import json, re, sys
out = sys.argv[1]
c = {}
for line in open(f"{out}/c.txt"):
    m = re.match(r"C (\S+)\s+beta=\S+\s+(\S+)\s+([\d.]+) ns/update\s+acc=([\d.]+)", line)
    if m:
        c[m.group(1)] = (float(m.group(3)), m.group(2), float(m.group(4)))
go = {}
for g in ("gibbs", "metropolis"):
    for l in json.load(open(f"{out}/go-{g}.json"))["lines"]:
        key = l["model"].split(",")[0]  # spinglass3d:L=9,seed=1 -> spinglass3d:L=9
        go[(g, key)] = l["value"]
if len(c) != 2:
    sys.exit("cref.sh: could not parse the C results in " + out + "/c.txt")
print(f"{'lattice':<17} {'C ns/upd':>9} {'(variant)':<14} {'Go gibbs':>9} {'ratio':>6} {'Go metro':>9} {'ratio':>6}")
for lat, (cv, var, acc) in c.items():
    gi, me = go.get(("gibbs", lat)), go.get(("metropolis", lat))
    if gi is None or me is None:
        sys.exit(f"cref.sh: no Go line for {lat}")
    print(f"{lat:<17} {cv:9.3f} {var:<14} {gi:9.3f} {gi/cv:6.2f} {me:9.3f} {me/cv:6.2f}")
print("goal (issue 2): Gibbs/Metropolis <= 1.5x C; SARDONICS bucket <= 6x, tree <= 15x; SW <= 8x per spin")
EOF
