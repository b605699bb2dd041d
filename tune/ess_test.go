package tune

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"sardonics/bo"
	"sardonics/model"
	"sardonics/runner"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
)

// The paper's reward (and the cost reward) are unchanged: values pinned
// from the implementation before the ess reward was added, and the zero
// Config still selects the paper's protocol.
func TestRewardACFUnchanged(t *testing.T) {
	x := make([]float64, 300)
	for i := range x {
		x[i] = math.Sin(0.1*float64(i)) + 0.5*math.Cos(0.37*float64(i)) + 0.01*float64(i%7)
	}
	for _, c := range []struct {
		got, want float64
	}{
		{Reward(x, 100), 0.56228730346879097},
		{Reward(x[:120], 50), 0.5913010676727648},
		{CostReward(x, 60, 12, 900), 0.29916744477390556},
	} {
		if c.got != c.want {
			t.Errorf("reward %.17g, pinned %.17g", c.got, c.want)
		}
	}
	c := Config{}.WithDefaults()
	if c.Reward != RewardACF || c.Iterations != 200 || c.IterSteps != 100 || c.ACFLag != 99 || c.PolicyTau != 0.2 ||
		c.StopEI != 0 || c.WarmUp != 0 || c.PolicyMargin != 0 || c.MaxCost != 0 || c.BO.Start != nil ||
		c.BO.PolicyObserved || c.BO.PolicyLCB != 0 || c.Steps() != 20000 {
		t.Errorf("zero Config defaults to %+v, not the paper's protocol", c)
	}
	if c := (Config{CostAware: true}).WithDefaults(); c.Reward != RewardCost {
		t.Errorf("CostAware selects reward %q", c.Reward)
	}
}

// The ess reward is the log of ESS per modeled CPU-second: twice the
// cost, log 2 less (the estimators it rests on are diag's: TestESSTauAR1).
func TestESSRewardCost(t *testing.T) {
	// ESS per modeled CPU-second: twice the cost, log 2 less.
	a, b := ESSReward(1, 5, 10, 1e6, 1e-6), ESSReward(1, 5, 10, 1e6, 2e-6)
	if math.Abs(a-b-math.Log(2)) > 1e-12 {
		t.Errorf("rewards %v and %v at costs 1 and 2 us", a, b)
	}
}

func TestLagFor(t *testing.T) {
	for _, c := range []struct {
		work, fps float64
		max, want int
	}{{55, 11, 100, 5}, {55, 200, 100, 1}, {55, 1, 100, 55}, {55, 1, 20, 20}, {55, 0, 20, 1}} {
		if got := LagFor(c.work, c.fps, c.max); got != c.want {
			t.Errorf("LagFor(%v, %v, %d) = %d, want %d", c.work, c.fps, c.max, got, c.want)
		}
	}
}

// The pooled variance of windows added one at a time equals the two-pass
// variance of all their values.
func TestPoolVariance(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var p pool
	var all []float64
	for w := range 7 {
		x := make([]float64, 50+10*w)
		for i := range x {
			x[i] = 1e4 + float64(w) + r.NormFloat64()
		}
		p.add(x)
		all = append(all, x...)
	}
	m := 0.0
	for _, v := range all {
		m += v
	}
	m /= float64(len(all))
	ss := 0.0
	for _, v := range all {
		ss += (v - m) * (v - m)
	}
	if want := ss / float64(len(all)-1); math.Abs(p.variance()/want-1) > 1e-10 {
		t.Errorf("pooled variance %v, two-pass %v", p.variance(), want)
	}
}

func smallChain(t *testing.T, seed uint64) (*saw.Chain, *model.Model) {
	t.Helper()
	m, err := model.Load("frustrated2d:L=8,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	init := runner.InitialState(seed, 0, m.Variables())
	ch, release, err := runner.NewChain("sardonics", m, 1, sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}}, runner.StreamFor(seed, 0, "sardonics"), init)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return ch.(*saw.Chain), m
}

// The ess tuner stops once the expected improvement stays negligible: with
// an enormous threshold it stops StopAfter proposals after its design,
// spending fewer steps than I x L; with a negative one it runs all I.
func TestStopsOnNegligibleEI(t *testing.T) {
	for _, c := range []struct {
		stop      float64
		wantIters int
	}{{1e9, 9 + 2}, {-1, 20 - 2}} {
		ch, _ := smallChain(t, 5)
		cfg := Config{Reward: RewardESS, Iterations: 20, IterSteps: 100, StopEI: c.stop}
		res, err := Adapt(cfg, ch, rand.NewPCG(6, 7), ch.Step)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rewards) != c.wantIters {
			t.Errorf("StopEI %v: %d scored iterations, want %d", c.stop, len(res.Rewards), c.wantIters)
		}
		if want := 100 * (c.wantIters + 2); res.Steps != want {
			t.Errorf("StopEI %v: %d steps, want %d (2 warm-up iterations and %d scored)", c.stop, res.Steps, want, c.wantIters)
		}
		if res.Tried[0] != saw.DefaultTheta {
			t.Errorf("first setting %v, want the default theta", res.Tried[0])
		}
		if len(res.Policy) == 0 || !(res.TunerCPU > 0) {
			t.Errorf("policy of %d kernels, tuner CPU %v s", len(res.Policy), res.TunerCPU)
		}
		for _, k := range res.Policy {
			if k.GL != res.Policy[0].GL || k.GH != res.Policy[0].GH {
				t.Fatalf("policy kernels with different biases: %v and %v", k, res.Policy[0])
			}
		}
	}
}

// A session checkpointed mid-way (its JSON form) and restored continues
// exactly as the uninterrupted one: same settings, rewards and policy.
func TestESSSessionResume(t *testing.T) {
	cfg := Config{Reward: RewardESS, Iterations: 16, IterSteps: 100, StopEI: -1}
	run := func(split int) *Result {
		ch, _ := smallChain(t, 8)
		r := rand.NewPCG(9, 9)
		s, err := NewSession(cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; !s.Done(); i++ {
			if i == split {
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				if s, err = NewSession(cfg, rand.NewPCG(0, 0)); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, s); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Iterate(ch, ch.Step); err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.Finish(ch)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(-1), run(11)
	if !slices.Equal(a.Tried, b.Tried) || !slices.Equal(a.Rewards, b.Rewards) || !slices.Equal(a.Policy, b.Policy) || a.Steps != b.Steps {
		t.Errorf("resumed session differs:\n%v\n%v\n%v\n%v", a.Tried, b.Tried, a.Rewards, b.Rewards)
	}
}

// Through the runner, the same seed gives the same tuning history, policy
// and trace, whatever the order and timing of the trials; the tuner's own
// CPU time is recorded, and another seed tunes differently.
func TestTunedRunReproducible(t *testing.T) {
	m, err := model.Load("frustrated2d:L=12,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed uint64, threads int) map[string][]*summary.TrialRecord {
		cfg := &runner.Config{Model: m, Beta: 1, Samplers: []string{"sardonics"}, Steps: 6000, Burn: 3000,
			Trials: 2, Seed: seed, Threads: threads, SAW: sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}},
			Tune: Tuner(Config{Reward: RewardESS, Iterations: 15, IterSteps: 200})}
		recs, _, err := runner.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	a, b, c := run(4, 1), run(4, 2), run(5, 1)
	for i := range 2 {
		ra, rb := a["sardonics"][i], b["sardonics"][i]
		ta, tb := ra.Tune, rb.Tune
		if ta == nil || tb == nil {
			t.Fatal("no tuning record")
		}
		if !slices.Equal(ta.Thetas, tb.Thetas) || !slices.Equal(ta.Rewards, tb.Rewards) || !slices.Equal(ta.Policy, tb.Policy) ||
			ta.Steps != tb.Steps || ra.Params != rb.Params {
			t.Errorf("trial %d: same seed, different tuning:\n%v\n%v", i, ta.Thetas, tb.Thetas)
		}
		if !slices.Equal(ra.Energies, rb.Energies) {
			t.Errorf("trial %d: same seed, different traces", i)
		}
		if ta.Reward != RewardESS || !(ta.TunerCPUSeconds > 0) || ta.TunerCPUSeconds > ra.CPUSeconds {
			t.Errorf("trial %d: reward %q, tuner CPU %v s of the trial's %v s", i, ta.Reward, ta.TunerCPUSeconds, ra.CPUSeconds)
		}
	}
	if slices.Equal(a["sardonics"][0].Tune.Rewards, c["sardonics"][0].Tune.Rewards) {
		t.Error("another seed gave the same rewards")
	}
}

// essBump is a synthetic noisy reward on the SARDONICS space for
// BenchmarkTuneLoopESS: a smooth bump at short walks (kl 4, ku 12, N 1,
// within the ess search's cost bound), flat in the other parameters, plus
// noise of standard deviation 0.05 (none with rr nil).
func essBump(space bo.Space, u []float64, rr *rand.Rand) float64 {
	p := space.ToParams(u)
	kl, ku, gl, pll, n := (p[0]-4)/10, (p[1]-12)/30, p[2]-0.97, p[4], p[7]-1
	r := 0.8 - 0.5*kl*kl - 0.3*ku*ku - 4*gl*gl + 0.1*math.Sin(3*pll) - 0.02*n*n
	if rr != nil {
		r += 0.05 * rr.NormFloat64()
	}
	return r
}

// BenchmarkTuneLoopESS times the ess tuner's search with the optimizer as
// a Session configures it (Config defaults, expected improvement per
// modeled cost, proposals beyond MaxCost moved within): the iterations
// after the warm-up, each a Next and an Observe of essBump, then the
// policy. It reports the median CPU time of one search, measured on the
// benchmark's thread, and the noise-free reward of the best point.
func BenchmarkTuneLoopESS(b *testing.B) {
	cfg := Config{Reward: RewardESS}.WithDefaults()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var best float64
	cpu := make([]float64, 0, b.N)
	for i := range b.N {
		c0 := runner.ThreadCPU()
		s, err := NewSession(cfg, rand.NewPCG(uint64(i), 4))
		if err != nil {
			b.Fatal(err)
		}
		rr := rand.New(rand.NewPCG(uint64(i), 3))
		for range cfg.Iterations - cfg.WarmUp {
			u, err := s.opt.Next()
			if err != nil {
				b.Fatal(err)
			}
			if math.IsInf(s.evalCost(u), 1) {
				u = s.withinCost(u)
			}
			if err := s.opt.Observe(u, essBump(cfg.Space, u, rr)); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.opt.Policy(cfg.Kernels, 0.2); err != nil {
			b.Fatal(err)
		}
		u, err := s.opt.Best()
		if err != nil {
			b.Fatal(err)
		}
		cpu = append(cpu, runner.ThreadCPU()-c0)
		best += essBump(cfg.Space, u, nil) / float64(b.N)
	}
	b.ReportMetric(best, "best-reward")
	slices.Sort(cpu)
	b.ReportMetric(1e3*cpu[len(cpu)/2], "median-cpu-ms/op")
}
