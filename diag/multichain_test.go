package diag

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func ar1Chains(m, n int, phi float64, seed uint64) [][]float64 {
	ch := make([][]float64, m)
	for k := range ch {
		ch[k] = ar1(n, phi, seed+uint64(k))
	}
	return ch
}

// The bulk ESS of AR(1) chains is close to m n / tau, tau = (1+phi)/(1-phi)
// = 19 at phi = 0.9. (Over 60 seeds the ratio has median 1.00 and spread
// 5%, 3 of 60 outside 10%; this seed is fixed.)
func TestBulkESSAR1(t *testing.T) {
	const m, n, phi = 4, 20000, 0.9
	d := Diagnose(ar1Chains(m, n, phi, 1))
	want := float64(m*n) / ((1 + phi) / (1 - phi))
	if math.Abs(d.BulkESS-want) > 0.1*want {
		t.Errorf("bulk ESS %.0f, want %.0f within 10%%", d.BulkESS, want)
	}
	// Independent quantile indicators of a Gaussian AR(1) decorrelate
	// faster than the chain: the tail ESS exceeds the bulk one.
	if !(d.TailESS > d.BulkESS && d.TailESS < float64(m*n)) {
		t.Errorf("tail ESS %.0f, bulk %.0f", d.TailESS, d.BulkESS)
	}
	if !(d.Rhat < 1.01) {
		t.Errorf("R-hat %v on mixing chains", d.Rhat)
	}
	if d.Chains != m || d.Draws != n || d.SplitDraws != n/2 {
		t.Errorf("shape %+v", d)
	}
	// A single chain is split in halves: still an estimate.
	one := Diagnose(ar1Chains(1, 4*n, phi, 1))
	if math.Abs(one.BulkESS-want) > 0.15*want {
		t.Errorf("one chain of %d: bulk ESS %.0f, want about %.0f", 4*n, one.BulkESS, want)
	}
	// Independent draws: ESS about m n, not above m n log10(m n).
	iid := Diagnose(ar1Chains(m, 5000, 0, 7))
	if math.Abs(iid.BulkESS-4*5000) > 0.1*4*5000 {
		t.Errorf("iid: bulk ESS %.0f, want about %d", iid.BulkESS, 4*5000)
	}
}

// Chains that disagree: R-hat > 1.1 and an ESS far below that of the same
// chains without the shifts.
func TestShiftedMeans(t *testing.T) {
	ch := ar1Chains(4, 5000, 0.5, 11)
	base := Diagnose(ch)
	for k := range ch {
		for i := range ch[k] {
			ch[k][i] += 2 * float64(k)
		}
	}
	d := Diagnose(ch)
	if !(d.Rhat > 1.1) || !(d.BulkRhat > 1.1) {
		t.Errorf("R-hat %v (bulk %v), want > 1.1", d.Rhat, d.BulkRhat)
	}
	if !(d.BulkESS < 0.02*base.BulkESS && d.BulkESS < 100) {
		t.Errorf("bulk ESS %.1f (unshifted %.0f), want small", d.BulkESS, base.BulkESS)
	}
	if !(d.TailESS < 0.1*base.TailESS) {
		t.Errorf("tail ESS %.1f (unshifted %.0f), want small", d.TailESS, base.TailESS)
	}
	if !(base.Rhat < 1.01) {
		t.Errorf("unshifted R-hat %v", base.Rhat)
	}
}

func TestSplitRhat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	iid := make([][]float64, 4)
	for k := range iid {
		iid[k] = make([]float64, 1000)
		for i := range iid[k] {
			iid[k][i] = r.NormFloat64()
		}
	}
	if rh := SplitRhat(iid); !(rh > 0.99 && rh < 1.02) {
		t.Errorf("iid chains: R-hat = %v, want about 1", rh)
	}
	shifted := make([][]float64, 4)
	for k := range shifted {
		shifted[k] = make([]float64, 1000)
		for i := range shifted[k] {
			shifted[k][i] = iid[k][i] + float64(k)
		}
	}
	if rh := SplitRhat(shifted); !(rh > 1.1) {
		t.Errorf("chains with different means: R-hat = %v, want > 1.1", rh)
	}
	// Same mean, different spread: the bulk misses it, the folded one must not.
	wide := [][]float64{iid[0], iid[1], make([]float64, 1000), make([]float64, 1000)}
	for i := range wide[2] {
		wide[2][i] = 5 * iid[2][i]
		wide[3][i] = 5 * iid[3][i]
	}
	d := Diagnose(wide)
	if !(d.Rhat > 1.1) || !(d.BulkRhat < 1.05) || d.Rhat != d.TailRhat {
		t.Errorf("chains with different scales: R-hat = %v (bulk %v, tail %v), want the tail's > 1.1", d.Rhat, d.BulkRhat, d.TailRhat)
	}
	// A trend within one chain shows up through the split.
	trend := make([]float64, 1000)
	for i := range trend {
		trend[i] = float64(i) / 100
	}
	if rh := SplitRhat([][]float64{trend}); !(rh > 1.1) {
		t.Errorf("one trending chain: R-hat = %v, want > 1.1", rh)
	}
}

// Values that cannot be estimated are NaN with a reason, never 0, negative
// or huge.
func TestDegenerate(t *testing.T) {
	nanAll := func(name string, d Diagnostics, note string) {
		t.Helper()
		if !math.IsNaN(d.BulkESS) || !math.IsNaN(d.TailESS) || !math.IsNaN(d.Rhat) {
			t.Errorf("%s: bulk ESS %v, tail ESS %v, R-hat %v, want NaN", name, d.BulkESS, d.TailESS, d.Rhat)
		}
		for _, n := range []string{d.BulkNote, d.TailNote, d.RhatNote} {
			if !strings.Contains(n, note) {
				t.Errorf("%s: note %q, want %q", name, n, note)
			}
		}
	}
	nanAll("no chains", Diagnose(nil), NoteNoChains)
	nanAll("empty chains", Diagnose([][]float64{{}, {}}), "fewer than 6 draws per split chain")
	nanAll("3 draws", Diagnose([][]float64{{1, 2, 3}}), "fewer than 6 draws per split chain")
	nanAll("11 draws", Diagnose([][]float64{{1, 5, 2, 7, 3, 4, 9, 0, 6, 2, 5}, {2, 3, 1, 6, 5, 4, 8, 7, 1, 3, 0}}), "fewer than 6 draws per split chain")
	nanAll("one short chain", Diagnose([][]float64{ar1(100, 0.5, 1), {1, 2, 3}}), "fewer than 6 draws per split chain")
	nanAll("constant", Diagnose([][]float64{{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}), NoteConstant)
	c := make([]float64, 10000)
	for i := range c {
		c[i] = -1234.5
	}
	nanAll("long constant", Diagnose([][]float64{c, c, c, c}), NoteConstant)
	nanAll("one constant chain", Diagnose([][]float64{c}), NoteConstant)
	x := ar1(100, 0.5, 2)
	x[50] = math.NaN()
	nanAll("NaN draw", Diagnose([][]float64{x, ar1(100, 0.5, 3)}), NoteNonFinite)
	x[50] = math.Inf(-1)
	nanAll("Inf draw", Diagnose([][]float64{x}), NoteNonFinite)

	// The smallest estimable size gives finite, positive values.
	if d := Diagnose([][]float64{{1, 5, 2, 7, 3, 4, 9, 0, 6, 2, 5, 8}, {2, 3, 1, 6, 5, 4, 8, 7, 1, 3, 0, 9}}); !(d.BulkESS > 0 && d.BulkESS <= 24*math.Log10(24)) || math.IsNaN(d.Rhat) || math.IsNaN(d.TailESS) {
		t.Errorf("2 chains of 12: %+v", d)
	}

	// Chains stuck at different values: R-hat +Inf with a reason, a tiny
	// (finite) ESS.
	stuck := make([][]float64, 3)
	for k := range stuck {
		stuck[k] = make([]float64, 100)
		for i := range stuck[k] {
			stuck[k][i] = float64(k * k)
		}
	}
	d := Diagnose(stuck)
	if !math.IsInf(d.Rhat, 1) || d.RhatNote == "" {
		t.Errorf("stuck chains: R-hat %v (%q), want +Inf with a note", d.Rhat, d.RhatNote)
	}
	if !(d.BulkESS > 0 && d.BulkESS < 4) {
		t.Errorf("stuck chains: bulk ESS %v, want a few", d.BulkESS)
	}

	// Two values, split evenly about the median: the folded draws are
	// constant, so there is no tail R-hat (nor, as in Stan, an R-hat).
	two := [][]float64{{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1}, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1}}
	d = Diagnose(two)
	if !math.IsNaN(d.Rhat) || !strings.Contains(d.RhatNote, "folded") || math.IsNaN(d.BulkESS) || d.BulkNote != "" {
		t.Errorf("two-valued chains: %+v", d)
	}
	// The largest value at 95% or more of the draws leaves the 5% quantile
	// indicator constant: no tail ESS, but a bulk one.
	mostly := ar1(400, 0.3, 5)
	for i := range mostly {
		if i%50 != 0 {
			mostly[i] = 7
		}
	}
	d = Diagnose([][]float64{mostly})
	if !math.IsNaN(d.TailESS) || !strings.Contains(d.TailNote, "quantile") || math.IsNaN(d.BulkESS) {
		t.Errorf("draws mostly equal: %+v", d)
	}
}

// Chains of unequal length are cut to the last draws of the shortest; an odd
// length drops the middle draw from the split halves.
func TestLengths(t *testing.T) {
	a, b := ar1(1001, 0.6, 1), ar1(1500, 0.6, 2)
	d := Diagnose([][]float64{a, b})
	e := Diagnose([][]float64{a, b[500-1:]})
	if d != e || d.Draws != 1001 || d.SplitDraws != 500 {
		t.Errorf("unequal lengths: %+v, cut by hand %+v", d, e)
	}
	// Without the middle draw the split halves are the same, so are the
	// bulk values (the quantiles and the median use every draw).
	a2 := slices.Delete(slices.Clone(a), 500, 501)
	b2 := slices.Delete(slices.Clone(b[499:]), 500, 501)
	f := Diagnose([][]float64{a2, b2})
	if f.BulkESS != d.BulkESS || f.BulkRhat != d.BulkRhat {
		t.Errorf("odd length: bulk ESS %v R-hat %v, without the middle draw %v %v", d.BulkESS, d.BulkRhat, f.BulkESS, f.BulkRhat)
	}
	// Diagnose leaves its input alone.
	if a[0] != ar1(1001, 0.6, 1)[0] || len(a) != 1001 {
		t.Error("input modified")
	}
}

func TestQuantile7(t *testing.T) {
	s := []float64{1, 2, 4, 8, 16}
	// numpy.quantile([1,2,4,8,16], p) for these p.
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.05, 1.2}, {0.5, 4}, {0.95, 14.4}, {1, 16}} {
		if got := quantile7(s, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile7(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// The FFT autocovariance, averaged over chains, equals the direct sum.
func TestMeanAutocov(t *testing.T) {
	const m, n = 3, 301
	var x []float64
	for k := 0; k < m; k++ {
		x = append(x, ar1(n, 0.7, uint64(9+k))...)
	}
	got := meanAutocov(x, m, n, new(scratch))
	if len(got) != n {
		t.Fatalf("len %d", len(got))
	}
	for lag := 0; lag < n; lag += 7 {
		want := 0.0
		for k := 0; k < m; k++ {
			c := x[k*n : (k+1)*n]
			mu := meanOf(c)
			s := 0.0
			for i := 0; i+lag < n; i++ {
				s += (c[i] - mu) * (c[i+lag] - mu)
			}
			want += s / n / m
		}
		if math.Abs(got[lag]-want) > 1e-12 {
			t.Fatalf("acov(%d) = %v, want %v", lag, got[lag], want)
		}
	}
}

// The folded order from the merge ranks exactly as a fresh sort, ties
// (integer draws, draws at the median) included.
func TestFoldOrder(t *testing.T) {
	for _, round := range []bool{false, true} {
		x := ar1(2001, 0.5, 4)
		if round {
			for i := range x {
				x[i] = math.Round(3 * x[i])
			}
		}
		order := make([]int32, len(x))
		sortedOrder(x, order)
		s := slices.Clone(x)
		slices.Sort(s)
		med := medianSorted(s)
		f := make([]float64, len(x))
		for i, v := range x {
			f[i] = math.Abs(v - med)
		}
		got, want := make([]float64, len(x)), make([]float64, len(x))
		rankNormal(f, foldOrder(x, order, med, nil), got)
		fo := make([]int32, len(x))
		sortedOrder(f, fo)
		rankNormal(f, fo, want)
		if !slices.Equal(got, want) {
			t.Errorf("round=%v: folded ranks differ", round)
		}
	}
}

// TestDiagnoseBulkIsDiagnose: the lighter diagnostics compute what they
// report exactly as Diagnose does, and say what they skipped.
func TestDiagnoseBulkIsDiagnose(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range []int{1, 3} {
		chains := make([][]float64, m)
		for k := range chains {
			x, v := make([]float64, 1001+k), 0.0
			for i := range x {
				v = 0.9*v + r.NormFloat64()
				x[i] = v
			}
			chains[k] = x
		}
		full, bulk, only := Diagnose(chains), DiagnoseBulk(chains), BulkOnly(chains)
		if bulk.BulkESS != full.BulkESS || bulk.Rhat != full.Rhat || bulk.BulkRhat != full.BulkRhat || bulk.TailRhat != full.TailRhat {
			t.Errorf("m=%d: DiagnoseBulk %+v differs from Diagnose %+v", m, bulk, full)
		}
		if only.BulkESS != full.BulkESS || only.BulkRhat != full.BulkRhat {
			t.Errorf("m=%d: BulkOnly %+v differs from Diagnose %+v", m, only, full)
		}
		if !math.IsNaN(bulk.TailESS) || bulk.TailNote != NoteTailSkipped || !math.IsNaN(only.Rhat) || only.RhatNote == "" {
			t.Errorf("m=%d: skipped values not marked: %+v / %+v", m, bulk, only)
		}
		if math.IsNaN(full.TailESS) {
			t.Errorf("m=%d: Diagnose skipped its tail ESS", m)
		}
	}
}
