package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"sardonics/internal/state"
	"sardonics/sampler"
)

// CanSave reports whether every member can save its state
// (sampler.MaybeStateful).
func (c *Chain) CanSave() bool {
	for _, s := range c.sets {
		for _, m := range s.ms {
			if !sampler.CanSave(m.ch) {
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
			t += sampler.WorkerCPUSeconds(m.ch)
		}
	}
	return t
}

// WaitCPUSeconds is the CPU time so far that the chain's threads, the
// caller's included, spent waiting for each other rather than computing:
// the pool's spinning while a round or a share was not ready, its parking
// and waking (the system calls' CPU), and the same for the members' own
// threads (a parallel engine's, see parallelsaw.Engine.WaitCPUSeconds).
// It is part of the caller's thread CPU plus WorkerCPUSeconds. Call it
// before Close.
func (c *Chain) WaitCPUSeconds() float64 {
	t := 0.0
	if c.pool != nil {
		t += c.pool.waitSeconds()
	}
	for _, s := range c.sets {
		for _, m := range s.ms {
			t += sampler.WaitCPUSeconds(m.ch)
		}
	}
	return t
}

// tagTuner marks the trailer that holds the cycle tuner's state.
const tagTuner = 0x72656e7574776f6c // "lowtuner"

// tagSpread marks the trailer that holds the variance ladder's records.
const tagSpread = 0x646165727073 // "spread"

// AppendState appends the whole state (see sampler.Stateful): the ladder,
// the round's position and buffers, the counters, and each member's rung,
// stream and chain state (a hybrid member's cycle table with it). On the
// work clock the clock's setting and the steps done follow the header, and
// the round buffers carry their lengths; a variance ladder's records
// follow in a trailer, then, with the cluster move, its rungs and counters
// (a trailer that starts with its own layout version, clusterVersion), and
// with the cycle tuner (Config.Tune) a trailer holds its state: its phase
// and running assignment (they depend on modelled costs, not on the step
// count alone), its measurements so far and, once done, its choice, CPU
// times left out. A chain on the step clock without them saves what it
// saved before either existed, byte for byte. It panics if a member
// cannot save its state (check Stateful).
func (c *Chain) AppendState(b []byte) []byte {
	w := state.Writer{B: b}
	R := len(c.betas)
	w.Uint64(uint64(R))
	w.Uint64(uint64(len(c.sets)))
	w.Uint64(uint64(c.cfg.SwapEvery))
	if c.cfg.Work > 0 {
		w.Float64(c.cfg.Work)
		w.Int64(c.done)
	}
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
			kept := s.tgtS // the step clock saves all its buffers
			if c.cfg.Work > 0 {
				kept = kept[:len(s.tgtE)]
			}
			for _, x := range kept {
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
	if c.vN != nil {
		w.Uint64(tagSpread)
		w.Int64s(c.vN)
		w.Float64s(c.vMean)
		w.Float64s(c.vM2)
		w.Uint64(uint64(len(c.vSD))) // 0 before the first move
		if c.vSD != nil {
			w.Float64s(c.vBetas)
			w.Float64s(c.vSD)
		}
	}
	if c.icm != nil {
		c.icm.append(&w)
	}
	if c.tn != nil {
		// The choice without its CPU times, which differ from run to run
		// while the state must not (a runner keeps them itself).
		j, err := json.Marshal(&c.tn.st)
		if err != nil {
			panic(err)
		}
		w.Uint64(tagTuner)
		w.Bytes(j)
	}
	return w.B
}

// float64s reads a length-prefixed []float64 of any length (state.Reader's
// Float64s wants the length known).
func float64s(r *state.Reader) []float64 {
	peek := *r
	n := peek.Uint64()
	if peek.Bad() != nil || n > uint64(len(peek.B)/8) {
		r.Fail(errors.New("replica: corrupt state (buffer length)"))
		return nil
	}
	x := make([]float64, n)
	r.Float64s(x)
	return x
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
	work := c.cfg.Work > 0
	var done int64
	if work {
		if wk := r.Float64(); r.Bad() == nil && math.Float64bits(wk) != math.Float64bits(c.cfg.Work) {
			return fmt.Errorf("replica: state of a work clock of %v sweep-equivalents (this chain: %v)", wk, c.cfg.Work)
		}
		done = r.Int64()
	}
	betas := make([]float64, R)
	r.Float64s(betas)
	rounds, idx, next := r.Int64(), r.Int64(), r.Int64()
	if r.Bad() == nil && (idx < 0 || !work && idx > int64(c.cfg.SwapEvery) || rounds < 0 || done < 0) {
		return errors.New("replica: corrupt state (round position)")
	}
	if !work {
		done = rounds * int64(c.cfg.SwapEvery)
	}
	r.Int64s(c.aAcc)
	r.Int64s(c.aTries)
	if c.q != nil {
		if work {
			c.q = float64s(&r)
		} else {
			r.Float64s(c.q)
		}
	}
	for si, s := range c.sets {
		if work {
			s.tgtE = float64s(&r)
			for len(s.tgtS) < len(s.tgtE) && s.spins {
				s.tgtS = append(s.tgtS, make([]int8, c.n))
			}
			if r.Bad() == nil && (si == 0 && (int64(len(s.tgtE)) < idx || c.q != nil && len(c.q) != len(s.tgtE)) ||
				rounds == 0 && len(s.tgtE) != 0 || rounds > 0 && len(s.tgtE) == 0) {
				return errors.New("replica: corrupt state (round buffers)")
			}
		} else {
			n := c.cfg.SwapEvery
			if rounds == 0 {
				n = 0
			}
			s.tgtE = s.tgtE[:n]
			r.Float64s(s.tgtE)
		}
		if s.spins {
			kept := s.tgtS
			if work {
				kept = kept[:len(s.tgtE)]
			}
			for _, x := range kept {
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
	var tuned *tunerState
	var vN []int64
	var vMean, vM2, vBetas, vSD []float64
	if c.vN != nil {
		vN, vMean, vM2 = make([]int64, R), make([]float64, R), make([]float64, R)
		if r.Uint64() != tagSpread && r.Bad() == nil {
			return errors.New("replica: corrupt state (no variance-ladder records for a variance ladder)")
		}
		r.Int64s(vN)
		r.Float64s(vMean)
		r.Float64s(vM2)
		if n := r.Uint64(); r.Bad() == nil && n != 0 {
			if n != uint64(R) {
				return errors.New("replica: corrupt state (variance-ladder spreads)")
			}
			vBetas, vSD = make([]float64, R), make([]float64, R)
			r.Float64s(vBetas)
			r.Float64s(vSD)
		}
	}
	var icm *icmState
	if c.icm != nil && r.Bad() == nil {
		x := *c.icm
		x.on, x.cur, x.prev, x.meas, x.after = make([]bool, R), make([]clusterStats, R), make([]clusterStats, R), make([]clusterStats, R), make([]clusterStats, R)
		if err := x.restore(&r); err != nil {
			return err
		}
		icm = &x
	}
	if c.tn != nil && r.Bad() == nil {
		if r.Uint64() != tagTuner && r.Bad() == nil {
			return errors.New("replica: corrupt state (no cycle tuner's state for a chain that tunes its cycles)")
		}
		if j := r.Bytes(); r.Bad() == nil {
			tuned = new(tunerState)
			if err := json.Unmarshal(j, tuned); err != nil {
				return fmt.Errorf("replica: corrupt state (cycle tuner): %w", err)
			}
			if err := tuned.check(&c.tn.cfg, R, len(c.sets)); err != nil {
				return err
			}
		}
	}
	if len(r.B) > 0 && r.Bad() == nil {
		return errors.New("replica: corrupt state (trailer)")
	}
	if err := r.Err(); err != nil {
		return err
	}
	if c.vN != nil {
		copy(c.vN, vN)
		copy(c.vMean, vMean)
		copy(c.vM2, vM2)
		c.vBetas, c.vSD = vBetas, vSD
	}
	if icm != nil {
		c.icm = icm
	}
	copy(c.betas, betas)
	c.rounds, c.done, c.idx, c.nextAdapt = rounds, done, int(idx), next
	if tuned != nil {
		c.tn.st = *tuned
	}
	for _, s := range c.sets {
		for _, m := range s.ms {
			m.ch.SetBeta(c.betas[m.pos])
		}
	}
	return nil
}
