package denseising

import (
	"errors"

	"sardonics/internal/state"
)

// AppendState appends what the engine's future depends on beyond the
// model (see saw.StateEngine): the spins, the energy (a running sum, so it
// depends on the order of past flips) and the flips since its last
// refresh. The fixed-point fields, weights and sums are exact functions of
// the spins and biases and are rebuilt.
func (e *Engine) AppendState(b []byte) []byte { return AppendState(b, e.s, e.e, e.since) }

// AppendState appends an engine's state (spins s, energy e, flips since
// the last refresh): this package's engine's, and package parallelsaw's
// dense engine's, which is the same chain bit for bit.
func AppendState(b []byte, s []int8, e float64, since int) []byte {
	w := state.Writer{B: b}
	w.Int8s(s)
	w.Float64(e)
	w.Int64(int64(since))
	return w.B
}

// ReadState reads what AppendState wrote for n spins.
func ReadState(b []byte, n int) (s []int8, e float64, since int, err error) {
	s = make([]int8, n)
	r := state.Reader{B: b}
	r.Spins(s)
	e = r.Float64()
	sn := r.Int64()
	if err := r.Err(); err != nil {
		return nil, 0, 0, err
	}
	if sn < 0 || sn > 1<<40 || !finite(e) {
		return nil, 0, 0, errors.New("denseising: state holds an invalid energy or flip count")
	}
	return s, e, int(sn), nil
}

// RestoreState restores a state AppendState wrote on an engine for the
// same model (see saw.StateEngine). On an error the engine is unchanged.
func (e *Engine) RestoreState(b []byte) error {
	s, en, since, err := ReadState(b, e.n)
	if err != nil {
		return err
	}
	copy(e.s, s)
	e.q.Fields(e.s, e.F)
	e.e, e.since = en, since
	e.stale = true
	e.rec.Invalidate()
	return nil
}
