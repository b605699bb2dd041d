// Package summary is what a run leaves behind and what is computed from
// it: a trial's record (TrialRecord) and its folder (energy.csv,
// magnetization.csv, stats.json, states.npy, overlap.csv, walk.csv), the
// statistics of each sampler over its trials (Summarize: pooled bulk ESS,
// split-R-hat, tau_int, standard errors, the observables m, |m|, specific
// heat and susceptibility, timings, replica exchange), the warnings they
// call for, the printed tables, summary.json and the figures. `sample` writes
// them as its trials finish and end; `report` reads trial folders written
// by separate processes and calls the same functions, so a merged summary
// is the one a single process would have written.
package summary
