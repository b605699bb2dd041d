package replica_test

import (
	"math"
	"slices"
	"testing"

	"sardonics/replica"
)

// lengthBetween integrates sigma, linear in beta between the rungs of
// betas (sd[k] at betas[k]), from a to b (both within the ladder), by
// splitting at the rungs and using the trapezoid rule on each piece,
// which is exact for a linear function.
func lengthBetween(betas, sd []float64, a, b float64) float64 {
	at := func(x float64) float64 {
		k, _ := slices.BinarySearch(betas, x)
		if k == 0 {
			return sd[0]
		}
		if k >= len(betas) {
			return sd[len(sd)-1]
		}
		f := (x - betas[k-1]) / (betas[k] - betas[k-1])
		return sd[k-1] + f*(sd[k]-sd[k-1])
	}
	pts := []float64{a}
	for _, x := range betas {
		if x > a && x < b {
			pts = append(pts, x)
		}
	}
	pts = append(pts, b)
	l := 0.0
	for i := 0; i+1 < len(pts); i++ {
		l += (pts[i+1] - pts[i]) * (at(pts[i]) + at(pts[i+1])) / 2
	}
	return l
}

// TestVarianceLadderEqualLengths: the rungs VarianceLadder places cut the
// thermodynamic length into equal parts (checked by integrating the
// piecewise-linear sigma independently), keep the ends and the order; a
// constant sigma gives equal steps in beta; sigma falling steeply
// (1/beta^2 at the measured rungs) packs the rungs at the hot end.
func TestVarianceLadderEqualLengths(t *testing.T) {
	for _, tc := range []struct {
		betas, sd []float64
	}{
		{replica.Geometric(0.4, 2.5, 16), nil},
		{[]float64{0.1, 0.5, 0.9, 1.3, 3}, []float64{80, 10, 60, 0, 5}},
		{[]float64{0.2, 0.3, 2}, []float64{1, 1, 1}},
	} {
		sd := tc.sd
		if sd == nil {
			for _, b := range tc.betas {
				sd = append(sd, 9/(b*b))
			}
		}
		nb := replica.VarianceLadder(tc.betas, sd)
		R := len(nb)
		if nb[0] != tc.betas[0] || nb[R-1] != tc.betas[R-1] {
			t.Errorf("ends moved: %v -> %v", tc.betas, nb)
		}
		total := replica.ThermoLength(tc.betas, sd)
		for j := 0; j+1 < R; j++ {
			if !(nb[j+1] > nb[j]) {
				t.Fatalf("order broken: %v", nb)
			}
			if l := lengthBetween(tc.betas, sd, nb[j], nb[j+1]); math.Abs(l-total/float64(R-1)) > 1e-9*total {
				t.Errorf("%v, sd %v: interval %d has length %v, want %v", tc.betas, sd, j, l, total/float64(R-1))
			}
		}
	}
	lin := replica.VarianceLadder([]float64{0.2, 0.3, 0.35, 2}, []float64{3, 3, 3, 3})
	for j, want := range []float64{0.2, 0.8, 1.4, 2} {
		if math.Abs(lin[j]-want) > 1e-12*want {
			t.Errorf("constant sigma: %v, want equal steps", lin)
		}
	}
	steep := replica.VarianceLadder(replica.Geometric(0.4, 2.5, 8), []float64{100, 60, 35, 20, 12, 7, 4, 2})
	g := replica.Geometric(0.4, 2.5, 8)
	if !(steep[1]-steep[0] < g[1]-g[0]) || !(steep[7]-steep[6] > g[7]-g[6]) {
		t.Errorf("steeply falling sigma should pack the rungs at the hot end: %v", steep)
	}
	for _, bad := range [][]float64{{1, math.NaN(), 1, 1, 1}, {1, -1, 1, 1, 1}, {0, 0, 0, 0, 0}} {
		b := replica.Geometric(0.1, 1, 5)
		if got := replica.VarianceLadder(b, bad); !slices.Equal(got, b) {
			t.Errorf("sd %v moved the ladder: %v", bad, got)
		}
	}
}

// TestRungsNeeded: the rung count spans the length at an acceptance of at
// least OptimalAcceptance, one rung fewer does not; x* is where x^2
// erfc(x) peaks.
func TestRungsNeeded(t *testing.T) {
	f := func(x float64) float64 { return x * x * math.Erfc(x) }
	const xs = 0.8418822163923415
	if !(f(xs) > f(xs-1e-4) && f(xs) > f(xs+1e-4)) || math.Abs(math.Erfc(xs)-replica.OptimalAcceptance) > 1e-4 {
		t.Errorf("x* = %v is not the peak of x^2 erfc(x), or erfc(x*) = %v != %v", xs, math.Erfc(xs), replica.OptimalAcceptance)
	}
	for _, l := range []float64{0.5, 3, 17.2, 53.17, 200} {
		r := replica.RungsNeeded(l)
		if a := replica.PredictedAcceptance(l, r); !(a >= replica.OptimalAcceptance-1e-9) {
			t.Errorf("length %v: %d rungs accept %v < %v", l, r, a, replica.OptimalAcceptance)
		}
		if r > 2 {
			if a := replica.PredictedAcceptance(l, r-1); !(a < replica.OptimalAcceptance) {
				t.Errorf("length %v: %d rungs already accept %v", l, r-1, a)
			}
		}
	}
	if r := replica.RungsNeeded(53.17); r != 33 {
		t.Errorf("RungsNeeded(53.17) = %d, want 33", r)
	}
}

// varianceLadder makes a configuration's ladder adapt from the energy
// variance during the first fifth of 3000 steps.
func varianceLadder(cfg *replica.Config) {
	cfg.Adapt, cfg.Spacing = 600, replica.ByVariance
}

// TestVarianceLadderAgreesWithEnumeration: replica exchange whose ladder
// moves by the energy variance during the burn-in, then freezes, gives
// the exact mean energy and ground-state probability at beta 3 (as
// TestAgreesWithEnumeration: 16 trials, 4 standard errors), for a
// single-site kernel and SARDONICS.
func TestVarianceLadderAgreesWithEnumeration(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	for _, kc := range []kernelCase{kernelCases[0], kernelCases[3], kernelCases[6]} {
		zE, zP := agreementWith(t, kc, 16, 3000, varianceLadder)
		t.Logf("%s: z(mean E) = %.2f, z(P(E_min)) = %.2f", kc.name, zE, zP)
		if math.Abs(zE) > 4 || math.Abs(zP) > 4 || math.IsNaN(zE) || math.IsNaN(zP) {
			t.Errorf("%s with the variance ladder disagrees with enumeration: z = %.2f, %.2f", kc.name, zE, zP)
		}
	}
}

// TestVarianceLadderDeterministicAndContinues: the variance ladder gives
// the same trace with 1 and 3 workers, and a chain saved in the middle of
// its adaptation (mid-segment, after some moves) and restored continues
// bit for bit, moves and report included.
func TestVarianceLadderDeterministicAndContinues(t *testing.T) {
	for _, kc := range []kernelCase{kernelCases[0], kernelCases[3]} {
		cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 5), SwapEvery: 3, Adapt: 600, Spacing: replica.ByVariance, CountFrom: 100, Sets: 2, KeepSpins: true}
		a, b := continues(t, kc, cfg, 250, 900, kc.name) // 84 rounds before the save: moved at 32 and 64
		ra1, rb1 := a.Report(), b.Report()
		if !slices.Equal(ra1.Ladder, rb1.Ladder) || !slices.Equal(ra1.EnergySD, rb1.EnergySD) || ra1.RungsNeeded != rb1.RungsNeeded {
			t.Errorf("%s: reports differ: %+v vs %+v", kc.name, ra1, rb1)
		}
		if slices.Equal(ra1.Ladder, cfg.Betas) || ra1.EnergySD == nil || ra1.Spacing != "variance" || !(ra1.ThermoLength > 0) {
			t.Errorf("%s: the ladder did not adapt, or the report lacks it: %+v", kc.name, ra1)
		}
		cfg.Workers = 3
		c3, _ := newChain(t, kc, cfg, 9)
		e3, _ := trace(c3, 1150)
		e1 := trace0(t, kc, cfg)
		if !slices.Equal(e1, e3) {
			t.Errorf("%s: 3 workers changed the chain", kc.name)
		}
	}
}

// trace0 is the energies of 1150 steps of a single-worker chain of cfg
// (seed 9).
func trace0(t *testing.T, kc kernelCase, cfg replica.Config) []float64 {
	cfg.Workers = 1
	c, _ := newChain(t, kc, cfg, 9)
	e, _ := trace(c, 1150)
	return e
}

// TestVarianceLadderPredictsAcceptance: on frustrated2d:L=12 from beta 0.2
// to 2.5 (8 rungs, Metropolis), the variance ladder's swap acceptances,
// measured after the freeze, are more even than the geometric ladder's
// and within 0.1 of the acceptance the energy variance predicts.
func TestVarianceLadderPredictsAcceptance(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	kc := kernelCase{"metropolis", "frustrated2d:L=12,seed=1", "metropolis", "", 0}
	spread := func(rep *replica.Report) float64 {
		lo, hi := 1.0, 0.0
		for _, a := range rep.SwapAcceptance {
			lo, hi = min(lo, *a), max(hi, *a)
		}
		return hi - lo
	}
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2.5, 8), SwapEvery: 1, CountFrom: 8000, Sets: 1}
	g, _ := newChain(t, kc, cfg, 3)
	trace(g, 30000)
	cfg.Adapt, cfg.Spacing = 4000, replica.ByVariance
	v, _ := newChain(t, kc, cfg, 3)
	trace(v, 30000)
	rg, rv := g.Report(), v.Report()
	t.Logf("geometric: %v acceptance spread %.3f; variance: %v, acceptance %v spread %.3f, predicted %.3f, length %.2f, rungs needed %d",
		rg.Ladder, spread(rg), rv.Ladder, accs(rv), spread(rv), rv.PredictedAcceptance, rv.ThermoLength, rv.RungsNeeded)
	if !(spread(rv) < spread(rg)) {
		t.Errorf("the variance ladder's acceptances (spread %.3f) are no more even than the geometric's (%.3f)", spread(rv), spread(rg))
	}
	for k, a := range rv.SwapAcceptance {
		if math.Abs(*a-rv.PredictedAcceptance) > 0.1 {
			t.Errorf("pair %d accepts %.3f, predicted %.3f", k, *a, rv.PredictedAcceptance)
		}
	}
}

func accs(rep *replica.Report) []float64 {
	var out []float64
	for _, a := range rep.SwapAcceptance {
		out = append(out, math.Round(*a*1000)/1000)
	}
	return out
}
