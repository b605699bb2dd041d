package saw

import (
	"errors"
	"math"

	"sardonics/internal/state"
	"sardonics/sampler"
)

var (
	_ sampler.Stateful = (*Chain)(nil)
	_ sampler.Resetter = (*Chain)(nil)
	_ sampler.Flipper  = (*Chain)(nil)
)

// ErrNoEngineState is returned when the chain's engine cannot save its
// state (it does not implement StateEngine).
var ErrNoEngineState = errors.New("saw: the engine cannot save its state")

// CanSave reports whether the chain can save and restore its state: its
// engine implements StateEngine (sampler.MaybeStateful).
func (c *Chain) CanSave() bool {
	_, ok := c.eng.(StateEngine)
	return ok
}

// AppendState appends the chain's state (see sampler.Stateful): its
// thetas, counters, the move's recent rejection rate (it chooses between
// the fast reverse and a replay, whose results may differ in the last
// bit), and the engine's state. It panics if the engine cannot save its
// state (check Stateful).
func (c *Chain) AppendState(b []byte) []byte {
	se, ok := c.eng.(StateEngine)
	if !ok {
		panic(ErrNoEngineState)
	}
	w := state.Writer{B: b}
	w.Uint64(uint64(len(c.thetas)))
	for _, t := range c.thetas {
		w.Int64(int64(t.KL))
		w.Int64(int64(t.KU))
		w.Int64(int64(t.N))
		w.Float64s([]float64{t.GL, t.GH, t.PLL, t.PHL, t.PLH})
	}
	w.Int64(c.stats.Flips)
	w.Int64(c.stats.Proposed)
	w.Int64(c.stats.Accepted)
	w.Float64(c.mv.rej)
	w.Bytes(se.AppendState(nil))
	return w.B
}

// RestoreState restores a state AppendState wrote (see sampler.Stateful).
func (c *Chain) RestoreState(b []byte) error {
	se, ok := c.eng.(StateEngine)
	if !ok {
		return ErrNoEngineState
	}
	r := state.Reader{B: b}
	n := r.Uint64()
	if n > 1<<20 {
		return errors.New("saw: chain state holds too many thetas")
	}
	thetas := make([]Theta, n)
	for i := range thetas {
		t := &thetas[i]
		t.KL, t.KU, t.N = int(r.Int64()), int(r.Int64()), int(r.Int64())
		f := make([]float64, 5)
		r.Float64s(f)
		t.GL, t.GH, t.PLL, t.PHL, t.PLH = f[0], f[1], f[2], f[3], f[4]
	}
	var st sampler.Stats
	st.Flips, st.Proposed, st.Accepted = r.Int64(), r.Int64(), r.Int64()
	rej := r.Float64()
	eb := r.Bytes()
	if err := r.Err(); err != nil {
		return err
	}
	if err := c.SetThetas(thetas); err != nil {
		return err
	}
	if err := se.RestoreState(eb); err != nil {
		return err
	}
	c.stats, c.mv.rej = st, rej
	c.gl, c.gh = math.NaN(), math.NaN() // the engine's biases are set again at the next step
	if c.mv.track {
		c.mag = sampler.SpinSum(c.eng.Spins())
	}
	return nil
}

// Reset puts the chain at spins (see sampler.Resetter); its counters and
// thetas are kept.
func (c *Chain) Reset(spins []int8) {
	c.eng.SetSpins(spins)
	if c.mv.track {
		c.mag = sampler.SpinSum(c.eng.Spins())
	}
}

// FlipSites flips the spins at idx (distinct sites; see sampler.Flipper)
// through the engine's Flip, which keeps everything the engine derives
// from the spins right; a tracked magnetization follows. Counters and
// thetas are kept.
func (c *Chain) FlipSites(idx []int32) {
	if c.mv.track {
		s := c.eng.Spins()
		for _, l := range idx {
			c.mag -= 2 * int(s[l])
		}
	}
	c.eng.Flip(idx)
}
