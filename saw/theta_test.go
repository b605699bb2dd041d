package saw

import (
	"strings"
	"testing"
)

func TestParseTheta(t *testing.T) {
	th, err := ParseTheta("kl=10,ku=40,gl=0.95,gh=1.05,pll=0.5,phl=0.3,plh=0.2,n=2")
	want := Theta{KL: 10, KU: 40, GL: 0.95, GH: 1.05, PLL: 0.5, PHL: 0.3, PLH: 0.2, N: 2}
	if err != nil || th != want {
		t.Fatalf("ParseTheta = %+v, %v (expected %+v)", th, err, want)
	}
	if back, err := ParseTheta(th.String()); err != nil || back != th {
		t.Errorf("round trip of %q gives %+v, %v", th, back, err)
	}
	odd := Theta{KL: 3, KU: 7, GL: 0.1 + 0.2, GH: 1.0 / 3, PLL: 1e-7, PHL: 0, PLH: 2, N: 5}
	if back, err := ParseTheta(odd.String()); err != nil || back != odd {
		t.Errorf("round trip of %q gives %+v, %v (expected exact floats)", odd, back, err)
	}
	th, err = ParseTheta("ku=30, n=3")
	want = DefaultTheta
	want.KU, want.N = 30, 3
	if err != nil || th != want {
		t.Errorf("ParseTheta with missing keys = %+v, %v (expected defaults %+v)", th, err, want)
	}
	if th, err := ParseTheta(""); err != nil || th != DefaultTheta {
		t.Errorf("ParseTheta(\"\") = %+v, %v (expected DefaultTheta)", th, err)
	}
	_, err = ParseTheta("kl=1,kk=3")
	if err == nil || !strings.Contains(err.Error(), `"kk"`) || !strings.Contains(err.Error(), "pll") {
		t.Errorf("unknown key: error %v (expected it to name kk and list the keys)", err)
	}
	for _, s := range []string{
		"kl=0", "kl=5,ku=4", "n=0", "gl=0", "gh=-1", "gl=NaN", "gh=Inf",
		"pll=-0.1", "pll=0,phl=0,plh=0", "kl=x", "kl", "kl=1,kl=2", "gl=1e999",
	} {
		if _, err := ParseTheta(s); err == nil {
			t.Errorf("ParseTheta(%q) gave no error", s)
		}
	}
	if err := DefaultTheta.Validate(); err != nil {
		t.Errorf("DefaultTheta: %v", err)
	}
}

func TestThetaIrreducible(t *testing.T) {
	for _, c := range []struct {
		kl, ku, M int
		want      bool
	}{
		{1, 1, 10, true},
		{2, 2, 10, false},
		{2, 3, 10, true},
		{5, 40, 4, false}, // both clamp to 4
		{4, 40, 5, true},
		{3, 3, 1, true}, // clamps to 1
	} {
		th := Theta{KL: c.kl, KU: c.ku}
		if got := th.Irreducible(c.M); got != c.want {
			t.Errorf("kl=%d ku=%d M=%d: Irreducible = %v (expected %v)", c.kl, c.ku, c.M, got, c.want)
		}
	}
}

func TestTypeProbs(t *testing.T) {
	p := Theta{PLL: 2, PHL: 1, PLH: 1}.TypeProbs()
	if p != [3]float64{0.5, 0.25, 0.25} {
		t.Errorf("TypeProbs = %v", p)
	}
	for _, ty := range []WalkType{TypeLL, TypeHL, TypeLH} {
		if ty.Reverse().Reverse() != ty || ty.Bias(0) != ty.Reverse().Bias(1) {
			t.Errorf("%v: Reverse is not (b, a)", ty)
		}
	}
}
