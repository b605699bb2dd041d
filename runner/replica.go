package runner

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"

	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
	"sardonics/sampler"
	"sardonics/sawsampler"
	"sardonics/summary"
)

// ReplicaConfig is replica exchange around every sampler of a run (see
// package replica); R <= 1 turns it off.
type ReplicaConfig struct {
	R         int     // rungs
	BetaMin   float64 // the hottest rung's inverse temperature
	SwapEvery int     // steps between swap rounds (0: DefaultSwapEvery)
	Adaptive  bool    // move the rungs during the first half of the burn-in
	Variance  bool    // with Adaptive: from the rungs' energy spread (replica.ByVariance)
	Overlap   bool    // two independent ladders; record the overlap q
	Workers   int     // goroutines per trial stepping the members
	// Work > 0 swaps on the work clock: a round is Work sweep-equivalents
	// of proposed flips per member (replica.Config.Work), fair to kernels
	// whose steps cost differently; SwapEvery is then unused.
	Work float64
	// TuneCycles has the hybrid sampler's replica-exchange chain choose
	// every rung's cycle during the burn-in (replica.CycleTuner: the
	// cheap cycle 1:0 during the first half, then the candidates scored by
	// the target's slow observable and round trips over the second; see
	// tuneConfig); without replicas (R <= 1)
	// replica.TuneChain chooses a single hybrid chain's cycle at half the
	// burn-in, TuneSeconds of modelled CPU per candidate.
	TuneCycles  bool
	TuneSeconds float64
	// Cluster is "icm" for the cluster move between the two sets after
	// every swap round (needs Overlap; replica.ICM), "" for none.
	// ClusterBetaMin > 0 runs it at every rung with beta >= ClusterBetaMin;
	// 0 chooses the rungs from the burn-in (replica.Config.ClusterBetaMin).
	Cluster        string
	ClusterBetaMin float64
	// Auto is what chose R and the ladder (sample --replicas auto; nil: R
	// was given), recorded in every trial's stats.json; its ladder (at
	// equal shares of the pilot's barrier) is part of the run's identity
	// (String).
	Auto *replica.AutoRungs
}

// ClusterICM is ReplicaConfig.Cluster's name of the cluster move.
const ClusterICM = "icm"

// DefaultSwapEvery is the steps between swap rounds when none are given:
// every sweep for the single-site and block samplers, every 10 moves for
// sardonics, whose moves flip ~10-100 bits (10 moves cost about a sweep)
// and whose engines rebuild their weights on a change of temperature
// (swapping every move costs about 15% on the 3D glass, every 10 moves
// within the noise: BenchmarkOverhead in package replica).
func DefaultSwapEvery(name string) int {
	if kindOf(name).Tunable {
		return 10
	}
	return 1
}

// On reports whether replica exchange is on.
func (rc ReplicaConfig) On() bool { return rc.R > 1 }

// String describes the settings for run identity (checkpoints, reports).
func (rc ReplicaConfig) String() string {
	if !rc.On() {
		if rc.TuneCycles { // a single hybrid chain's tuning
			return fmt.Sprintf(" tune-cycles=%g", rc.TuneSeconds)
		}
		return ""
	}
	ladder := "geometric"
	if rc.Adaptive {
		ladder = "adaptive"
		if rc.Variance {
			ladder = "variance"
		}
	}
	s := fmt.Sprintf(" replicas=%d beta-min=%g swap-every=%d ladder=%s overlap=%v", rc.R, rc.BetaMin, rc.SwapEvery, ladder, rc.Overlap)
	if rc.Work > 0 { // only when set, so that older runs keep their identity
		s += fmt.Sprintf(" swap-work=%g", rc.Work)
	}
	if rc.TuneCycles {
		s += " tune-cycles=slow" // the slow-mode tuner (TuneSeconds is the single chain's)
	}
	if a := rc.Auto; a != nil && len(a.Betas) == rc.R {
		s += fmt.Sprintf(" auto-ladder=%x", ladderHash(a.Betas))
	}
	return s + rc.clusterString()
}

// ladderHash is an FNV-1a hash of the ladder's float64 bits.
func ladderHash(betas []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range betas {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	return h.Sum64()
}

// clusterString is the cluster move's part of String (empty without it,
// so that runs without it keep their identity).
func (rc ReplicaConfig) clusterString() string {
	if rc.Cluster == "" {
		return ""
	}
	s := " cluster=" + rc.Cluster
	if rc.ClusterBetaMin > 0 {
		s += fmt.Sprintf(" cluster-beta-min=%g", rc.ClusterBetaMin)
	}
	return s
}

// Check says why replica exchange cannot run sampler name under cfg.
func (rc ReplicaConfig) Check(name string, m *model.Model, beta float64, sc sawsampler.Config) error {
	switch {
	case !rc.On():
		return nil
	case !(rc.BetaMin > 0) || !(rc.BetaMin < beta) || math.IsInf(rc.BetaMin, 0):
		return &sampler.UsageError{Msg: fmt.Sprintf("--beta-min %g (expected 0 < beta-min < the target beta %g)", rc.BetaMin, beta)}
	case rc.SwapEvery < 0:
		return &sampler.UsageError{Msg: fmt.Sprintf("--swap-every %d (expected >= 1, or 0 for the default)", rc.SwapEvery)}
	case kindOf(name).Untempered != "":
		var can []string
		for _, n := range sampler.Names() {
			if k := kindOf(n); k.Untempered == "" && (k.Check == nil || m == nil || k.Check(m) == nil) {
				can = append(can, n)
			}
		}
		return &sampler.UsageError{Msg: fmt.Sprintf("--replicas: %s cannot change its temperature in place (%s); use %s", name, kindOf(name).Untempered, strings.Join(can, ", "))}
	case kindOf(name).ChainCPUs(m, sc) > 1:
		return &sampler.UsageError{Msg: "--replicas with the parallel RBM engine would run a spinning engine per rung; use --engine dense (replicas run in parallel instead)"}
	}
	return rc.checkCluster(m)
}

// checkCluster says why the cluster move cannot run as asked on m.
func (rc ReplicaConfig) checkCluster(m *model.Model) error {
	switch {
	case rc.Cluster == "":
		return nil
	case rc.Cluster != ClusterICM:
		return &sampler.UsageError{Msg: fmt.Sprintf("--cluster %q (expected icm)", rc.Cluster)}
	case !rc.Overlap:
		return &sampler.UsageError{Msg: "--cluster icm moves clusters between two sets of replicas at the same temperature: give --overlap for the second set"}
	case math.IsNaN(rc.ClusterBetaMin) || math.IsInf(rc.ClusterBetaMin, 0) || rc.ClusterBetaMin < 0:
		return &sampler.UsageError{Msg: fmt.Sprintf("--cluster-beta-min %g (expected a beta >= 0; 0 chooses the rungs during the burn-in)", rc.ClusterBetaMin)}
	}
	if m != nil {
		if why := denseCoupling(m); why != "" {
			return &sampler.UsageError{Msg: fmt.Sprintf("--cluster icm cannot help on %s: %s, so every q = -1 site is coupled to the others and the cluster is the whole q = -1 set, whose flip in both replicas only exchanges them; the move is for sparse models (lattices, chimera, sparse .txt and .qubo files)", m.Spec, why)}
		}
	}
	return nil
}

// denseCoupling says how m is dense ("" if it is not): at least
// model.DenseMinDensity of its pairs coupled (nonzero) with a mean degree
// of at least model.DenseMinDegree, the thresholds of the dense engines
// (an RBM's couplings are its nonzero weights).
func denseCoupling(m *model.Model) string {
	n, pairs := m.Variables(), m.Interactions()
	if r := m.RBM; r != nil {
		pairs = 0
		for _, w := range r.W {
			if w != 0 {
				pairs++
			}
		}
	}
	d, deg := model.Density(n, pairs), 2*float64(pairs)/float64(n)
	if d < model.DenseMinDensity || deg < model.DenseMinDegree {
		return ""
	}
	what := "it is dense"
	if m.RBM != nil {
		what = "its visible and hidden units are densely coupled"
	}
	return fmt.Sprintf("%s (%.0f%% of its pairs coupled, %.0f neighbours per variable)", what, 100*d, deg)
}

// newTrialChain builds trial chain name at spins: the sampler's own chain,
// or replica exchange around it, which counts swaps after the burn-in's
// burn steps and moves an adaptive ladder during the first adapt steps
// (unknownSteps: not yet known, see trial.reschedule).
func newTrialChain(cfg *Config, name string, r *rand.PCG, spins []int8, burn, adapt int) (sampler.Chain, func(), error) {
	rc := cfg.Replicas
	if !rc.On() {
		return NewChain(name, cfg.Model, cfg.Beta, cfg.SAW, r, spins)
	}
	if err := rc.Check(name, cfg.Model, cfg.Beta, cfg.SAW); err != nil {
		return nil, func() {}, err
	}
	every, work := rc.schedule(name)
	betas := replica.Geometric(rc.BetaMin, cfg.Beta, rc.R)
	if a := rc.Auto; a != nil && len(a.Betas) == rc.R { // --replicas auto's ladder (a record of another count: geometric)
		betas = append([]float64(nil), a.Betas...)
	}
	rcfg := replica.Config{Betas: betas, SwapEvery: every, Work: work,
		CountFrom: burn, Sets: 1, Workers: rc.Workers, CPUs: cfg.SAW.CPUs,
		KeepSpins: true} // the magnetization of every step needs its spins
	if rc.Adaptive {
		rcfg.Adapt = adapt
		if rc.Variance {
			rcfg.Spacing = replica.ByVariance
		}
	}
	if rc.Overlap {
		rcfg.Sets = 2
	}
	rcfg.Tune = tuneConfig(cfg, name, burn, adapt)
	if rc.Cluster == ClusterICM {
		is := cfg.Model.Sparse()
		rcfg.Cluster, rcfg.Graph, rcfg.ClusterBetaMin = replica.ICM, replica.Graph{Start: is.Start, Adj: is.Adj, Even: is.NoFields()}, rc.ClusterBetaMin
	}
	build := func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		return NewChain(name, cfg.Model, beta, cfg.SAW, r, init)
	}
	c, err := replica.New(rcfg, build, r, spins)
	if err != nil {
		return nil, func() {}, err
	}
	return c, c.Close, nil
}

// schedule is sampler name's steps per swap round (the step clock) and
// sweep-equivalents per round (the work clock, when above 0).
func (rc ReplicaConfig) schedule(name string) (every int, work float64) {
	every = rc.SwapEvery
	if every == 0 {
		every = DefaultSwapEvery(name)
	}
	work = rc.Work
	if work == 0 && rc.SwapEvery == 0 && kindOf(name).WorkClock {
		work = 1
	}
	return every, work
}

// pilotTrial is the trial number of the streams of --replicas auto's
// pilot: trials are numbered by non-negative ints, below 2^63, so no
// trial draws from them.
const pilotTrial = 1 << 63

// PilotSampler is the kernel of --replicas auto's pilot for a run whose
// first sampler is name (see AutoReplicas).
func PilotSampler(name string) string {
	if p := kindOf(name).Pilot; p != "" {
		return p
	}
	return name
}

// AutoReplicas runs sample --replicas auto's pilot (replica.Auto) for cfg
// and returns the rung count it chose, with its CPU (this thread's and
// its workers'): the ladder from
// cfg.Replicas.BetaMin to cfg.Beta, the first sampler's kernel and
// settings, cfg.Replicas's swap schedule, workers threads stepping its
// members (the results do not depend on them). Its ladder of P rungs
// draws from rng.Sub(seed, 2^63, P), its random start included, which no
// trial uses, so the choice depends on the seed, the model, the range and
// the kernel, never on --trials, --trial-offset, --steps or the machine.
// One pilot serves every sampler: the barrier is the model's over the
// range (the swap rejections depend only on the rungs' energy
// distributions), the kernel only how fast the pilot relaxes. A hybrid
// sampler's pilot is Metropolis, its cheap cycle (1:0), with which its
// ladder also adapts: its default cycle's SARDONICS moves made the pilot
// 30 times dearer (44 s against 1.4 s on frustrated2d:L=60, 64 rungs).
func AutoReplicas(cfg *Config, workers int) (*replica.AutoRungs, error) {
	rc := cfg.Replicas
	name := PilotSampler(cfg.Samplers[0])
	every, work := rc.schedule(name)
	sc := cfg.SAW
	sc.CPUs = nil // the run's pinning is for its trials
	build := func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		return NewChain(name, cfg.Model, beta, sc, r, init)
	}
	stream := func(rungs int) *rand.PCG { return rng.Sub(cfg.Seed, pilotTrial, uint64(rungs)) }
	runtime.LockOSThread() // ThreadCPU is this thread's
	defer runtime.UnlockOSThread()
	a, err := replica.Auto(replica.Config{SwapEvery: every, Work: work, Workers: workers}, rc.BetaMin, cfg.Beta, build, stream, cfg.Model.Variables(), ThreadCPU)
	if err != nil {
		return nil, err
	}
	a.PilotSampler = name
	return a, nil
}

// tuneConfig is the cycle tuner of trial chain name (nil: none): hybrid in
// replica exchange without --mix. The rungs run the cheap cycle 1:0 for
// the first half of the burn-in (adapt steps), while an adaptive ladder
// moves; the candidates, pure Metropolis, pure SARDONICS and two mixes
// around hybrid's default number of moves, are then tried on the fixed
// ladder with the modelled CPU that the cheap cycle spends on the second
// half of the burn-in (the window: a tenth of the run at the default
// burn-in, --burn min(20000, steps/5) or --burn-fraction 0.2). The window
// depends on burn and adapt alone, so that --steps and --burn repeat a
// --budget trial. The costs are the fixed DefaultCycleCosts, so that the
// same seed gives the same choice on every machine. A budget trial's
// adapt and burn are unknownSteps until its CPU fixes them: the tuning
// cannot start before.
func tuneConfig(cfg *Config, name string, burn, adapt int) *replica.CycleTuner {
	rc := cfg.Replicas
	cycle := kindOf(name).DefaultCycle
	if !rc.TuneCycles || cycle == nil {
		return nil
	}
	_, k := cycle(cfg.Model, cfg.SAW)
	tc := &replica.CycleTuner{Candidates: replica.CandidateCycles(k), From: adapt, Costs: replica.DefaultCycleCosts}
	if burn != unknownSteps && adapt != unknownSteps {
		tc.Window = max(0, burn-adapt)
	}
	return tc
}

// recordReplica adds the replica-exchange results of the trial's chain, if
// it is one, to rec.
func recordReplica(cfg *Config, ch sampler.Chain, rec *summary.TrialRecord) {
	if c, ok := ch.(replica.Ladder); ok {
		rec.Replica = c.Report()
		rec.Replica.Auto = cfg.Replicas.Auto
	}
}
