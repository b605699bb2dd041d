package diag

// The diagnostics as they were before their work arrays were pooled and
// reused (commit 755c182), kept as the reference that TestLeanDiagnose
// compares the lean ones with, bit for bit.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func diagnoseRef(chains [][]float64) Diagnostics {
	d := Diagnostics{Chains: len(chains)}
	nan := math.NaN()
	d.BulkESS, d.TailESS, d.Rhat, d.BulkRhat, d.TailRhat = nan, nan, nan, nan, nan
	fail := func(note string) Diagnostics {
		d.BulkNote, d.TailNote, d.RhatNote = note, note, note
		return d
	}
	if len(chains) == 0 {
		return fail(NoteNoChains)
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	d.Draws, d.SplitDraws = n, n/2
	x := make([]float64, 0, len(chains)*n) // the draws used, chain after chain
	for _, c := range chains {
		x = append(x, c[len(c)-n:]...)
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fail(NoteNonFinite)
		}
	}
	if d.SplitDraws < MinSplitDraws {
		return fail(noteShort(len(chains), n))
	}
	m, h := 2*len(chains), d.SplitDraws
	split := splitChainsRef(x, len(chains), n)
	if constant(split) {
		return fail(NoteConstant)
	}

	// Bulk.
	z, order := rankNormalRef(split, nil)
	d.BulkESS = essBasicRef(z, m, h)
	d.BulkRhat = rhat(z, m, h)

	// Tail R-hat on the draws folded about their median.
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	med := medianSorted(sorted)
	fs := make([]float64, len(split))
	for i, v := range split {
		fs[i] = math.Abs(v - med)
	}
	if constant(fs) {
		d.RhatNote = "draws folded about the median are all equal: no tail R-hat"
	} else {
		zf, _ := rankNormalRef(fs, foldOrderRef(split, order, med))
		d.TailRhat = rhat(zf, m, h)
	}

	// Tail ESS: indicators of the 5% and 95% quantiles.
	d.TailESS = math.Inf(1)
	ind := make([]float64, len(split))
	for _, p := range []float64{0.05, 0.95} {
		q := quantile7(sorted, p)
		for i, v := range split {
			ind[i] = 0
			if v <= q {
				ind[i] = 1
			}
		}
		if constant(ind) {
			d.TailESS = nan
			d.TailNote = fmt.Sprintf("indicator of the %g%% quantile is constant: too few distinct values for a tail ESS", 100*p)
			break
		}
		d.TailESS = math.Min(d.TailESS, essBasicRef(ind, m, h))
	}

	switch {
	case math.IsNaN(d.BulkRhat) || math.IsNaN(d.TailRhat):
		d.Rhat = nan // R's max(bulk, NA) is NA
	default:
		d.Rhat = math.Max(d.BulkRhat, d.TailRhat)
	}
	if math.IsInf(d.Rhat, 1) {
		d.RhatNote = "zero variance within the split chains while they differ: the chains are stuck at different values"
	}
	return d
}

func splitChainsRef(x []float64, c, n int) []float64 {
	h := n / 2
	out := make([]float64, 0, 2*c*h)
	for k := 0; k < c; k++ {
		ch := x[k*n : (k+1)*n]
		out = append(out, ch[:h]...)
		out = append(out, ch[n-h:]...)
	}
	return out
}

func essBasicRef(x []float64, m, n int) float64 {
	means := make([]float64, m)
	for k := range means {
		means[k] = meanOf(x[k*n : (k+1)*n])
	}
	acov := meanAutocovRef(x, m, n)
	meanVar := acov[0] * float64(n) / float64(n-1)
	varPlus := meanVar*float64(n-1)/float64(n) + sampleVar(means)
	r := func(t int) float64 { return 1 - (meanVar-acov[t])/varPlus }

	// Geyer's initial positive sequence: pairs (2k, 2k+1) while positive.
	rho := make([]float64, n)
	rho[0] = 1
	even, odd := 1.0, r(1)
	rho[1] = odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even, odd = r(t), r(t+1)
		if even+odd >= 0 {
			rho[t], rho[t+1] = even, odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even // the improved estimate's last term
	}
	// Geyer's initial monotone sequence.
	for t := 2; t <= maxT-2; t += 2 {
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	// tau = -1 + 2 sum_(t<maxT) rho(t) + rho(maxT); with maxT = 0 (no pair
	// accepted beyond the first) posterior's sum covers rho(0) alone.
	s := 0.0
	for t := 0; t < max(maxT, 1); t++ {
		s += rho[t]
	}
	tau := -1 + 2*s + rho[maxT]
	total := float64(m * n)
	tau = math.Max(tau, 1/math.Log10(total))
	return total / tau
}

func meanAutocovRef(x []float64, m, n int) []float64 {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	fft := getFFT(size)
	defer putFFT(size, fft)
	y := make([]float64, size)
	var c []complex128
	power := make([]complex128, size/2+1)
	for k := 0; k < m; k++ {
		ch := x[k*n : (k+1)*n]
		mu := meanOf(ch)
		for i, v := range ch {
			y[i] = v - mu
		}
		clear(y[n:])
		c = fft.Coefficients(c, y)
		for i, v := range c {
			power[i] += complex(real(v)*real(v)+imag(v)*imag(v), 0)
		}
	}
	out := fft.Sequence(y, power) // size * sum_j sum_i y_i y_(i+t)
	scale := 1 / (float64(size) * float64(n) * float64(m))
	for t := 0; t < n; t++ {
		out[t] *= scale
	}
	return out[:n]
}

func rankNormalRef(x []float64, order []int) (z []float64, _ []int) {
	s := len(x)
	if order == nil {
		order = make([]int, s)
		for i := range order {
			order[i] = i
		}
		// Unstable is fine: a tie group gets one rank whatever its order.
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	}
	z = make([]float64, s)
	for i := 0; i < s; {
		j := i
		for j+1 < s && x[order[j+1]] == x[order[i]] {
			j++
		}
		r := float64(i+j)/2 + 1 // average 1-based rank of the tie group
		q := distuv.UnitNormal.Quantile((r - 0.375) / (float64(s) + 0.25))
		for k := i; k <= j; k++ {
			z[order[k]] = q
		}
		i = j + 1
	}
	return z, order
}

func foldOrderRef(x []float64, order []int, med float64) []int {
	lo := sort.Search(len(order), func(i int) bool { return x[order[i]] >= med })
	out := make([]int, 0, len(order))
	a, b := lo-1, lo // below the median walking down, at or above walking up
	for a >= 0 || b < len(order) {
		if b >= len(order) || (a >= 0 && med-x[order[a]] < x[order[b]]-med) {
			out = append(out, order[a])
			a--
		} else {
			out = append(out, order[b])
			b++
		}
	}
	return out
}

func acfRef(x []float64, maxLag int) []float64 {
	n := len(x)
	if n == 0 || maxLag < 0 {
		return nil
	}
	maxLag = min(maxLag, n-1)
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	y := make([]float64, size)
	for i, v := range x {
		y[i] = v - mean
	}
	fft := getFFT(size)
	defer putFFT(size, fft)
	c := fft.Coefficients(nil, y)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	acov := fft.Sequence(y, c) // unnormalized: size * sum_i y_i y_(i+t)
	rho := make([]float64, maxLag+1)
	rho[0] = 1
	if !(acov[0] > 0) {
		if math.IsNaN(acov[0]) {
			for t := range rho {
				rho[t] = math.NaN()
			}
		}
		return rho
	}
	for t := 1; t <= maxLag; t++ {
		rho[t] = acov[t] / acov[0]
	}
	return rho
}

// TestLeanDiagnose compares Diagnose and ACF with the reference
// implementations bit for bit, on chains with and without ties, of odd
// and even lengths, one and several, and unequal lengths (cut to the
// shortest), twice in a row (the second reusing the pooled arrays).
func TestLeanDiagnose(t *testing.T) {
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, nc := range []int{1, 2, 3} {
		for _, n := range []int{12, 13, 200, 1001, 4096} {
			for _, tie := range []bool{false, true} {
				var chains [][]float64
				for k := range nc {
					c := ar1(n+k*3, 0.8, uint64(100*n+10*k+nc))
					if tie {
						for i := range c {
							c[i] = math.Round(2 * c[i])
						}
					}
					chains = append(chains, c)
				}
				want := diagnoseRef(chains)
				for rep := range 2 {
					got := Diagnose(chains)
					if fmt.Sprint(got) != fmt.Sprint(want) || !same(got.BulkESS, want.BulkESS) || !same(got.TailESS, want.TailESS) ||
						!same(got.Rhat, want.Rhat) || !same(got.BulkRhat, want.BulkRhat) || !same(got.TailRhat, want.TailRhat) {
						t.Errorf("%d chains of %d, ties %v, call %d: got %+v, want %+v", nc, n, tie, rep, got, want)
					}
				}
				x := chains[0]
				for _, lag := range []int{0, 5, len(x) - 1} {
					got, want := ACF(x, lag), acfRef(x, lag)
					for i := range want {
						if !same(got[i], want[i]) {
							t.Fatalf("ACF(%d draws, %d) lag %d: %v, want %v", len(x), lag, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
