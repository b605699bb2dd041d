package saw

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogAcceptRatioByHand checks the formulas on one block of type HL
// (forward biases H then L, reverse type LH) and on two pairs.
func TestLogAcceptRatioByHand(t *testing.T) {
	p := [3]float64{0.2, 0.5, 0.3}
	fwd := [][2]float64{{-1.0, -1.5}, {-0.7, -0.2}}
	rev := [][2]float64{{-0.4, -2.0}, {-1.1, -0.9}}
	const bdE = 0.3
	got := LogAcceptRatio(p, []WalkType{TypeHL}, fwd, rev, Blocks, Joint, bdE)
	want := -bdE + math.Log(0.3/0.5) + rev[0][0] + rev[1][1] - fwd[0][1] - fwd[1][0]
	if math.Abs(got-want) > 1e-14 {
		t.Errorf("joint blocks: %v (expected %v)", got, want)
	}
	q := func(lf [][2]float64) float64 {
		return math.Log(0.2*math.Exp(lf[0][0]+lf[1][0]) + 0.5*math.Exp(lf[0][1]+lf[1][0]) + 0.3*math.Exp(lf[0][0]+lf[1][1]))
	}
	for _, l := range []Layout{Blocks, Pairs} { // one unit: the layouts agree
		got = LogAcceptRatio(p, []WalkType{TypeHL}, fwd, rev, l, Marginal, bdE)
		if want := -bdE + q(rev) - q(fwd); math.Abs(got-want) > 1e-14 {
			t.Errorf("marginal %v: %v (expected %v)", l, got, want)
		}
	}
	// Two pairs of types (LH, LL): the reverse path's first unit is the
	// second pair backwards (LL), its second the first backwards (HL).
	fwd2 := [][2]float64{{-1, -2}, {-3, -4}, {-5, -6}, {-7, -8}}
	rev2 := [][2]float64{{-0.1, -0.2}, {-0.3, -0.4}, {-0.5, -0.6}, {-0.7, -0.8}}
	got = LogAcceptRatio(p, []WalkType{TypeLH, TypeLL}, fwd2, rev2, Pairs, Joint, bdE)
	want = -bdE + math.Log(0.5/0.3) + (-0.1 - 0.3 - 0.6 - 0.7) - (-1 - 4 - 5 - 7)
	if math.Abs(got-want) > 1e-14 {
		t.Errorf("joint pairs: %v (expected %v)", got, want)
	}
	// Blocks of N=2 and type LH: forward biases L, L, H, H; reverse HL.
	got = LogAcceptRatio(p, []WalkType{TypeLH}, fwd2, rev2, Blocks, Joint, bdE)
	want = -bdE + math.Log(0.5/0.3) + (-0.2 - 0.4 - 0.5 - 0.7) - (-1 - 3 - 6 - 8)
	if math.Abs(got-want) > 1e-14 {
		t.Errorf("joint blocks N=2: %v (expected %v)", got, want)
	}
	// A reverse type of probability zero rejects.
	if got := LogAcceptRatio([3]float64{0.5, 0.5, 0}, []WalkType{TypeHL}, fwd, rev, Blocks, Joint, bdE); !math.IsInf(got, -1) {
		t.Errorf("zero-probability reverse type: %v (expected -Inf)", got)
	}
}

// TestChainStepDoesNotAllocate: buffers are reused in steady state.
func TestChainStepDoesNotAllocate(t *testing.T) {
	m := randomIsing(t, 10, 1, 1)
	th := []Theta{DefaultTheta, {KL: 2, KU: 6, GL: 0.9, GH: 1.2, PLL: 0.2, PHL: 0.4, PLH: 0.4, N: 3}}
	ch, err := NewChain(NewNaive(m, ones(10)), 1, th, Options{Layout: Pairs}, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		ch.Step()
	}
	if a := testing.AllocsPerRun(200, ch.Step); a != 0 {
		t.Errorf("Step allocates %v times per call (expected 0)", a)
	}
}
