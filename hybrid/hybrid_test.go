package hybrid_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/exact"
	"sardonics/hybrid"
	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
	"sardonics/runner" // registers sardonics (and, through it, metropolis)
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
)

const (
	glass   = "frustrated2d:L=4,seed=3"                // 16 spins
	chimera = "chimera:M=1,N=2,T=4,seed=1,J=pm1,h=pm1" // 16 spins
	rbm     = "rbm-random:V=8,H=6,seed=2,scale=1"      // 14 units
	beta    = 3.0
)

// kase is a hybrid chain on one model: its cycle and SARDONICS engine.
type kase struct {
	name, spec string
	opts       any
}

func opts(a, m int, engine string) hybrid.Options {
	return hybrid.Options{A: a, M: m, SAW: sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: engine}}
}

func load(t testing.TB, spec string) *model.Model {
	t.Helper()
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func randomSpins(r *rand.PCG, n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = int8(2*(r.Uint64()&1)) - 1
	}
	return s
}

// newHybrid builds a hybrid chain through the registry, as the runner will.
func newHybrid(t testing.TB, m *model.Model, b float64, o any, r *rand.PCG, init []int8) sampler.Chain {
	t.Helper()
	k, ok := sampler.Lookup("hybrid")
	if !ok {
		t.Fatal("hybrid is not registered")
	}
	c, rel, err := k.New(m, b, o, r, init)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rel)
	return c
}

// groundTol is the energy within which a state counts as a ground state:
// far below any gap of the test models, far above rounding.
const groundTol = 1e-6

// groundLevel is the lowest energy of m and its exact probability at b.
func groundLevel(m *model.Model, b float64) (eMin, p float64) {
	var es []float64
	stattest.Enumerate(m.Sparse().N, func(s []int8) { es = append(es, m.Sparse().Energy(s)) })
	eMin = slices.Min(es)
	var z, zg float64
	for _, e := range es {
		w := math.Exp(-b * (e - eMin))
		z += w
		if e < eMin+groundTol {
			zg += w
		}
	}
	return eMin, zg / z
}

// agreement runs `trials` independent chains made by build for `steps`
// steps (the first fifth discarded) and returns the z-scores of the mean
// energy and of the probability of the lowest energy against exact
// enumeration at beta 3. Standard errors come from the spread of the
// per-trial means, so they account for autocorrelation (as in package
// replica's test).
func agreement(t *testing.T, m *model.Model, trials, steps int, build func(tr int, r *rand.PCG, init []int8) sampler.Chain) (zE, zP float64) {
	t.Helper()
	ex, err := exact.Enumerate(m, beta)
	if err != nil {
		t.Fatal(err)
	}
	eMin, pMin := groundLevel(m, beta)
	var meanE, meanP []float64
	for tr := range trials {
		r := rng.Sub(7, uint64(tr), 1)
		c := build(tr, r, randomSpins(r, m.Variables()))
		burn := steps / 5
		var se, sp float64
		for i := range steps {
			c.Step()
			if i >= burn {
				e := c.Energy()
				se += e
				if e < eMin+groundTol {
					sp++
				}
			}
		}
		if cl, ok := c.(interface{ Close() }); ok {
			cl.Close()
		}
		n := float64(steps - burn)
		meanE, meanP = append(meanE, se/n), append(meanP, sp/n)
	}
	z := func(x []float64, want float64) float64 {
		mu, v := 0.0, 0.0
		for _, a := range x {
			mu += a
		}
		mu /= float64(len(x))
		for _, a := range x {
			v += (a - mu) * (a - mu)
		}
		return (mu - want) / math.Sqrt(v/float64(len(x)-1)/float64(len(x)))
	}
	return z(meanE, ex.EnergyMean), z(meanP, pMin)
}

// alone is agreement for one hybrid chain per trial; from > 0 builds it at
// beta `from` and moves it to beta 3 with SetBeta.
func alone(t *testing.T, kc kase, from float64, steps int) (zE, zP float64) {
	m := load(t, kc.spec)
	return agreement(t, m, 16, steps, func(_ int, r *rand.PCG, init []int8) sampler.Chain {
		if from == 0 {
			return newHybrid(t, m, beta, kc.opts, r, init)
		}
		c := newHybrid(t, m, from, kc.opts, r, init)
		c.(sampler.Tempered).SetBeta(beta)
		return c
	})
}

// exchanged is agreement for replica exchange of hybrid chains, 6 rungs
// from beta 0.3 to 3, a swap round every 2 steps.
func exchanged(t *testing.T, kc kase, steps int) (zE, zP float64) {
	m := load(t, kc.spec)
	build := func(b float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		return mustKind(t).New(m, b, kc.opts, r, init)
	}
	return agreement(t, m, 16, steps, func(_ int, r *rand.PCG, init []int8) sampler.Chain {
		c, err := replica.New(replica.Config{Betas: replica.Geometric(0.3, beta, 6), SwapEvery: 2, Sets: 1}, build, r, init)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

func mustKind(t testing.TB) sampler.Kind {
	k, ok := sampler.Lookup("hybrid")
	if !ok {
		t.Fatal("hybrid is not registered")
	}
	return k
}

// statistical skips the agreement tests under the race detector: they run
// on one goroutine with fixed seeds, so they give the same numbers as
// without it, in about 15 times the time (8 minutes on 2 cores).
func statistical(t *testing.T) {
	if raceEnabled {
		t.Skip("deterministic single-goroutine statistics; run without -race")
	}
}

// check fails when a z-score passes 4: over 16 trials (15 degrees of
// freedom) a correct sampler does so with probability about 0.001 per
// check, and the seeds are fixed, so the tests are deterministic.
func check(t *testing.T, what string, zE, zP float64) {
	t.Helper()
	t.Logf("%s: z(mean E) = %.2f, z(P(E_min)) = %.2f", what, zE, zP)
	if math.Abs(zE) > 4 || math.Abs(zP) > 4 || math.IsNaN(zE) || math.IsNaN(zP) {
		t.Errorf("%s disagrees with enumeration: z = %.2f (energy), %.2f (ground state)", what, zE, zP)
	}
}

// aloneCases: the pure cycles run on two chimera cells, not on glass, where
// single-site chains freeze at beta 3 (plain metropolis and gibbs are off
// by 5.7 standard errors there at 10,000 and at 100,000 sweeps alike: some
// trials never leave a local minimum); the SARDONICS moves of the mixed
// cycles unfreeze them, so those run on glass as well. The cells have +-1
// couplings and fields: with real ones (seed 1), pure SARDONICS at one
// move per step was 3.5 standard errors off at 10,000 steps and 0.6 at
// 40,000, a slowly mixing tail, too close to the threshold.
var aloneCases = []kase{
	{"1:0", chimera, opts(1, 0, "")},
	{"0:1", chimera, opts(0, 1, "")},
	{"2:3-tree", chimera, opts(2, 3, "tree")},
	{"2:3-bucket", chimera, opts(2, 3, "bucket")},
	{"default", chimera, nil},
	{"2:3-tree-glass", glass, opts(2, 3, "tree")},
	{"default-glass", glass, nil},
	{"1:1-rbm-dense", rbm, opts(1, 1, "dense")},
}

// TestAloneAgreesWithEnumeration: single hybrid chains of several cycles,
// pure ones included, give the exact mean energy and probability of the
// ground-state energy at beta 3 (16 trials of 10000 steps).
func TestAloneAgreesWithEnumeration(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run against exact enumeration: the full suite runs it")
	}
	statistical(t)
	for _, kc := range aloneCases {
		t.Run(kc.name, func(t *testing.T) {
			zE, zP := alone(t, kc, 0, 10000)
			check(t, kc.name+" on "+kc.spec, zE, zP)
		})
	}
}

// TestSetBetaAgreesWithEnumeration: a chain built at beta 0.5 and moved to
// beta 3 with SetBeta samples beta 3 (both components follow).
func TestSetBetaAgreesWithEnumeration(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run against exact enumeration: the full suite runs it")
	}
	statistical(t)
	for _, kc := range []kase{aloneCases[2], aloneCases[5], aloneCases[7]} {
		t.Run(kc.name, func(t *testing.T) {
			zE, zP := alone(t, kc, 0.5, 10000)
			check(t, kc.name+" after SetBeta", zE, zP)
		})
	}
}

var exchangedCases = []kase{
	{"2:3-tree", glass, opts(2, 3, "tree")},
	{"default", glass, nil},
	{"1:1-rbm-dense", rbm, opts(1, 1, "dense")},
}

// TestReplicaAgreesWithEnumeration: hybrid chains inside replica exchange
// (which changes their temperatures with SetBeta at every accepted swap)
// give the exact answers at beta 3 (16 trials of 3000 steps, as package
// replica's own test).
func TestReplicaAgreesWithEnumeration(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run against exact enumeration: the full suite runs it")
	}
	statistical(t)
	for _, kc := range exchangedCases {
		t.Run(kc.name, func(t *testing.T) {
			zE, zP := exchanged(t, kc, 3000)
			check(t, "replica exchange of "+kc.name+" on "+kc.spec, zE, zP)
		})
	}
}

// run steps c n times and returns the energies and the final spins.
func run(c sampler.Chain, n int) ([]float64, []int8) {
	var e []float64
	for range n {
		c.Step()
		e = append(e, c.Energy())
	}
	return e, slices.Clone(c.Spins())
}

var stateCases = []kase{
	{"2:3-tree", glass, opts(2, 3, "tree")},
	{"2:3-bucket", glass, opts(2, 3, "bucket")},
	{"1:0", glass, opts(1, 0, "")},
	{"0:2", glass, opts(0, 2, "")},
	{"1:1-rbm-dense", rbm, opts(1, 1, "dense")},
}

// TestStateContinues: a chain restored, with its stream, from a state
// saved mid-run into a chain built from other spins and another stream
// continues bit for bit: the next steps' energies, the spins and the
// state after them are the same.
func TestStateContinues(t *testing.T) {
	for _, kc := range stateCases {
		t.Run(kc.name, func(t *testing.T) {
			m := load(t, kc.spec)
			ra := rng.Sub(9, 0, 1)
			a := newHybrid(t, m, 1.2, kc.opts, ra, randomSpins(rng.Sub(9, 0, 0), m.Variables()))
			run(a, 300)
			st := a.(sampler.Stateful).AppendState(nil)
			rs, _ := ra.MarshalBinary()
			wantE, wantS := run(a, 500)
			rb := rng.Sub(10, 0, 1)
			b := newHybrid(t, m, 1.2, kc.opts, rb, randomSpins(rng.Sub(10, 0, 0), m.Variables()))
			run(b, 7)
			if err := b.(sampler.Stateful).RestoreState(st); err != nil {
				t.Fatal(err)
			}
			if err := rb.UnmarshalBinary(rs); err != nil {
				t.Fatal(err)
			}
			gotE, gotS := run(b, 500)
			if !slices.Equal(wantE, gotE) || !slices.Equal(wantS, gotS) {
				t.Fatal("restored chain diverged")
			}
			if !bytes.Equal(a.(sampler.Stateful).AppendState(nil), b.(sampler.Stateful).AppendState(nil)) {
				t.Error("states differ after the same steps")
			}
			if a.Stats() != b.Stats() {
				t.Errorf("counters differ: %+v, %+v", a.Stats(), b.Stats())
			}
		})
	}
}

// TestReplicaStateContinues: the same inside replica exchange, saved
// mid-round, where the members' temperatures have moved.
func TestReplicaStateContinues(t *testing.T) {
	kc := stateCases[0]
	m := load(t, kc.spec)
	build := func(b float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		return mustKind(t).New(m, b, kc.opts, r, init)
	}
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 4), SwapEvery: 7, Sets: 2, KeepSpins: true}
	mk := func(seed uint64) (*replica.Chain, *rand.PCG) {
		r := rng.Sub(seed, 0, 1)
		c, err := replica.New(cfg, build, r, randomSpins(rng.Sub(seed, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c, r
	}
	a, ra := mk(9)
	run(a, 250)
	if !a.CanSave() {
		t.Fatal("replica exchange of hybrid chains is not stateful")
	}
	st := a.AppendState(nil)
	rs, _ := ra.MarshalBinary()
	wantE, wantS := run(a, 600)
	b, rb := mk(10)
	if err := b.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	if err := rb.UnmarshalBinary(rs); err != nil {
		t.Fatal(err)
	}
	gotE, gotS := run(b, 600)
	if !slices.Equal(wantE, gotE) || !slices.Equal(wantS, gotS) {
		t.Fatal("restored replica exchange diverged")
	}
	if !bytes.Equal(a.AppendState(nil), b.AppendState(nil)) {
		t.Error("states differ after the same steps")
	}
}

// TestRefusedStateChangesNothing: a state of another cycle, of another
// sampler or truncated is refused, and the chain continues as if nothing
// had been tried.
func TestRefusedStateChangesNothing(t *testing.T) {
	m := load(t, glass)
	mk := func(o any) (sampler.Stateful, *rand.PCG) {
		r := rng.Sub(3, 0, 1)
		c := newHybrid(t, m, 1, o, r, randomSpins(rng.Sub(3, 0, 0), m.Variables()))
		run(c, 50)
		return c.(sampler.Stateful), r
	}
	a, _ := mk(opts(2, 3, ""))
	good := a.AppendState(nil)
	other, _ := mk(opts(1, 3, ""))
	def, _ := mk(nil)
	mst, rel, _ := runner.NewChain("metropolis", m, 1, sawsampler.Config{}, rng.Sub(1, 1, 1), randomSpins(rng.Sub(1, 1, 0), m.Variables()))
	defer rel()
	for name, bad := range map[string][]byte{
		"other cycle":   other.AppendState(nil),
		"default cycle": def.AppendState(nil),
		"metropolis":    mst.(sampler.Stateful).AppendState(nil),
		"truncated":     good[:len(good)-3],
		"trailing":      append(slices.Clone(good), 0),
		"empty":         nil,
	} {
		b, _ := mk(opts(2, 3, ""))
		before := b.AppendState(nil)
		if err := b.RestoreState(bad); err == nil {
			t.Errorf("%s: state accepted", name)
			continue
		}
		if !bytes.Equal(before, b.AppendState(nil)) {
			t.Errorf("%s: refused state changed the chain", name)
		}
		c, _ := mk(opts(2, 3, ""))
		e1, _ := run(b, 100)
		e2, _ := run(c, 100)
		if !slices.Equal(e1, e2) {
			t.Errorf("%s: refused state changed the chain's future", name)
		}
	}
}

// TestSameSeedSameTrace: two chains from the same seed and spins give the
// same energies and spins at every step (alone and in replica exchange
// with workers); another seed gives another trace.
func TestSameSeedSameTrace(t *testing.T) {
	m := load(t, glass)
	o := opts(2, 3, "")
	mk := func(seed uint64) sampler.Chain {
		return newHybrid(t, m, 1, o, rng.Sub(seed, 0, 1), randomSpins(rng.Sub(5, 0, 0), m.Variables()))
	}
	a, b, c := mk(5), mk(5), mk(6)
	var diff bool
	for i := range 2000 {
		a.Step()
		b.Step()
		c.Step()
		if a.Energy() != b.Energy() || !slices.Equal(a.Spins(), b.Spins()) {
			t.Fatalf("step %d: same seed, different states", i)
		}
		diff = diff || !slices.Equal(a.Spins(), c.Spins())
	}
	if a.Stats() != b.Stats() {
		t.Errorf("same seed, different counters %+v, %+v", a.Stats(), b.Stats())
	}
	if !diff {
		t.Error("another seed gave the same trace")
	}
	build := func(b float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		return mustKind(t).New(m, b, o, r, init)
	}
	var traces [2][]float64
	for i, workers := range []int{1, 2} {
		cfg := replica.Config{Betas: replica.Geometric(0.3, 3, 5), SwapEvery: 3, Sets: 1, Workers: workers}
		rc, err := replica.New(cfg, build, rng.Sub(8, 0, 1), randomSpins(rng.Sub(8, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		traces[i], _ = run(rc, 900)
		rc.Close()
	}
	if !slices.Equal(traces[0], traces[1]) {
		t.Error("replica exchange of hybrid chains: 1 and 2 workers gave different traces")
	}
}

// TestEnergyStatsReset: the energy is the model's at the current spins
// after every step, hot (beta 0.1: many bits differ at a switch, so the
// SARDONICS engine is Reset) and cold (beta 3: few, so they are flipped);
// Stats is the sum of the components' counters, with A N proposed flips
// per step from the sweeps; Reset puts the chain at given spins and the
// next step starts there.
func TestEnergyStatsReset(t *testing.T) {
	for _, kc := range []kase{stateCases[0], stateCases[1], stateCases[4]} {
		t.Run(kc.name, func(t *testing.T) {
			m := load(t, kc.spec)
			n := m.Variables()
			c := newHybrid(t, m, 0.1, kc.opts, rng.Sub(4, 0, 1), randomSpins(rng.Sub(4, 0, 0), n))
			h := c.(*hybrid.Chain)
			a, mv := h.Mix()
			const steps = 400
			for i := range steps {
				if i == steps/2 {
					_, reset, _ := h.Syncs()
					if reset == 0 {
						t.Error("hot: the SARDONICS engine was never Reset")
					}
					h.SetBeta(3)
				}
				c.Step()
				if got, want := c.Energy(), m.Sparse().Energy(c.Spins()); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("step %d: energy %v, model says %v", i, got, want)
				}
			}
			if flip, reset, metro := h.Syncs(); flip == 0 || metro == 0 {
				t.Errorf("switches: %d flipped, %d Reset to SARDONICS, %d Reset to Metropolis (expected some of each)", flip, reset, metro)
			}
			pm, ps := h.Parts()
			st := c.Stats()
			if st.Flips != pm.Flips+ps.Flips || st.Proposed != pm.Proposed+ps.Proposed || st.Accepted != pm.Accepted+ps.Accepted {
				t.Errorf("stats %+v are not the sum of %+v and %+v", st, pm, ps)
			}
			if pm.Flips != int64(a*n*steps) || ps.Proposed != int64(mv*steps) || ps.Accepted == 0 || pm.Accepted == 0 {
				t.Errorf("parts %+v, %+v (expected %d sweep flips, %d moves, some accepted)", pm, ps, a*n*steps, mv*steps)
			}
			s := randomSpins(rng.Sub(4, 1, 0), n)
			c.(sampler.Resetter).Reset(s)
			if !slices.Equal(c.Spins(), s) || math.Abs(c.Energy()-m.Sparse().Energy(s)) > 1e-9*(1+math.Abs(c.Energy())) {
				t.Fatal("Reset did not put the chain at the spins")
			}
			if c.Stats() != st {
				t.Error("Reset changed the counters")
			}
			for range 3 {
				c.Step()
				if got, want := c.Energy(), m.Sparse().Energy(c.Spins()); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("after Reset: energy %v, model says %v", got, want)
				}
			}
		})
	}
}

// thetaOpts is SAW opts that say their thetas (hybrid.ThetaSource).
type thetaOpts struct {
	sawsampler.Config
}

func (o thetaOpts) SAWThetas() []saw.Theta { return o.Thetas }

// TestDefaultCycleAndRegistry: the default cycle is one sweep and
// ceil(N / flips per move) moves; the sampler is registered between
// sardonics and gibbs; opts of every accepted form build the cycle they
// say; bad cycles are refused; CPUs follow the SARDONICS engine.
func TestDefaultCycleAndRegistry(t *testing.T) {
	long := saw.Theta{KL: 10, KU: 30, GL: 1, GH: 1, PLL: 1, N: 2} // 80 flips per move
	for _, c := range []struct {
		n      int
		thetas []saw.Theta
		a, m   int
	}{
		{16, nil, 1, 2},
		{3600, nil, 1, 328},
		{3600, []saw.Theta{long}, 1, 45},
		{3600, []saw.Theta{saw.DefaultTheta, long}, 1, 80}, // mean 45.5 flips
		{8, []saw.Theta{long}, 1, 1},                       // lengths clamped to 8
	} {
		if a, m := hybrid.DefaultCycle(c.n, c.thetas); a != c.a || m != c.m {
			t.Errorf("DefaultCycle(%d, %v) = %d:%d (expected %d:%d)", c.n, c.thetas, a, m, c.a, c.m)
		}
	}
	names := sampler.Names()
	if i, j, k := slices.Index(names, "sardonics"), slices.Index(names, "hybrid"), slices.Index(names, "gibbs"); !(i >= 0 && i < j && j < k) {
		t.Errorf("registry order %v (expected sardonics, hybrid, gibbs)", names)
	}
	m := load(t, glass)
	init := randomSpins(rng.Sub(1, 0, 0), m.Variables())
	sc := sawsampler.Config{Thetas: []saw.Theta{long}}
	for _, c := range []struct {
		name string
		opts any
		a, m int
	}{
		{"nil", nil, 1, 2},
		{"Options", hybrid.Options{A: 3, M: 4}, 3, 4},
		{"*Options", &hybrid.Options{A: 0, M: 4}, 0, 4},
		{"zero Options", hybrid.Options{SAW: sc}, 1, 1}, // the runner's settings are a ThetaSource
		{"SAW opts alone", sc, 1, 1},
		{"ThetaSource", hybrid.Options{SAW: thetaOpts{sc}}, 1, 1},
		{"CycleSource", sawsampler.Config{Thetas: sc.Thetas, Mix: [2]int{2, 5}}, 2, 5}, // --mix through the runner
	} {
		ch := newHybrid(t, m, 1, c.opts, rng.Sub(1, 0, 1), init)
		if a, mv := ch.(*hybrid.Chain).Mix(); a != c.a || mv != c.m {
			t.Errorf("%s: cycle %d:%d (expected %d:%d)", c.name, a, mv, c.a, c.m)
		}
	}
	for _, bad := range []hybrid.Options{{A: -1, M: 2}, {A: 1, M: -1}} {
		if _, _, err := mustKind(t).New(m, 1, bad, rng.Sub(1, 0, 1), init); err == nil {
			t.Errorf("cycle %d:%d accepted", bad.A, bad.M)
		}
	}
	r := load(t, rbm)
	par := sawsampler.Config{Engine: "parallel", EngineThreads: 2}
	for _, c := range []struct {
		opts any
		cpus int
	}{{nil, 1}, {hybrid.Options{A: 1, M: 1, SAW: par}, 2}, {hybrid.Options{A: 1, SAW: par}, 1}} {
		if got := mustKind(t).ChainCPUs(r, c.opts); got != c.cpus {
			t.Errorf("CPUs(%+v) = %d (expected %d)", c.opts, got, c.cpus)
		}
	}
}
