package kaufman

import (
	"math"
	"testing"

	"sardonics/exact"
	"sardonics/model"
)

func torus(t *testing.T, L int) *model.Model {
	var edges []model.Edge
	for x := 0; x < L; x++ {
		for y := 0; y < L; y++ {
			i := int32(x*L + y)
			edges = append(edges,
				model.Edge{I: i, J: int32(((x+1)%L)*L + y), W: 1},
				model.Edge{I: i, J: int32(x*L + (y+1)%L), W: 1})
		}
	}
	is, err := model.NewIsing(L*L, edges, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Ising: is}
}

func TestAgainstEnumeration(t *testing.T) {
	tc := 2 / math.Log(1+math.Sqrt2)
	for _, L := range []int{3, 4} {
		m := torus(t, L)
		for _, T := range []float64{0.5, 1, 2, 2.27, tc, 2.5, 3, 5, 50} {
			res, err := exact.Enumerate(m, 1/T)
			if err != nil {
				t.Fatal(err)
			}
			got := MeanEnergy(L, T)
			if d := math.Abs(got - res.EnergyMean); d > 1e-8*math.Abs(res.EnergyMean) {
				t.Errorf("L=%d T=%v: Kaufman %.15g, enumeration %.15g", L, T, got, res.EnergyMean)
			}
		}
	}
}

func TestLimits(t *testing.T) {
	// Ground state -2L^2 at low T; -2L^2 tanh(1/T) to leading order at high T.
	if e := MeanEnergy(16, 0.2); math.Abs(e+512) > 1e-6 {
		t.Errorf("L=16 T=0.2: %v, want about -512", e)
	}
	if e, want := MeanEnergy(32, 1000), -2*32*32*math.Tanh(1e-3); math.Abs(e-want) > 1e-3*math.Abs(want) {
		t.Errorf("L=32 T=1000: %v, want about %v", e, want)
	}
	for _, bad := range [][2]float64{{1, 2}, {4, 0}, {4, -1}, {4, math.NaN()}} {
		if e := MeanEnergy(int(bad[0]), bad[1]); !math.IsNaN(e) {
			t.Errorf("MeanEnergy(%v, %v) = %v, want NaN", bad[0], bad[1], e)
		}
	}
}

func TestContinuousAtTc(t *testing.T) {
	// g_0 changes sign at Tc; the energy must not jump there, and it must
	// rise with T on either side.
	tc := 2 / math.Log(1+math.Sqrt2)
	for _, L := range []int{16, 60} {
		lo, at, hi := MeanEnergy(L, tc*(1-1e-10)), MeanEnergy(L, tc), MeanEnergy(L, tc*(1+1e-10))
		if !(lo <= at && at <= hi) || hi-lo > 1e-6*math.Abs(at) {
			t.Errorf("L=%d around Tc: %.15g %.15g %.15g", L, lo, at, hi)
		}
		prev := math.Inf(-1)
		for T := 1.5; T < 3.5; T += 0.05 {
			e := MeanEnergy(L, T)
			if !(e > prev) {
				t.Errorf("L=%d: energy %v at T=%v not above %v", L, e, T, prev)
			}
			prev = e
		}
	}
}

func TestSpecificHeatAgainstEnumeration(t *testing.T) {
	tc := 2 / math.Log(1+math.Sqrt2)
	for _, L := range []int{3, 4} {
		m := torus(t, L)
		for _, T := range []float64{0.5, 1, 2, 2.27, tc, 2.5, 3, 5, 50} {
			res, err := exact.Enumerate(m, 1/T)
			if err != nil {
				t.Fatal(err)
			}
			want := res.EnergyVar / (T * T) / float64(L*L)
			if got := SpecificHeat(L, T); math.Abs(got-want) > 1e-7*want+1e-10 {
				t.Errorf("L=%d T=%v: Kaufman %.15g, enumeration %.15g", L, T, got, want)
			}
		}
	}
	if c := SpecificHeat(4, 0); !math.IsNaN(c) {
		t.Errorf("SpecificHeat(4, 0) = %v, want NaN", c)
	}
}
