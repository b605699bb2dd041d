package sparse

import (
	"fmt"

	"sardonics/model"
)

// initSpins copies init (nil means all +1). A wrong length or a value other
// than -1 or +1 is a programmer error.
func initSpins(m *model.Ising, init []int8) []int8 {
	s := make([]int8, m.N)
	if init == nil {
		for i := range s {
			s[i] = 1
		}
		return s
	}
	if len(init) != m.N {
		panic(fmt.Sprintf("sparse: %d initial spins for %d variables", len(init), m.N))
	}
	for i, v := range init {
		if v != 1 && v != -1 {
			panic(fmt.Sprintf("sparse: spin %d is %d (expected -1 or +1)", i, v))
		}
		s[i] = v
	}
	return s
}

// journal makes undone flips restore the energy exactly: flipping the bit
// flipped last returns the state before that flip, so the energy saved
// then is restored instead of adding a rounded -dE. Floating-point sums of
// real dE values would otherwise drift off the start energy on every
// rejected move.
type journal struct {
	bit []int32
	e   []float64
}

// journalCap bounds the journal; trimming keeps the newest half, so moves
// with paths up to journalCap/2 flips are undone exactly.
const journalCap = 1 << 15

// flip returns the energy after flipping bit l from energy e with change dE.
func (j *journal) flip(l int32, e, dE float64) float64 {
	if n := len(j.bit); n > 0 && j.bit[n-1] == l {
		e = j.e[n-1]
		j.bit, j.e = j.bit[:n-1], j.e[:n-1]
		return e
	}
	if len(j.bit) == journalCap {
		h := journalCap / 2
		j.bit = j.bit[:copy(j.bit, j.bit[h:])]
		j.e = j.e[:copy(j.e, j.e[h:])]
	}
	j.bit = append(j.bit, l)
	j.e = append(j.e, e)
	return e + dE
}

func (j *journal) reset() { j.bit, j.e = j.bit[:0], j.e[:0] }
