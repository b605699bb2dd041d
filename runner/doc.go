// Package runner runs the trials of a `sample` command: it builds each
// trial's chain through the sampler registry (alone, or inside replica
// exchange), runs trials in parallel (each trial with the random stream of
// (seed, trial, sampler) only), records every step's energy, runs the
// adaptation of tunable samplers, checkpoints and resumes trials, reuses
// finished ones, and reports progress and stalls. What a trial leaves
// behind and everything computed from it (statistics, tables, summary.json,
// figures) is package summary's, which `report` calls too; each sampler's
// registration lives beside its sampler, so no file here names one.
package runner
