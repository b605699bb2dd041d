package baseline

import (
	"math"
	"math/rand/v2"
	"testing"

	"sardonics/model"
	"sardonics/sampler"
)

// TestHugeBeta: at beta near math.MaxFloat64, 2 beta overflows to +Inf,
// and a spin with zero local field (or a bond of zero coupling) must not
// turn that into NaN: spin 0, coupled to nothing but zero couplings, is
// still up half the time under gibbs and sw, and an sw cluster never
// crosses a zero bond. The integer table path and the float path (real
// couplings) are both tested.
func TestHugeBeta(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w1, w2 float64 // the couplings of spins 2-3 and 3-4
	}{{"table", 1, 2}, {"float", math.Pi, math.E}} {
		edges := []model.Edge{{I: 0, J: 1, W: 0}, {I: 1, J: 2, W: 0}, {I: 2, J: 3, W: tc.w1}, {I: 3, J: 4, W: tc.w2}}
		is, err := model.NewIsing(5, edges, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := &model.Model{Kind: model.KindIsing, Ising: is}
		for _, k := range []string{"gibbs", "sw"} {
			kind, _ := sampler.Lookup(k)
			c, done, err := kind.New(m, 1.7e308, nil, rand.NewPCG(1, 2), []int8{1, 1, 1, 1, 1})
			if err != nil {
				t.Fatal(err)
			}
			const n = 4000
			up, same := 0, 0
			for range n {
				c.Step()
				s := c.Spins()
				if s[0] > 0 {
					up++
				}
				if s[0] == s[1] {
					same++
				}
				// Spins 2-4, coupled at beta 1.7e308 (2 beta J overflows),
				// start aligned and must stay so: SW's bonds between them
				// form with probability 1 - exp(-2 beta J) = 1, Gibbs's
				// flip probability is 0. A NaN bond threshold or flip
				// probability would break them apart.
				if s[2] != s[3] || s[3] != s[4] {
					t.Fatalf("%s %s: the coupled spins 2-4 broke apart at beta 1.7e308: %v", tc.name, k, s)
				}
				if e := c.Energy(); math.IsNaN(e) || math.IsInf(e, 0) {
					t.Fatalf("%s %s: energy %v", tc.name, k, e)
				}
			}
			done()
			// Binomial(4000, 1/2): sd 32; 6 sd is 190.
			if math.Abs(float64(up)-n/2) > 190 || math.Abs(float64(same)-n/2) > 190 {
				t.Errorf("%s %s: spin 0 up %d/%d, equal to spin 1 %d/%d times (want about half)", tc.name, k, up, n, same, n)
			}
		}
	}
}
