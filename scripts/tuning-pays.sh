#!/usr/bin/env bash
# Does tuning pay? Untuned SARDONICS (the default theta) against SARDONICS
# tuned with the default reward (--tune, ess: estimated ESS per modeled
# CPU-second), tuning included in the tuned run's CPU time, on the issue-17
# cases: 4 trials x 10^5 steps (2*10^4 discarded, and used for tuning) on
# frustrated2d:L=60,seed=1 at T = 1 and chimera:M=4,N=4,T=4,seed=1 at T = 1,
# and 4 trials x 10^6 steps on frustrated2d:L=60,seed=1 at T = 0.5.
# Trials run one at a time (--threads 1) so that they do not compete for
# the cores. Writes OUTDIR/table.md, OUTDIR/tuning-pays.json and, per run,
# OUTDIR/CASE-SEED-{untuned,tuned}/ with summary.json, tuning.csv and each
# trial's stats.json (the energy traces and figures are deleted: KEEP=1
# keeps them).
#
# Usage: scripts/tuning-pays.sh [OUTDIR] [CASE...]
#   OUTDIR defaults to results/tuning-pays; CASE is f1, c1 or f05 (default
#   f1 c1; f05 takes a few minutes). The table covers every case found in
#   OUTDIR, so cases can be run one at a time. SEEDS="1 2 3" repeats each case with
#   other seeds (default 1). Extra sample flags go in TUNEFLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/tuning-pays}
shift || true
cases=${*:-f1 c1}
seeds=${SEEDS:-1}
mkdir -p "$out"
bin="$out/.sardonics"
go build -o "$bin" .
trap 'rm -f "$bin"' EXIT
for c in $cases; do
  case $c in
    f1) spec="frustrated2d:L=60,seed=1" temp="--T 1" steps=100000 ;;
    c1) spec="chimera:M=4,N=4,T=4,seed=1" temp="--T 1" steps=100000 ;;
    f05) spec="frustrated2d:L=60,seed=1" temp="--T 0.5" steps=1000000 ;;
    *) echo "unknown case $c (expected f1, c1 or f05)" >&2; exit 2 ;;
  esac
  for seed in $seeds; do
    for mode in untuned tuned; do
      d="$out/$c-$seed-$mode"
      rm -rf "$d"
      extra=""
      [ "$mode" = tuned ] && extra="--tune ${TUNEFLAGS:-}"
      # shellcheck disable=SC2086
      "$bin" sample --model "$spec" $temp --sampler sardonics --steps "$steps" --burn 20000 \
        --trials 4 --seed "$seed" --threads 1 --quiet $extra --out "$d" >/dev/null
      if [ -z "${KEEP:-}" ]; then
        rm -f "$d"/*.png "$d"/sardonics/trial-*/energy.csv
      fi
    done
  done
done
# The table covers every case in OUTDIR, run now or before.
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
cases = [c for c in ("f1", "c1", "f05") if glob.glob(os.path.join(out, c + "-*-untuned"))]
names = {"f1": "frustrated2d:L=60,seed=1 T=1, 4 x 10^5", "c1": "chimera:M=4,N=4,T=4,seed=1 T=1, 4 x 10^5",
         "f05": "frustrated2d:L=60,seed=1 T=0.5, 4 x 10^6"}
keys = ("ess", "cpu_seconds", "ess_per_cpu_second", "rhat", "flips_per_step", "acceptance_rate")


def trials(d):
    return [json.load(open(p)) for p in sorted(glob.glob(os.path.join(d, "sardonics", "trial-*", "stats.json")))]


rows, med, data = [], [], {}
for c in cases:
    ratios, fracs = [], []
    for ud in sorted(glob.glob(os.path.join(out, c + "-*-untuned"))):
        seed = ud.split("-")[-2]
        td = ud[: -len("untuned")] + "tuned"
        u = json.load(open(os.path.join(ud, "summary.json")))["results"][0]
        t = json.load(open(os.path.join(td, "summary.json")))["results"][0]
        ts = trials(td)
        tuner = [s["tune"]["tuner_cpu_seconds"] for s in ts]
        # The tuner's CPU against an untuned 10^5-step trial of the same
        # run (its CPU scaled to 10^5 steps): the cost tuning adds.
        base = statistics.median(s["cpu_seconds"] for s in trials(ud)) * 1e5 / u["steps"]
        frac = [x / base for x in tuner]
        ratio = t["ess_per_cpu_second"] / u["ess_per_cpu_second"]
        ratios.append(ratio)
        fracs += frac
        policies = [s["params"] for s in ts]
        # The untuned run samples with the default theta: its params are
        # that theta's text, which a policy that fell back to it repeats.
        default = sum(p == u["params"] for p in policies)
        data[f"{c}-{seed}"] = {"case": c, "seed": int(seed), "untuned": {k: u[k] for k in keys}, "tuned": {k: t[k] for k in keys},
                               "ratio": ratio, "tuner_cpu_seconds": tuner, "tuned_trial_cpu_seconds": [s["cpu_seconds"] for s in ts],
                               "untuned_1e5_step_trial_cpu_seconds": base, "tuner_fraction": frac,
                               "tuning_steps": [s["tune"]["steps"] for s in ts], "tuning_iterations": [len(s["tune"]["rewards"]) for s in ts],
                               "policies": policies}
        rows.append(f"| {names[c]} | {seed} | {u['ess_per_cpu_second']:.4g} | {t['ess_per_cpu_second']:.4g} | {ratio:.2f}x | "
                    f"{u['rhat']:.3f} / {t['rhat']:.3f} | {u['flips_per_step']:.1f} / {t['flips_per_step']:.1f} | {default} of {len(ts)} | "
                    f"{statistics.median(tuner)*1e3:.1f} ({max(tuner)*1e3:.1f}) | {100*statistics.median(frac):.1f}% ({100*max(frac):.1f}%) | "
                    f"{statistics.median(data[f'{c}-{seed}']['tuning_iterations']):g} ({statistics.median(data[f'{c}-{seed}']['tuning_steps']):g}) |")
    if ratios:
        med.append(f"| {names[c]} | {len(ratios)} | {statistics.median(ratios):.2f}x | {min(ratios):.2f}x .. {max(ratios):.2f}x | "
                   f"{100*statistics.median(fracs):.1f}% | {100*max(fracs):.1f}% |")
hdr = ("| case | seed | untuned ESS/CPU-s | tuned ESS/CPU-s (tuning included) | ratio | split-R-hat untuned / tuned | flips/step untuned / tuned "
       "| trials whose policy fell back to the default theta | tuner CPU ms per trial, median (max) | tuner CPU / untuned 10^5-step trial, median (max) "
       "| scored iterations (adaptation steps), median |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
mhdr = ("| case | seeds | median ratio | range | tuner CPU / untuned 10^5-step trial, median | max |\n|---|---:|---:|---:|---:|---:|")
text = ("Pooled bulk ESS of the energy per CPU-second (summary.json ess_per_cpu_second), untuned default theta against --tune "
        "(reward ess, tuning included in the CPU time), 4 trials per run, 2*10^4 steps discarded, trials one at a time (--threads 1). "
        "Generated by scripts/tuning-pays.sh.\n\n" + mhdr + "\n" + "\n".join(med) + "\n\n" + hdr + "\n" + "\n".join(rows) + "\n")
open(os.path.join(out, "table.md"), "w").write(text)
json.dump(data, open(os.path.join(out, "tuning-pays.json"), "w"), indent=1)
print(text)
PY
