package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/saw"
)

const probTol = 1e-10

type biasCase struct {
	gl, gh float64
	w      saw.Weight
}

var biasCases = []biasCase{
	{0.7, 1.3, saw.Logistic},
	{0.9, 0.9, saw.Logistic},
	{0.3, 0.8, saw.Exp},
	{0.5, 0.5, saw.Exp},
}

// testModels returns the models an engine kind is checked on: real and
// integer couplings for the tree, integer only for the bucket.
func testModels(t *testing.T, f factory) []*model.Ising {
	var ms []*model.Ising
	for seed := range uint64(3) {
		if !f.integer {
			ms = append(ms, randomGraph(t, 40, 4, false, 1, seed))
		}
		ms = append(ms, randomGraph(t, 40, 4, true, 0, seed+10))
	}
	// Degree above the table limit exercises the tree's direct mode.
	if !f.integer {
		ms = append(ms, randomGraph(t, 30, 28, false, 0.3, 99))
	}
	return ms
}

func closeLF(t *testing.T, what string, got, want [2]float64) {
	t.Helper()
	for b := range 2 {
		if d := math.Abs(got[b] - want[b]); !(d <= probTol*max(1, math.Abs(want[b]))) {
			t.Fatalf("%s: log f[%d] = %.15g, naive %.15g", what, b, got[b], want[b])
		}
	}
}

func closeE(t *testing.T, what string, got, want float64) {
	t.Helper()
	if d := math.Abs(got - want); !(d <= probTol*max(1, math.Abs(want))) {
		t.Fatalf("%s: %.15g, want %.15g", what, got, want)
	}
}

// TestReplayMatchesNaive replays random paths forward and backward on the
// fast engines and the reference and compares log f at both biases, the
// energy changes, and the state after the round trip (exactly).
func TestReplayMatchesNaive(t *testing.T) {
	for _, f := range factories {
		for mi, m := range testModels(t, f) {
			for _, bc := range biasCases {
				t.Run(fmt.Sprintf("%s/m%d/%v-%g-%g", f.name, mi, bc.w, bc.gl, bc.gh), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(mi), 5))
					s0 := randomSpins(r, m.N)
					eng, ref := f.make(t, m, s0), saw.NewNaive(m, s0)
					eng.SetBiases(bc.gl, bc.gh, bc.w)
					ref.SetBiases(bc.gl, bc.gh, bc.w)
					for it := range 20 {
						e0 := eng.Energy()
						closeE(t, "start energy", e0, m.Energy(eng.Spins()))
						start := slices.Clone(eng.Spins())
						path := randomPath(r, m.N, 1+r.IntN(m.N))
						lf, dE := eng.Replay(path, false)
						wlf, wdE := replayRef(eng, ref, path, false)
						closeLF(t, "forward", lf, wlf)
						closeE(t, "forward dE", dE, wdE)
						closeE(t, "energy", eng.Energy(), ref.Energy())
						if !slices.Equal(eng.Spins(), ref.Spins()) {
							t.Fatal("states differ after replay")
						}
						lf, dE = eng.Replay(path, true)
						wlf, wdE = replayRef(eng, ref, path, true)
						closeLF(t, "backward", lf, wlf)
						closeE(t, "backward dE", dE, wdE)
						if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
							t.Fatalf("round trip: energy %.17g, was %.17g", eng.Energy(), e0)
						}
						if it%3 == 0 { // move on to another state
							eng.Flip(path)
							ref.Flip(path)
						}
					}
				})
			}
		}
	}
}

// TestWalkMatchesNaive checks that a walk reports the log-probabilities
// the reference gives its path, that replaying the walks of a move
// backwards restores the start exactly, and that Flip reaches the end
// state.
func TestWalkMatchesNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of statistics or comparison: the full suite runs it")
	}
	for _, f := range factories {
		for mi, m := range testModels(t, f) {
			for _, bc := range biasCases {
				t.Run(fmt.Sprintf("%s/m%d/%v-%g-%g", f.name, mi, bc.w, bc.gl, bc.gh), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(mi), 6))
					pcg := rand.NewPCG(uint64(mi), 7)
					s0 := randomSpins(r, m.N)
					eng, ref := f.make(t, m, s0), saw.NewNaive(m, s0)
					eng.SetBiases(bc.gl, bc.gh, bc.w)
					ref.SetBiases(bc.gl, bc.gh, bc.w)
					var path []int32
					for it := range 15 {
						e0 := eng.Energy()
						start := slices.Clone(eng.Spins())
						path = path[:0]
						bounds := []int{0}
						for w := range 3 {
							var lf [2]float64
							var dE float64
							path, lf, dE = eng.Walk(pcg, 1+r.IntN(m.N), w%2, path)
							seg := path[bounds[len(bounds)-1]:]
							bounds = append(bounds, len(path))
							if len(slices.Compact(slices.Sorted(slices.Values(seg)))) != len(seg) {
								t.Fatal("walk repeats a bit")
							}
							wlf, wdE := replayRef(eng, ref, seg, false)
							closeLF(t, "walk", lf, wlf)
							closeE(t, "walk dE", dE, wdE)
							if !slices.Equal(eng.Spins(), ref.Spins()) {
								t.Fatal("states differ after walk")
							}
						}
						end := slices.Clone(eng.Spins())
						eEnd := eng.Energy()
						for w := len(bounds) - 2; w >= 0; w-- {
							seg := path[bounds[w]:bounds[w+1]]
							lf, _ := eng.Replay(seg, true)
							wlf, _ := replayRef(eng, ref, seg, true)
							closeLF(t, "reverse", lf, wlf)
						}
						if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
							t.Fatalf("undo: energy %.17g, was %.17g", eng.Energy(), e0)
						}
						if it%2 == 0 { // accept
							eng.Flip(path)
							ref.Flip(path)
							if !slices.Equal(eng.Spins(), end) || eng.Energy() != eEnd {
								t.Fatalf("flip: energy %.17g, walk ended at %.17g", eng.Energy(), eEnd)
							}
						}
					}
				})
			}
		}
	}
}

// TestWalkDistribution checks Walk's draws, not only its bookkeeping: the
// empirical distribution of length-2 walks matches their probabilities.
func TestWalkDistribution(t *testing.T) {
	for _, f := range factories {
		t.Run(f.name, func(t *testing.T) {
			m := randomGraph(t, 6, 3, true, 0, 3)
			s0 := []int8{1, -1, 1, 1, -1, -1}
			eng := f.make(t, m, s0)
			eng.SetBiases(0.4, 1.1, saw.Logistic)
			pcg := rand.NewPCG(1, 2)
			counts := map[[2]int32]float64{}
			const n = 60000
			var path []int32
			for i := range n {
				path, _, _ = eng.Walk(pcg, 2, i%2, path[:0])
				counts[[2]int32{path[0], path[1]}]++
				eng.Replay(path, true)
			}
			// Expected: half the walks at each bias.
			chi, cells := 0.0, 0
			for _, p := range perms2(6) {
				lf, _ := eng.Replay(p[:], false)
				eng.Replay(p[:], true)
				e := n / 2 * (math.Exp(lf[0]) + math.Exp(lf[1]))
				d := counts[p] - e
				chi += d * d / e
				cells++
			}
			// 29 degrees of freedom: P(chi2 > 70) < 1e-4.
			if chi > 70 {
				t.Fatalf("chi-square %.1f over %d cells", chi, cells)
			}
		})
	}
}

func perms2(n int) [][2]int32 {
	var out [][2]int32
	for i := range int32(n) {
		for j := range int32(n) {
			if i != j {
				out = append(out, [2]int32{i, j})
			}
		}
	}
	return out
}

// TestSetBiasesChange switches one engine between biases and weights (as
// a policy with many thetas does) and checks every switch against the
// reference: lazily refilled tables must not keep stale weights.
func TestSetBiasesChange(t *testing.T) {
	for _, f := range factories {
		t.Run(f.name, func(t *testing.T) {
			m := randomGraph(t, 30, 4, true, 0, 17)
			r := rand.New(rand.NewPCG(17, 1))
			s0 := randomSpins(r, m.N)
			eng, ref := f.make(t, m, s0), saw.NewNaive(m, s0)
			for i := range 3 * len(biasCases) {
				bc := biasCases[(i*3)%len(biasCases)]
				eng.SetBiases(bc.gl, bc.gh, bc.w)
				ref.SetBiases(bc.gl, bc.gh, bc.w)
				path := randomPath(r, m.N, 1+r.IntN(m.N))
				lf, _ := eng.Replay(path, false)
				wlf, _ := replayRef(eng, ref, path, false)
				closeLF(t, fmt.Sprintf("switch %d", i), lf, wlf)
			}
		})
	}
}
