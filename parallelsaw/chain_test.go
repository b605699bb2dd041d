package parallelsaw

import (
	"math/rand/v2"
	"testing"

	"sardonics/exact"
	"sardonics/internal/rbmtest"
	"sardonics/saw"
)

var chainTheta = "kl=1,ku=4,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1"

// TestChainExact: a SARDONICS chain on the P=2 engine samples the exact
// distribution of a small RBM (chi-square on all 2^7 states, thinned) and
// its visible means.
func TestChainExact(t *testing.T) {
	m := rbmtest.RandomRBM(t, 4, 3, 0.8, 21)
	im, err := m.Ising()
	if err != nil {
		t.Fatal(err)
	}
	probs, err := exact.Probs(im, 1)
	if err != nil {
		t.Fatal(err)
	}
	theta, err := saw.ParseTheta(chainTheta)
	if err != nil {
		t.Fatal(err)
	}
	c, err := saw.NewChain(newEngine(t, m, nil, 2), 1, []saw.Theta{theta}, saw.Options{}, rand.NewPCG(5, 5))
	if err != nil {
		t.Fatal(err)
	}
	steps, thin := 20000, 2
	if raceEnabled {
		steps = 3000
	}
	rbmtest.CheckExact(t, c, probs, steps, thin, 4)
}

// TestChainBitIdentical: two chains with the same seed and P give the same
// energy trace, bit for bit.
func TestChainBitIdentical(t *testing.T) {
	m := rbmtest.RandomRBM(t, 40, 30, 0.3, 22)
	theta, err := saw.ParseTheta("kl=5,ku=30,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	trace := func(P int) []float64 {
		c, err := saw.NewChain(newEngine(t, m, nil, P), 1, []saw.Theta{theta}, saw.Options{}, rand.NewPCG(9, 9))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, 200)
		if raceEnabled {
			out = out[:60]
		}
		for i := range out {
			c.Step()
			out[i] = c.Energy()
		}
		return out
	}
	a, b := trace(2), trace(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d energy %v then %v", i, a[i], b[i])
		}
	}
}
