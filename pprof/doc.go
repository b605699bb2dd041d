// Package pprof holds the profiling flags every subcommand shares
// (--cpuprofile, --memprofile, --trace), built on runtime/pprof and
// runtime/trace; the three may be given together. Callers import it instead
// of runtime/pprof. scripts/profile-bench.sh profiles the benchmark suite
// with it.
package pprof
