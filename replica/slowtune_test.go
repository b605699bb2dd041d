package replica_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"sardonics/diag"
	"sardonics/hybrid"
	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
)

// tuneDimer runs replica exchange on the dimer glass (72 spins) with two
// sets and the cycle tuner until it has chosen, the first 100 steps on
// the cheap cycle, over a window of 30000 steps of it.
func tuneDimer(t *testing.T, m *model.Model, betas []float64, seed uint64) (*replica.Tuning, *replica.Chain) {
	t.Helper()
	_, k := hybrid.DefaultCycle(m.Variables(), nil)
	cfg := replica.Config{Betas: betas, Work: 1, Sets: 2, CountFrom: 1 << 30,
		Tune: &replica.CycleTuner{Candidates: replica.CandidateCycles(k), From: 100, Window: 30000, Costs: replica.DefaultCycleCosts}}
	c, err := replica.New(cfg, hybridBuilder(m, [2]int{1, 1}, "", nil, nil), rng.Sub(seed, 0, 1), randomSpins(rng.Sub(seed, 0, 0), m.Variables()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for i := 0; c.TunePhase() != replica.TuneDone; i++ {
		if i > 200000 {
			t.Fatal("the tuner never finished")
		}
		c.Step()
	}
	return c.Tuning(), c
}

// memberTables are the cycle tables of every member of c (both sets).
func memberTables(c *replica.Chain) [][][2]int {
	var out [][][2]int
	for s := range c.Sets() {
		for k := range c.Rungs() {
			_, cyc := c.RungChain(s, k).(interface{ Cycles() ([]float64, [][2]int) }).Cycles()
			out = append(out, cyc)
		}
	}
	return out
}

// TestTunerPaysWhereMetropolisIsFrozen: on the dimer glass with a hot
// rung (beta 0.05) and a cold one (beta 2) too far apart to swap, pure
// Metropolis is frozen cold (a flip breaks a dimer) and SARDONICS walks
// move the blocks. For each of 3 seeds the tuner ranks the cheap cycle
// (its target q^2 never changed: an unresolved score) below a cycle with
// SARDONICS moves, chooses SARDONICS moves at the cold rung by the slow
// observable, finds pure Metropolis best at the hot rung by that rung's
// own q^2, and leaves every member with the chosen table (a tuner that
// prefers the lower score is caught on every seed:
// TestTunerBrokenScoreCaught, under the tag inject).
func TestTunerPaysWhereMetropolisIsFrozen(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("one thread, 10 s with the race detector: the plain run checks it")
	}
	m := dimerGlass(t, 6, 10, 1)
	for seed := uint64(1); seed <= 3; seed++ {
		tn, c := tuneDimer(t, m, []float64{0.05, 1}, seed)
		as := tn.Assignments
		t.Logf("seed %d: chose %d (%s): %s", seed, tn.Chosen, as[max(0, tn.Chosen)].Label, tn.DecidedBy)
		for _, a := range as {
			t.Logf("  %-8s %v: %d rounds, q2 tau %.1f resolved %v (%s), ESS/CPU-s %.0f; %s", a.Label, a.Cycles, a.MeasuredRounds, a.Slow.Tau, a.Slow.Resolved, a.Slow.Why, a.Slow.PerCPUSecond, a.VsCheap)
		}
		switch {
		case as[0].Slow.Resolved || as[0].Slow.Why != "never changed":
			t.Errorf("seed %d: the frozen cheap cycle scored %+v", seed, as[0].Slow)
		case tn.Chosen <= 0 || as[tn.Chosen].Cycles[1][1] == 0 || !strings.Contains(tn.DecidedBy, "slow observable"):
			t.Errorf("seed %d: chose %d (%s): expected SARDONICS moves at the cold rung, by the slow observable", seed, tn.Chosen, tn.DecidedBy)
		case tn.Rungs[0].PerRung != [2]int{1, 0} || tn.Rungs[1].PerRung[1] == 0:
			t.Errorf("seed %d: per-rung preferences %v %v (expected 1:0 hot, SARDONICS moves cold)", seed, tn.Rungs[0].PerRung, tn.Rungs[1].PerRung)
		}
		if v, _ := replica.Better(as[tn.Chosen], as[0]); v <= 0 {
			t.Errorf("seed %d: the choice does not rank above the cheap cycle", seed)
		}
		for i, tb := range memberTables(c) {
			if !slices.Equal(tb, as[tn.Chosen].Cycles) {
				t.Errorf("seed %d: member %d runs %v (chose %v)", seed, i, tb, as[tn.Chosen].Cycles)
			}
		}
	}
}

// TestTunerKeepsMetropolisWhenNothingPays: on two hot rungs of the dimer
// glass (beta 0.05 and 0.1) every cycle decorrelates within a round and
// pure Metropolis costs least: the tuner keeps 1:0 at every rung, every
// other assignment ranked below it by the slow observable. With a window
// too short to measure anything it keeps 1:0 too, saying so.
func TestTunerKeepsMetropolisWhenNothingPays(t *testing.T) {
	if replica.RaceEnabled {
		t.Skip("one thread, 10 s with the race detector: the plain run checks it")
	}
	m := dimerGlass(t, 6, 10, 1)
	for seed := uint64(1); seed <= 3; seed++ {
		tn, c := tuneDimer(t, m, []float64{0.05, 0.1}, seed)
		if tn.Chosen != 0 || tn.Rungs[0].Cycle != [2]int{1, 0} || tn.Rungs[1].Cycle != [2]int{1, 0} {
			t.Errorf("seed %d: chose %d, rungs %v %v (expected 1:0 everywhere)", seed, tn.Chosen, tn.Rungs[0].Cycle, tn.Rungs[1].Cycle)
		}
		for _, a := range tn.Assignments[1:] {
			if !strings.HasPrefix(a.VsCheap, "worse") {
				t.Errorf("seed %d: %s against the cheap cycle: %s", seed, a.Label, a.VsCheap)
			}
		}
		for _, tb := range memberTables(c) {
			if !slices.Equal(tb, [][2]int{{1, 0}, {1, 0}}) {
				t.Errorf("seed %d: a member runs %v", seed, tb)
			}
		}
	}
	_, k := hybrid.DefaultCycle(m.Variables(), nil)
	for _, w := range []int{3, 40} { // no window; segments of a few rounds
		cfg := replica.Config{Betas: []float64{0.05, 2}, Work: 1, Sets: 2, CountFrom: 1 << 30,
			Tune: &replica.CycleTuner{Candidates: replica.CandidateCycles(k), From: 10, Window: w, Costs: replica.DefaultCycleCosts}}
		c, err := replica.New(cfg, hybridBuilder(m, [2]int{1, 1}, "", nil, nil), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for range 200 {
			c.Step()
		}
		tn := c.Tuning()
		if tn == nil || tn.Chosen > 0 || tn.Rungs[1].Cycle != [2]int{1, 0} {
			t.Fatalf("window %d: %+v", w, tn)
		}
		t.Logf("window %d: ended %q, %d assignments, %s", w, tn.Ended, len(tn.Assignments), tn.DecidedBy)
		for _, a := range tn.Assignments {
			if a.Slow.Resolved {
				t.Errorf("window %d: %s resolved in %d rounds", w, a.Label, a.MeasuredRounds)
			}
		}
	}
}

// TestTunerOrder (issue 35, item 6): with an adaptive ladder, the ladder
// adapts with the cheap cycle (no member makes a SARDONICS move before
// the tuning starts), then is fixed, and only then are the cycles tried
// and chosen: the tuning starts after Adapt, the ladder has moved before
// it and does not move after, and the burn-in's end (CountFrom) cuts a
// tuning whose budget is not spent.
func TestTunerOrder(t *testing.T) {
	m, err := model.Load("frustrated2d:L=6,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	_, k := hybrid.DefaultCycle(m.Variables(), nil)
	start := replica.Geometric(0.2, 2, 5)
	for _, cut := range []bool{false, true} {
		cfg := replica.Config{Betas: start, Work: 1, Adapt: 600, CountFrom: 3000, Sets: 1,
			Tune: &replica.CycleTuner{Candidates: replica.CandidateCycles(k), From: 300, Window: 1500, Costs: replica.DefaultCycleCosts}}
		if cut {
			cfg.CountFrom = 700
		}
		c, err := replica.New(cfg, hybridBuilder(m, [2]int{1, 1}, "", nil, nil), rng.Sub(3, 0, 1), randomSpins(rng.Sub(3, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sard := func() (n int64) {
			for k := range c.Rungs() {
				_, s := c.RungChain(0, k).(replica.Cycler).Parts()
				n += s.Flips
			}
			return n
		}
		var fixed []float64
		for i := range 3500 {
			c.Step()
			switch c.TunePhase() {
			case replica.TuneCheap:
				if n := sard(); n != 0 {
					t.Fatalf("step %d: %d SARDONICS flips before the tuning", i+1, n)
				}
			default:
				if fixed == nil {
					fixed = c.Report().Ladder
				}
				if l := c.Report().Ladder; !slices.Equal(l, fixed) {
					t.Fatalf("step %d: the ladder moved during or after the tuning: %v -> %v", i+1, fixed, l)
				}
			}
		}
		tn := c.Tuning()
		if tn == nil || fixed == nil {
			t.Fatal("the tuner never ran")
		}
		t.Logf("cut %v: tuning from step %d to %d (%s), %d assignments; ladder %.3f", cut, tn.From, tn.End, tn.Ended, len(tn.Assignments), fixed)
		if tn.From <= int64(cfg.Adapt) || slices.Equal(fixed, start) || !cut && sard() == 0 {
			t.Errorf("cut %v: tuning from step %d (adapt %d), ladder %v (started at %v), %d SARDONICS flips", cut, tn.From, cfg.Adapt, fixed, start, sard())
		}
		if cut != (tn.Ended == "burn-in") || tn.End > int64(cfg.CountFrom) {
			t.Errorf("cut %v: ended %q at step %d (burn-in %d)", cut, tn.Ended, tn.End, cfg.CountFrom)
		}
	}
}

// ar1 is n values of a stationary AR(1) process with autocorrelation rho
// (integrated autocorrelation time (1 + rho) / (1 - rho)).
func ar1(r *rand.Rand, n int, rho float64) []float64 {
	x := make([]float64, n)
	v := r.NormFloat64()
	for i := range x {
		v = rho*v + math.Sqrt(1-rho*rho)*r.NormFloat64()
		x[i] = v
	}
	return x
}

// slowAgainstEnergy is two assignments of equal CPU drawn from r: x with
// its energy fresh every round and its slow observable at tau 199, y with
// its energy at tau 39 and its slow observable at tau 3.
func slowAgainstEnergy(r *rand.Rand) (x, y replica.Assignment) {
	mk := func(slow, energy float64) replica.Assignment {
		return replica.Assignment{Slow: replica.ScoreTrace(ar1(r, 5000, slow), 1e9), Energy: replica.ScoreTrace(ar1(r, 5000, energy), 1e9), ModelledSeconds: 1}
	}
	return mk(0.99, 0), mk(0.5, 0.95)
}

// TestSlowScore: the tuner's score of AR(1) traces (batch means, merged
// as the trace grows) agrees within 25% with Sokal's estimate on the whole
// trace, and within tau's standard error (twice RelErr) with the truth,
// where resolved; it says why where it is not (a trace about as long as
// its tau passes Sokal's window but has too few effective samples) and
// keeps an unresolved ESS an upper bound.
// Between an assignment whose energy decorrelates at once but whose slow
// observable barely moves and one the other way round, at equal cost, the
// slow observable decides (a tuner that scores by the energy, as the
// 1-second windows did, is caught: TestSlowScoreBrokenCaught, under the
// tag inject).
func TestSlowScore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n   int
		rho float64
	}{{20000, 0}, {20000, 0.9}, {20000, 0.99}, {5000, 0.95}, {600, 0.5}} {
		x := ar1(r, c.n, c.rho)
		s := replica.ScoreTrace(x, 1e9)
		tau, _ := diag.TauInt(x)
		direct, want := float64(c.n)/max(tau, 0.5), float64(c.n)*(1-c.rho)/(1+c.rho)
		t.Logf("n %d rho %v: ESS %.0f (Sokal on the trace %.0f, truth %.0f), rel. err %.2f, resolved %v", c.n, c.rho, s.ESS, direct, want, s.RelErr, s.Resolved)
		if !s.Resolved || math.Abs(s.ESS/direct-1) > 0.25 || math.Abs(want/s.ESS-1) > 2*s.RelErr || s.PerCPUSecond != s.ESS {
			t.Errorf("n %d rho %v: %+v (Sokal %.0f, truth %.0f)", c.n, c.rho, s, direct, want)
		}
	}
	for _, c := range []struct {
		x   []float64
		why string
	}{
		{ar1(r, 3000, 0.9995), "effective samples"},
		{make([]float64, 100), "never changed"},
		{ar1(r, 20, 0), "fewer than"},
		{nil, "not measured"},
	} {
		s := replica.ScoreTrace(c.x, 1e9)
		if s.Resolved || !strings.Contains(s.Why, c.why) || s.ESS > float64(max(1, 2*len(c.x))) {
			t.Errorf("%d values: %+v (want unresolved: %s)", len(c.x), s, c.why)
		}
	}
	x, y := slowAgainstEnergy(r)
	if v, how := replica.Better(y, x); v != 1 || !strings.Contains(how, "slow observable") {
		t.Errorf("the fast slow observable ranked %d (%s) against the slow one", v, how)
	}
	// Neither slow observable resolved: round trips decide where both
	// rates are known, nothing where one is not.
	u := replica.Assignment{Slow: replica.ScoreTrace(ar1(r, 3000, 0.9995), 1e9), ModelledSeconds: 1, Traversals: 20, TripsKnown: true, RoundTripsPerCPUSecond: 10}
	w := u
	w.Traversals, w.RoundTripsPerCPUSecond = 8, 4
	if v, how := replica.Better(u, w); v != 1 || !strings.Contains(how, "round trips") {
		t.Errorf("round trips: %d (%s)", v, how)
	}
	w.Traversals, w.TripsKnown, w.RoundTripsPerCPUSecond = 2, false, float64(replica.MinTraversals)/2
	if v, _ := replica.Better(w, u); v != -1 {
		t.Errorf("too few traversals against a known higher rate: %d", v)
	}
	w.RoundTripsPerCPUSecond = 20
	if v, _ := replica.Better(w, u); v != 0 {
		t.Errorf("an upper bound above a known rate decided: %d", v)
	}
}

// TestTunerRefuses: a tuner on members that are not hybrid, with bad
// candidates or costs, is refused when the chain is built, and a state
// with or without a tuner's is refused by a chain the other way round.
func TestTunerRefuses(t *testing.T) {
	m, err := model.Load("frustrated2d:L=4,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	good := replica.CycleTuner{Candidates: [][2]int{{1, 0}, {0, 1}}, From: 10, Window: 100, Costs: replica.DefaultCycleCosts}
	cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 4), Work: 1, Sets: 1, Tune: &good}
	if _, err := replica.New(cfg, builder("metropolis", m, "", 0), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables())); err == nil {
		t.Error("tuned Metropolis members")
	}
	for _, bad := range []replica.CycleTuner{
		{Candidates: nil, Costs: good.Costs},
		{Candidates: [][2]int{{0, 0}}, Costs: good.Costs},
		{Candidates: [][2]int{{-1, 2}}, Costs: good.Costs},
		{Candidates: [][2]int{{1, 0}, {1, 0}}, Costs: good.Costs},
		{Candidates: good.Candidates, Window: -1, Costs: good.Costs},
		{Candidates: good.Candidates, Costs: replica.CycleCosts{Sweep: 1}},
		{Candidates: good.Candidates, Costs: replica.CycleCosts{Sweep: 1, Flip: math.NaN()}},
	} {
		cfg.Tune = &bad
		if c, err := replica.New(cfg, hybridBuilder(m, [2]int{1, 1}, "", nil, nil), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables())); err == nil {
			c.Close()
			t.Errorf("%+v accepted", bad)
		}
	}
	mk := func(tune *replica.CycleTuner) *replica.Chain {
		cfg.Tune = tune
		c, err := replica.New(cfg, hybridBuilder(m, [2]int{1, 1}, "", nil, nil), rng.Sub(1, 0, 1), randomSpins(rng.Sub(1, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		trace(c, 50)
		return c
	}
	with, without := mk(&good), mk(nil)
	if err := with.RestoreState(without.AppendState(nil)); err == nil {
		t.Error("a tuned chain restored a state without the tuner's")
	}
	if err := without.RestoreState(with.AppendState(nil)); err == nil {
		t.Error("an untuned chain restored a tuner's state")
	}
	st := with.AppendState(nil)
	if err := with.RestoreState(st[:len(st)-3]); err == nil {
		t.Error("a truncated tuner's state was restored")
	}
	if got := replica.CandidateCycles(8); !slices.Equal(got, [][2]int{{1, 0}, {0, 8}, {1, 2}, {1, 8}}) {
		t.Errorf("CandidateCycles(8) = %v", got)
	}
}
