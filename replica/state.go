package replica

import (
	"errors"
	"fmt"

	"sardonics/internal/state"
	"sardonics/sampler"
)

// Stateful reports whether every member can save its state.
func (c *Chain) Stateful() bool {
	for _, s := range c.sets {
		for _, m := range s.ms {
			if st, ok := m.ch.(interface{ Stateful() bool }); ok && !st.Stateful() {
				return false
			}
			if _, ok := m.ch.(sampler.Stateful); !ok {
				return false
			}
		}
	}
	return true
}

// WorkerCPUSeconds is the CPU time so far of the threads besides the
// caller's: the pool's workers and the members' own (a parallel engine's).
// Call it before Close.
func (c *Chain) WorkerCPUSeconds() float64 {
	t := 0.0
	if c.pool != nil {
		t += c.pool.cpuSeconds()
	}
	for _, s := range c.sets {
		for _, m := range s.ms {
			if w, ok := m.ch.(interface{ WorkerCPUSeconds() float64 }); ok {
				t += w.WorkerCPUSeconds()
			}
		}
	}
	return t
}

// AppendState appends the whole state (see sampler.Stateful): the ladder,
// the round's position and buffers, the counters, and each member's rung,
// stream and chain state. It panics if a member cannot save its state
// (check Stateful).
func (c *Chain) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	R := len(c.betas)
	w.Uint64(uint64(R))
	w.Uint64(uint64(len(c.sets)))
	w.Uint64(uint64(c.cfg.SwapEvery))
	w.Float64s(c.betas)
	w.Int64(c.rounds)
	w.Int64(int64(c.idx))
	w.Int64(c.nextAdapt)
	w.Int64s(c.aAcc)
	w.Int64s(c.aTries)
	if c.q != nil {
		w.Float64s(c.q)
	}
	for _, s := range c.sets {
		w.Float64s(s.tgtE)
		if s.spins {
			for _, x := range s.tgtS {
				w.Int8s(x)
			}
		}
		w.Int64s(s.acc)
		w.Int64s(s.tries)
		w.Int64(s.trips)
		w.Uint64(uint64(len(s.walk)))
		for _, p := range s.walk {
			w.Int64(int64(p))
		}
		for _, m := range s.ms {
			w.Int64(int64(m.pos))
			w.Int64(int64(m.dir))
			rb, err := m.r.MarshalBinary()
			if err != nil {
				panic(err)
			}
			w.Bytes(rb)
			w.Bytes(m.ch.(sampler.Stateful).AppendState(nil))
		}
	}
	return w.B
}

// RestoreState restores a state AppendState wrote on a chain built with
// the same configuration (see sampler.Stateful).
func (c *Chain) RestoreState(b []byte) error {
	r := state.Reader{B: b}
	R := len(c.betas)
	if n, ns, se := r.Uint64(), r.Uint64(), r.Uint64(); r.Bad() == nil &&
		(n != uint64(R) || ns != uint64(len(c.sets)) || se != uint64(c.cfg.SwapEvery)) {
		return fmt.Errorf("replica: state of %d rungs x %d sets, swap every %d (this chain: %d x %d, %d)", n, ns, se, R, len(c.sets), c.cfg.SwapEvery)
	}
	betas := make([]float64, R)
	r.Float64s(betas)
	rounds, idx, next := r.Int64(), r.Int64(), r.Int64()
	if r.Bad() == nil && (idx < 0 || idx > int64(c.cfg.SwapEvery) || rounds < 0) {
		return errors.New("replica: corrupt state (round position)")
	}
	r.Int64s(c.aAcc)
	r.Int64s(c.aTries)
	if c.q != nil {
		r.Float64s(c.q)
	}
	for _, s := range c.sets {
		n := c.cfg.SwapEvery
		if rounds == 0 {
			n = 0
		}
		s.tgtE = s.tgtE[:n]
		r.Float64s(s.tgtE)
		if s.spins {
			for _, x := range s.tgtS {
				r.Int8s(x)
			}
		}
		r.Int64s(s.acc)
		r.Int64s(s.tries)
		s.trips = r.Int64()
		nw := r.Uint64()
		if nw > 1<<40 {
			return errors.New("replica: corrupt state (walk)")
		}
		s.walk = s.walk[:0]
		for range nw {
			s.walk = append(s.walk, int16(r.Int64()))
			if r.Bad() != nil {
				return r.Bad()
			}
		}
		for k, m := range s.ms {
			pos, dir := r.Int64(), r.Int64()
			rb, cb := r.Bytes(), r.Bytes()
			if err := r.Bad(); err != nil {
				return err
			}
			if pos < 0 || pos >= int64(R) || dir < -1 || dir > 1 {
				return fmt.Errorf("replica: corrupt state (member %d at rung %d)", k, pos)
			}
			if err := m.r.UnmarshalBinary(rb); err != nil {
				return err
			}
			st, ok := m.ch.(sampler.Stateful)
			if !ok {
				return errors.New("replica: a member cannot restore its state")
			}
			if err := st.RestoreState(cb); err != nil {
				return err
			}
			m.pos, m.dir = int(pos), int8(dir)
			s.at[pos] = k
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	copy(c.betas, betas)
	c.rounds, c.idx, c.nextAdapt = rounds, int(idx), next
	for _, s := range c.sets {
		for _, m := range s.ms {
			m.ch.SetBeta(c.betas[m.pos])
		}
	}
	return nil
}
