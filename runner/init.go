package runner

import "slices"

// startState is trial t's starting state: a copy of the row of cfg.Init
// given for it (one row: every trial's; else row t - cfg.TrialOffset), or
// InitialState's random state when cfg.Init is nil.
func startState(cfg *Config, t int) []int8 {
	switch len(cfg.Init) {
	case 0:
		return InitialState(cfg.Seed, t, cfg.Model.Variables())
	case 1:
		return slices.Clone(cfg.Init[0])
	}
	return slices.Clone(cfg.Init[t-cfg.TrialOffset])
}
