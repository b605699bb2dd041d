package summary

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sardonics/diag"
	"sardonics/replica"
)

// qChains are chains of n draws of q: AR(1) with coefficient phi about a
// sign that flips with probability flip a draw, q = sign*c + noise*x_t.
func qChains(seed uint64, chains, n int, c, noise, phi, flip float64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([][]float64, chains)
	for i := range out {
		x, sign := r.NormFloat64(), 1.0
		for range n {
			x = phi*x + math.Sqrt(1-phi*phi)*r.NormFloat64()
			if r.Float64() < flip {
				sign = -sign
			}
			out[i] = append(out[i], sign*c+noise*x)
		}
	}
	return out
}

// squares is q^2 of every draw, in a new array.
func squares(q [][]float64) [][]float64 {
	out := make([][]float64, len(q))
	for i, x := range q {
		for _, v := range x {
			out[i] = append(out[i], v*v)
		}
	}
	return out
}

// The Binder ratio is its definition, (3 - <q^4>/<q^2>^2)/2 over the
// draws, with exact moments when given; 0 for a Gaussian q, 1 for q = +-c
// (no error: every Z is 0); and its delta-method standard error is the
// spread of g over independent repetitions, correlated draws included.
func TestBinderDeltaMethod(t *testing.T) {
	// The definition.
	q := qChains(1, 3, 5000, 0.4, 0.3, 0.6, 0.01)
	var s2, s4 float64
	n := 0
	for _, x := range q {
		for _, v := range x {
			s2 += v * v
			s4 += v * v * v * v
			n++
		}
	}
	a, b := s2/float64(n), s4/float64(n)
	want := (3 - b/(a*a)) / 2
	if g := binderEstimate(rows(q), squares(q), nil); math.Abs(g.Mean-want) > 1e-12 || !(g.Stderr > 0) || !(g.ESS > 0) || !(g.Rhat > 0.9) {
		t.Errorf("g = %+v, want mean %v", g, want)
	}
	if g := binderEstimate(rows(q), squares(q), &[2]float64{0.2, 0.05}); math.Abs(g.Mean-(3-0.05/0.04)/2) > 1e-15 {
		t.Errorf("g from exact moments %v, want %v", g.Mean, (3-0.05/0.04)/2)
	}
	// Gaussian q: g = 0 within its error; q = +-c: g = 1 exactly.
	gauss := squares(qChains(2, 4, 20000, 0, 1, 0.5, 0))
	if g := binderEstimate(gauss, gauss, nil); math.Abs(g.Mean) > 4*g.Stderr || g.Stderr > 0.02 {
		t.Errorf("Gaussian q: g = %v +- %v, want 0", g.Mean, g.Stderr)
	}
	pm := qChains(3, 2, 1000, 0.5, 0, 0, 0.3)
	if g := binderEstimate(rows(pm), squares(pm), nil); g.Mean != 1 || g.Stderr != 0 && !math.IsNaN(g.Stderr) {
		t.Errorf("q = +-0.5: g = %v +- %v, want 1 without error", g.Mean, g.Stderr)
	}
	// The error: the spread of g over 200 repetitions of 4 chains of 2000
	// draws against the mean reported error. Independent draws match to
	// sampling error (about 5% for 200 repetitions). Correlated ones
	// (tau_int of x about 4) come out 10-20% high: the bulk ESS is that of
	// the rank-normalized Z, which for q = c + 0.25 x is nearly monotone in
	// x and so has x's autocorrelation, while Z itself, part linear and
	// part quadratic in x, decorrelates faster: the error errs on the safe
	// side, as it does for C and chi.
	for _, c := range []struct{ phi, lo, hi float64 }{{0, 0.9, 1.1}, {0.6, 0.95, 1.35}} {
		var gs, ses []float64
		for rep := range 200 {
			q := qChains(uint64(100+rep), 4, 2000, 0.3, 0.25, c.phi, 0.002)
			g := binderEstimate(rows(q), squares(q), nil)
			gs, ses = append(gs, g.Mean), append(ses, g.Stderr)
		}
		sd, se := math.Sqrt(diag.SampleVariance(gs)), mean(ses)
		t.Logf("AR(1) %v: g = %.4f: spread over repetitions %.4g, mean delta-method error %.4g (ratio %.3f)", c.phi, mean(gs), sd, se, se/sd)
		if r := se / sd; r < c.lo || r > c.hi {
			t.Errorf("AR(1) %v: delta-method error %.4g against the spread %.4g over repetitions: ratio %.3f outside [%v, %v]", c.phi, se, sd, r, c.lo, c.hi)
		}
	}
	// <q^2> = 0 has no ratio.
	zero := [][]float64{make([]float64, 100)}
	if g := binderEstimate(rows(zero), zero, nil); !math.IsNaN(g.Mean) || g.MeanNote == "" {
		t.Errorf("q = 0: g = %+v, want NaN with a note", g)
	}
}

// rungTrial is a replica trial of 3 rungs and two sets, its target's
// overlap and its rungs' rounds recorded as the runner records them,
// capacity draws kept of each.
func rungTrial(tn, steps, burn, capacity int, seed uint64) *TrialRecord {
	r := ar1Trial(tn, steps, 0.5, -3, seed)
	q := qChains(seed, 1, steps, 0.5, 0.2, 0.5, 0.01)[0]
	r.Overlap = q
	r.Observables = &TrialObservables{Spins: 64, Beta: 1}
	r.Rungs = NewRungTrace(3, 2, capacity)
	g := rand.New(rand.NewPCG(seed, 3))
	for s := burn + 2; s <= steps; s += 2 {
		r.Rungs.Add(s, []float64{-1 + g.NormFloat64(), -2 + g.NormFloat64(), r.Energies[s-1]}, []float64{0.1 * g.NormFloat64(), 0.3 * g.NormFloat64(), q[s-1]})
	}
	return r
}

// Every rung's statistics: each rung's mean energy and <q^2> are the
// exact means of every round, also when the kept rounds were thinned; the
// target's q^2, |q|, g and chi_SG are those of its overlap draws.
func TestRungStatistics(t *testing.T) {
	const steps, burn = 4000, 400
	for _, capacity := range []int{4096, 64} {
		recs := []*TrialRecord{rungTrial(0, steps, burn, capacity, 1), rungTrial(1, steps, burn, capacity, 2)}
		res := Summarize("s", recs, steps, burn, 1)
		rp := res.Replica
		if rp != nil {
			t.Fatal("a trial without a replica report has a replica summary")
		}
		for _, r := range recs {
			r.Replica = replicaReport(3)
		}
		rp = Summarize("s", recs, steps, burn, 1).Replica
		if rp == nil || len(rp.PerRung) != 3 || rp.Q2 == nil || rp.ChiSG == nil || rp.Binder == nil || rp.AbsQ == nil {
			t.Fatalf("replica summary %+v", rp)
		}
		if capacity == 64 && recs[0].Rungs.Thinning.Every < 2 {
			t.Fatalf("cap 64: rounds not thinned: %+v", recs[0].Rungs.Thinning)
		}
		for k, x := range rp.PerRung {
			var e, q2 []float64
			for i, r := range recs {
				g := rand.New(rand.NewPCG(uint64(i+1), 3))
				for s := burn + 2; s <= steps; s += 2 {
					es := []float64{-1 + g.NormFloat64(), -2 + g.NormFloat64(), r.Energies[s-1]}
					qs := []float64{0.1 * g.NormFloat64(), 0.3 * g.NormFloat64(), r.Overlap[s-1]}
					e, q2 = append(e, es[k]), append(q2, qs[k]*qs[k])
				}
			}
			if m := mean(e); math.Abs(x.Energy.Mean-m) > 1e-12*math.Abs(m) || !(x.Energy.Stderr > 0) {
				t.Errorf("cap %d rung %d: E = %v +- %v, every round's mean %v", capacity, k, x.Energy.Mean, x.Energy.Stderr, m)
			}
			if m := mean(q2); math.Abs(x.Q2.Mean-m) > 1e-12*m || !(x.Binder.Stderr > 0) {
				t.Errorf("cap %d rung %d: q^2 = %v, every round's mean %v; g %+v", capacity, k, x.Q2.Mean, m, x.Binder)
			}
			if x.Beta != rp.Ladder[k] {
				t.Errorf("rung %d: beta %v, ladder %v", k, x.Beta, rp.Ladder)
			}
		}
		if rp.ChiSG.Mean != 64*rp.Q2.Mean || rp.ChiSG.Stderr != 64*rp.Q2.Stderr || rp.ChiSG.ESS != rp.Q2.ESS {
			t.Errorf("chi_SG %+v, q^2 %+v", rp.ChiSG, rp.Q2)
		}
		tab := ReplicaTable([]*Result{{Sampler: "s", Replica: rp}})
		for _, w := range []string{"q^2", "g Binder", "chi_SG", "rung", "<q^2>", "(N = 64)"} {
			if !strings.Contains(tab, w) {
				t.Errorf("table lacks %q:\n%s", w, tab)
			}
		}
		if capacity == 4096 {
			var q2 []float64
			for _, r := range recs {
				for _, v := range r.Overlap[burn:] {
					q2 = append(q2, v*v)
				}
			}
			if m := mean(q2); math.Abs(rp.Q2.Mean-m) > 1e-12*m {
				t.Errorf("target q^2 %v, the mean of the draws %v", rp.Q2.Mean, m)
			}
		}
	}
}

func mean(x []float64) float64 { return pooledMean([][]float64{x}) }

// replicaReport is a trial's report of a ladder of k rungs from beta 0.5
// to 2.
func replicaReport(k int) *replica.Report {
	return &replica.Report{Ladder: replica.Geometric(0.5, 2, k), Sets: 2, SwapAcceptance: make([]*float64, k-1)}
}

// A trial folder's rungs.csv reads back as written; a row of another
// round or of a step out of order, a short row or a missing row is
// refused with its file and line.
func TestRungsFileChecked(t *testing.T) {
	dir := t.TempDir()
	r := rungTrial(0, 3000, 300, 64, 1)
	round := r.Rungs.Thinning.Step
	if err := WriteTrial(dir, r); err != nil {
		t.Fatal(err)
	}
	td := TrialDir(dir, "s", 0)
	back, err := ReadTrial(td)
	if err != nil {
		t.Fatal(err)
	}
	if rt := back.Rungs; rt == nil || rt.Thinning != r.Rungs.Thinning || len(rt.Steps) != len(r.Rungs.Steps) || rt.E[2][5] != r.Rungs.E[2][5] || rt.Q[1][7] != r.Rungs.Q[1][7] {
		t.Fatalf("read back %+v", back.Rungs)
	}
	path := filepath.Join(td, RungsFile)
	orig, _ := os.ReadFile(path)
	lines := strings.Split(string(orig), "\n")
	for _, c := range []struct {
		edit func(l []string) []string
		want string
	}{
		{func(l []string) []string { // step 3 of row 3 set to row 2's
			f := strings.SplitN(l[3], ",", 3)
			g := strings.SplitN(l[2], ",", 3)
			l[3] = f[0] + "," + g[1] + "," + f[2]
			return l
		}, fmt.Sprintf("rungs.csv:4: round %d ended at step %d", round(2), r.Rungs.Steps[1])},
		{func(l []string) []string { // another round
			f := strings.SplitN(l[5], ",", 2)
			l[5] = "7," + f[1]
			return l
		}, fmt.Sprintf("rungs.csv:6: row of round 7, expected round %d", round(4))},
		{func(l []string) []string { l[2] = l[2][:strings.LastIndex(l[2], ",")]; return l }, "rungs.csv:3: 7 values (expected 8"},
		{func(l []string) []string { return append(l[:4], l[5:]...) }, fmt.Sprintf("rungs.csv:5: row of round %d, expected round %d", round(4), round(3))},
		{func(l []string) []string { return l[:len(l)-2] }, "rows, but stats.json's rungs.thinning says"},
	} {
		l := c.edit(append([]string(nil), lines...))
		if err := os.WriteFile(path, []byte(strings.Join(l, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTrial(td); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
