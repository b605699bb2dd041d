package logz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"sardonics/replica"
	"sardonics/sampler"
)

// maxRungs bounds the ladder a pilot chooses.
const maxRungs = 512

// RE estimates ln Z(cfg.Beta) by replica exchange: cfg.Runs independent
// ladders from beta = 0 (ln Z = M ln 2) to the target, each run for
// cfg.Steps swap rounds of one kernel step per rung (the first fifth
// burn-in), and Bennett's acceptance ratio between neighbouring rungs
// (LadderBAR), with the error from the ladders' spread. The rungs (unless
// cfg.Rungs gives their number) are as many as the pilot's
// thermodynamic length int sigma_E dbeta in units of one, so that
// neighbours' energy distributions overlap (Delta beta sigma_E about 1:
// swaps accepted about half the time for Gaussian energies).
func RE(cfg Config) (*Estimate, error) {
	if err := checkCounts(cfg, 2); err != nil {
		return nil, err
	}
	cp, err := reChainPath(cfg)
	if err != nil {
		return nil, err
	}
	est := &Estimate{Method: "re", Sampler: cp.kind.Name, Beta: cfg.Beta, LnZ0: cp.lnZ0(), Runs: cfg.Runs, Steps: cfg.Steps, Warnings: []string{}}
	if cfg.Beta == 0 {
		est.LnZ = est.LnZ0
		return est, nil
	}
	ladder, cpu := cfg.Ladder, cfg.ladderCPU
	if ladder == nil {
		if ladder, cpu, err = reLadder(cfg, cp); err != nil {
			return nil, err
		}
	} else if err := checkLadder(ladder, cfg.Beta); err != nil {
		return nil, err
	}
	est.CPUSeconds, est.Ladder = cpu, ladder
	R, T, S := len(ladder), cfg.Runs, cfg.Steps
	burn := S / 5
	keep := max(256, min(16384, (1<<25)/(T*R)))
	every := max(1, (S-burn+keep-1)/keep)
	est.Kept = (S - burn + every - 1) / every
	energies := make([][][]float64, T)
	acc := make([][]float64, T)
	cfg.Ladder = ladder
	cpu, err = parallel(ctx(cfg), T, cfg.Threads, func(t int) error {
		ch, err := newLadder(cfg, cp, rngFor(cfg.Seed, t, keyRE), burn)
		if err != nil {
			return err
		}
		defer ch.Close()
		e := make([][]float64, R)
		for k := range e {
			e[k] = make([]float64, 0, est.Kept)
		}
		buf := make([]float64, 0, R)
		for step := range S {
			if step&1023 == 0 && ctx(cfg).Err() != nil {
				return ctx(cfg).Err()
			}
			ch.Step()
			if step >= burn && (step-burn)%every == 0 {
				buf = ch.RungEnergies(buf[:0])
				for k, x := range buf {
					e[k] = append(e[k], x)
				}
			}
		}
		energies[t] = e
		for _, a := range ch.Report().SwapAcceptance {
			v := math.NaN()
			if a != nil {
				v = *a
			}
			acc[t] = append(acc[t], v)
		}
		return nil
	})
	est.CPUSeconds += cpu
	if err != nil {
		return nil, err
	}
	d, se, pairs, err := ladderBAR(ladder, energies)
	if err != nil {
		return nil, err
	}
	est.LnZ, est.Stderr, est.PairLnZ = est.LnZ0+d+brokenBase, se, pairs
	est.SwapAcceptance = make([]float64, R-1)
	for j := range est.SwapAcceptance {
		s := 0.0
		for t := range acc {
			s += acc[t][j]
		}
		est.SwapAcceptance[j] = s / float64(T)
		if a := est.SwapAcceptance[j]; a < 0.1 {
			est.Warnings = append(est.Warnings, fmt.Sprintf("rungs %d and %d (beta %.4g and %.4g) swap with acceptance %.3g: their energy distributions barely overlap, so Bennett's ratio between them is unreliable; give more --rungs (now %d)", j, j+1, ladder[j], ladder[j+1], a, R))
			break
		}
	}
	if j, med := unevenPair(est.SwapAcceptance); j >= 0 && len(est.Warnings) == 0 {
		est.Warnings = append(est.Warnings, fmt.Sprintf("rungs %d and %d (beta %.4g and %.4g) swap with acceptance %.3g, under 0.6 of the ladder's median %.3g: the energy's distribution changes there faster than the pilot saw (a phase that appears abruptly, as at a first-order transition?), and then both methods can be biased; compare with more --rungs and with --method ais (docs/logz.md)", j, j+1, ladder[j], ladder[j+1], est.SwapAcceptance[j], med))
	}
	if est.Kept < 100 {
		est.Warnings = append(est.Warnings, fmt.Sprintf("only %d samples a rung per trial after burn-in: give more --steps (or --budget)", est.Kept))
	}
	return est, nil
}

// unevenPair is the pair whose swap acceptance is lowest if it is under
// 0.6 of the median pair's (-1 if none is), and the median. The pilot
// places the rungs at equal thermodynamic length, so the acceptances come
// out even (at least 0.85 of the median on every other model of
// results/logz) unless the energy spread changes between where the pilot
// saw it and where the ladders do.
func unevenPair(acc []float64) (int, float64) {
	if len(acc) < 3 || slices.ContainsFunc(acc, math.IsNaN) {
		return -1, math.NaN()
	}
	s := slices.Clone(acc)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	j := 0
	for k, a := range acc {
		if a < acc[j] {
			j = k
		}
	}
	if acc[j] < 0.6*med {
		return j, med
	}
	return -1, med
}

// newLadder is a replica-exchange chain on cfg.Ladder from a uniform
// random state drawn from r, which then draws the swaps (the members'
// streams derive from it), counting swaps after burn steps.
func newLadder(cfg Config, cp *chainPath, r *rand.PCG, burn int) (*replica.Chain, error) {
	build := func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		return cp.kind.New(cp.m, beta, cp.opts, r, init)
	}
	init := uniformSpins(r, cp.m.Variables())
	return replica.New(replica.Config{Betas: cfg.Ladder, SwapEvery: 1, Sets: 1, Workers: 1, CountFrom: burn}, build, r, init)
}

// reChainPath is replica exchange's kernel on cfg's model, as a
// temperature path (for the pilot and the cost gauge).
func reChainPath(cfg Config) (*chainPath, error) {
	m := cfg.Model
	if m == nil {
		return nil, fmt.Errorf("logz: no model")
	}
	if cfg.BaseRate != nil {
		return nil, fmt.Errorf("logz: replica exchange's ladder starts at beta = 0 (no base-rate model)")
	}
	k, err := temperedKind(cfg.Sampler, m)
	if err != nil {
		return nil, err
	}
	if k.Name == "metropolis" {
		return nil, &sampler.UsageError{Msg: "metropolis at the ladder's hottest rung, beta = 0, accepts every flip, so each sweep flips every spin and that rung only alternates between two states; use gibbs (the default), or another tempered sampler"}
	}
	return &chainPath{m: m, beta: cfg.Beta, kind: k, opts: cfg.Opts, seed: cfg.Seed}, nil
}

// checkLadder checks a ladder given in Config.Ladder: strictly
// increasing from 0 to beta.
func checkLadder(l []float64, beta float64) error {
	if len(l) < 2 || l[0] != 0 || l[len(l)-1] != beta {
		return fmt.Errorf("logz: ladder %v (expected at least 2 rungs from 0 to beta %v)", l, beta)
	}
	for k := 1; k < len(l); k++ {
		if !(l[k] > l[k-1]) {
			return fmt.Errorf("logz: ladder %v (expected strictly increasing betas)", l)
		}
	}
	return nil
}

// reLadder is the ladder: cfg.Rungs rungs, or as many as the pilot's
// thermodynamic length needs, at equal lengths of the pilot's profile.
func reLadder(cfg Config, cp *chainPath) ([]float64, float64, error) {
	grid, cum, cpu, err := pilot(cfg, cp)
	if err != nil {
		return nil, cpu, err
	}
	R := cfg.Rungs
	if R == 0 {
		R = min(maxRungs, max(2, int(math.Ceil(cum[len(cum)-1]))+1))
	}
	if R < 2 {
		return nil, cpu, fmt.Errorf("logz: %d rungs (expected at least 2)", R)
	}
	lam := equalLength(grid, cum, R-1)
	ladder := make([]float64, R)
	for k, l := range lam {
		ladder[k] = l * cfg.Beta
	}
	ladder[R-1] = cfg.Beta
	return ladder, cpu, nil
}
