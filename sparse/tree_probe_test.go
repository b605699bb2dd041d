package sparse

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

// TestTreeProbeSteps runs SARD_TREE_PROBE_STEPS steps of the default chain
// on the tree engine (chimera:M=4,N=4,T=4,seed=1 at T = 1, as the flip-cost
// command) after 2000 steps of warm-up, for instruction counts under
// callgrind (the difference of two step counts is the cost of the extra
// steps). Skipped otherwise.
func TestTreeProbeSteps(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("SARD_TREE_PROBE_STEPS"))
	if err != nil {
		t.Skip("SARD_TREE_PROBE_STEPS not set")
	}
	m, err := model.Load("chimera:M=4,N=4,T=4,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := saw.NewChain(NewTree(m.Ising, nil), 1, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(1, 2))
	for range 2000 + n {
		c.Step()
	}
	t.Logf("flips %d", c.Stats().Flips)
}
