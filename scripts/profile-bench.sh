#!/usr/bin/env bash
# Profiles the benchmark suite (or one group of it) and prints the top of
# the CPU profile. Usage: scripts/profile-bench.sh [GROUP] [BUDGET]
#   GROUP: gibbs, metropolis, sw, saw, rbm (default saw); BUDGET e.g. 2s.
# Then explore interactively: go tool pprof -http=:8080 out/profile/cpu.pprof
set -euo pipefail
cd "$(dirname "$0")/.."
group=${1:-saw}
budget=${2:-2s}
mkdir -p out/profile
go build -o out/profile/sardonics .
out/profile/sardonics bench --only "$group" --budget "$budget" --out out/profile \
  --cpuprofile out/profile/cpu.pprof
go tool pprof -top -nodecount=25 out/profile/sardonics out/profile/cpu.pprof
