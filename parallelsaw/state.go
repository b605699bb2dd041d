package parallelsaw

import (
	"errors"

	"sardonics/internal/state"
)

// AppendState appends what the engine's future depends on beyond the
// model (see saw.StateEngine): the spins, every section's float64 fields
// in section order, the energy and the flips since the last refresh. The
// fixed-point fields, weights and sums are exact functions of the spins
// and biases and are rebuilt.
func (e *Engine) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	w.Int8s(e.sh.s)
	w.Uint64(uint64(len(e.sh.secs)))
	for _, sc := range e.sh.secs {
		w.Float64s(sc.fields(e.sh)) // caught up
	}
	w.Float64(e.e)
	w.Int64(int64(e.since))
	return w.B
}

// RestoreState restores a state AppendState wrote on an engine for the
// same model and number of sections (see saw.StateEngine). The workers
// keep running. On an error the engine is unchanged.
func (e *Engine) RestoreState(b []byte) error {
	s := make([]int8, len(e.sh.s))
	r := state.Reader{B: b}
	r.Spins(s)
	if p := r.Uint64(); r.Err() == nil && p != uint64(len(e.sh.secs)) {
		return errors.New("parallelsaw: state of another number of sections")
	}
	fs := make([][]float64, len(e.sh.secs))
	for p, sc := range e.sh.secs {
		fs[p] = make([]float64, len(sc.f))
		r.Float64s(fs[p])
	}
	en := r.Float64()
	since := r.Int64()
	if err := r.Err(); err != nil {
		return err
	}
	if since < 0 || since > 1<<40 {
		return errors.New("parallelsaw: state holds an invalid flip count")
	}
	copy(e.sh.s, s)
	e.sh.cmd.op = opSet // fixed-point fields from the spins; stale weights
	e.sh.run()
	for p, sc := range e.sh.secs { // the workers wait: the next run publishes these
		copy(sc.f, fs[p])
	}
	e.e, e.since = en, int(since)
	e.rec.Invalidate()
	return nil
}
