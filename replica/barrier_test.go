package replica_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
)

// levels is the density of states of m: its distinct energies and how many
// states have each, by enumeration.
func levels(t *testing.T, spec string) (es, g []float64) {
	t.Helper()
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	is := m.Sparse()
	count := map[float64]float64{}
	stattest.Enumerate(is.N, func(s []int8) { count[math.Round(is.Energy(s)*1e6)/1e6]++ })
	for e := range count {
		es = append(es, e)
	}
	slices.Sort(es)
	for _, e := range es {
		g = append(g, count[e])
	}
	return es, g
}

// boltzmann is the distribution over the levels at beta.
func boltzmann(es, g []float64, beta float64) []float64 {
	p := make([]float64, len(es))
	z := 0.0
	for i, e := range es {
		p[i] = g[i] * math.Exp(-beta*(e-es[0]))
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
	return p
}

// exactRejection is the swap rejection rate of rungs a < b in equilibrium:
// 1 - E[min(1, exp((a - b)(E(x) - E(y))))], x at a and y at b.
func exactRejection(es, g []float64, a, b float64) float64 {
	pa, pb := boltzmann(es, g, a), boltzmann(es, g, b)
	acc := 0.0
	for i, x := range es {
		for j, y := range es {
			acc += pa[i] * pb[j] * math.Min(1, math.Exp((a-b)*(x-y)))
		}
	}
	return 1 - acc
}

// exactLambda is the local barrier lambda(beta) = E|E(x) - E(x')| / 2 of
// Syed et al. (2021), x and x' independent at beta.
func exactLambda(es, g []float64, beta float64) float64 {
	p := boltzmann(es, g, beta)
	l := 0.0
	for i, x := range es {
		for j, y := range es {
			l += p[i] * p[j] * math.Abs(x-y)
		}
	}
	return l / 2
}

const barrierSpec = "frustrated2d:L=4,seed=3"

// TestBarrierFineLimit checks the estimator's premise on exact
// enumeration: the sum of the exact rejection rates of a ladder is below
// the barrier Lambda = int lambda d beta on a coarse ladder and tends to
// it as the ladder refines.
func TestBarrierFineLimit(t *testing.T) {
	es, g := levels(t, barrierSpec)
	lo, hi := 0.3, 3.0
	// Lambda by Simpson's rule in log beta (the geometric ladders' variable).
	const n = 2000
	h := math.Log(hi/lo) / n
	lambda := 0.0
	for i := 0; i <= n; i++ {
		b := lo * math.Exp(float64(i)*h)
		w := 2.0
		switch {
		case i == 0 || i == n:
			w = 1
		case i%2 == 1:
			w = 4
		}
		lambda += w * exactLambda(es, g, b) * b // d beta = beta d log beta
	}
	lambda *= h / 3
	prev := 0.0
	for _, r := range []int{4, 8, 32, 256} {
		bs := replica.Geometric(lo, hi, r)
		var rej []float64
		for k := 0; k+1 < r; k++ {
			rej = append(rej, exactRejection(es, g, bs[k], bs[k+1]))
		}
		sum := replica.Barrier(rej)
		t.Logf("%3d rungs: sum of rejections %.4f (Lambda %.4f)", r, sum, lambda)
		if !(sum > prev) || !(sum < lambda*1.0001) {
			t.Errorf("%d rungs: sum %.4f is not between the coarser ladder's %.4f and Lambda %.4f", r, sum, prev, lambda)
		}
		prev = sum
	}
	if math.Abs(prev-lambda) > 0.002*lambda {
		t.Errorf("256 rungs: sum %.5f, Lambda %.5f: not within 0.2%%", prev, lambda)
	}
}

// barrierAgreement runs independent pilots of Metropolis replica exchange
// on 8 rungs of the enumerable model and returns the mean of their
// barrier estimates, its standard error (from their spread) and the exact
// sum of the ladder's rejection rates.
func barrierAgreement(t *testing.T) (mean, se, exact float64) {
	t.Helper()
	es, g := levels(t, barrierSpec)
	m, err := model.Load(barrierSpec)
	if err != nil {
		t.Fatal(err)
	}
	bs := replica.Geometric(0.3, 3, 8)
	for k := 0; k+1 < len(bs); k++ {
		exact += exactRejection(es, g, bs[k], bs[k+1])
	}
	const pilots = 8
	var xs []float64
	for i := range pilots {
		r := rng.Sub(11, uint64(i), 3)
		p, err := replica.Pilot(replica.Config{Betas: bs, SwapEvery: 1, Sets: 1}, builder("metropolis", m, "", 0), r, randomSpins(r, m.Variables()), 200, 4000)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rounds != 4200 || len(p.Rejection) != 7 || p.Tries[0] != 2000 || p.Tries[1] != 2000 {
			t.Fatalf("pilot: %d rounds, %d pairs, tries %v", p.Rounds, len(p.Rejection), p.Tries)
		}
		xs = append(xs, replica.Barrier(p.Rejection))
	}
	for _, x := range xs {
		mean += x
	}
	mean /= pilots
	for _, x := range xs {
		se += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(se / (pilots - 1) / pilots), exact
}

// TestBarrierAgreesWithEnumeration: the pilot's barrier, the sum of its
// measured swap rejection rates, agrees with the exact sum of the
// ladder's rejection rates within 4 standard errors (8 pilots, fixed
// seeds) and 3%.
func TestBarrierAgreesWithEnumeration(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	mean, se, exact := barrierAgreement(t)
	z := (mean - exact) / se
	t.Logf("barrier %.4f +- %.4f, exact %.4f (z = %.2f)", mean, se, exact, z)
	if math.Abs(z) > 4 || math.Abs(mean-exact) > 0.03*exact || math.IsNaN(z) {
		t.Errorf("pilot barrier %.4f +- %.4f against the exact %.4f: z = %.2f", mean, se, exact, z)
	}
}

// TestRungsForBarrier: 2 Lambda + 1 rungs, at least 2, rounded up so that
// a pair rejects at most 1/2; the choice takes RungsNeeded where a gap in
// the pilot's ladder asks for more, and says so.
func TestRungsForBarrier(t *testing.T) {
	for _, c := range []struct {
		l    float64
		want int
	}{{0, 2}, {math.NaN(), 2}, {0.3, 2}, {0.5, 2}, {0.51, 3}, {1, 3}, {6.12, 14}, {8.3125, 18}, {2000, replica.MaxRungs + 1}, {math.Inf(1), replica.MaxRungs + 1}} {
		if got := replica.RungsForBarrier(c.l); got != c.want {
			t.Errorf("RungsForBarrier(%g) = %d, want %d", c.l, got, c.want)
		}
	}
	if got := replica.Barrier([]float64{0.1, 0.5, 1, 0}); got != 1.6 {
		t.Errorf("Barrier = %g, want 1.6", got)
	}
	// 32 rungs, each pair rejecting 1/4 of 128 tries: Lambda 7.75, 17
	// rungs, fine.
	even := pilotOf(32, 0.25, 128)
	a := replica.ChooseRungs(even)
	if a.Barrier != 7.75 || a.Rungs != 17 || !replica.PilotFine(even) || a.RungsNeeded >= a.Rungs || a.PilotRungs != 32 {
		t.Errorf("even pilot: %+v (fine %v)", a, replica.PilotFine(even))
	}
	// One pair never accepts: the pilot's ladder is too coarse.
	gap := pilotOf(8, 0.25, 128)
	gap.Acc[3], gap.Rejection[3] = 0, 1
	if replica.PilotFine(gap) || !strings.Contains(replica.ChooseRungs(gap).Rule, "too coarse") {
		t.Errorf("gap: fine %v, %+v", replica.PilotFine(gap), replica.ChooseRungs(gap))
	}
	// No pair ever accepts: each counts 1 in the barrier (7, 15 rungs)
	// but at least 2 erfcinv(1/256) = 4.08 in the thermodynamic length
	// (28.6, 18 rungs at 0.23): the larger count is taken, and the rule
	// says so.
	wide := pilotOf(8, 1, 128)
	a = replica.ChooseRungs(wide)
	if a.Rungs != 18 || a.RungsNeeded != 18 || replica.RungsForBarrier(a.Barrier) != 15 {
		t.Errorf("no swaps: %+v", a)
	}
	for _, s := range []string{"need", "took", "too coarse"} {
		if !strings.Contains(a.Rule, s) {
			t.Errorf("no swaps: rule %q does not say %q", a.Rule, s)
		}
	}
	// A barrier beyond the cap.
	huge := pilotOf(256, 1, 128)
	huge.Rejection = slices.Repeat([]float64{8}, 255) // not a rate: only the cap is checked
	if a := replica.ChooseRungs(huge); a.Rungs != replica.MaxRungs || !strings.Contains(a.Rule, "capped") {
		t.Errorf("huge: %+v", a)
	}
}

// pilotOf is a constructed pilot of r rungs from 0.3 to 3 whose pairs
// each rejected rej of their tries.
func pilotOf(r int, rej float64, tries int64) *replica.PilotResult {
	p := &replica.PilotResult{Betas: replica.Geometric(0.3, 3, r), Rounds: 384}
	for range r - 1 {
		p.Rejection = append(p.Rejection, rej)
		p.Tries = append(p.Tries, tries)
		p.Acc = append(p.Acc, int64(math.Round((1-rej)*float64(tries))))
	}
	return p
}

// TestAutoRefines: a pilot ladder too coarse for the barrier it measures
// is refined (twice as many rungs) before the count is chosen; the choice
// depends on the stream alone.
func TestAutoRefines(t *testing.T) {
	m, err := model.Load("ferro2d:L=32")
	if err != nil {
		t.Fatal(err)
	}
	stream := func(rungs int) *rand.PCG { return rng.Sub(5, 1<<63, uint64(rungs)) }
	run := func() *replica.AutoRungs {
		a, err := replica.Auto(replica.Config{SwapEvery: 1}, 0.05, 2, builder("metropolis", m, "", 0), stream, m.Variables(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := run(), run()
	t.Logf("%+v", a)
	if !reflect.DeepEqual(*a, *b) {
		t.Errorf("two runs differ:\n%+v\n%+v", a, b)
	}
	if a.PilotRungs <= replica.PilotRungs || a.Rungs > a.PilotRungs || a.PilotRounds != (replica.PilotBurn+replica.PilotRounds)*int(math.Log2(float64(a.PilotRungs/replica.PilotRungs))+1) {
		t.Errorf("not refined as expected: %+v", a)
	}
}

// TestBarrierLadder: rungs at equal shares of the cumulative barrier. Equal
// pilot rejections give back the pilot's ladder (R = P) and its pairs'
// midpoints-and-knots (R = 2P - 1); a pilot pair that rejects 0.9 between
// pairs that reject 0.1 gets 9 times the rungs per unit of beta; the ends
// are the pilot's.
func TestBarrierLadder(t *testing.T) {
	betas := replica.Geometric(0.3, 3, 5)
	eq := []float64{0.4, 0.4, 0.4, 0.4}
	if got := replica.BarrierLadder(betas, eq, 5); !slices.EqualFunc(got, betas, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
		t.Errorf("equal rejections, R = P: %v, want %v", got, betas)
	}
	got := replica.BarrierLadder(betas, eq, 9)
	for k := range betas {
		if math.Abs(got[2*k]-betas[k]) > 1e-12 {
			t.Errorf("equal rejections, R = 2P - 1: rung %d = %v, want %v", 2*k, got[2*k], betas[k])
		}
	}
	lin := []float64{1, 2, 3, 4, 5}
	got = replica.BarrierLadder(lin, []float64{0.1, 0.9, 0.1, 0.1}, 13) // barrier 1.2: a rung every 0.1
	in := 0
	for _, b := range got {
		if b > 2 && b < 3 {
			in++
		}
	}
	if in != 8 || got[0] != 1 || got[12] != 5 {
		t.Errorf("a bottleneck pair: %v (%d rungs inside it, want 8)", got, in)
	}
	for k := 1; k < len(got); k++ {
		if !(got[k] > got[k-1]) {
			t.Fatalf("ladder not increasing: %v", got)
		}
	}
	if got := replica.BarrierLadder(lin, []float64{0, 0, 0, 0}, 3); got[1] != 3 {
		t.Errorf("no rejection anywhere: %v, want the middle at 3", got)
	}
}
