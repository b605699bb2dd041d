package runner_test

import (
	"math"
	"sync"
	"testing"

	_ "sardonics/data" // registers paper-rbm
	"sardonics/diag"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/runner"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// TestPaperRBMAgreesWithBlockGibbs is issue #6's check on the bundled RBM:
// SARDONICS (default theta, the engine `sample` picks) and block Gibbs give
// the same mean energy within 4 standard errors, 10 trials each.
//
// Block Gibbs runs 1000 burn-in and 4000 kept sweeps per trial from random
// starts (tau_int about 40 sweeps). Each SARDONICS trial then starts from
// the final state of a block-Gibbs trial, a draw from equilibrium, and runs
// 3000 steps (about 4 tau_int of 700 steps), all kept: a chain that did not
// leave the Boltzmann law invariant would drift away from it. Standard
// errors come from the spread of the 10 per-trial means (so they account
// for autocorrelation); with 9 degrees of freedom a correct sampler fails
// 4 SE about 3 times in 1000 seeds. Seeds are fixed: the test is
// deterministic. About 15 s of CPU.
func TestPaperRBMAgreesWithBlockGibbs(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15 s of CPU")
	}
	m, err := model.Load("paper-rbm")
	if err != nil {
		t.Fatal(err)
	}
	const trials, burn, keep, steps = 10, 1000, 4000, 3000
	bgMean, sawMean, acc := make([]float64, trials), make([]float64, trials), make([]float64, trials)
	errs := make([]error, trials)
	var wg sync.WaitGroup
	for tr := 0; tr < trials; tr++ {
		wg.Go(func() {
			init := make([]int8, m.Variables())
			r := rng.Stream(99, uint64(tr))
			for i := range init {
				init[i] = int8(2*(r.Uint64()>>63)) - 1
			}
			bg, _, err := runner.NewChain("blockgibbs", m, 1, sawsampler.Config{}, r, init)
			if err != nil {
				errs[tr] = err
				return
			}
			bgMean[tr] = meanEnergy(bg, burn, keep)
			c, done, err := runner.NewChain("sardonics", m, 1, sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}}, rng.Stream(100, uint64(tr)), bg.Spins())
			if err != nil {
				errs[tr] = err
				return
			}
			defer done()
			sawMean[tr] = meanEnergy(c, 0, steps)
			acc[tr], _ = c.Stats().AcceptanceRate()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mb, sb := diag.MeanStdErr(bgMean, 1) // the trial means are independent
	ms, ss := diag.MeanStdErr(sawMean, 1)
	z := (ms - mb) / math.Hypot(sb, ss)
	t.Logf("block Gibbs %.3f +- %.3f, SARDONICS %.3f +- %.3f (%.2f SE), acceptance %.3f", mb, sb, ms, ss, z, acc[0])
	if !(math.Abs(z) < 4) {
		t.Errorf("mean energies differ by %.2f standard errors (block Gibbs %v, SARDONICS %v)", z, bgMean, sawMean)
	}
	if acc[0] < 0.2 || ss == 0 {
		t.Errorf("SARDONICS barely moved (acceptance %.3f, SE %g): the check would be empty", acc[0], ss)
	}
}

// meanEnergy runs burn steps, then returns the mean energy over keep steps.
func meanEnergy(c sampler.Chain, burn, keep int) float64 {
	for range burn {
		c.Step()
	}
	s := 0.0
	for range keep {
		c.Step()
		s += c.Energy()
	}
	return s / float64(keep)
}
