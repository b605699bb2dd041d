package runner

import (
	"math"
	"slices"
	"testing"

	"sardonics/draws"
	"sardonics/summary"
)

// stream is a made-up observation: step j's energy, magnetization,
// overlap and spins are functions of j, and it counts its reads.
type stream struct {
	j     int
	reads int
}

func (s *stream) Energy() float64    { s.reads++; return math.Sin(float64(s.j)) * 10 }
func (s *stream) Magnetization() int { return s.j%7 - 3 }
func (s *stream) Overlap() float64   { return float64(s.j%5) / 5 }
func (s *stream) Spins() []int8 {
	x := make([]int8, 4)
	for i := range x {
		x[i] = int8(1 - 2*(s.j>>i&1))
	}
	return x
}

func newRecorder(capDraws, saveEvery int) *recorder {
	return &recorder{rec: &summary.TrialRecord{Trace: &summary.Trace{BurnIn: draws.New(0, capDraws)}, Lowest: &summary.Lowest{},
		Best: &summary.BestSet{K: 3}}, traceCap: capDraws, saveEvery: saveEvery, saveStates: true, overlaps: true}
}

// The recorder on a made-up stream, without a chain: every kept draw is
// the stream's value at the step its phase's thinning names (so the
// burn-in's come first), the moments are the exact sums over every step
// after the burn-in, the lowest energy is the stream's with its first
// step, the saved states are those of every saveEvery-th step after the
// burn-in, and a thinned-out burn-in step reads nothing.
func TestRecorderStream(t *testing.T) {
	const steps, burn = 5000, 700
	for _, capDraws := range []int{64, 1 << 20} {
		r := newRecorder(capDraws, 9)
		s := &stream{}
		for s.j = 1; s.j <= steps; s.j++ {
			r.observe(s, burn)
		}
		rec := r.rec
		if rec.Steps != steps {
			t.Fatalf("steps %d", rec.Steps)
		}
		value := func(j int) float64 { return math.Sin(float64(j)) * 10 }
		bi, kt := rec.Trace.BurnIn, rec.Trace.Kept
		if bi.Kept+kt.Kept != len(rec.Energies) || len(rec.Energies) != len(rec.Magnetization) || len(rec.Overlap) != len(rec.Energies) {
			t.Fatalf("cap %d: %d + %d kept, %d energies", capDraws, bi.Kept, kt.Kept, len(rec.Energies))
		}
		if max(bi.Kept, kt.Kept) > 2*capDraws {
			t.Errorf("cap %d: phases keep %d and %d draws", capDraws, bi.Kept, kt.Kept)
		}
		for k := range len(rec.Energies) {
			step := bi.Step(k)
			if k >= bi.Kept {
				step = kt.Step(k - bi.Kept)
			}
			if (k < bi.Kept) != (step <= burn) || rec.Energies[k] != value(step) || int(rec.Magnetization[k]) != step%7-3 {
				t.Fatalf("cap %d: kept draw %d (step %d) holds %v", capDraws, k, step, rec.Energies[k])
			}
		}
		var want draws.Moments
		low, lowStep := math.Inf(1), 0
		for j := 1; j <= steps; j++ {
			if j > burn {
				want.Add(value(j))
			}
			if value(j) < low {
				low, lowStep = value(j), j
			}
		}
		if rec.Moments.Energy != want {
			t.Errorf("cap %d: moments %+v, want %+v", capDraws, rec.Moments.Energy, want)
		}
		if rec.Lowest.Energy != low || rec.Lowest.Step != lowStep || rec.Best.States[0].Energy != low {
			t.Errorf("lowest %+v (best %+v), want %v at step %d", rec.Lowest, rec.Best.States[0], low, lowStep)
		}
		if len(rec.States) != (steps-burn)/9 || rec.StateEnergies[0] != value(burn+9) {
			t.Errorf("%d saved states, the first of energy %v", len(rec.States), rec.StateEnergies[0])
		}
		if !slices.Equal(rec.States[1], []uint8{1, 0, 0, 0}) { // step burn+18 = 718 = 0b1011001110: bits 0..3 = 0,1,1,1 -> spins +1,-1,-1,-1 -> x 1,0,0,0
			t.Errorf("saved state %v", rec.States[1])
		}
	}
	// A step reads its energy once, whatever records it (the lowest
	// energy, a kept draw, a saved state).
	r := newRecorder(16, 1000)
	r.rec.Best = nil
	s := &stream{}
	for s.j = 1; s.j <= 4000; s.j++ {
		r.observe(s, 2000)
	}
	if s.reads != 4000 {
		t.Errorf("%d energy reads for 4000 steps", s.reads)
	}
}
