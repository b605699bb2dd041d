#!/usr/bin/env bash
# Whole-trial cost per proposed flip (cpu_seconds / flips of a `sample`
# run, as issue 13 defines it) of one or more sardonics binaries, run
# alternately so that a change in the machine's load hits all of them.
# Prints the median of REPS runs per binary and model.
# Usage: scripts/flip-cost.sh [-r REPS] BINARY...   (e.g. an old build and a new one)
set -euo pipefail
reps=5
if [ "${1:-}" = "-r" ]; then reps=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: scripts/flip-cost.sh [-r REPS] BINARY..." >&2; exit 2; }
cases=(
  "bucket|frustrated2d:L=60,seed=1|--T 1 --engine bucket --steps 100000"
  "tree|chimera:M=4,N=4,T=4,seed=1|--T 1 --engine tree --steps 100000"
  "dense|rbm-random:V=784,H=500,seed=1,scale=0.1|--beta 1 --engine dense --steps 2000"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in "${cases[@]}"; do
  IFS='|' read -r name spec flags <<<"$c"
  for ((r = 0; r < reps; r++)); do
    for b in "$@"; do
      out="$tmp/run"
      rm -rf "$out"
      # shellcheck disable=SC2086
      "$b" sample --model "$spec" $flags --sampler sardonics --burn 0 --trials 1 --threads 1 \
        --quiet --out "$out" >/dev/null
      python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["cpu_seconds"]/r["flips"]*1e9)' \
        "$out/summary.json" >>"$tmp/$name.$(basename "$b")"
    done
  done
done
printf '| engine | model |'
for b in "$@"; do printf ' %s (ns/flip) |' "$(basename "$b")"; done
printf '\n|---|---|'
for _ in "$@"; do printf -- '---:|'; done
printf '\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name spec flags <<<"$c"
  printf '| %s | %s |' "$name" "$spec"
  for b in "$@"; do
    printf ' %s |' "$(sort -g "$tmp/$name.$(basename "$b")" | python3 -c 'import sys; v=[float(x) for x in sys.stdin]; v.sort(); n=len(v); print("%.0f (%.0f-%.0f)" % (v[n//2], v[0], v[-1]))')"
  done
  printf '\n'
done
