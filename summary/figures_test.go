package summary

import (
	"math"
	"testing"

	"sardonics/diag"
	"sardonics/draws"
)

// TestACFReachesZero (issue 31): the ACF of an AR(1) energy with tau_int
// 1000 steps goes on past 500 steps until it is about 0 (below 0.1, 4.5
// standard errors of its noise here), as the summary stores it and as
// acf.png plots it, whether every step is kept or every 8th (its lags then
// 8 steps apart); its first 501 lags are those it had when it stopped at
// MaxACFLag, bit for bit.
func TestACFReachesZero(t *testing.T) {
	const tau, n = 1000.0, 1 << 19
	phi := (tau - 1) / (tau + 1)
	for _, every := range []int{1, 8} {
		var recs []*TrialRecord
		for k := range 2 {
			r := ar1Trial(k, n, phi, -100, uint64(10+k))
			if every > 1 {
				r.Energies = thinned(r.Energies, every)
				r.Steps = n
				r.Trace = &Trace{BurnIn: draws.New(0, 1<<20),
					Kept: draws.Thinning{Every: every, Cap: 1 << 20, Kept: len(r.Energies)}}
			}
			recs = append(recs, r)
		}
		res := Summarize("s", recs, n, 0, 0)
		if res.ACFLagSteps != every || math.Abs(res.TauInt-tau) > 0.2*tau {
			t.Fatalf("every %d: lags %d steps apart, tau_int %.4g steps; want %d and about %g", every, res.ACFLagSteps, res.TauInt, every, tau)
		}
		last := len(res.ACF) - 1
		if steps := float64(last * every); steps < 4*tau || math.Abs(res.ACF[last]) > 0.1 || res.ACF[MaxACFLag/every] < 0.3 {
			t.Errorf("every %d: ACF to lag %d (%g steps), %.3g there, %.3g at %d steps; want about 0 at its end, past %g steps, and about exp(-1) at %d",
				every, last, steps, res.ACF[last], res.ACF[MaxACFLag/every], MaxACFLag, 4*tau, MaxACFLag)
		}
		sum := make([]float64, MaxACFLag+1)
		for _, r := range recs {
			_, _, rho := diag.TauACF(r.Energies, MaxACFLag)
			for i, v := range rho {
				sum[i] += v
			}
		}
		for i := range sum {
			if sum[i] /= 2; sum[i] != res.ACF[i] {
				t.Fatalf("every %d: ACF at lag %d is %v, %v when it stopped at lag %d", every, i, res.ACF[i], sum[i], MaxACFLag)
			}
		}
		s, _ := acfSeries([]*Result{res})
		perStep := 1e3 * res.CPUSeconds / float64(res.TotalSteps)
		if got, want := s[0].X[last], float64(last*every)*perStep; math.Abs(got-want) > 1e-9*want {
			t.Errorf("every %d: acf.png puts lag %d at %g ms, want %g (its steps' CPU)", every, last, got, want)
		}
	}
}

// thinned is every k-th value of x: those after steps k, 2k, ...
func thinned(x []float64, k int) []float64 {
	var out []float64
	for i := k - 1; i < len(x); i += k {
		out = append(out, x[i])
	}
	return out
}

// TestTracePointsSteps (issue 31): trace.png's x-axis is the step of each
// point, not its index among the kept draws: a point every 5th step when
// every step is kept, every kept draw when they are 64 steps apart (a
// 20000-step run with --trace-draws 256).
func TestTracePointsSteps(t *testing.T) {
	r := ar1Trial(0, 20000, 0.5, 0, 1)
	x, _, apart := tracePoints(r, 4000)
	if apart != 5 || x[0] != 4001 || x[1] != 4006 || x[len(x)-1] != 19996 {
		t.Errorf("every step kept: points %v ... %v, %d steps apart; want 4001, 4006 ... 19996, 5 apart", x[:2], x[len(x)-1], apart)
	}
	const every = 64
	burnKept := 4000 / every
	r.Energies = thinned(r.Energies, every)
	r.Steps = 20000
	r.Trace = &Trace{BurnIn: draws.Thinning{Every: every, Cap: 256, Kept: burnKept},
		Kept: draws.Thinning{Origin: 4000, Every: every, Cap: 256, Kept: len(r.Energies) - burnKept}}
	x, _, apart = tracePoints(r, 4000)
	if apart != every || len(x) != len(r.Energies)-burnKept || x[0] != 4000+every || x[1] != 4000+2*every || x[len(x)-1] > 20000 {
		t.Errorf("every %dth step kept: %d points %v ... %v, %d steps apart; want steps 4064, 4128 ... to 20000", every, len(x), x[:2], x[len(x)-1], apart)
	}
}
