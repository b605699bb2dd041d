package diag

import (
	"fmt"
	"math"
	"testing"

	"sardonics/internal/memtest"
)

// sameBits compares with NaNs equal.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

func sameDiagnostics(a, b Diagnostics) bool {
	return fmt.Sprint(a) == fmt.Sprint(b) && sameBits(a.BulkESS, b.BulkESS) && sameBits(a.TailESS, b.TailESS) &&
		sameBits(a.Rhat, b.Rhat) && sameBits(a.BulkRhat, b.BulkRhat) && sameBits(a.TailRhat, b.TailRhat)
}

// Chains back to back in one array (as the summary passes its own series)
// are diagnosed in place, bit for bit as copies of them are, and as the
// reference does; odd lengths, a shorter chain and the middle draws of odd
// chains (which the median and quantiles count) take the copying path.
func TestDiagnoseJoined(t *testing.T) {
	for _, nc := range []int{1, 2, 3} {
		for _, n := range []int{12, 13, 400, 1001} {
			for _, tie := range []bool{false, true} {
				flat := make([]float64, 0, nc*n)
				var sep [][]float64
				for k := range nc {
					c := ar1(n, 0.8, uint64(7*n+k))
					if tie {
						for i := range c {
							c[i] = math.Round(2 * c[i])
						}
					}
					flat = append(flat, c...)
					sep = append(sep, c)
				}
				joint := make([][]float64, nc)
				for k := range joint {
					joint[k] = flat[k*n : (k+1)*n]
				}
				if _, ok := joined(joint, n); ok != (n%2 == 0) {
					t.Errorf("%d chains of %d: joined %v", nc, n, ok)
				}
				want := diagnoseRef(sep)
				for _, got := range []Diagnostics{Diagnose(joint), Diagnose(sep)} {
					if !sameDiagnostics(got, want) {
						t.Errorf("%d chains of %d, ties %v: got %+v, want %+v", nc, n, tie, got, want)
					}
				}
				if nc > 1 { // a chain one draw longer: its last n are used, copied
					long := append([][]float64{append([]float64{0}, sep[0]...)}, sep[1:]...)
					if got := Diagnose(long); !sameDiagnostics(got, want) {
						t.Errorf("%d chains of %d, the first longer: got %+v, want %+v", nc, n, got, want)
					}
				}
			}
		}
	}
}

// sortedDraws gives every draw's order statistic, the middle draws of odd
// chains merged in, ties included.
func TestSortedDraws(t *testing.T) {
	x := []float64{3, 1, 2, 2, 5, 0}
	order := make([]int32, len(x))
	sortedOrder(x, order)
	for _, c := range []struct {
		middle, want []float64
	}{
		{nil, []float64{0, 1, 2, 2, 3, 5}},
		{[]float64{2}, []float64{0, 1, 2, 2, 2, 3, 5}},
		{[]float64{-1, 6}, []float64{-1, 0, 1, 2, 2, 3, 5, 6}},
		{[]float64{0, 4, 5}, []float64{0, 0, 1, 2, 2, 3, 4, 5, 5}},
	} {
		s := sortedDraws{x, order, c.middle}
		for k, w := range c.want {
			if got := s.at(k); got != w {
				t.Errorf("middle %v: at(%d) = %v, want %v", c.middle, k, got, w)
			}
		}
		if s.median() != medianSorted(c.want) || s.quantile7(0.05) != quantile7(c.want, 0.05) || s.quantile7(0.95) != quantile7(c.want, 0.95) {
			t.Errorf("middle %v: median or quantiles differ from the sorted array's", c.middle)
		}
	}
}

// TauACF is TauInt and ACF bit for bit (the reference ACF, at every lag),
// for series with and without ties, constant ones and a NaN.
func TestTauACF(t *testing.T) {
	cases := [][]float64{{1}, {1, 2}, {4, 4, 4, 4}, {1, math.NaN(), 3}}
	for _, n := range []int{12, 13, 1000, 4096} {
		x := ar1(n, 0.9, uint64(n))
		cases = append(cases, x)
		r := make([]float64, n)
		for i, v := range x {
			r[i] = math.Round(v)
		}
		cases = append(cases, r)
	}
	for _, x := range cases {
		full := acfRef(x, len(x)-1)
		wantTau, wantW := TauIntACF(full)
		for _, lag := range []int{-1, 0, 3, 500, len(x) + 5} {
			tau, w, rho := TauACF(x, lag)
			if !sameBits(tau, wantTau) || w != wantW {
				t.Errorf("%d draws, lag %d: tau %v window %d, want %v %d", len(x), lag, tau, w, wantTau, wantW)
			}
			if want := min(lag, len(x)-1) + 1; lag < 0 && rho != nil || lag >= 0 && len(rho) != want {
				t.Fatalf("%d draws, lag %d: %d autocorrelations", len(x), lag, len(rho))
			}
			for i, v := range rho {
				if !sameBits(v, full[i]) {
					t.Fatalf("%d draws, lag %d: rho(%d) = %v, want %v", len(x), lag, i, v, full[i])
				}
			}
		}
		if tau, w := TauInt(x); !sameBits(tau, wantTau) || w != wantW {
			t.Errorf("TauInt of %d draws: %v %d, want %v %d", len(x), tau, w, wantTau, wantW)
		}
	}
	if tau, w, rho := TauACF(nil, 5); !math.IsNaN(tau) || w != 0 || rho != nil {
		t.Errorf("empty series: %v %d %v", tau, w, rho)
	}
}

// The diagnostics' memory per draw: what Diagnose allocates from nothing
// kept (its work arrays and FFT plan) and again with them kept, and the
// same for TauACF. Every array as long as the draws counts, so a copy of
// the draws brought back (sorted, folded, the autocorrelations apart)
// fails it. Measured: 60 and 80 bytes a draw (80 and 88 before).
func TestDiagnoseMemory(t *testing.T) {
	const n = 1 << 16 // one chain: split chains of n/2, transforms of n points
	x := ar1(n, 0.9, 3)
	for i := range x {
		x[i] = math.Round(4 * x[i]) // ties, as energies have
	}
	chains := [][]float64{x}
	Release()
	first := memtest.Allocated(func() { Diagnose(chains) })
	again := memtest.Allocated(func() { Diagnose(chains) })
	if first > 62*n || again > 4096 {
		t.Errorf("Diagnose of %d draws allocated %d bytes (%.1f a draw), then %d; want at most 62 a draw, then 4096",
			n, first, float64(first)/n, again)
	}
	if b := Release(); b > 62*n {
		t.Errorf("Diagnose kept %d bytes (%.1f a draw)", b, float64(b)/n)
	}
	first = memtest.Allocated(func() { TauACF(x, 500) })
	again = memtest.Allocated(func() { TauACF(x, 500) })
	if first > 82*n || again > 8192 {
		t.Errorf("TauACF of %d draws allocated %d bytes (%.1f a draw), then %d; want at most 82 a draw, then 8192",
			n, first, float64(first)/n, again)
	}
	Release()
}
