package saw

import (
	"math"
	"testing"
)

func TestLogWeight(t *testing.T) {
	for _, c := range []struct {
		w            Weight
		gamma, dE    float64
		want, relTol float64
	}{
		{Logistic, 1, 0, -math.Ln2, 1e-15},
		{Logistic, 0.5, 2, -math.Log(1 + math.E), 1e-15},
		{Logistic, 2, -3, -math.Log1p(math.Exp(-6)), 1e-15},
		{Logistic, 1, 40, -40 - math.Exp(-40), 1e-15}, // naive log(1+e^x) would round
		{Logistic, 1, -800, -math.Exp(-800), 0},       // underflows to -0: fine
		{Logistic, 1, 800, -MaxLogWeight, 0},
		{Logistic, 1, 1e300, -MaxLogWeight, 0},
		{Exp, 0.7, 3, -2.1, 1e-15},
		{Exp, 1, 1e4, -MaxLogWeight, 0},
		{Exp, 1, -1e4, MaxLogWeight, 0},
		{Exp, 0, 5, 0, 0},
		// gamma = beta theta overflowed to +Inf (or dE infinite at gamma
		// 0): gamma dE is NaN for an unchanged energy, taken as 0, w(0).
		{Logistic, math.Inf(1), 0, -math.Ln2, 1e-15},
		{Exp, math.Inf(1), 0, 0, 0},
		{Logistic, 0, math.Inf(-1), -math.Ln2, 1e-15},
		{Exp, 0, math.Inf(1), 0, 0},
		{Logistic, math.Inf(1), 1, -MaxLogWeight, 0},
		{Logistic, math.Inf(1), -1, 0, 0},
		{Exp, math.Inf(1), -1, MaxLogWeight, 0},
	} {
		got := LogWeight(c.w, c.gamma, c.dE)
		if math.IsNaN(got) || math.Abs(got-c.want) > c.relTol*math.Abs(c.want) {
			t.Errorf("LogWeight(%v, %v, %v) = %v (expected %v)", c.w, c.gamma, c.dE, got, c.want)
		}
	}
	// Every weight stays a positive normal float for |J| up to 1e3.
	for _, w := range []Weight{Logistic, Exp} {
		for _, dE := range []float64{-2e4, -1e3, -1, 0, 1, 1e3, 2e4} {
			x := math.Exp(LogWeight(w, 1, dE))
			if !(x >= 0x1p-1022) || math.IsInf(x, 0) {
				t.Errorf("%v: weight %v at dE=%v (expected a positive normal float)", w, x, dE)
			}
		}
	}
}

func TestParseOptions(t *testing.T) {
	for _, w := range []Weight{Logistic, Exp} {
		if got, err := ParseWeight(w.String()); err != nil || got != w {
			t.Errorf("ParseWeight(%q) = %v, %v", w, got, err)
		}
	}
	for _, l := range []Layout{Blocks, Pairs} {
		if got, err := ParseLayout(l.String()); err != nil || got != l {
			t.Errorf("ParseLayout(%q) = %v, %v", l, got, err)
		}
	}
	for _, a := range []Accept{Marginal, Joint} {
		if got, err := ParseAccept(a.String()); err != nil || got != a {
			t.Errorf("ParseAccept(%q) = %v, %v", a, got, err)
		}
	}
	if _, err := ParseWeight("gauss"); err == nil {
		t.Error("ParseWeight accepted gauss")
	}
	if _, err := ParseLayout("rows"); err == nil {
		t.Error("ParseLayout accepted rows")
	}
	if _, err := ParseAccept("always"); err == nil {
		t.Error("ParseAccept accepted always")
	}
	if (Options{}) != (Options{Layout: Blocks, Weight: Logistic, Accept: Marginal}) {
		t.Error("zero Options is not blocks, logistic, marginal")
	}
}
