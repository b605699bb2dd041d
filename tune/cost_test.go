package tune

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sardonics/model"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// --tune scores settings with the cost model of the engine the chain
// runs: on SK and dense QUBOs the dense Ising engine's, measured, which
// grows with N and prices a rejected move's undo at about two flips (the
// tree's, which the tuner used there before, at a fifth of one); on every
// other engine its own. The chains are built as the runner builds them.
func TestCostOfEngines(t *testing.T) {
	dir := t.TempDir()
	// a dense QUBO: every pair of 40 variables, two-decimal terms
	var b strings.Builder
	r := rand.New(rand.NewPCG(1, 1))
	n := 40
	fmt.Fprintf(&b, "p qubo 0 %d %d %d\n", n, n, n*(n-1)/2)
	for i := range n {
		fmt.Fprintf(&b, "%d %d %.2f\n", i, i, r.Float64()*2-1)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(&b, "%d %d %.2f\n", i, j, r.Float64()*2-1)
		}
	}
	qubo := filepath.Join(dir, "dense.qubo")
	if err := os.WriteFile(qubo, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec, engine string
		want         saw.Cost
	}{
		{"sk:N=200,seed=1", "", saw.DenseIsingCost(200)},
		{"sk:N=200,seed=1", "parallel", saw.DenseIsingCost(200)},
		{qubo, "", saw.DenseIsingCost(n)},
		{"frustrated2d:L=8", "", saw.CostBucket},
		{"chimera:M=2,N=2,T=4", "", saw.CostTree},
		{"rbm-random:V=20,H=10", "", saw.CostDense},
		{"rbm-random:V=20,H=10", "parallel", saw.CostDense},
	} {
		m, err := model.Load(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		sc := sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: tc.engine}
		if tc.engine == "parallel" {
			sc.EngineThreads = 2
		}
		ch, done, err := runner.NewChain("sardonics", m, 1, sc, rand.NewPCG(1, 2), runner.InitialState(1, 0, m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		got := CostOf(ch.(saw.EngineOwner).Engine())
		done()
		if got != tc.want {
			t.Errorf("%s (engine %q): cost model %+v, want %+v", tc.spec, tc.engine, got, tc.want)
		}
		if tc.want != saw.CostTree && got == saw.CostTree {
			t.Errorf("%s: the tree's cost model", tc.spec)
		}
	}
}
