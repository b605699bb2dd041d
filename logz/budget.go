package logz

import (
	"errors"
	"fmt"
	"math"
)

// gaugeSeconds is how long a cost gauge runs (thread CPU), after a
// warm-up: long enough that clock reads and first touches of memory are
// noise, short against any budget.
const gaugeSeconds = 0.15

// Plan is the steps (Config.Steps) that spend about budget seconds of
// thread CPU on an estimate by method ("ais" or "re") with cfg's runs,
// pilot included, returned in a copy of cfg (for "re" with the ladder it
// chose, Config.Ladder, which RE then uses). It runs the pilot (the same
// that the estimate runs: its size is fixed), then measures the cost of
// a step on throwaway runs over the pilot's schedule (an AIS run of 512
// steps; a replica-exchange ladder's swap rounds), whose results are not
// used, so that the estimate made with the steps returned is the one
// that --steps repeats exactly.
func Plan(cfg Config, method string, budget float64) (Config, error) {
	if !(budget > 0) {
		return cfg, errors.New("logz: the budget must be positive")
	}
	cfg.Steps = max(cfg.Steps, 1)
	if err := checkCounts(cfg, 2); err != nil {
		return cfg, err
	}
	var perRun, left float64 // a run's step (AIS: a kernel step; RE: a swap round), the budget after the pilot
	switch method {
	case "ais":
		p, _, err := newPath(cfg)
		if err != nil {
			return cfg, err
		}
		grid, cum, cpu, err := pilot(cfg, p)
		if err != nil {
			return cfg, err
		}
		left = budget - cpu
		lam := equalLength(grid, cum, 512)
		if perRun, err = atOnce(cfg, func(j int) (float64, error) { return gauge(cfg, p, lam, j) }); err != nil {
			return cfg, err
		}
	case "re":
		cp, err := reChainPath(cfg)
		if err != nil {
			return cfg, err
		}
		left = budget
		if cfg.Ladder == nil {
			ladder, cpu, err := reLadder(cfg, cp)
			if err != nil {
				return cfg, err
			}
			cfg.Ladder, cfg.ladderCPU, left = ladder, cpu, budget-cpu
		}
		if perRun, err = atOnce(cfg, func(j int) (float64, error) { return gaugeRE(cfg, cp, j) }); err != nil {
			return cfg, err
		}
	default:
		return cfg, fmt.Errorf("logz: unknown method %q (expected ais or re)", method)
	}
	cfg.Steps = int(math.Min(1<<40, math.Max(0, left/(float64(cfg.Runs)*perRun))))
	if cfg.Steps < 10 {
		return cfg, &BudgetError{Msg: fmt.Sprintf("a budget of %.3g s of thread CPU buys fewer than 10 steps a run for %d runs (a step of a run costs about %.3g ms, and the pilot %.3g s); give a larger --budget or fewer --runs",
			budget, cfg.Runs, 1e3*perRun, budget-left)}
	}
	return cfg, nil
}

// atOnce runs a gauge on as many threads at once as the runs will use
// (threads that share a core, or its caches, slow each other: 20% on a
// 784 x 16 RBM on 2 virtual CPUs) and returns the mean of their costs.
func atOnce(cfg Config, g func(j int) (float64, error)) (float64, error) {
	w := max(1, min(cfg.Threads, cfg.Runs))
	c := make([]float64, w)
	if _, err := parallel(ctx(cfg), w, w, func(j int) (err error) {
		c[j], err = g(j)
		return err
	}); err != nil {
		return 0, err
	}
	s := 0.0
	for _, x := range c {
		s += x
	}
	return s / float64(w), nil
}

// BudgetError is a budget too small for the estimate asked for.
type BudgetError struct{ Msg string }

func (e *BudgetError) Error() string { return e.Msg }

// gauge is the thread CPU of one step of p's kernel, from throwaway runs
// over lam (stream keys j, small numbers used by nothing else), after one run of
// warm-up: runs of one step and of len(lam)-1, alternately, so that
// building a run's chain (paid once a run) is not counted as steps.
func gauge(cfg Config, p path, lam []float64, j int) (float64, error) {
	short, n := uniformGrid(1), len(lam)-1
	if _, err := p.run(ctx(cfg), 0, uint64(j), lam, nil); err != nil {
		return 0, err
	}
	var t1, tn float64
	pairs := 0
	for i := 1; t1+tn < gaugeSeconds; i += 2 {
		s := threadCPU()
		if _, err := p.run(ctx(cfg), i, uint64(j), short, nil); err != nil {
			return 0, err
		}
		m := threadCPU()
		if _, err := p.run(ctx(cfg), i+1, uint64(j), lam, nil); err != nil {
			return 0, err
		}
		t1, tn = t1+m-s, tn+threadCPU()-m
		pairs++
	}
	return math.Max(tn-t1, tn/10) / float64(pairs*n), nil
}

// gaugeRE is the thread CPU of one swap round of a ladder cfg.Ladder
// (stream key 0), after a warm-up of a tenth as long, not counting its
// construction.
func gaugeRE(cfg Config, cp *chainPath, j int) (float64, error) {
	ch, err := newLadder(cfg, cp, rngFor(cfg.Seed, j, 0), 0)
	if err != nil {
		return 0, err
	}
	defer ch.Close()
	start, warm := threadCPU(), 0
	for n := 1; ; n++ {
		ch.Step()
		el := threadCPU() - start
		if warm == 0 && el >= gaugeSeconds/10 {
			start, warm, n = threadCPU(), n, 0
			continue
		}
		if warm > 0 && el >= gaugeSeconds && n >= 2 {
			return el / float64(n), nil
		}
		if n&255 == 0 && ctx(cfg).Err() != nil {
			return 0, ctx(cfg).Err()
		}
	}
}
