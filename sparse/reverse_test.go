package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/saw"
)

// replayOnly hides an engine's saw.FastReverser, so that saw's move takes
// the replay path (tests and benchmarks compare the two).
type replayOnly struct{ saw.Engine }

// TestFastReverseMatchesReplay runs moves of several walks (at random
// biases, so that bits recur across walks) and checks that
// ReverseLogProbs gives what replaying the reverse path walk by walk gives
// (the bucket's bit for bit) and what the reference gives, that it leaves
// the state alone, and that Undo restores the start state and energy
// exactly and leaves the engine consistent.
func TestFastReverseMatchesReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of statistics or comparison: the full suite runs it")
	}
	for _, f := range factories {
		for mi, m := range testModels(t, f) {
			for _, bc := range biasCases {
				t.Run(fmt.Sprintf("%s/m%d/%v-%g-%g", f.name, mi, bc.w, bc.gl, bc.gh), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(mi), 16))
					pcg := rand.NewPCG(uint64(mi), 17)
					s0 := randomSpins(r, m.N)
					eng := f.make(t, m, s0)
					fr, ok := eng.(saw.FastReverser)
					if !ok {
						t.Skipf("%s has no fast reverse", f.name)
					}
					ref := saw.NewNaive(m, s0)
					eng.SetBiases(bc.gl, bc.gh, bc.w)
					ref.SetBiases(bc.gl, bc.gh, bc.w)
					var path []int32
					refused, checked, maxErr := 0, 0, 0.0
					for it := range 40 {
						e0 := eng.Energy()
						start := slices.Clone(eng.Spins())
						path = path[:0]
						bounds := []int{0}
						nw := 1 + r.IntN(5)
						for range nw {
							k := 1 + r.IntN(m.N/2)
							if r.IntN(4) == 0 {
								k = 1 + r.IntN(m.N)
							}
							path, _, _ = eng.Walk(pcg, k, r.IntN(2), path)
							bounds = append(bounds, len(path))
						}
						end := slices.Clone(eng.Spins())
						eEnd := eng.Energy()
						rev := make([][2]float64, nw)
						if !fr.ReverseLogProbs(path, bounds, rev) {
							// Allowed where the engine says so: the
							// tree's direct mode, and its guard against
							// cancellation (frequent here: walks as long
							// as the model end with forced picks). The
							// move then replays.
							if _, isBucket := eng.(*Bucket); isBucket || f.name == "tree" && m.MaxDegree() <= maxTabDegree && refused >= 16 {
								t.Fatalf("it %d: ReverseLogProbs refused the move's own walks (%d refusals)", it, refused+1)
							}
							refused++
							for w := nw - 1; w >= 0; w-- {
								eng.Replay(path[bounds[w]:bounds[w+1]], true)
							}
							if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
								t.Fatal("replay did not restore the start")
							}
							continue
						}
						if !slices.Equal(eng.Spins(), end) || eng.Energy() != eEnd {
							t.Fatal("ReverseLogProbs changed the state")
						}
						checked++
						// The reference, replayed from the end state.
						ref.SetSpins(end)
						for w := nw - 1; w >= 0; w-- {
							wlf, _ := replayRef(eng, ref, path[bounds[w]:bounds[w+1]], true)
							closeLF(t, fmt.Sprintf("it %d: reverse walk %d vs reference", it, nw-1-w), rev[nw-1-w], wlf)
							for b := range 2 {
								maxErr = max(maxErr, math.Abs(rev[nw-1-w][b]-wlf[b])/max(1, math.Abs(wlf[b])))
							}
						}
						if it%2 == 0 {
							// Against the engine's own replay.
							for w := nw - 1; w >= 0; w-- {
								lf, _ := eng.Replay(path[bounds[w]:bounds[w+1]], true)
								closeLF(t, fmt.Sprintf("it %d: reverse walk %d vs replay", it, nw-1-w), rev[nw-1-w], lf)
								if _, isBucket := eng.(*Bucket); isBucket && lf != rev[nw-1-w] {
									t.Fatalf("it %d: reverse walk %d: fast %v, replay %v (expected identical)", it, nw-1-w, rev[nw-1-w], lf)
								}
							}
							if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
								t.Fatal("replay did not restore the start")
							}
							if fr.ReverseLogProbs(path, bounds, rev) {
								t.Fatal("ReverseLogProbs accepted a stale record")
							}
							if it%4 == 0 {
								eng.Flip(path) // accept
							}
						} else {
							fr.Undo(path)
							if !slices.Equal(eng.Spins(), start) || eng.Energy() != e0 {
								t.Fatalf("undo: energy %.17g, was %.17g", eng.Energy(), e0)
							}
						}
						// The engine is consistent: a random path scores as
						// in the reference.
						ref.SetSpins(eng.Spins())
						p := randomPath(r, m.N, 1+r.IntN(m.N))
						lf, _ := eng.Replay(p, false)
						wlf, _ := replayRef(eng, ref, p, false)
						closeLF(t, "replay after move", lf, wlf)
						eng.Replay(p, true)
						if bk, ok := eng.(*Bucket); ok {
							for c, n := range bk.tcnt {
								if n != 0 {
									t.Fatalf("class %d: %d bits counted unavailable", c, n)
								}
							}
						}
					}
					t.Logf("%d moves checked (largest relative difference from the reference %.2g), %d refused", checked, maxErr, refused)
				})
			}
		}
	}
}

// TestFastReverseRecord: the record is refused after anything but the
// move's own walks.
func TestFastReverseRecord(t *testing.T) {
	m := randomGraph(t, 20, 4, true, 0, 5)
	eng, err := NewBucket(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	pcg := rand.NewPCG(1, 1)
	rev := make([][2]float64, 2)
	path, _, _ := eng.Walk(pcg, 5, 0, nil)
	path, _, _ = eng.Walk(pcg, 5, 1, path)
	if !eng.ReverseLogProbs(path, []int{0, 5, 10}, rev) {
		t.Fatal("refused")
	}
	if eng.ReverseLogProbs(path[:5], []int{0, 5}, rev) {
		t.Fatal("accepted part of the move")
	}
	eng.Undo(path)
	path, _, _ = eng.Walk(pcg, 5, 0, path[:0])
	eng.Replay([]int32{0}, false)
	path, _, _ = eng.Walk(pcg, 5, 1, path)
	if eng.ReverseLogProbs(path, []int{0, 5, 10}, rev) {
		t.Fatal("accepted walks with a replay between them")
	}
}
