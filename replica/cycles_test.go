package replica_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"sardonics/exact"
	"sardonics/hybrid"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
	"sardonics/runner"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
)

// hybridBuilder makes hybrid members built with the cycle base on the
// given engine and, when betas is not nil, given the cycle table (betas,
// cycles), as a runner resuming a tuned run would.
func hybridBuilder(m *model.Model, base [2]int, engine string, betas []float64, cycles [][2]int) replica.Builder {
	sc := sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}, Engine: engine, Mix: base}
	return func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		ch, rel, err := runner.NewChain("hybrid", m, beta, sc, r, init)
		if err != nil || betas == nil {
			return ch, rel, err
		}
		if err := ch.(replica.Cycler).SetCycles(betas, cycles); err != nil {
			rel()
			return nil, func() {}, err
		}
		return ch, rel, nil
	}
}

// agreeWith is agreement (replica_test.go) for the chains mk builds:
// `trials` trials of `steps` steps, the first fifth discarded; the z-scores
// of the mean energy and of the probability of the lowest energy at beta
// 3 against exact enumeration, from the spread of the trial means.
func agreeWith(t *testing.T, spec string, trials, steps int, mk func(m *model.Model, r *rand.PCG, init []int8) *replica.Chain) (zE, zP float64) {
	t.Helper()
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	const beta = 3.0
	ex, err := exact.Enumerate(m, beta)
	if err != nil {
		t.Fatal(err)
	}
	eMin, pMin := groundLevel(m, beta)
	var meanE, meanP []float64
	for tr := range trials {
		r := rng.Sub(7, uint64(tr), 1)
		c := mk(m, r, randomSpins(r, m.Variables()))
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
		c.Close()
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

// ladder6 is the agreement tests' ladder: 6 rungs from beta 0.3 to 3.
var ladder6 = replica.Geometric(0.3, 3, 6)

// workCase is replica exchange on the work clock: a kernel, its members'
// cycle table (hybrid) and, with tune, the cycle tuner during the burn-in
// (agreeWith's first fifth).
type workCase struct {
	name, spec, kernel, engine string
	base                       [2]int
	cycles                     [][2]int // per rung of ladder6 (nil: none)
	tune                       bool
}

var workCases = []workCase{
	// Every kind of cycle on one ladder, hot rungs pure Metropolis, cold
	// ones pure SARDONICS: swaps move members between all of them.
	{"hybrid-table", "frustrated2d:L=4,seed=3", "hybrid", "tree", [2]int{1, 0}, [][2]int{{1, 0}, {1, 0}, {2, 1}, {1, 2}, {0, 2}, {0, 3}}, false},
	{"hybrid-table-rbm", "rbm-random:V=8,H=6,seed=2,scale=1", "hybrid", "dense", [2]int{0, 1}, [][2]int{{1, 0}, {3, 1}, {1, 1}, {1, 3}, {0, 1}, {0, 2}}, false},
	{"hybrid-tuned", "frustrated2d:L=4,seed=3", "hybrid", "bucket", [2]int{1, 2}, nil, true},
	{"metropolis", "frustrated2d:L=4,seed=3", "metropolis", "", [2]int{}, nil, false},
	{"sardonics", "frustrated2d:L=4,seed=3", "sardonics", "tree", [2]int{}, nil, false},
}

// work is the work clock of the agreement tests: 1.5 sweep-equivalents
// per round, so that rounds hold 1 or 2 steps of most cycles and many of
// the one-move cycles.
const work = 1.5

func (wc workCase) chain(t testing.TB, m *model.Model, r *rand.PCG, init []int8, workers int) *replica.Chain {
	t.Helper()
	build := builder(wc.kernel, m, wc.engine, 0)
	if wc.kernel == "hybrid" {
		var betas []float64
		if wc.cycles != nil {
			betas = ladder6
		}
		build = hybridBuilder(m, wc.base, wc.engine, betas, wc.cycles)
	}
	cfg := replica.Config{Betas: ladder6, Work: work, Sets: 1, Workers: workers}
	if wc.tune {
		cfg.CountFrom = 600
		cfg.Tune = &replica.CycleTuner{Candidates: replica.CandidateCycles(2), From: 100, Window: 400, Costs: replica.DefaultCycleCosts}
	}
	c, err := replica.New(cfg, build, r, init)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWorkClockAgreesWithEnumeration: on the work clock, hybrid members
// with a cycle per rung (fixed, or chosen by the cycle tuner during the
// discarded steps, the cheap cycle before) and plain kernels give the exact mean energy and probability of
// the ground-state energy at beta 3 within 4 standard errors over 16
// trials (as TestAgreesWithEnumeration; fixed seeds, so deterministic).
func TestWorkClockAgreesWithEnumeration(t *testing.T) {
	if testing.Short() {
		t.Skip("a long run against exact enumeration: the full suite runs it")
	}
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	for _, wc := range workCases {
		t.Run(wc.name, func(t *testing.T) {
			zE, zP := agreeWith(t, wc.spec, 16, 3000, func(m *model.Model, r *rand.PCG, init []int8) *replica.Chain {
				return wc.chain(t, m, r, init, 1)
			})
			t.Logf("z(mean E) = %.2f, z(P(E_min)) = %.2f", zE, zP)
			if math.Abs(zE) > 4 || math.Abs(zP) > 4 || math.IsNaN(zE) || math.IsNaN(zP) {
				t.Errorf("%s on the work clock disagrees with enumeration: z = %.2f (energy), %.2f (ground state)", wc.name, zE, zP)
			}
		})
	}
}

// TestWorkClockRounds: each member runs, per round, the fewest steps whose
// proposed flips reach Work N: Metropolis members on 16 spins with Work
// 2.5 run 3 sweeps a round, so the chain's rounds are 3 steps; SARDONICS
// members' flips per round are at least Work N and less than Work N plus
// one move's most (2 walks of at most 10 flips).
func TestWorkClockRounds(t *testing.T) {
	const w = 2.5
	need := int64(math.Ceil(w * 16))
	for _, kc := range []kernelCase{kernelCases[3], kernelCases[0]} {
		cfg := replica.Config{Betas: replica.Geometric(0.3, 3, 4), Work: w, Sets: 1}
		c, _ := newChain(t, kc, cfg, 3)
		n := 0
		for n < 100 || !c.RoundEnd() {
			c.Step()
			n++
		}
		rep := c.Report()
		rounds := int64(math.Round(float64(n) / rep.MeanRound))
		st := c.Stats()
		switch {
		case rep.SwapWork != w || rep.SwapEvery != 0:
			t.Errorf("%s: report says swap every %d, work %v", kc.name, rep.SwapEvery, rep.SwapWork)
		case kc.kernel == "metropolis" && (rep.MeanRound != 3 || st.Flips != int64(n)*4*16):
			t.Errorf("metropolis: %v steps per round, %d flips in %d steps (expected 3 and %d)", rep.MeanRound, st.Flips, n, int64(n)*4*16)
		case st.Flips < rounds*4*need || st.Flips >= rounds*4*(need+20):
			t.Errorf("%s: %d flips in %d rounds of 4 members (expected in [%d, %d))", kc.name, st.Flips, rounds, rounds*4*need, rounds*4*(need+20))
		}
	}
}

// tunedTrace runs a hybrid chain on the work clock with two sets, an
// adaptive ladder and the cycle tuner, and returns the trace, the tuning
// and the final state.
func tunedTrace(t *testing.T, workers int, seed uint64) ([]float64, []float64, *replica.Tuning, []byte) {
	t.Helper()
	m, err := model.Load("frustrated2d:L=4,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 5), Work: 1.5, Adapt: 200, CountFrom: 800, Sets: 2, Workers: workers,
		Tune: &replica.CycleTuner{Candidates: replica.CandidateCycles(2), From: 300, Window: 500, Costs: replica.DefaultCycleCosts}}
	r := rng.Sub(seed, 0, 1)
	c, err := replica.New(cfg, hybridBuilder(m, [2]int{1, 1}, "", nil, nil), r, randomSpins(rng.Sub(seed, 0, 0), m.Variables()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var e, q []float64
	for range 1200 {
		c.Step()
		e, q = append(e, c.Energy()), append(q, c.Overlap())
	}
	tuned := c.Tuning()
	if tuned == nil {
		t.Fatal("the tuner did not finish")
	}
	return e, q, tuned, c.AppendState(nil)
}

// choices are a tuning's measurements and choice without its CPU times.
func choices(tn *replica.Tuning) string {
	x := *tn
	x.CPUSeconds, x.CPUShare, x.AnalysisCPUSeconds = 0, 0, 0
	b, _ := json.Marshal(x)
	return string(b)
}

// chainChoices are a single chain's tuning without its CPU times.
func chainChoices(tn *replica.CycleTuning) string {
	x := *tn
	x.CPUSeconds, x.TunerCPUSeconds = 0, 0
	b, _ := json.Marshal(x)
	return string(b)
}

// TestWorkClockSameChoiceAnyWorkers: on the work clock, with the cycle
// tuner, the same seed gives the same trace, overlap, tuning and state
// with 1 and 3 workers, and twice with 1; another seed gives another
// trace.
func TestWorkClockSameChoiceAnyWorkers(t *testing.T) {
	e1, q1, t1, s1 := tunedTrace(t, 1, 5)
	e1b, q1b, t1b, s1b := tunedTrace(t, 1, 5)
	e3, q3, t3, s3 := tunedTrace(t, 3, 5)
	e6, _, _, _ := tunedTrace(t, 1, 6)
	if !slices.Equal(e1, e1b) || !slices.Equal(q1, q1b) || choices(t1) != choices(t1b) || !bytes.Equal(s1, s1b) {
		t.Error("the same seed gave another chain or choice")
	}
	if !slices.Equal(e1, e3) || !slices.Equal(q1, q3) || choices(t1) != choices(t3) || !bytes.Equal(s1, s3) {
		t.Error("3 workers changed the chain or the choice")
	}
	if slices.Equal(e1, e6) {
		t.Error("another seed gave the same trace")
	}
	if len(t1.Rungs) != 5 || len(t1.Rungs[0].Tried) != len(t1.Candidates) || len(t1.Assignments) < len(t1.Candidates) {
		t.Errorf("tuning has %d rungs (expected 5) of %d tries, %d assignments", len(t1.Rungs), len(t1.Rungs[0].Tried), len(t1.Assignments))
	}
}

// TestWorkClockStateContinues: on the work clock, a chain of hybrid
// members with a cycle table (members built with a cycle that lacks a
// component the table needs) restored from a state saved mid-round,
// before and during the cycle tuner's second assignment, continues bit
// for bit, overlap and tuning included;
// so does a chain of plain Metropolis members.
func TestWorkClockStateContinues(t *testing.T) {
	m, err := model.Load("frustrated2d:L=4,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	betas := replica.Geometric(0.2, 2, 4)
	table := [][2]int{{1, 0}, {1, 2}, {0, 2}, {0, 3}}
	for _, c := range []struct {
		name  string
		build replica.Builder
		tune  bool
	}{
		{"table", hybridBuilder(m, [2]int{1, 0}, "tree", betas, table), false},
		{"tuned", hybridBuilder(m, [2]int{1, 0}, "bucket", nil, nil), true},
		{"metropolis", builder("metropolis", m, "", 0), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := replica.Config{Betas: betas, Work: 1.7, Adapt: 100, CountFrom: 150, Sets: 2, KeepSpins: true}
			if c.tune {
				cfg.CountFrom = 1000
				cfg.Tune = &replica.CycleTuner{Candidates: [][2]int{{1, 0}, {0, 2}, {1, 1}}, From: 120, Window: 400, Costs: replica.DefaultCycleCosts}
			}
			mk := func(seed uint64) (*replica.Chain, *rand.PCG) {
				r := rng.Sub(seed, 0, 1)
				ch, err := replica.New(cfg, c.build, r, randomSpins(rng.Sub(seed, 0, 0), m.Variables()))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(ch.Close)
				return ch, r
			}
			a, ra := mk(9)
			for range 130 {
				a.Step()
			}
			if c.tune {
				for a.TuneSegment() < 1 {
					a.Step()
				}
			} else {
				trace(a, 3)
			}
			for i := 0; a.RoundEnd(); i++ { // save mid-round
				if i > 100 {
					t.Fatal("rounds of one step")
				}
				a.Step()
			}
			if c.tune && a.TuneSegment() < 1 {
				t.Fatal("the state was not saved during the tuner's second assignment")
			}
			st := a.AppendState(nil)
			rs, _ := ra.MarshalBinary()
			wantE, wantQ := trace(a, 400)
			b, rb := mk(10)
			trace(b, 5)
			if err := b.RestoreState(st); err != nil {
				t.Fatal(err)
			}
			if err := rb.UnmarshalBinary(rs); err != nil {
				t.Fatal(err)
			}
			gotE, gotQ := trace(b, 400)
			if !slices.Equal(wantE, gotE) || !slices.Equal(wantQ, gotQ) {
				t.Fatal("restored chain diverged")
			}
			if !bytes.Equal(a.AppendState(nil), b.AppendState(nil)) {
				t.Error("states differ after the same steps")
			}
			repA, repB := a.Report(), b.Report()
			if c.tune { // the state leaves the tuning's CPU times out
				if repA.Cycles == nil || repB.Cycles == nil {
					t.Fatal("the tuner did not finish")
				}
				repA.Cycles.AnalysisCPUSeconds, repB.Cycles.AnalysisCPUSeconds = 0, 0
			}
			ja, _ := json.Marshal(repA)
			jb, _ := json.Marshal(repB)
			if !bytes.Equal(ja, jb) {
				t.Errorf("reports differ:\n%s\n%s", ja, jb)
			}
			if c.tune && a.Report().Cycles == nil {
				t.Error("the report lost the tuning")
			}
		})
	}
}

// TestWorkClockStateRefused: a state of the step clock, or of another
// amount of work, is refused by a chain on the work clock, and the other
// way round.
func TestWorkClockStateRefused(t *testing.T) {
	kc := kernelCases[3]
	mk := func(cfg replica.Config) *replica.Chain {
		c, _ := newChain(t, kc, cfg, 2)
		trace(c, 20)
		return c
	}
	step := replica.Config{Betas: replica.Geometric(0.2, 2, 4), SwapEvery: 2, Sets: 1}
	w1, w2 := step, step
	w1.Work, w2.Work = 1, 2
	for _, p := range [][2]replica.Config{{step, w1}, {w1, step}, {w1, w2}} {
		if err := mk(p[1]).RestoreState(mk(p[0]).AppendState(nil)); err == nil {
			t.Errorf("state of work %v accepted by a chain of work %v", p[0].Work, p[1].Work)
		}
	}
}

// dimerGlass is an L x L torus of ferromagnetic dimers (J = jd between the
// two spins of each) coupled by random +-1 bonds, with fields +-0.5 on
// one spin of each: a frustrated lattice of block spins. Cold, a single
// flip breaks a dimer (cost about 2 jd), so Metropolis is frozen, while a
// SARDONICS walk flips both spins of a dimer in a row (the second flip
// repays the first) and moves the blocks; hot, every kernel decorrelates
// at once and Metropolis is the cheapest.
func dimerGlass(t testing.TB, l int, jd float64, seed uint64) *model.Model {
	r := rand.NewPCG(seed, 99)
	pm := func() float64 {
		if r.Uint64()&1 == 0 {
			return -1
		}
		return 1
	}
	d := func(x, y int) int32 { return int32(2 * (((y+l)%l)*l + (x+l)%l)) }
	var edges []model.Edge
	for y := range l {
		for x := range l {
			a := d(x, y)
			edges = append(edges, model.Edge{I: a, J: a + 1, W: jd},
				model.Edge{I: a, J: d(x+1, y), W: pm()}, model.Edge{I: a + 1, J: d(x, y+1) + 1, W: pm()})
		}
	}
	h := make([]float64, 2*l*l)
	for i := 0; i < len(h); i += 2 {
		h[i] = 0.5 * pm()
	}
	is, err := model.NewIsing(2*l*l, edges, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Spec: "dimer-glass", Kind: model.KindIsing, Ising: is}
}

// TestDropKeepsTheChoice: a single hybrid chain on the dimer glass
// (TestTuneChainPicksTheObviousCycle's), hot and cold, gets the same
// choice from successive halving (DefaultDrop) as from the exhaustive
// search (pure Metropolis hot, a cycle with SARDONICS moves cold), for
// each of 3 seeds, in no more steps, having dropped candidates hot after
// a quarter of the budget.
func TestDropKeepsTheChoice(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	m := dimerGlass(t, 6, 10, 1)
	_, k := hybrid.DefaultCycle(m.Variables(), nil)
	tune := func(seed uint64, beta, drop float64) *replica.CycleTuning {
		ch, rel, err := hybridBuilder(m, [2]int{1, 1}, "", nil, nil)(beta, rng.Sub(seed, 0, 1), randomSpins(rng.Sub(seed, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		defer rel()
		for range 100 {
			ch.Step()
		}
		res, err := replica.TuneChain(ch.(replica.Cycler), beta, m.Variables(), replica.TuneConfig{Candidates: replica.CandidateCycles(k), Seconds: 0.01, Costs: replica.DefaultCycleCosts, Drop: drop})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rounds := func(tn *replica.CycleTuning) (n int) {
		for _, tr := range tn.Rungs[0].Tried {
			n += tr.Rounds
		}
		return n
	}
	for seed := uint64(1); seed <= 3; seed++ {
		for _, beta := range []float64{0.05, 2} {
			all, halved := tune(seed, beta, 0), tune(seed, beta, replica.DefaultDrop)
			dropped := 0
			for _, tr := range halved.Rungs[0].Tried {
				if tr.Dropped {
					dropped++
				}
			}
			a, h := all.Rungs[0].Cycle, halved.Rungs[0].Cycle
			t.Logf("seed %d beta %g: exhaustive %v in %d steps, halving %v in %d steps, %d dropped", seed, beta, a, rounds(all), h, rounds(halved), dropped)
			right := func(cy [2]int) bool { return beta < 1 && cy == [2]int{1, 0} || beta > 1 && cy[1] > 0 }
			if !right(a) || !right(h) {
				t.Errorf("seed %d beta %g: exhaustive chose %v, halving %v", seed, beta, a, h)
			}
			// Cold, the best's estimate may be a floor, and then nothing is
			// dropped; hot, the three others trail by far.
			if beta < 1 && dropped == 0 || rounds(halved) > rounds(all) {
				t.Errorf("seed %d beta %g: halving dropped %d candidates and ran %d steps (exhaustive %d)", seed, beta, dropped, rounds(halved), rounds(all))
			}
		}
	}
}

// TestMeasureCycleCosts: the measured constants are positive and finite,
// and a SARDONICS flip costs more than a Metropolis one.
func TestMeasureCycleCosts(t *testing.T) {
	m, err := model.Load("frustrated2d:L=12,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	k, err := replica.MeasureCycleCosts(hybridBuilder(m, [2]int{1, 1}, "", nil, nil), 1, randomSpins(rng.Sub(1, 0, 0), m.Variables()), 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", k)
	if !(k.Sweep > 0 && k.Flip > k.Sweep && k.Switch >= 0) || math.IsInf(k.Flip, 0) || math.IsInf(k.Switch, 0) {
		t.Errorf("costs %+v", k)
	}
	if _, err := replica.MeasureCycleCosts(builder("metropolis", m, "", 0), 1, randomSpins(rng.Sub(1, 0, 0), m.Variables()), 20); err == nil {
		t.Error("measured costs on a Metropolis chain")
	}
}

// BenchmarkWorkClock is BenchmarkOverhead's swap-every cases on the work
// clock: per chain step, 16 rungs of spinglass3d:L=9 with a round every 1
// and 10 sweep-equivalents of each member's own work (for sardonics, a
// sweep-equivalent is about 66 moves: compare with swap-every-10 x 6.6).
// The clock's own cost is a Stats call per member step.
//
//	go test ./replica -run XXX -bench 'Overhead|WorkClock' -count 6 | tee /tmp/rx.txt
func BenchmarkWorkClock(b *testing.B) {
	m, err := model.Load("spinglass3d:L=9,seed=1")
	if err != nil {
		b.Fatal(err)
	}
	betas := replica.Geometric(0.2, 2, 16)
	for _, k := range []string{"metropolis", "sardonics"} {
		for _, w := range []float64{1, 10} {
			b.Run(k+"/work-"+strconv.FormatFloat(w, 'g', -1, 64), func(b *testing.B) {
				cfg := replica.Config{Betas: betas, Work: w, Sets: 1}
				c, err := replica.New(cfg, builder(k, m, "", 0), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables()))
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				for b.Loop() {
					c.Step()
				}
			})
		}
	}
}

// tuneDimerChain is a single hybrid chain on the dimer glass m, started
// from seed's spins, stepped 100 times at beta and tuned there by
// TuneChain (with halving): the tuning and the chain.
func tuneDimerChain(t *testing.T, m *model.Model, seed uint64, beta float64) (*replica.CycleTuning, replica.Cycler) {
	t.Helper()
	_, k := hybrid.DefaultCycle(m.Variables(), nil)
	ch, rel, err := hybridBuilder(m, [2]int{1, 1}, "", nil, nil)(beta, rng.Sub(seed, 0, 1), randomSpins(rng.Sub(seed, 0, 0), m.Variables()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rel)
	for range 100 {
		ch.Step()
	}
	cy := ch.(replica.Cycler)
	res, err := replica.TuneChain(cy, beta, m.Variables(), replica.TuneConfig{Candidates: replica.CandidateCycles(k), Seconds: 0.01, Costs: replica.DefaultCycleCosts, Drop: replica.DefaultDrop})
	if err != nil {
		t.Fatal(err)
	}
	return res, cy
}

// TestTuneChainPicksTheObviousCycle: a single hybrid chain on the dimer
// glass, tuned by TuneChain (with halving), runs pure Metropolis at beta
// 0.05 and a cycle with SARDONICS moves at beta 2 (where Metropolis is
// frozen), for each of 3 seeds, and is left with the choice as its cycle
// table; the same seed gives the same tuning (a halving that drops the
// best is caught: TestTuneChainBrokenDropCaught, under the tag inject).
func TestTuneChainPicksTheObviousCycle(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	m := dimerGlass(t, 6, 10, 1)
	for seed := uint64(1); seed <= 3; seed++ {
		hot, hc := tuneDimerChain(t, m, seed, 0.05)
		cold, cc := tuneDimerChain(t, m, seed, 2)
		again, _ := tuneDimerChain(t, m, seed, 2)
		t.Logf("seed %d: hot %v, cold %v (CPU %.3f s, %.3f s)", seed, hot.Rungs[0].Cycle, cold.Rungs[0].Cycle, hot.CPUSeconds, cold.CPUSeconds)
		if hot.Rungs[0].Cycle != [2]int{1, 0} || cold.Rungs[0].Cycle[1] == 0 {
			t.Errorf("seed %d: hot %v, cold %v (expected 1:0 hot, SARDONICS moves cold)", seed, hot.Rungs[0].Cycle, cold.Rungs[0].Cycle)
		}
		if chainChoices(cold) != chainChoices(again) {
			t.Errorf("seed %d: the same seed gave another tuning", seed)
		}
		for _, c := range []struct {
			cy   replica.Cycler
			res  *replica.CycleTuning
			beta float64
		}{{hc, hot, 0.05}, {cc, cold, 2}} {
			b, cyc := c.cy.(interface{ Cycles() ([]float64, [][2]int) }).Cycles()
			if !slices.Equal(b, []float64{c.beta}) || len(cyc) != 1 || cyc[0] != c.res.Rungs[0].Cycle {
				t.Errorf("seed %d: the chain was left with the table %v %v (chose %v)", seed, b, cyc, c.res.Rungs[0].Cycle)
			}
		}
	}
}
