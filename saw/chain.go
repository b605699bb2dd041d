package saw

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/rng"
	"sardonics/sampler"
)

// Chain is a SARDONICS Markov chain: each Step draws one theta uniformly
// from its list (chosen independently of the state, so a mixture of
// reversible kernels keeps pi invariant) and makes one move. It is used by
// one goroutine at a time.
type Chain struct {
	eng    Engine
	beta   float64
	thetas []Theta
	opts   Options
	r      *rand.PCG
	stats  sampler.Stats
	mv     mover
	gl, gh float64 // biases last given to the engine; NaN: none yet
	mag    int     // sum_i s_i, while mv.track (TrackMagnetization)
}

var (
	_ sampler.Tempered   = (*Chain)(nil)
	_ sampler.Magnetized = (*Chain)(nil)
)

// NewChain returns a chain on eng at inverse temperature beta. thetas is a
// fixed setting (one element) or a policy's mixture (many); r is the
// chain's own stream.
func NewChain(eng Engine, beta float64, thetas []Theta, opts Options, r *rand.PCG) (*Chain, error) {
	if eng == nil || r == nil {
		return nil, errors.New("saw: NewChain needs an engine and a random stream")
	}
	if math.IsNaN(beta) || math.IsInf(beta, 0) || beta < 0 {
		return nil, fmt.Errorf("saw: beta=%v (expected a finite beta >= 0)", beta)
	}
	if opts.Layout != Blocks && opts.Layout != Pairs || opts.Weight != Logistic && opts.Weight != Exp ||
		opts.Accept != Marginal && opts.Accept != Joint && opts.Accept != jointNoTypeRatio {
		return nil, fmt.Errorf("saw: invalid options %+v", opts)
	}
	c := &Chain{eng: eng, beta: beta, opts: opts, r: r, gl: math.NaN(), gh: math.NaN()}
	if err := c.SetThetas(thetas); err != nil {
		return nil, err
	}
	return c, nil
}

// SetThetas replaces the chain's thetas (the tuner switches kernels
// between adaptation iterations). The slice is copied.
func (c *Chain) SetThetas(thetas []Theta) error {
	if len(thetas) == 0 {
		return errors.New("saw: no theta given")
	}
	for i, t := range thetas {
		if err := t.Validate(); err != nil {
			return fmt.Errorf("saw: theta %d: %w", i, err)
		}
	}
	c.thetas = append(c.thetas[:0], thetas...)
	return nil
}

// Step makes one move, accepted or rejected.
func (c *Chain) Step() {
	th := c.thetas[0]
	if len(c.thetas) > 1 {
		th = c.thetas[rng.Intn(c.r, len(c.thetas))]
	}
	// Engines may rebuild tables on SetBiases: only call it on a change.
	if gl, gh := th.GL*c.beta, th.GH*c.beta; gl != c.gl || gh != c.gh {
		c.eng.SetBiases(gl, gh, c.opts.Weight)
		c.gl, c.gh = gl, gh
	}
	ok, flips := c.mv.move(c.eng, c.r, th, c.beta, c.opts)
	c.stats.Proposed++
	c.stats.Flips += int64(flips)
	if ok {
		c.stats.Accepted++
		c.mag += c.mv.dm
	}
}

// TrackMagnetization makes the chain keep sum_i s_i from now on (see
// sampler.Magnetized): each move adds up the spins its walks flipped, a
// dozen reads against the O(N) of a sum. The spins must then change only
// through the chain (Step, Reset, RestoreState), not through Engine.
func (c *Chain) TrackMagnetization() {
	c.mv.track = true
	c.mag = sampler.SpinSum(c.eng.Spins())
}

// Magnetization is sum_i s_i of the current spins (see sampler.Magnetized):
// kept up to date after TrackMagnetization, summed otherwise.
func (c *Chain) Magnetization() int {
	if c.mv.track {
		return c.mag
	}
	return sampler.SpinSum(c.eng.Spins())
}

// SetBeta changes the inverse temperature (see sampler.Tempered); the
// engine's biases follow at the next step.
func (c *Chain) SetBeta(beta float64) {
	c.beta = beta
	c.gl, c.gh = math.NaN(), math.NaN()
}

// Beta is the chain's inverse temperature.
func (c *Chain) Beta() float64 { return c.beta }

// Energy is the current energy in the model's own convention.
func (c *Chain) Energy() float64 { return c.eng.Energy() }

// Spins is the current state (read only; valid until the next Step).
func (c *Chain) Spins() []int8 { return c.eng.Spins() }

// Stats returns the counters since the chain was made.
func (c *Chain) Stats() sampler.Stats { return c.stats }

// Engine is the chain's engine.
func (c *Chain) Engine() Engine { return c.eng }

// EngineOwner is a chain that runs a SARDONICS engine (a sardonics chain),
// which its Engine method returns.
type EngineOwner interface {
	Engine() Engine
}

// Tunable is a chain whose kernel the adaptation sets (sample --tune, the
// tuner of package tune): a sardonics chain.
type Tunable interface {
	sampler.Chain
	EngineOwner
	SetThetas(thetas []Theta) error
}

var (
	_ EngineOwner           = (*Chain)(nil)
	_ Tunable               = (*Chain)(nil)
	_ sampler.ThreadCPU     = (*Chain)(nil)
	_ sampler.MaybeStateful = (*Chain)(nil)
)

// WorkerCPUSeconds is the CPU time so far of the engine's worker threads
// (an engine with a WorkerCPUSeconds method, such as the parallel one), 0
// for engines that run on the caller's thread only.
func (c *Chain) WorkerCPUSeconds() float64 {
	return sampler.WorkerCPUSeconds(c.eng)
}

// WaitCPUSeconds is the CPU time so far that the engine's threads, the
// caller's included, spent waiting for each other (an engine with a
// WaitCPUSeconds method, such as the parallel one), 0 for engines that
// run on the caller's thread only.
func (c *Chain) WaitCPUSeconds() float64 {
	return sampler.WaitCPUSeconds(c.eng)
}
