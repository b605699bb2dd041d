package dense

import (
	"errors"

	"sardonics/internal/state"
)

// AppendState appends what the engine's future depends on beyond the
// model (see saw.StateEngine): the spins, the float64 fields and energy
// (incrementally updated, so they depend on the order of past flips) and
// the flips since the last refresh. The fixed-point fields, weights and
// sums are exact functions of the spins and biases and are rebuilt.
func (e *Engine) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Int8s(e.s)
	w.Float64s(e.fields())
	w.Float64(e.e)
	w.Int64(int64(e.since))
	return w.B
}

// RestoreState restores a state AppendState wrote on an engine for the
// same model (see saw.StateEngine). On an error the engine is unchanged.
func (e *Engine) RestoreState(b []byte) error {
	s := make([]int8, len(e.s))
	f := make([]float64, len(e.field))
	r := state.Reader{B: b}
	r.Spins(s)
	r.Float64s(f)
	en := r.Float64()
	since := r.Int64()
	if err := r.Err(); err != nil {
		return err
	}
	if since < 0 || since > 1<<40 {
		return errors.New("dense: state holds an invalid flip count")
	}
	copy(e.s, s)
	copy(e.field, f)
	e.hflips = e.hflips[:0] // the fields are up to date
	clear(e.upto)
	e.q.Fields(e.s, e.F)
	e.e, e.since = en, int(since)
	e.stale = true
	e.rec.Invalidate()
	return nil
}
