// Package runner runs the trials of a `sample` command: it builds each
// sampler's chain, runs trials in parallel (each trial with the random stream
// of (seed, trial) only), records every step's energy, and writes the trial
// folders, summary.json and the figures atomically. Summaries are computed
// from the per-trial records alone, so `report` can merge trial folders
// written by separate processes into exactly what one process would write.
package runner
