#!/usr/bin/env bash
# Whole-trial cost per proposed flip (cpu_seconds / flips of a `sample`
# run, as issue 13 defines it; a Metropolis sweep's flips are its spin
# updates) and peak RSS of one or more sardonics binaries, from a cold
# start, run alternately so that a change in the machine's load hits all
# of them. Prints the median (range) of REPS runs per binary and model, the
# median peak RSS with bytes per spin, and each large model's ratio to its
# engine's small one (issue 22: L = 1000 and 3D L = 64 against L = 60).
# A latency-bound walk costs 1.5-2x more beside other work on a 2-core
# machine, so the script refuses to start when the 1-minute load average
# is above 0.5 (-f forces it), and prints beside every figure the load
# average and the other runnable tasks seen at the starts of its runs (its
# own one-thread runs hold the 1-minute average near 1, so about 1 with no
# other runnable task is quiet).
# Usage: scripts/flip-cost.sh [-r REPS] [-s] [-f] BINARY...   (e.g. an old build and a new one)
#   -s: the small models only (L = 60 and C(4,4,4): the old table)
#   -f: time even on a busy machine (the load columns say how busy)
set -euo pipefail
reps=5
small=0
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    -r) reps=$2; shift 2 ;;
    -s) small=1; shift ;;
    -f) force=1; shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: scripts/flip-cost.sh [-r REPS] [-s] [-f] BINARY..." >&2; exit 2; }
load1() { cut -d' ' -f1 /proc/loadavg; }
# others: the runnable tasks besides the one reading /proc/loadavg.
others() { awk '{split($4, a, "/"); print a[1] - 1}' /proc/loadavg; }
if [ "$force" = 0 ] && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.5 else 1)' "$(load1)"; then
  echo "flip-cost.sh: the 1-minute load average is $(load1) (above 0.5): timings beside other work are inflated 1.5-2x; wait for a quiet machine, or give -f" >&2
  exit 2
fi
# name|model|flags|the small case it is compared with ("" for a small case)
cases=(
  "bucket|frustrated2d:L=60,seed=1|--T 1 --sampler sardonics --engine bucket --steps 100000|"
  "tree|chimera:M=4,N=4,T=4,seed=1|--T 1 --sampler sardonics --engine tree --steps 100000|"
  "dense|rbm-random:V=784,H=500,seed=1,scale=0.1|--beta 1 --sampler sardonics --engine dense --steps 2000|"
  "metropolis|frustrated2d:L=60,seed=1|--T 1 --sampler metropolis --steps 10000|"
)
if [ "$small" = 0 ]; then
  cases+=(
    "bucket|frustrated2d:L=1000,seed=1|--T 1 --sampler sardonics --engine bucket --steps 100000|bucket frustrated2d:L=60,seed=1"
    "bucket|spinglass3d:L=64,seed=1|--T 1 --sampler sardonics --engine bucket --steps 100000|bucket frustrated2d:L=60,seed=1"
    "tree|chimera:M=180,N=180,T=4,seed=1|--T 1 --sampler sardonics --engine tree --steps 100000|tree chimera:M=4,N=4,T=4,seed=1"
    "metropolis|frustrated2d:L=1000,seed=1|--T 1 --sampler metropolis --steps 36|metropolis frustrated2d:L=60,seed=1"
  )
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
key() { echo "$1 $2" | tr -c 'A-Za-z0-9\n' '_'; }
for c in "${cases[@]}"; do
  IFS='|' read -r name spec flags _ <<<"$c"
  k=$(key "$name" "$spec")
  for ((r = 0; r < reps; r++)); do
    for b in "$@"; do
      out="$tmp/run"
      rm -rf "$out"
      echo "$(load1) $(others)" >>"$tmp/$k.$(basename "$b").load"
      # shellcheck disable=SC2086
      /usr/bin/time -f %M -o "$tmp/rss" "$b" sample --model "$spec" $flags --burn 0 --trials 1 --threads 1 \
        --quiet --no-figures --out "$out" >/dev/null 2>>"$tmp/stderr" || { cat "$tmp/stderr" >&2; exit 1; }
      python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["cpu_seconds"]/r["flips"]*1e9)' \
        "$out/summary.json" >>"$tmp/$k.$(basename "$b")"
      tail -1 "$tmp/rss" >>"$tmp/$k.$(basename "$b").rss"
    done
  done
done
median() { sort -g | python3 -c 'import sys; v=[float(x) for x in sys.stdin]; print(v[len(v)//2])'; }
printf '| engine | model |'
for b in "$@"; do printf ' %s: ns/flip | peak RSS | vs small | load 1 min, others running |' "$(basename "$b")"; done
printf '\n|---|---|'
for _ in "$@"; do printf -- '---:|---:|---:|---:|'; done
printf '\n'
for c in "${cases[@]}"; do
  IFS='|' read -r name spec flags base <<<"$c"
  k=$(key "$name" "$spec")
  n=$(python3 -c 'import re,sys
s=sys.argv[1]; kv=dict(x.split("=") for x in s.split(":",1)[1].split(",") if "=" in x)
if s.startswith("chimera"): print(2*int(kv["M"])*int(kv["N"])*int(kv["T"]))
elif s.startswith("rbm"): print(int(kv["V"])+int(kv["H"]))
elif s.startswith("spinglass3d"): print(int(kv["L"])**3)
else: print(int(kv["L"])**2)' "$spec")
  printf '| %s | %s |' "$name" "$spec"
  for b in "$@"; do
    f="$tmp/$k.$(basename "$b")"
    ns=$(median <"$f")
    rng=$(sort -g "$f" | python3 -c 'import sys; v=[float(x) for x in sys.stdin]; f=lambda x: "%.3g" % x if x < 100 else "%.0f" % x; print("%s (%s-%s)" % (f(v[len(v)//2]), f(v[0]), f(v[-1])))')
    rss=$(median <"$f.rss")
    ratio=""
    if [ -n "$base" ]; then
      bk=$(key $base)
      ratio=$(python3 -c 'import sys; print("%.2fx" % (float(sys.argv[1])/float(sys.argv[2])))' "$ns" "$(median <"$tmp/$bk.$(basename "$b")")")
    fi
    ld=$(python3 -c 'import sys
v=[l.split() for l in open(sys.argv[1])]
a=[float(x[0]) for x in v]; o=[int(x[1]) for x in v]
print("%.2f-%.2f, %d-%d" % (min(a), max(a), min(o), max(o)))' "$f.load")
    printf ' %s | %s |  %s | %s |' "$rng" "$(python3 -c 'import sys; kb=float(sys.argv[1]); n=int(sys.argv[2]); print("%.0f MB (%.0f B/spin)" % (kb*1024/1e6, kb*1024/n))' "$rss" "$n")" "$ratio" "$ld"
  done
  printf '\n'
done
