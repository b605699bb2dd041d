package dense

import (
	"math/rand/v2"
	"testing"

	"sardonics/exact"
	"sardonics/internal/rbmtest"
	"sardonics/saw"
)

// TestChainExact: a SARDONICS chain on the dense engine samples the exact
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
	theta, err := saw.ParseTheta("kl=1,ku=4,gl=0.9,gh=1.1,pll=0.5,phl=0.3,plh=0.2,n=1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := saw.NewChain(New(m, nil), 1, []saw.Theta{theta}, saw.Options{}, rand.NewPCG(5, 5))
	if err != nil {
		t.Fatal(err)
	}
	const steps, thin = 40000, 4
	rbmtest.CheckExact(t, c, probs, steps, thin, 4)
	if ar, _ := c.Stats().AcceptanceRate(); ar < 0.05 {
		t.Errorf("acceptance rate %.3f (expected a mixing chain)", ar)
	}
}
