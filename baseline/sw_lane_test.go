package baseline

import (
	"math"
	"testing"

	"sardonics/model"
	"sardonics/rng"
)

// TestSWLaneRates checks each lane's bond frequency against p on a single
// run whose edges are all satisfied.
func TestSWLaneRates(t *testing.T) {
	ps := []float64{1e-5, 0.003, 1.0 / 128, 0.05, 0.5, 0.99, 1}
	signs := []float64{1, -1, 1, -1, 1, -1, -1}
	var edges []model.Edge
	init := []int8{1}
	for k, p := range ps {
		w := -math.Log1p(-p) / 2 // beta = 1
		if p == 1 {
			w = 100
		}
		edges = append(edges, model.Edge{I: 0, J: int32(k + 1), W: signs[k] * w})
		init = append(init, int8(signs[k]))
	}
	is, err := model.NewIsing(8, edges, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := NewSW(&model.Model{Kind: model.KindIsing, Ising: is}, 1, rng.Stream(5, 5), init)
	if err != nil {
		t.Fatal(err)
	}
	c := ch.(*sw)
	if len(c.runs) != 1 || len(c.flat) != 0 {
		t.Fatalf("runs %d flat %d", len(c.runs), len(c.flat))
	}
	const N = 20000000
	counts := make([]float64, 8)
	for range N {
		x0, x1 := sweepRNG(c.r)
		nb, _, _ := c.bondRuns(0, x0, x1)
		for _, b := range c.bonds[:nb] {
			counts[uint32(b)]++
		}
	}
	for k, p := range ps {
		thr := float64(threshold(-math.Expm1(-2*math.Abs(edges[k].W)))) / two53
		got := counts[k+1] / N
		se := math.Sqrt(thr*(1-thr)/N) + 1e-12
		t.Logf("p %.6g (thr %.6g): rate %.6g, z %.2f", p, thr, got, (got-thr)/se)
		if math.Abs(got-thr) > 5*se {
			t.Errorf("lane %d: rate %v, want %v", k, got, thr)
		}
	}
	// Unsatisfied: flip the row spin, nothing may bond.
	c.s[0] = -1
	c.setSpins()
	for range 100000 {
		x0, x1 := sweepRNG(c.r)
		if nb, _, _ := c.bondRuns(0, x0, x1); nb != 0 {
			t.Fatalf("unsatisfied edge bonded")
		}
	}
}
