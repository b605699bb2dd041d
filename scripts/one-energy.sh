#!/usr/bin/env bash
# Issue 41's Done-when for one energy per state: four real-valued models at
# beta 3, 3 x 10^6 steps a trial, each run checked by one_energy.py against
# exact enumeration and the independent ESS reference (Stan's definitions).
#   scripts/one-energy.sh [OUT]     (default results/one-energy; about 4 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/one-energy}
mkdir -p "$out"
# SARDONICS=BINARY checks another build (an older commit's, say).
sard=${SARDONICS:-$out/sardonics.bin}
[ -n "${SARDONICS:-}" ] || go build -o "$sard" .
py=/usr/bin/python3
# A 10-variable QUBO with two-decimal coefficients and a 16-spin dense
# float32 matrix (.npy), both drawn with fixed seeds.
$py - "$out" <<'PY'
import random, sys, numpy as np
out = sys.argv[1]
r = random.Random(5)
n = 10
diag = [(i, i, round(r.uniform(-1, 1), 2)) for i in range(n)]
off = [(i, j, round(r.uniform(-1, 1), 2)) for i in range(n) for j in range(i + 1, n) if r.random() < 0.6]
with open(f"{out}/q10.qubo", "w") as f:
    f.write(f"p qubo 0 {n} {len(diag)} {len(off)}\n")
    for t in diag + off:
        f.write("%d %d %.2f\n" % t)
g = np.random.default_rng(7)
m = 16
j = np.triu(g.normal(0, 0.25, (m, m)).astype(np.float32), 1)
np.save(f"{out}/d16.npy", j + j.T)
PY
run() { # NAME MODEL EXT FLAGS... (EXT: the format gen writes the model in for the check)
  local name=$1 model=$2 ext=$3; shift 3
  rm -rf "${out:?}/$name"
  "$sard" sample --model "$model" --beta 3 --sampler sardonics,metropolis --steps 3000000 --trials 4 --seed 1 --no-figures --quiet --out "$out/$name" "$@"
  "$sard" exact --model "$model" --beta 3 --json > "$out/$name.exact.json"
  "$sard" gen --model "$model" --out "$out/$name.model$ext" > /dev/null
  echo "## $name: sample --model $model --beta 3 --sampler sardonics,metropolis --steps 3000000 --trials 4 --seed 1 $*"
  $py scripts/one_energy.py "$out/$name" "$out/$name.exact.json" "$out/$name.model$ext" || echo "(check failed)"
  echo
}
{
  run qubo "$out/q10.qubo" .qubo
  run dense-npy "$out/d16.npy" .txt
  run chimera chimera:M=1,N=1,T=8,seed=1 .txt
  run qubo-replicas "$out/q10.qubo" .qubo --replicas 4
} | tee "$out/check.txt"
[ -n "${SARDONICS:-}" ] || rm -f "$sard"
