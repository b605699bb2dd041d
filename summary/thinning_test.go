package summary

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/draws"
)

// thinnedRecord is what the runner records of a trial whose energy and
// magnetization after each step are e and m: the kept draws of each phase
// thinned to at most capacity, and the exact moments after burn.
func thinnedRecord(trial int, e []float64, m []int32, burn, capacity int) *TrialRecord {
	r := &TrialRecord{Sampler: "s", Trial: trial, Steps: len(e), CPUSeconds: 1, Moments: &Moments{},
		Trace: &Trace{BurnIn: draws.New(0, capacity), Kept: draws.New(burn, capacity)}}
	for i := range e {
		s := i + 1
		th, b := &r.Trace.BurnIn, 0
		if s > burn {
			th, b = &r.Trace.Kept, r.Trace.BurnIn.Kept
			r.Moments.Energy.Add(e[i])
			r.Moments.Magnetization.Add(int64(m[i]))
		}
		keep, halve := th.Next(s)
		if halve {
			r.Energies = draws.HalveFrom(r.Energies, b)
			r.Magnetization = draws.HalveFrom(r.Magnetization, b)
		}
		if keep {
			r.Energies = append(r.Energies, e[i])
			r.Magnetization = append(r.Magnetization, m[i])
		}
	}
	r.Observables = NewTrialObservables(r, ModelInfo{Spins: 16, Beta: 0.5}, burn)
	return r
}

// Trials of different lengths (a --budget run, or folders merged by
// report) are thinned by different intervals: the summary pools their kept
// draws at the largest, takes every trial's means over every step, and
// says so.
func TestPoolMixedIntervals(t *testing.T) {
	const burn, capacity = 500, 256
	g := rand.New(rand.NewPCG(7, 8))
	var recs []*TrialRecord
	var all []float64
	var allM []float64
	for k, n := range []int{3000, 9000, 40000} {
		e := make([]float64, n)
		m := make([]int32, n)
		x := 0.0
		for i := range e {
			x = 0.9*x + g.NormFloat64()
			e[i] = -50 + x
			m[i] = int32(g.IntN(33) - 16)
			if i >= burn {
				all = append(all, e[i])
				allM = append(allM, float64(m[i])/16)
			}
		}
		recs = append(recs, thinnedRecord(k, e, m, burn, capacity))
	}
	res := Summarize("s", recs, 0, burn, 0)
	if res.Thinning == nil || res.Thinning.Every != recs[2].every() || res.Thinning.Every <= recs[0].every() || res.ACFLagSteps != res.Thinning.Every {
		t.Fatalf("thinning %+v, trial intervals %d %d %d", res.Thinning, recs[0].every(), recs[1].every(), recs[2].every())
	}
	p := newPool(recs)
	for i, r := range recs {
		d := pooledOf(p, i, r, burn, r.Energies)
		for j := range d {
			if step := r.stepOf(r.burnDraws(burn) + (j+1)*p.sub[i] - 1); (step-burn)%p.every != 0 {
				t.Fatalf("trial %d: pooled draw %d at step %d, not a multiple of %d after the burn-in", i, j, step, p.every)
			}
		}
	}
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	if want := mean(all); math.Abs(res.EnergyMean-want) > 1e-12*math.Abs(want) {
		t.Errorf("energy mean %v, the mean of every step %v", res.EnergyMean, want)
	}
	if want := mean(allM); math.Abs(res.Observables.Magnetization.Mean-want) > 1e-12 {
		t.Errorf("m %v, the mean of every step %v", res.Observables.Magnetization.Mean, want)
	}
	// The kept draws alone give another mean: the check can fail.
	var kept []float64
	for _, r := range recs {
		kept = append(kept, r.kept(burn)...)
	}
	if math.Abs(mean(kept)-mean(all)) < 1e-9 {
		t.Errorf("the kept draws' mean equals every step's: the test cannot tell them apart")
	}
}

// The note that the kept draws are about tau_int or more apart, so that
// the ESS is a lower bound, is given only when it holds: tau_int of the
// kept draws under 2 and an ESS of at least a quarter a kept draw. Where
// the ESS is far lower (ranks that see a slow trend, as energies that
// drifted by their increments once made them), it is not.
func TestThinningNoteOnlyWhereItHolds(t *testing.T) {
	recs := []*TrialRecord{{Trace: &Trace{Kept: draws.Thinning{Every: 64}}}, {Trace: &Trace{Kept: draws.Thinning{Every: 64}}}}
	p := newPool(recs)
	kept := [][]float64{make([]float64, 5000), make([]float64, 5000)}
	for _, tc := range []struct {
		ess, tau float64
		note     bool
	}{
		{9800, 1.02, true}, // nearly independent draws
		{70, 1.02, false},  // ESS 0.007 a draw with tau_int under 2: not explained by the spacing
		{3000, 3.3, false}, // resolved tau_int
		{2600, 1.9, true},  // ESS 0.26 a draw
		{2400, 1.9, false}, // ESS 0.24 a draw
	} {
		res := &Result{ESS: tc.ess}
		res.thinning(recs, p, kept, tc.tau)
		if got := res.Thinning.Note != ""; got != tc.note {
			t.Errorf("ESS %v, tau_int of the kept draws %v: note %q", tc.ess, tc.tau, res.Thinning.Note)
		}
	}
}
