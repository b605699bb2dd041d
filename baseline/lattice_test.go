package baseline

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/internal/kaufman"
	"sardonics/model"
	"sardonics/rng"
)

// ferro2D is the L x L torus with J = 1 and no fields.
func ferro2D(t testing.TB, l int) *model.Model {
	var edges []model.Edge
	for y := 0; y < l; y++ {
		for x := 0; x < l; x++ {
			i := int32(y*l + x)
			edges = append(edges,
				model.Edge{I: i, J: int32(y*l + (x+1)%l), W: 1},
				model.Edge{I: i, J: int32(((y+1)%l)*l + x), W: 1})
		}
	}
	is, err := model.NewIsing(l*l, edges, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Ising: is}
}

// spinGlass3D is the L^3 torus with J uniform on {-1,+1}.
func spinGlass3D(t testing.TB, l int, seed uint64) *model.Model {
	r := rand.New(rng.Stream(seed, 4))
	idx := func(x, y, z int) int32 { return int32(((z%l)*l+y%l)*l + x%l) }
	var edges []model.Edge
	for z := 0; z < l; z++ {
		for y := 0; y < l; y++ {
			for x := 0; x < l; x++ {
				for _, nb := range []int32{idx(x+1, y, z), idx(x, y+1, z), idx(x, y, z+1)} {
					edges = append(edges, model.Edge{I: idx(x, y, z), J: nb, W: float64(2*r.IntN(2) - 1)})
				}
			}
		}
	}
	is, err := model.NewIsing(l*l*l, edges, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Kind: model.KindIsing, Ising: is}
}

// tauInt is the integrated autocorrelation time 1 + 2 sum rho(t), summed
// up to Sokal's self-consistent window t >= 6 tau.
func tauInt(x []float64) float64 {
	n := len(x)
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	c0 := 0.0
	for _, v := range x {
		c0 += (v - mean) * (v - mean)
	}
	if c0 == 0 {
		return 1
	}
	tau := 1.0
	for lag := 1; lag < n/2; lag++ {
		c := 0.0
		for i := lag; i < n; i++ {
			c += (x[i] - mean) * (x[i-lag] - mean)
		}
		tau += 2 * c / c0
		if float64(lag) >= 6*tau {
			break
		}
	}
	return max(tau, 1)
}

// meanSE is the mean of x and its standard error sqrt(var tau / n).
func meanSE(x []float64) (mean, se, tau float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	v := 0.0
	for _, e := range x {
		v += (e - mean) * (e - mean)
	}
	v /= float64(len(x) - 1)
	tau = tauInt(x)
	return mean, math.Sqrt(v * tau / float64(len(x))), tau
}

// TestFerroKaufman compares mean energies on the torus with Kaufman's exact
// finite-lattice result: SW at the critical point (where single-site
// samplers would need far longer runs), Gibbs and Metropolis at T = 3.
func TestFerroKaufman(t *testing.T) {
	for _, tc := range []struct {
		name       string
		new        newFunc
		l          int
		temp       float64
		burn, runs int
	}{
		{"sw", NewSW, 32, 2.27, 500, 10000},
		{"gibbs", NewGibbs, 16, 3, 500, 20000},
		{"metropolis", NewMetropolis, 16, 3, 500, 20000},
	} {
		m := ferro2D(t, tc.l)
		c, err := tc.new(m, 1/tc.temp, rng.Stream(9, 9), randomSpins(tc.l*tc.l, 9))
		if err != nil {
			t.Fatal(err)
		}
		for range tc.burn {
			c.Step()
		}
		es := make([]float64, tc.runs)
		for k := range es {
			c.Step()
			es[k] = c.Energy()
		}
		mean, se, tau := meanSE(es)
		want := kaufman.MeanEnergy(tc.l, tc.temp)
		t.Logf("%s L=%d T=%v: %.3f +- %.3f (tau %.1f), exact %.3f", tc.name, tc.l, tc.temp, mean, se, tau, want)
		if math.Abs(mean-want) > 4*se {
			t.Errorf("%s L=%d T=%v: mean energy %.3f +- %.3f (tau %.1f), exact %.3f", tc.name, tc.l, tc.temp, mean, se, tau, want)
		}
		if got := m.Ising.Energy(c.Spins()); got != c.Energy() {
			t.Errorf("%s: tracked energy %v, recomputed %v", tc.name, c.Energy(), got)
		}
	}
}
