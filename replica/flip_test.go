package replica_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
)

// flipCases are the kernels the cluster move flips in place
// (sampler.Flipper), on integer models (the exact paths) and on a chimera
// with real couplings (the float paths).
var flipCases = []kernelCase{
	{"metropolis", "frustrated2d:L=5,seed=3", "metropolis", "", 0},
	{"gibbs", "frustrated2d:L=5,seed=3", "gibbs", "", 0},
	{"metropolis-3d", "spinglass3d:L=3,seed=2", "metropolis", "", 0},
	{"metropolis-csr", "chimera:M=2,N=2,T=3,seed=2,J=pm1", "metropolis", "", 0},
	{"metropolis-float", "chimera:M=2,N=2,T=3,seed=2", "metropolis", "", 0},
	{"gibbs-float", "chimera:M=2,N=2,T=3,seed=2", "gibbs", "", 0},
	{"sardonics-tree", "frustrated2d:L=5,seed=3", "sardonics", "tree", 0},
	{"sardonics-bucket", "frustrated2d:L=5,seed=3", "sardonics", "bucket", 0},
	{"sardonics-tree-float", "chimera:M=2,N=2,T=3,seed=2", "sardonics", "tree", 0},
	{"hybrid", "frustrated2d:L=5,seed=3", "hybrid", "", 0},
	{"hybrid-float", "chimera:M=2,N=2,T=3,seed=2", "hybrid", "", 0},
}

// TestMembersFlipSites: every kernel the cluster move meets on a sparse
// model implements sampler.Flipper, and FlipSites leaves it right: the
// spins flipped where asked, the energy that of the new spins, a tracked
// magnetization their sum, and the chain still right after further steps.
// The single-site chains on integer models (exact energies) continue
// exactly as a twin put at the same spins by Reset does.
func TestMembersFlipSites(t *testing.T) {
	for _, kc := range flipCases {
		t.Run(kc.name, func(t *testing.T) {
			m, err := model.Load(kc.spec)
			if err != nil {
				t.Fatal(err)
			}
			is := m.Sparse()
			n := is.N
			build := builder(kc.kernel, m, kc.engine, kc.threads)
			init := randomSpins(rng.Sub(3, 0, 0), n)
			ch, rel, err := build(0.8, rng.Sub(3, 0, 1), init)
			if err != nil {
				t.Fatal(err)
			}
			defer rel()
			twin, rel2, err := build(0.8, rng.Sub(3, 0, 1), init)
			if err != nil {
				t.Fatal(err)
			}
			defer rel2()
			f, ok := ch.(sampler.Flipper)
			if !ok {
				t.Fatalf("%T is not a sampler.Flipper", ch)
			}
			mg, tracked := ch.(sampler.Magnetized)
			if tracked {
				mg.TrackMagnetization()
				twin.(sampler.Magnetized).TrackMagnetization()
			}
			exact := kc.kernel != "sardonics" && kc.kernel != "hybrid" && !strings.HasPrefix(kc.spec, "chimera")
			r := rng.Sub(3, 0, 2)
			check := func(what string) {
				t.Helper()
				s := ch.Spins()
				if got, want := ch.Energy(), is.Energy(s); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("%s: energy %v, recomputed %v", what, got, want)
				}
				if tracked && mg.Magnetization() != sampler.SpinSum(s) {
					t.Fatalf("%s: magnetization %d, sum %d", what, mg.Magnetization(), sampler.SpinSum(s))
				}
			}
			for round := range 30 {
				for range 1 + round%3 {
					ch.Step()
					twin.Step()
				}
				// A random set of distinct sites, from none to all.
				var idx []int32
				p := float64(round%5) / 4
				for i := range n {
					if rng.Float64(r) < p {
						idx = append(idx, int32(i))
					}
				}
				want := slices.Clone(ch.Spins())
				for _, i := range idx {
					want[i] = -want[i]
				}
				f.FlipSites(idx)
				if !slices.Equal(ch.Spins(), want) {
					t.Fatalf("round %d: FlipSites(%v) did not flip exactly those sites", round, idx)
				}
				check("after FlipSites")
				twin.(sampler.Resetter).Reset(want)
				if exact && ch.Energy() != twin.Energy() {
					t.Fatalf("round %d: energy %v after FlipSites, %v after Reset", round, ch.Energy(), twin.Energy())
				}
			}
			for range 20 {
				ch.Step()
				twin.Step()
				check("after steps")
				if exact && (!slices.Equal(ch.Spins(), twin.Spins()) || ch.Energy() != twin.Energy()) {
					t.Fatal("the chain after FlipSites and its twin after Reset diverged")
				}
			}
		})
	}
}
