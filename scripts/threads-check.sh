#!/usr/bin/env bash
# Do threads ever make a run slower? (issue 32). Every "done when" of the
# issue, on the machine at hand, each figure the median of 3 runs, with the
# load average before each case beside it (time on a quiet machine: a run
# beside other work on 2 cores is inflated 1.5-2x):
#
#  1. quiet: replica exchange, 16 Metropolis replicas on spinglass3d:L=9 at
#     beta 2, 50000 steps, one trial: default threads against --threads 1
#     (the default must take at most the wall time of --threads 1);
#  2. the crossover: the same on spinglass3d:L=3 and L=5 (rounds of 16
#     sweeps of 27 and 125 spins, where a hand-off weighs) and on
#     spinglass3d:L=16 and frustrated2d:L=200, whose members are big enough
#     to pay (the default should be at least 1.5x faster);
#  3. --busy: the L=9 run with 5000 steps beside a shell loop that keeps one
#     core busy (started here, killed after): default at most 1.1x the wall
#     time of --threads 1, and cpu_seconds within 1.2x;
#  4. --trials 4 of independent single Metropolis chains: two at a time by
#     default against one (near 2x from two threads);
#  5. traces: the energy.csv of every run of a case is byte-identical
#     whatever the threads and the pool's policy (SARDONICS_HANDOFF=all, every
#     thread every round as before issue 32; one, the caller alone).
#
#   scripts/threads-check.sh [--busy] [--quick] [BINARY]   # default: a fresh build in a temporary folder
#
# Without --busy cases 1, 2, 4 and 5 run; with it case 3 only. --quick
# divides the steps by 10 (to check the script, not the machine). Wall
# seconds are /usr/bin/time's (the whole process: model, trials, summary),
# trials' wall summary.json's wall_seconds (the sampler's trials alone),
# CPU seconds its cpu_seconds (every thread of the trials, waiting
# included).
set -euo pipefail
busy=0 quick=1
B=
for a in "$@"; do
	case $a in
	--busy) busy=1 ;;
	--quick) quick=10 ;;
	*) B=$a ;;
	esac
done
tmp=$(mktemp -d)
loop=
cleanup() {
	[ -z "$loop" ] || kill "$loop" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$B" ]; then
	B=$tmp/sardonics
	(cd "$(dirname "$0")/.." && go build -o "$B" .)
fi
rows=$tmp/rows.tsv
: > "$rows"

load() { cut -d' ' -f1-3 /proc/loadavg; }

# run CASE LABEL ENV ARGS...: 3 runs, each in a fresh folder; records the
# walls, the cpu_seconds and the load average before the first.
run() {
	local case=$1 label=$2 env=$3
	shift 3
	local la walls="" cpus="" runs=""
	la=$(load)
	for i in 1 2 3; do
		local d=$tmp/$case-$label-$i
		env $env /usr/bin/time -f %e -o "$tmp/time" "$B" sample --quiet --no-figures --seed 1 --out "$d" "$@" > /dev/null 2> "$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		walls="$walls $(cat "$tmp/time")"
		cpus="$cpus $(python3 -c 'import json,sys; print("%.3f" % sum(r["cpu_seconds"] for r in json.load(open(sys.argv[1]))["results"]))' "$d/summary.json")"
		runs="$runs $(python3 -c 'import json,sys; print("%.3f" % sum(r["wall_seconds"] for r in json.load(open(sys.argv[1]))["results"]))' "$d/summary.json")"
	done
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$label" "$walls" "$cpus" "$runs" "$la" >> "$rows"
}

# same CASE: every run of the case wrote the same energy.csv files.
same() {
	local ref=
	for d in "$tmp/$1"-*; do
		local sum
		sum=$(cd "$d" && find . -name energy.csv | sort | xargs cat | md5sum)
		if [ -z "$ref" ]; then
			ref=$sum
		elif [ "$sum" != "$ref" ]; then
			echo "traces differ: $d" >&2
			exit 1
		fi
	done
	echo "$1: energy.csv identical across $(ls -d "$tmp/$1"-* | wc -l) runs (threads and policies)"
}

rx=(--beta 2 --replicas 16 --sampler metropolis --trials 1)
if [ $busy = 0 ]; then
	s=$((50000 / quick))
	run quiet-L9 threads=1 "" --model spinglass3d:L=9,seed=1 "${rx[@]}" --steps $s --threads 1
	run quiet-L9 default "" --model spinglass3d:L=9,seed=1 "${rx[@]}" --steps $s
	run quiet-L9 default,handoff=all SARDONICS_HANDOFF=all --model spinglass3d:L=9,seed=1 "${rx[@]}" --steps $s
	run quiet-L9 default,handoff=one SARDONICS_HANDOFF=one --model spinglass3d:L=9,seed=1 "${rx[@]}" --steps $s
	same quiet-L9
	# cross CASE STEPS MODEL: one thread against the default, same traces.
	cross() {
		local c=$1 steps=$(($2 / quick)) m=$3
		run "$c" threads=1 "" --model "$m" "${rx[@]}" --steps "$steps" --threads 1
		run "$c" default "" --model "$m" "${rx[@]}" --steps "$steps"
		same "$c"
	}
	cross cross-L3 150000 spinglass3d:L=3,seed=1
	cross cross-L5 30000 spinglass3d:L=5,seed=1
	cross cross-L16 5000 spinglass3d:L=16,seed=1
	cross cross-F200 500 frustrated2d:L=200,seed=1
	s=$((100000 / quick))
	run trials4 threads=1 "" --model spinglass3d:L=9,seed=1 --beta 2 --sampler metropolis --trials 4 --steps $s --threads 1
	run trials4 default "" --model spinglass3d:L=9,seed=1 --beta 2 --sampler metropolis --trials 4 --steps $s
	same trials4
else
	sh -c 'while :; do :; done' &
	loop=$!
	sleep 1
	s=$((5000 / quick))
	run busy-L9 threads=1 "" --model spinglass3d:L=9,seed=1 "${rx[@]}" --steps $s --threads 1
	run busy-L9 default "" --model spinglass3d:L=9,seed=1 "${rx[@]}" --steps $s
	kill "$loop"
	loop=
	same busy-L9
fi

python3 - "$rows" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
med = lambda s: statistics.median(float(x) for x in s.split())
base = {r[0]: r for r in rows if r[1] == "threads=1"}
print("| case | threads | wall s (median of 3) | x --threads 1 | trials' wall s | x --threads 1 | cpu_seconds | x --threads 1 | walls | load average before |")
print("|---|---|---|---|---|---|---|---|---|---|")
for c, label, walls, cpus, runs, la in rows:
    b = base.get(c)
    rw = med(walls) / med(b[2]) if b else float("nan")
    rr = med(runs) / med(b[4]) if b else float("nan")
    rc = med(cpus) / med(b[3]) if b else float("nan")
    print("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s |" % (c, label, med(walls), rw, med(runs), rr, med(cpus), rc, walls.strip(), la))
PY
echo "load average now: $(load)"
