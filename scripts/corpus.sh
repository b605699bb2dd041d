#!/usr/bin/env bash
# Writes the golden corpus of chains (cli/testdata/corpus): runs every
# command of commands.txt with BINARY (default: a build of this tree) and
# --save-trace, and keeps each trial's every-step traces (energy.npy,
# magnetization.npy, overlap.npy) and walk.csv as
# cli/testdata/corpus/NAME/SAMPLER/trial-T/. TestGoldenCorpus compares a
# run of the current code with them. The committed corpus was written by
# the build of 0c1dd0b (before issue 41 put models on their grid), so it
# pins the chains the middle layer's restructuring must keep:
#   git worktree add /tmp/c0 0c1dd0b && (cd /tmp/c0 && go build -o /tmp/s0 .)
#   scripts/corpus.sh /tmp/s0
set -euo pipefail
cd "$(dirname "$0")/.."
dir=cli/testdata/corpus
bin=${1:-}
if [ -z "$bin" ]; then
  bin=$(mktemp -d)/sardonics
  go build -o "$bin" .
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$dir/commands.txt" | while read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  "$bin" sample $args --save-trace --no-figures --quiet --out "$tmp/$name" > /dev/null
  rm -rf "${dir:?}/$name"
  for td in "$tmp/$name"/*/trial-*; do
    rel=${td#"$tmp/$name/"}
    mkdir -p "$dir/$name/$rel"
    for f in energy.npy magnetization.npy overlap.npy walk.csv; do
      [ -f "$td/$f" ] && cp "$td/$f" "$dir/$name/$rel/$f"
    done
  done
  echo "$name: $(find "$dir/$name" -type f | wc -l) files"
done
