#!/usr/bin/env bash
# Instructions per proposed flip of the bucket engine's chain (frustrated2d
# L = 60, default theta, beta 1 or 2), by function, counted by callgrind:
# independent of the machine's load, unlike any timing. It runs the probe
# test sparse.TestProbeSteps at two step counts and divides the difference
# by the difference in flips, so setup and warm-up cancel.
# Usage: scripts/flip-breakdown.sh [BETA]   (BETA 1 or 2; needs valgrind)
# Output: a table on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
beta=${1:-1}
command -v valgrind >/dev/null || { echo "flip-breakdown.sh: valgrind not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/sparse.test" ./sparse
probe() { # steps -> writes $tmp/cg.$1 and prints the flips
  SARD_PROBE_STEPS=$1 SARD_PROBE_BETA=$beta GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
    --callgrind-out-file="$tmp/cg.$1" "$tmp/sparse.test" -test.run ProbeSteps -test.v 2>/dev/null |
    sed -n 's/.*flips \([0-9]*\).*/\1/p'
}
f1=$(probe 5000)
f2=$(probe 25000)
callgrind_annotate --auto=no "$tmp/cg.5000" >"$tmp/a.txt"
callgrind_annotate --auto=no "$tmp/cg.25000" >"$tmp/b.txt"
python3 - "$tmp/a.txt" "$tmp/b.txt" "$f1" "$f2" "$beta" <<'PY'
import re, sys
def parse(p):
    d, total = {}, 0
    for line in open(p):
        m = re.match(r'\s*([\d,]+)\s+\(.*?\)\s+(\S+)', line)
        if m and ':' not in m.group(2) and m.group(2) != 'PROGRAM':
            continue
        if not m:
            continue
        v, name = int(m.group(1).replace(',', '')), m.group(2)
        if name == 'PROGRAM':
            total = v
            continue
        fn = name.split(':')[-1]
        d[fn] = d.get(fn, 0) + v
    return d, total
(a, ta), (b, tb) = parse(sys.argv[1]), parse(sys.argv[2])
flips = int(sys.argv[4]) - int(sys.argv[3])
print(f"bucket engine, frustrated2d L=60, default theta, beta {sys.argv[5]}: "
      f"{(tb - ta) / flips:.0f} instructions per proposed flip ({flips} flips)")
print()
print("| instructions per flip | function |")
print("|---:|---|")
rows = sorted(((v - a.get(k, 0)) / flips, k) for k, v in b.items())
for v, k in reversed(rows):
    if v >= 4:
        print(f"| {v:.0f} | `{k}` |")
PY
