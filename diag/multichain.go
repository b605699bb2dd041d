package diag

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// The multi-chain diagnostics below follow Vehtari, Gelman, Simpson,
// Carpenter and Bürkner, "Rank-normalization, folding, and localization: an
// improved R-hat for assessing convergence of MCMC", Bayesian Analysis 16
// (2021) 667-718, as their R package posterior (and Stan, ArviZ) computes
// them:
//
//   - Chains are cut to a common length n (the last n draws of each, n the
//     shortest chain's length; Stan requires equal lengths) and each is split
//     in two halves of floor(n/2) draws; an odd n drops the middle draw.
//   - Rank normalization: all split draws are ranked together (ties get their
//     average rank r) and mapped to z = Phi^-1((r - 3/8) / (S + 1/4)), S the
//     number of draws (Blom's offset, the paper's eq. 14).
//   - ESS of m split chains of n draws (the paper's section 3.2, Geyer 1992):
//     acov_j(t) is chain j's biased autocovariance sum_(i<n-t) y_i y_(i+t) / n,
//     W = mean_j acov_j(0) n/(n-1), var+ = W (n-1)/n + var(chain means), and
//     rho(t) = 1 - (W - mean_j acov_j(t)) / var+. Pairs rho(2k) + rho(2k+1)
//     are accepted while positive (Geyer's initial positive sequence, up to
//     lag n-3), made non-increasing (initial monotone sequence), and
//     tau = -1 + 2 sum_(t<T) rho(t) + max(rho(T), 0), T the first lag of the
//     first rejected pair (the last term is Stan's "improved estimate" for
//     antithetic chains). tau is bounded below by 1/log10(m n), so the ESS
//     m n / tau never exceeds m n log10(m n).
//   - Bulk ESS: ESS of the rank-normalized split chains. Tail ESS: the smaller
//     ESS of the split indicator chains I(x <= q05) and I(x <= q95), the
//     quantiles taken over all draws (R's type 7, numpy's default).
//   - R-hat: the larger of the bulk R-hat (classic potential scale reduction
//     sqrt(((n-1)/n W + B/n) / W) of the rank-normalized split chains) and the
//     tail R-hat (the same on the folded draws |x - median(x)|).
//
// A value that cannot be estimated is NaN, with the reason in the notes of
// Diagnose: fewer than MinSplitDraws draws per split chain, non-finite draws,
// or draws that are all equal (posterior returns NA for the last two; for
// the first see MinSplitDraws). R-hat is +Inf when the split chains are each
// constant but differ (chains stuck at different values).

// MinSplitDraws is the fewest draws per split chain (half a chain) for which
// the multi-chain ESS and R-hat are estimated; shorter chains give NaN. Below
// 6 draws, Geyer's sequence in Stan's estimator takes no step (it stops at
// lag n-3) and its ESS is m n / 2 whatever the draws.
const MinSplitDraws = 6

// Reasons a multi-chain diagnostic is NaN (or +Inf), as given in the notes of
// Diagnose.
var (
	NoteNoChains  = "no chains"
	NoteNonFinite = "non-finite draws"
	NoteConstant  = "all draws are equal: no variation to estimate"
)

// noteShort is the reason for chains shorter than 2 * MinSplitDraws.
func noteShort(m, n int) string {
	return fmt.Sprintf("fewer than %d draws per split chain (%d chains of %d draws)", MinSplitDraws, m, n)
}

// Diagnostics is the multi-chain summary of one scalar quantity.
type Diagnostics struct {
	Chains     int // chains given
	Draws      int // draws used per chain: the last Draws of each
	SplitDraws int // draws per split chain (half a chain)

	BulkESS float64 // ESS of the rank-normalized split chains
	TailESS float64 // min of the 5% and 95% quantile ESS

	Rhat     float64 // max(BulkRhat, TailRhat)
	BulkRhat float64 // rank-normalized split R-hat
	TailRhat float64 // the same on |x - median|

	// Why BulkESS, TailESS and Rhat are NaN or infinite; "" when finite.
	BulkNote, TailNote, RhatNote string
}

// Diagnose computes the bulk and tail ESS and the rank-normalized split
// R-hat of chains (one slice of draws per chain) as Stan does; see the
// comment at the top of this file. It does not modify chains.
func Diagnose(chains [][]float64) Diagnostics { return diagnose(chains, true, true) }

// DiagnoseBulk is Diagnose without the tail ESS (TailESS is NaN with a
// note), for summaries that report only the bulk ESS and R-hat: it skips
// two of Diagnose's three autocovariance transforms. The values it does
// compute are Diagnose's, bit for bit.
func DiagnoseBulk(chains [][]float64) Diagnostics { return diagnose(chains, false, true) }

// BulkOnly is the bulk ESS alone (Diagnose's, bit for bit), without R-hat's
// folded ranks and the tail ESS.
func BulkOnly(chains [][]float64) Diagnostics { return diagnose(chains, false, false) }

// NoteTailSkipped is TailNote when the tail ESS was not asked for.
const NoteTailSkipped = "tail ESS not computed (DiagnoseBulk)"

func diagnose(chains [][]float64, withTail, withRhat bool) Diagnostics {
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
	// The draws used are the last n of each chain (tail).
	tail := func(c []float64) []float64 { return c[len(c)-n:] }
	for _, c := range chains {
		for _, v := range tail(c) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fail(NoteNonFinite)
			}
		}
	}
	if d.SplitDraws < MinSplitDraws {
		return fail(noteShort(len(chains), n))
	}
	// The work arrays (each as long as the draws) are kept between calls
	// (until Release), and a value is computed in place of one no longer
	// needed, or from the draws where it is used: a summary of 10^6 draws
	// otherwise allocates about 1 GB, and each call held 80 bytes a draw
	// (60 now, with its FFT plan: TestDiagnoseMemory).
	sc := getScratch()
	defer putScratch(sc)
	m, h := 2*len(chains), d.SplitDraws
	split, ok := joined(chains, n)
	if !ok {
		split = sc.split.grow(m * h)[:0]
		for _, c := range chains {
			ch := tail(c)
			split = append(split, ch[:h]...)
			split = append(split, ch[n-h:]...)
		}
	}
	if constant(split) {
		return fail(NoteConstant)
	}

	// Bulk.
	order := sc.order.grow(len(split))
	z := sc.z.grow(len(split))
	sortedOrder(split, order)
	rankNormal(split, order, z)
	d.BulkESS = essBasic(z, m, h, sc)
	d.BulkRhat = rhat(z, m, h)
	if !withRhat {
		d.TailNote, d.RhatNote = NoteTailSkipped, "R-hat not computed (BulkOnly)"
		return d
	}

	// Tail R-hat on the draws folded about their median (of all n draws
	// of each chain, the middle one of an odd n included), z no longer
	// needed holding their ranks.
	var middle []float64
	if n%2 == 1 {
		for _, c := range chains {
			middle = append(middle, tail(c)[h])
		}
		slices.Sort(middle)
	}
	all := sortedDraws{split, order, middle}
	med := all.median()
	if constantFolded(split, med) {
		d.RhatNote = "draws folded about the median are all equal: no tail R-hat"
	} else {
		rankNormalFolded(split, med, foldOrder(split, order, med, sc.fold.grow(len(split))), z)
		d.TailRhat = rhat(z, m, h)
	}

	// Tail ESS: indicators of the 5% and 95% quantiles, in z.
	d.TailESS = math.Inf(1)
	ind := z
	quantiles := []float64{0.05, 0.95}
	if !withTail {
		d.TailESS, d.TailNote, quantiles = nan, NoteTailSkipped, nil
	}
	for _, p := range quantiles {
		q := all.quantile7(p)
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
		d.TailESS = math.Min(d.TailESS, essBasic(ind, m, h, sc))
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

// BulkESS is the bulk effective sample size of chains (Diagnose), NaN when it
// cannot be estimated.
func BulkESS(chains [][]float64) float64 { return Diagnose(chains).BulkESS }

// TailESS is the tail effective sample size of chains (Diagnose), NaN when it
// cannot be estimated.
func TailESS(chains [][]float64) float64 { return Diagnose(chains).TailESS }

// SplitRhat is the rank-normalized split R-hat of Vehtari et al. (2021), the
// larger of the bulk and the folded (tail) R-hat, as Stan computes it
// (Diagnose). It is NaN when it cannot be estimated (too short or constant
// chains, non-finite draws) and +Inf when the split chains are each constant
// but differ.
func SplitRhat(chains [][]float64) float64 { return Diagnose(chains).Rhat }

// constant reports whether all of x are equal (posterior's is_constant, whose
// tolerance is the machine epsilon).
func constant(x []float64) bool {
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi-lo < 0x1p-52
}

// constantFolded is constant of |x - med| without the array.
func constantFolded(x []float64, med float64) bool {
	lo := math.Abs(x[0] - med)
	hi := lo
	for _, v := range x {
		f := math.Abs(v - med)
		lo, hi = math.Min(lo, f), math.Max(hi, f)
	}
	return hi-lo < 0x1p-52
}

// joined is the split chains of chains cut to n draws when they need no
// copy: n even (the halves of a chain are the chain) and the chains of
// length n back to back in one array, as a summary's own series are; ok
// false otherwise.
func joined(chains [][]float64, n int) (x []float64, ok bool) {
	if n%2 != 0 || len(chains[0]) != n || cap(chains[0]) < len(chains)*n {
		return nil, false
	}
	x = chains[0][:len(chains)*n]
	for k, c := range chains {
		if len(c) != n || &c[0] != &x[k*n] {
			return nil, false
		}
	}
	return x, true
}

// sortedDraws is every draw of the chains in ascending order without a
// sorted copy: the split draws x in the order order, merged with the
// middle draws of chains of odd length (ascending; none for even lengths).
type sortedDraws struct {
	x      []float64
	order  []int32
	middle []float64
}

func (s sortedDraws) len() int { return len(s.order) + len(s.middle) }

// at is the k-th smallest draw (from 0). Middle draw j falls at index j
// plus the count of split draws below it (ties are equal values, so their
// order does not matter).
func (s sortedDraws) at(k int) float64 {
	before := 0
	for j, v := range s.middle {
		p := j + sort.Search(len(s.order), func(i int) bool { return s.x[s.order[i]] >= v })
		if p == k {
			return v
		}
		if p > k {
			break
		}
		before++
	}
	return s.x[s.order[k-before]]
}

// median is medianSorted of the draws.
func (s sortedDraws) median() float64 { return medianAt(s.len(), s.at) }

// quantile7 is quantile7 of the draws.
func (s sortedDraws) quantile7(p float64) float64 { return quantileAt(s.len(), s.at, p) }

// essBasic is the effective sample size of m chains of n draws stored back to
// back in x (the paper's section 3.2 with Geyer's initial monotone sequence).
// x must not be constant and n must be at least 2.
func essBasic(x []float64, m, n int, sc *scratch) float64 {
	means := make([]float64, m)
	for k := range means {
		means[k] = meanOf(x[k*n : (k+1)*n])
	}
	acov := meanAutocov(x, m, n, sc)
	meanVar := acov[0] * float64(n) / float64(n-1)
	varPlus := meanVar*float64(n-1)/float64(n) + sampleVar(means)
	r := func(t int) float64 { return 1 - (meanVar-acov[t])/varPlus }

	// Geyer's initial positive sequence: pairs (2k, 2k+1) while positive,
	// rho(t) in place of acov(t) once read (r(t) reads only acov(t); a
	// rejected pair counts as 0).
	rho := acov
	even, odd := 1.0, r(1)
	rho[0], rho[1] = 1, odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even, odd = r(t), r(t+1)
		rho[t], rho[t+1] = 0, 0
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

// meanAutocov returns the mean over m chains of n draws, stored back to back
// in x, of their biased autocovariances acov_j(t) = sum_(i<n-t) y_i y_(i+t) / n,
// y = x_j - mean(x_j), for t < n: by FFT on zero-padded copies (length >= 2n,
// so no circular wrap), the chains' power spectra summed before one inverse
// transform.
func meanAutocov(x []float64, m, n int, sc *scratch) []float64 {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	fft := getFFT(size)
	defer putFFT(size, fft)
	y, c := sc.fft(size)
	// The summed power spectrum, real (its imaginary parts are +0 sums of
	// +0s), in sc.pw.
	power := sc.pw.grow(size/2 + 1)
	clear(power)
	for k := 0; k < m; k++ {
		ch := x[k*n : (k+1)*n]
		mu := meanOf(ch)
		for i, v := range ch {
			y[i] = v - mu
		}
		clear(y[n:])
		c = fft.Coefficients(c, y)
		for i, v := range c {
			power[i] += real(v)*real(v) + imag(v)*imag(v)
		}
	}
	for i, p := range power {
		c[i] = complex(p, 0)
	}
	out := fft.Sequence(y, c) // size * sum_j sum_i y_i y_(i+t)
	scale := 1 / (float64(size) * float64(n) * float64(m))
	for t := 0; t < n; t++ {
		out[t] *= scale
	}
	return out[:n]
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// sampleVar is the variance with denominator len-1: exactly 0 for equal
// values (and for one value).
func sampleVar(x []float64) float64 {
	if len(x) < 2 || constant(x) {
		return 0
	}
	mu := meanOf(x)
	s := 0.0
	for _, v := range x {
		s += (v - mu) * (v - mu)
	}
	return s / float64(len(x)-1)
}

// rhat is the classic potential scale reduction of m chains of length n
// stored back to back: sqrt(((n-1)/n W + B/n) / W), W the mean within-chain
// variance and B/n the variance of the chain means. It is +Inf when every
// chain is constant but they differ.
func rhat(x []float64, m, n int) float64 {
	means := make([]float64, m)
	w := 0.0
	for k := 0; k < m; k++ {
		c := x[k*n : (k+1)*n]
		means[k] = meanOf(c)
		w += sampleVar(c) / float64(m)
	}
	b := float64(n) * sampleVar(means)
	if w == 0 {
		if b == 0 {
			return math.NaN()
		}
		return math.Inf(1)
	}
	return math.Sqrt((float64(n-1)/float64(n)*w + b/float64(n)) / w)
}

// sortedOrder sets order to the indices of x in ascending order of their
// values (ties in any order).
func sortedOrder(x []float64, order []int32) {
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(x[a], x[b]) })
}

// rankNormal sets z to the normal scores of the pooled ranks of x (ties get
// the average rank): z = Phi^-1((r - 3/8) / (S + 1/4)), Blom's offset as in
// the paper; order lists the indices of x in ascending order of their
// values.
func rankNormal(x []float64, order []int32, z []float64) { rankScores(plain(x), order, z) }

// rankNormalFolded is rankNormal of |x - med|, order listing the indices
// in ascending order of those, without the array of them.
func rankNormalFolded(x []float64, med float64, order []int32, z []float64) {
	rankScores(folded{x, med}, order, z)
}

// The values rankScores ranks: the draws, or their distances from the
// median (a type each, so that the compiler makes each a loop of its own).
type (
	plain  []float64
	folded struct {
		x   []float64
		med float64
	}
)

func (x plain) at(i int32) float64  { return x[i] }
func (f folded) at(i int32) float64 { return math.Abs(f.x[i] - f.med) }

func rankScores[V interface{ at(int32) float64 }](x V, order []int32, z []float64) {
	s := len(order)
	for i := 0; i < s; {
		j := i
		for j+1 < s && x.at(order[j+1]) == x.at(order[i]) {
			j++
		}
		r := float64(i+j)/2 + 1 // average 1-based rank of the tie group
		q := distuv.UnitNormal.Quantile((r - 0.375) / (float64(s) + 0.25))
		for k := i; k <= j; k++ {
			z[order[k]] = q
		}
		i = j + 1
	}
}

// foldOrder sets out to the indices of x in ascending order of |x - med|,
// given them in ascending order of x: a merge of the draws above the median
// (ascending) with those below it (descending), O(len(x)). It returns out.
func foldOrder(x []float64, order []int32, med float64, out []int32) []int32 {
	lo := sort.Search(len(order), func(i int) bool { return x[order[i]] >= med })
	out = out[:0]
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

// quantile7 is the p-quantile of sorted data by linear interpolation between
// order statistics (Hyndman and Fan's type 7: R's and numpy's default).
func quantile7(sorted []float64, p float64) float64 {
	return quantileAt(len(sorted), func(i int) float64 { return sorted[i] }, p)
}

// quantileAt is quantile7 of the n values whose i-th smallest is at(i).
func quantileAt(n int, at func(int) float64, p float64) float64 {
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= n {
		return at(n - 1)
	}
	return at(lo) + (h-float64(lo))*(at(lo+1)-at(lo))
}

// medianSorted is the median of sorted data, the mean of the two middle
// values for an even length (as R and numpy compute it).
func medianSorted(s []float64) float64 {
	return medianAt(len(s), func(i int) float64 { return s[i] })
}

// medianAt is medianSorted of the n values whose i-th smallest is at(i).
func medianAt(n int, at func(int) float64) float64 {
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}

// scratch holds the work arrays of Diagnose and ACF, reused from call to
// call (spare): the pooled summaries of long traces call Diagnose
// several times on arrays as long as the traces.
type scratch struct {
	split, z, pw, y floats
	order, fold     int32s
	c               []complex128
}

type floats []float64
type int32s []int32

// grow returns *f with length n, reallocated if too short.
func (f *floats) grow(n int) []float64 {
	if cap(*f) < n {
		*f = make([]float64, n)
	}
	*f = (*f)[:n]
	return *f
}

func (f *int32s) grow(n int) []int32 {
	if cap(*f) < n {
		*f = make([]int32, n)
	}
	*f = (*f)[:n]
	return *f
}

// fft returns an FFT's input y (size reals) and its coefficients c
// (size/2+1 complex). They could share one array (fftpack's packing of
// the spectrum is the complex array shifted by one float64), but y then
// starts 8 bytes past c, and the transforms ran 25% slower in sample's
// process.
func (sc *scratch) fft(size int) (y []float64, c []complex128) {
	if cap(sc.c) < size/2+1 {
		sc.c = make([]complex128, size/2+1)
	}
	return sc.y.grow(size), sc.c[:size/2+1]
}

// bytes is the memory sc holds.
func (sc *scratch) bytes() int {
	return 8*(cap(sc.split)+cap(sc.z)+cap(sc.pw)+cap(sc.y)) + 4*(cap(sc.order)+cap(sc.fold)) + 16*cap(sc.c)
}

// spare is the one scratch kept between calls (a sync.Pool would keep
// one per processor, each as long as the traces); a call that finds it
// taken works on a fresh one.
var spare struct {
	sync.Mutex
	sc *scratch
}

func getScratch() *scratch {
	spare.Lock()
	defer spare.Unlock()
	sc := spare.sc
	spare.sc = nil
	if sc == nil {
		sc = new(scratch)
	}
	return sc
}

func putScratch(sc *scratch) {
	spare.Lock()
	spare.sc = sc
	spare.Unlock()
}
