#!/usr/bin/env bash
# Issue 45's Done-when measurements: ln Z by AIS (sardonics logz --method
# ais) and by replica exchange with Bennett's acceptance ratio (--method
# re) against exact enumeration (sardonics exact) on
#   f2d      frustrated2d:L=5 (seed 1) at beta 1.5
#   sk       sk:N=24,seed=1 at beta 1.5
#   rbm16    rbm-random:V=784,H=16,seed=1,scale=0.2 at beta 1 (exact sums out the 784 visible units)
#   trained16  a 784 x 16 RBM trained on the bundled patches (train-rbm --hidden 16), at beta 1:
#            a first-order-like transition just below beta 1 (docs/logz.md), measured, not a Done-when
# each method with --budget $BUDGET (default 60s) of thread CPU; then
# coverage: each of f2d, sk, rbm16 and method with SEEDS seeds (default 20)
# of shorter runs of fixed --steps; the mean ln p(v) of 200 random binary
# rows of rbm16 (--data); and the bundled paper-rbm at beta 1 by both
# methods with --budget $PAPER_BUDGET (default 5m) each.
#
# Writes OUT (default results/logz): exact.jsonl, main.jsonl,
# cover.jsonl, data.json, paper.jsonl (the JSON outputs, one a line, with
# "tag" and "flags"), commands-PART.txt and logz-PART.log (each part's
# commands, as run, and their stderr), rows.npy, rbm-784x16*.npz,
# table.md and paper-rbm.txt (scripts/logz_check.py table).
# Usage: scripts/logz-check.sh [BINARY] [OUT] (BINARY is built from this
# checkout when absent).
# Environment: BUDGET, PAPER_BUDGET, SEEDS, THREADS (--threads, default 0:
# all CPUs), PARTS (default "main cover data paper"; "table" alone
# rebuilds table.md from the files). The full run takes about 30 minutes
# of thread CPU, 15 of wall time on 2 cores (main 5, cover 5, data 1,
# paper 5);
# a smoke test:
#   BUDGET=2s PAPER_BUDGET=5s SEEDS=2 scripts/logz-check.sh "" /tmp/logz-smoke
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-}
OUT=${2:-results/logz}
BUDGET=${BUDGET:-60s}
PAPER_BUDGET=${PAPER_BUDGET:-5m}
SEEDS=${SEEDS:-20}
T=${THREADS:-0}
PARTS=${PARTS:-main cover data paper}
PY="python3 scripts/logz_check.py"
mkdir -p "$OUT"
if [ -z "$B" ]; then
	B="$OUT/.sardonics"
	go build -o "$B" .
fi
# has PART: whether PART runs; it then starts its commands and log afresh.
has() {
	[[ " $PARTS " == *" $1 "* ]] || return 1
	PART=$1
	echo "# $(date -u +%FT%TZ): BUDGET=$BUDGET PAPER_BUDGET=$PAPER_BUDGET SEEDS=$SEEDS THREADS=$T" >"$OUT/commands-$PART.txt"
	: >"$OUT/logz-$PART.log"
}

RBM16="$OUT/rbm-784x16.npz"
TRAINED16="$OUT/rbm-784x16-trained.npz"
[ -f "$RBM16" ] || "$B" gen --model rbm-random:V=784,H=16,seed=1,scale=0.2 --out "$RBM16"
[ -f "$TRAINED16" ] || "$B" train-rbm --hidden 16 --seed 1 --npz "$TRAINED16" --png "$OUT/.trained16.png" >/dev/null
declare -A MODEL=([f2d]=frustrated2d:L=5,seed=1 [sk]=sk:N=24,seed=1 [rbm16]=$RBM16 [trained16]=$TRAINED16)
declare -A BETA=([f2d]=1.5 [sk]=1.5 [rbm16]=1 [trained16]=1)
# Coverage runs: fixed steps (a run of --steps repeats bit for bit).
declare -A COVER_AIS=([f2d]="--steps 5000 --runs 100" [sk]="--steps 5000 --runs 100" [rbm16]="--steps 2000 --runs 100")
declare -A COVER_RE=([f2d]="--steps 20000 --runs 16" [sk]="--steps 20000 --runs 16" [rbm16]="--steps 3000 --runs 16")

logz() { # tag, file, flags...: one logz run, its JSON appended to file
	local tag=$1 file=$2
	shift 2
	echo "sardonics logz --model ${MODEL[$tag]} --beta ${BETA[$tag]} $* --threads $T --json" >>"$OUT/commands-$PART.txt"
	"$B" logz --model "${MODEL[$tag]}" --beta "${BETA[$tag]}" "$@" --threads "$T" --json --quiet 2>>"$OUT/logz-$PART.log" |
		$PY tag "$tag" "$*" >>"$file"
}

if has main; then
	: >"$OUT/exact.jsonl"
	: >"$OUT/main.jsonl"
	for tag in f2d sk rbm16 trained16; do
		echo "$tag: exact" >&2
		echo "sardonics exact --model ${MODEL[$tag]} --beta ${BETA[$tag]} --json" >>"$OUT/commands-$PART.txt"
		"$B" exact --model "${MODEL[$tag]}" --beta "${BETA[$tag]}" --json 2>/dev/null | $PY tag "$tag" "" >>"$OUT/exact.jsonl"
		for method in ais re; do
			echo "$tag: $method --budget $BUDGET" >&2
			logz "$tag" "$OUT/main.jsonl" --method "$method" --budget "$BUDGET"
		done
	done
fi
if has cover; then
	: >"$OUT/cover.jsonl"
	for tag in f2d sk rbm16; do
		for method in ais re; do
			echo "$tag: $method, $SEEDS seeds" >&2
			flags=${COVER_AIS[$tag]}
			[ "$method" = re ] && flags=${COVER_RE[$tag]}
			for s in $(seq 1 "$SEEDS"); do
				# shellcheck disable=SC2086
				logz "$tag" "$OUT/cover.jsonl" --method "$method" $flags --seed "$s"
			done
		done
	done
fi
if has data; then
	echo "rbm16: mean ln p of 200 random rows" >&2
	$PY rows "$OUT/rows.npy" 200 784 1
	: >"$OUT/data.tmp"
	logz rbm16 "$OUT/data.tmp" --method ais --budget "$BUDGET" --data "$OUT/rows.npy" --out "$OUT/data"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["npz"]=sys.argv[2]; json.dump(d, open(sys.argv[3], "w"), indent=1)' \
		"$OUT/data.tmp" "$RBM16" "$OUT/data.json"
	rm "$OUT/data.tmp"
fi
if has paper; then
	: >"$OUT/paper.jsonl"
	MODEL[paper]=paper-rbm
	BETA[paper]=1
	for method in ais re; do
		echo "paper-rbm: $method --budget $PAPER_BUDGET" >&2
		logz paper "$OUT/paper.jsonl" --method "$method" --budget "$PAPER_BUDGET"
	done
fi
$PY table "$OUT"
cat "$OUT/table.md"
