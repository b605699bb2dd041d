package logz

import (
	"math"
	"math/rand/v2"
	"testing"
)

// freeSpins are N independent spins in fields h, E = -sum_i h_i s_i: ln Z
// = sum_i ln(2 cosh(beta h_i)), and exact samples at any beta.
type freeSpins []float64

func (h freeSpins) lnZ(beta float64) float64 {
	s := 0.0
	for _, x := range h {
		s += math.Log(2 * math.Cosh(beta*x))
	}
	return s
}

func (h freeSpins) sample(r *rand.Rand, beta float64, p []float64) float64 {
	e := 0.0
	for i, x := range h {
		if r.Float64() < p[i] {
			e -= x
		} else {
			e += x
		}
	}
	return e
}

// energies are T trials of n exact samples at each rung.
func (h freeSpins) energies(r *rand.Rand, betas []float64, T, n int) [][][]float64 {
	out := make([][][]float64, T)
	for t := range out {
		out[t] = make([][]float64, len(betas))
		for k, b := range betas {
			p := make([]float64, len(h)) // P(s_i = +1)
			for i, x := range h {
				p[i] = 1 / (1 + math.Exp(-2*b*x))
			}
			for range n {
				out[t][k] = append(out[t][k], h.sample(r, b, p))
			}
		}
	}
	return out
}

// ladderCoverage is the share of reps replications of LadderBAR on exact
// samples of free spins (T = 8 ladders of 100 samples a rung) within 2 of
// their errors of the exact value, and their mean z.
func ladderCoverage(t *testing.T, r *rand.Rand, reps int) (frac, meanZ float64) {
	h := make(freeSpins, 20)
	for i := range h {
		h[i] = 0.5 * float64(1+i%3) // few energy levels: BAR's sums are quick
	}
	betas := []float64{0, 0.25, 0.5, 0.8, 1.2}
	want := h.lnZ(1.2) - h.lnZ(0)
	in2 := 0
	for range reps {
		got, se, err := LadderBAR(betas, h.energies(r, betas, 8, 100))
		if err != nil {
			t.Fatal(err)
		}
		z := (got - want) / se
		meanZ += z / float64(reps)
		if math.Abs(z) < 2 {
			in2++
		}
	}
	return float64(in2) / float64(reps), meanZ
}

// calibrated is the check: near the t distribution's 91% for 7 degrees of
// freedom, and unbiased.
func calibrated(frac, meanZ float64) bool {
	return frac > 0.85 && frac < 0.97 && math.Abs(meanZ) < 0.3
}

// TestLadderBARCalibrated: on exact samples of free spins, LadderBAR's
// estimate falls within 2 of its jackknife errors about as often as a t
// distribution with T - 1 = 7 degrees of freedom says (91%), over 300
// independent replications (bar_inject_test.go: a sign slip fails it).
func TestLadderBARCalibrated(t *testing.T) {
	frac, meanZ := ladderCoverage(t, rand.New(rand.NewPCG(1, 2)), 300)
	t.Logf("%.3f within 2 errors, mean error %.3f errors", frac, meanZ)
	if !calibrated(frac, meanZ) {
		t.Errorf("%.3f within 2 errors, mean error %.3f errors", frac, meanZ)
	}
}

// TestBAR: two states that differ by a constant (u1 = u0 + c) have df =
// c exactly, whatever the samples; and the root's equation holds.
func TestBAR(t *testing.T) {
	wF := []float64{1.5, 1.5, 1.5}
	wR := []float64{-1.5, -1.5}
	if d, err := BAR(wF, wR); err != nil || math.Abs(d-1.5) > 1e-12 {
		t.Errorf("constant shift: df %v, %v", d, err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	wF, wR = nil, nil
	for range 1000 {
		wF = append(wF, 2+r.NormFloat64())
		wR = append(wR, -1+r.NormFloat64())
	}
	d, err := BAR(wF, wR)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := barEq(plain(wF), plain(wR), -1, 0, d); math.Abs(h) > 1e-9 {
		t.Errorf("BAR's equation at its root: %v", h)
	}
	if _, err := BAR(wF, nil); err == nil {
		t.Error("BAR with no reverse works")
	}
	if _, _, err := LadderBAR([]float64{0, 1}, [][][]float64{{{1}, {}}}); err == nil {
		t.Error("LadderBAR with a rung of no samples")
	}
}
