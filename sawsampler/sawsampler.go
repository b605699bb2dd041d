package sawsampler

import (
	"math/rand/v2"

	_ "sardonics/dense" // the engines register their kinds (saw.RegisterEngine)
	_ "sardonics/denseising"
	"sardonics/model"
	_ "sardonics/parallelsaw"
	"sardonics/sampler"
	"sardonics/saw"
	_ "sardonics/sparse"
)

// The sardonics sampler's registration: its settings are a Config
// (nil: the default theta, the automatic engine).
func init() {
	sampler.Register(sampler.Kind{Name: "sardonics", Rank: 0, New: newSardonics, CPUs: sardonicsCPUs, Tunable: true})
}

func sawConfig(opts any) Config {
	if sc, ok := opts.(Config); ok {
		return sc
	}
	return Config{Thetas: []saw.Theta{saw.DefaultTheta}}
}

func newSardonics(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
	nop := func() {}
	sc := sawConfig(opts)
	eng, err := newEngine(m, sc, init)
	if err != nil {
		return nil, nop, err
	}
	done := nop
	if c, ok := eng.(closer); ok {
		done = c.Close
	}
	c, err := saw.NewChain(eng, beta, sc.Thetas, sc.Options, r)
	if err != nil {
		done()
		return nil, nop, err
	}
	return c, done, nil
}

// sardonicsCPUs is the parallel engine's section count where it will be
// used (see ParallelFor), else 1.
func sardonicsCPUs(m *model.Model, opts any) int {
	sc := sawConfig(opts)
	if !ParallelFor(m, sc.Engine, sc.EngineThreads) {
		return 1
	}
	return max(1, sc.EngineThreads)
}

// Parallel reports whether the sardonics sampler runs a partitioned
// parallel engine: on a model that has one (sections: see HasSections),
// with --engine parallel, or auto (or none) with more than one engine
// thread. The engine choice, the CPUs a chain occupies and the command
// line's CPU plan all ask here.
func Parallel(sections bool, engine string, engineThreads int) bool {
	return sections && (engine == "parallel" || (engine == "" || engine == "auto") && engineThreads > 1)
}

// HasSections reports whether m runs on an engine with a partitioned
// parallel form at --engine engine: an RBM (parallelsaw.Engine), or a
// model on the dense engine (parallelsaw.DenseEngine: --engine dense or
// parallel on a model of at most model.MaxDenseVariables, or auto on one
// that model.UseDense).
func HasSections(m *model.Model, engine string) bool {
	switch {
	case m.RBM != nil:
		return true
	case engine == "dense" || engine == "parallel":
		return m.Variables() <= model.MaxDenseVariables
	}
	return (engine == "" || engine == "auto") && m.UseDense()
}

// ParallelFor reports whether the sardonics sampler runs a partitioned
// engine on m at --engine engine with engineThreads engine threads: the
// engine kind it takes (saw.EngineFor) has sections. With more than one
// engine thread, auto takes the partitioned engine only on a model large
// enough for it to beat the serial engine (parallelsaw.Pays, PaysDense);
// --engine parallel always takes it.
func ParallelFor(m *model.Model, engine string, engineThreads int) bool {
	k, err := saw.EngineFor(engine, m, engineThreads)
	return err == nil && k.Sections
}

// sections is the parallel engine's section count: --engine-threads, or
// one per CPU it was given.
func sections(sc Config) int {
	if sc.EngineThreads >= 1 {
		return sc.EngineThreads
	}
	return max(1, len(sc.CPUs))
}

// newEngine builds the engine --engine sc.Engine takes on m (the engine
// registry: saw.EngineFor; every engine package registers its kinds).
func newEngine(m *model.Model, sc Config, init []int8) (saw.Engine, error) {
	k, err := saw.EngineFor(sc.Engine, m, sc.EngineThreads)
	if err != nil {
		return nil, &sampler.UsageError{Msg: err.Error()}
	}
	return k.New(m, init, sections(sc), sc.CPUs)
}

// closer is implemented by engines that own goroutines.
type closer interface{ Close() }

// Config is the sardonics sampler's settings (its sampler.Kind.New opts).
// The runner hands every sampler the run's Config: the hybrid sampler
// reads its cycle and thetas from it (HybridCycle, SAWThetas).
type Config struct {
	Thetas        []saw.Theta // one fixed theta, or a policy's K kernels
	Options       saw.Options
	Engine        string // auto, tree, bucket, dense, parallel (not RBMs: dense is the automatic choice above model.UseDense's threshold, parallel its partitioned form); auto, dense, parallel (RBM)
	EngineThreads int    // sections of the parallel engine (0: auto)
	CPUs          []int  // CPUs the parallel engine may pin its workers to
	// Mix is the hybrid sampler's cycle (Metropolis sweeps, SARDONICS
	// moves per step; zero: its default), which it reads through
	// HybridCycle: the runner hands every sampler these settings.
	Mix [2]int
}

// HybridCycle is the hybrid sampler's cycle (hybrid.CycleSource).
func (sc Config) HybridCycle() (a, m int) { return sc.Mix[0], sc.Mix[1] }

// SAWThetas are the thetas the sardonics chains run (hybrid.ThetaSource).
func (sc Config) SAWThetas() []saw.Theta { return sc.Thetas }
