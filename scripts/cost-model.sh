#!/usr/bin/env bash
# Measures a SARDONICS engine's cost model (tune.CostModel: seconds per step,
# per proposed flip and per flip of a rejected move) the way tune.go's
# models were fitted: fixed-length walks kl = ku = k for k = 1, 2, 4, ..., 64
# at two bias settings (gl/gh = 0.95/1.05 and 0.89/1.15), the median of 3
# runs each of
#   sardonics sample --model MODEL --T T --sampler sardonics --engine E \
#     --params kl=k,ku=k,gl=..,gh=.. --steps S --burn 100 --trials 1 --threads 1
# then a least-squares fit in relative error of Step + Flip flips + Undo
# rejected flips to the CPU seconds per step.
#   scripts/cost-model.sh ENGINE OUT MODEL@T[@STEPS] ...   (time it on a quiet machine)
set -euo pipefail
cd "$(dirname "$0")/.."
engine=$1 out=$2
shift 2
mkdir -p "$out"
bin=$(mktemp -d)/sardonics
go build -o "$bin" .
csv="$out/runs.csv"
echo "model,variables,T,k,gl,gh,rep,steps,cpu_seconds,flips_per_step,acceptance" > "$csv"
for mt in "$@"; do
  IFS=@ read -r m t s <<<"$mt"
  s=${s:-20000}
  for k in 1 2 4 8 16 32 64; do
    for g in 0.95/1.05 0.89/1.15; do
      gl=${g%/*} gh=${g#*/}
      for rep in 1 2 3; do
        d=$(mktemp -d)
        "$bin" sample --model "$m" --T "$t" --sampler sardonics --engine "$engine" --params "kl=$k,ku=$k,gl=$gl,gh=$gh" \
          --steps "$s" --burn 100 --trials 1 --threads 1 --seed "$rep" --no-figures --quiet --out "$d" > /dev/null 2>&1
        /usr/bin/python3 - "$d" "$m" "$t" "$k" "$gl" "$gh" "$rep" >> "$csv" <<'PY'
import json, sys
d, m, t, k, gl, gh, rep = sys.argv[1:]
s = json.load(open(d + "/summary.json"))
r = s["results"][0]
print(f'"{m}",{s["model"]["variables"]},{t},{k},{gl},{gh},{rep},{r["total_steps"]},{r["cpu_seconds"]},{r["flips_per_step"]},{r["acceptance_rate"]}')
PY
        rm -rf "$d"
      done
    done
  done
done
/usr/bin/python3 - "$csv" "$engine" <<'PY' | tee "$out/fit.txt"
import csv, statistics, sys
import numpy as np
rows = list(csv.DictReader(open(sys.argv[1])))
groups = {}
for r in rows:
    groups.setdefault((r["model"], r["T"], r["k"], r["gl"]), []).append(r)


def fit(keys, per_n):
    """Least squares in relative error; per_n: the seconds over the model's variables."""
    X, y = [], []
    for key in keys:
        rs = groups[key]
        n = int(rs[0]["variables"]) if per_n else 1
        y.append(statistics.median(float(r["cpu_seconds"]) / int(r["steps"]) for r in rs) / n)
        fl = statistics.median(float(r["flips_per_step"]) for r in rs)
        acc = statistics.median(float(r["acceptance"]) for r in rs)
        X.append([1, fl, fl * (1 - acc)])
    X, y = np.array(X), np.array(y)
    w = 1 / y
    c, *_ = np.linalg.lstsq(X * w[:, None], y * w, rcond=None)
    c = np.maximum(c, 0)
    return c, np.sqrt(np.mean(((X @ c - y) / y) ** 2)), len(y)


print(f"engine {sys.argv[2]}: Cost = Step + Flip flips + Undo rejected flips, seconds a step")
for m in dict.fromkeys(k[0] for k in groups):
    c, rms, n = fit([k for k in groups if k[0] == m], False)
    print(f"  {m}: Step {c[0]:.3g}, Flip {c[1]:.3g}, Undo {c[2]:.3g}; rms relative error {100*rms:.1f}% over {n} settings")
c, rms, n = fit(list(groups), True)
print(f"  all models, per variable (an engine whose flips cost O(N)): Step {c[0]:.3g} N, Flip {c[1]:.3g} N, Undo {c[2]:.3g} N; rms {100*rms:.1f}% over {n} settings")
PY
