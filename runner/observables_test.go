package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/rng"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
)

// exactObs are a model's observables at one beta, by brute force over its
// 2^N states (stattest.Enumerate), in the summary's definitions: the
// energy, m, |m|, C, chi, and the marginals (<s_i> for every spin, then
// <s_i s_j> for every pair of model.Ising.Pairs).
type exactObs struct {
	E, M, AbsM, C, Chi float64
	Marginals          []float64
}

func exactObservables(m *model.Model, beta float64) exactObs {
	n := m.Variables()
	mi := ModelInfo(m, beta)
	emin := math.Inf(1)
	stattest.Enumerate(n, func(s []int8) { emin = min(emin, m.Sparse().Energy(s)) })
	var z, e, e2, mm, m2, am float64
	pi, pj := m.Sparse().Pairs()
	marg := make([]float64, n+len(pi))
	stattest.Enumerate(n, func(s []int8) {
		en := m.Sparse().Energy(s)
		w := math.Exp(-beta * (en - emin))
		x := float64(sampler.SpinSum(s)) / float64(n)
		z += w
		e += w * en
		e2 += w * en * en
		mm += w * x
		m2 += w * x * x
		am += w * math.Abs(x)
		for i, v := range s {
			marg[i] += w * float64(v)
		}
		for k, i := range pi {
			marg[n+k] += w * float64(s[i]*s[pj[k]])
		}
	})
	e, e2, mm, m2, am = e/z, e2/z, mm/z, m2/z, am/z
	for k := range marg {
		marg[k] /= z
	}
	o := exactObs{E: e, M: mm, AbsM: am, C: beta * beta * (e2 - e*e) / float64(n), Marginals: marg}
	if mi.ZeroField {
		o.Chi = beta * float64(n) * (m2 - am*am)
	} else {
		o.Chi = beta * float64(n) * (m2 - mm*mm)
	}
	return o
}

// obsMisses lists the observables of res farther than 4 standard errors
// from the exact ones (or without a finite error).
func obsMisses(res *summary.Result, want exactObs) []string {
	var out []string
	check := func(name string, got, se, want float64) {
		if !(math.Abs(got-want) <= 4*se) {
			out = append(out, fmt.Sprintf("%s = %.5g +- %.2g, exact %.5g (%.1f SE)", name, got, se, want, (got-want)/se))
		}
	}
	check("E", res.EnergyMean, res.EnergyStderr, want.E)
	o := res.Observables
	if o == nil {
		return append(out, "no observables: "+res.ObservablesNote)
	}
	check("m", o.Magnetization.Mean, o.Magnetization.Stderr, want.M)
	check("|m|", o.AbsMagnetization.Mean, o.AbsMagnetization.Stderr, want.AbsM)
	check("C", o.SpecificHeat.Mean, o.SpecificHeat.Stderr, want.C)
	check("chi", o.Susceptibility.Mean, o.Susceptibility.Stderr, want.Chi)
	return out
}

// marginalZ is the threshold of the marginals' checks: with 1000 of them
// in TestObservablesExact, 4 SE would be crossed by a correct sampler in
// about one run in ten (P(|z| > 4) = 6e-5 each); Bonferroni's bound for a
// 1e-3 chance over 1000 checks is 4.9 SE.
const marginalZ = 4.9

// marginalMisses lists the spins and pairs whose pooled mean is farther
// than marginalZ standard errors from the exact one.
func marginalMisses(res *summary.Result, want exactObs) []string {
	if res.Marginals == nil || res.Marginals.Pooled == nil {
		return []string{"no marginals: " + res.MarginalsNote}
	}
	p := res.Marginals.Pooled
	var out []string
	for k, w := range want.Marginals {
		if got, se := p.Mean[k], p.Stderr[k]; !(math.Abs(got-w) <= marginalZ*se) {
			what := fmt.Sprintf("<s_%d>", k)
			if k >= p.Spins {
				what = fmt.Sprintf("<s_%d s_%d>", p.PI[k-p.Spins], p.PJ[k-p.Spins])
			}
			out = append(out, fmt.Sprintf("%s = %.4f +- %.2g, exact %.4f (%.1f SE)", what, got, se, w, (got-w)/se))
		}
	}
	return out
}

// intQUBO is a QUBO with integer Q on n bits (fields and an offset in its
// Ising form), as the baselines' tests use.
func intQUBO(t testing.TB, n int, seed uint64) *model.Model {
	r := rand.New(rng.Stream(seed, 1))
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = float64(r.IntN(5) - 2)
	}
	var off []model.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if w := float64(r.IntN(5) - 2); w != 0 {
				off = append(off, model.Edge{I: int32(i), J: int32(j), W: w})
			}
		}
	}
	is, err := model.FromQUBO(n, diag, off, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Spec: "qubo6", Kind: model.KindQUBO, Ising: is, QUBO: &model.QUBO{N: n, Diag: diag, Off: off}}
}

// obsModels are the small models of the observables' checks: fields and
// none, integer and real couplings, a QUBO and an RBM.
func obsModels(t *testing.T) []struct {
	m    *model.Model
	beta float64
} {
	load := func(spec string) *model.Model {
		m, err := model.Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return []struct {
		m    *model.Model
		beta float64
	}{
		{load("frustrated2d:L=4,seed=2"), 0.7},
		{load("ferro2d:L=4"), 0.35},
		{intQUBO(t, 6, 12), 1},
		{load("rbm-random:V=5,H=4,seed=3,scale=1"), 1},
	}
}

// runObs runs samplers on m and summarizes them.
func runObs(t *testing.T, m *model.Model, beta float64, names []string, rc ReplicaConfig) []*summary.Result {
	t.Helper()
	const steps, burn, trials = 20000, 2000, 4
	cfg := &Config{Model: m, Beta: beta, Samplers: names, Steps: steps, Burn: burn, Trials: trials, Seed: 5, Threads: 2,
		SAW: sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}}, Replicas: rc, Marginals: true}
	recs, _, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []*summary.Result
	for _, name := range names {
		out = append(out, summary.Summarize(name, recs[name], steps, burn, 1))
	}
	return out
}

// TestObservablesExact: every sampler's energy, m, |m|, specific heat and
// susceptibility (summary.Summarize over 4 trials of the runner's traces)
// agree with exact enumeration within 4 standard errors on small models,
// with fields and without (chi then of |m|), and so does replica exchange
// around sardonics and gibbs (whose spins the runner sums itself). Each
// check a correct sampler fails with probability about 6e-5; the seeds are
// fixed.
func TestObservablesExact(t *testing.T) {
	models := obsModels(t)
	if testing.Short() { // the fast layer: one model with fields, one without
		models = models[:2]
	}
	for _, mc := range models {
		want := exactObservables(mc.m, mc.beta)
		var names []string
		for _, n := range sampler.Names() {
			// Every registered sampler that runs on the model, but those
			// the tests register (named *-test).
			if k, _ := sampler.Lookup(n); (k.Check == nil || k.Check(mc.m) == nil) && !strings.HasSuffix(n, "-test") {
				names = append(names, n)
			}
		}
		results := runObs(t, mc.m, mc.beta, names, ReplicaConfig{})
		if mc.m.Spec == "frustrated2d:L=4,seed=2" {
			for _, r := range runObs(t, mc.m, mc.beta, []string{"sardonics", "gibbs"}, ReplicaConfig{R: 3, BetaMin: mc.beta / 3, SwapEvery: 1}) {
				r.Sampler += " with replica exchange"
				results = append(results, r)
			}
		}
		for _, r := range results {
			if miss := obsMisses(r, want); len(miss) > 0 {
				t.Errorf("%s, beta %g, %s: %v", mc.m.Spec, mc.beta, r.Sampler, miss)
			}
			if miss := marginalMisses(r, want); len(miss) > 0 {
				t.Errorf("%s, beta %g, %s: marginals %v", mc.m.Spec, mc.beta, r.Sampler, miss)
			}
		}
		if mc.m.Spec == "ferro2d:L=4" && results[0].Observables.SusceptibilityOf != "|m|" {
			t.Errorf("ferro2d: susceptibility of %s (expected |m|: no fields)", results[0].Observables.SusceptibilityOf)
		}
	}
}

// brokenMag is gibbs with a sign error in the magnetization it reports;
// hotter is gibbs at a beta 20% too low; brokenSpin is gibbs whose spin 3
// reads with the wrong sign (its energy is right). TestObservablesCheckCatches
// shows that the checks above fail them.
type brokenMag struct{ sampler.Chain }

func (c brokenMag) TrackMagnetization() {}
func (c brokenMag) Magnetization() int  { return -sampler.SpinSum(c.Spins()) }

type brokenSpin struct {
	sampler.Chain
	s []int8
}

func (c *brokenSpin) Spins() []int8 {
	c.s = append(c.s[:0], c.Chain.Spins()...)
	c.s[3] = -c.s[3]
	return c.s
}

func init() {
	gibbs := func(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		k, _ := sampler.Lookup("gibbs")
		return k.New(m, beta, opts, r, init)
	}
	sampler.Register(sampler.Kind{Name: "brokenmag-test", Rank: 1003,
		New: func(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
			c, done, err := gibbs(m, beta, opts, r, init)
			return brokenMag{c}, done, err
		}})
	sampler.Register(sampler.Kind{Name: "brokenspin-test", Rank: 1005,
		New: func(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
			c, done, err := gibbs(m, beta, opts, r, init)
			return &brokenSpin{Chain: c}, done, err
		}})
	sampler.Register(sampler.Kind{Name: "hotter-test", Rank: 1004,
		New: func(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
			return gibbs(m, 0.8*beta, opts, r, init)
		}})
}

func TestObservablesCheckCatches(t *testing.T) {
	mc := obsModels(t)[0] // fields: <m> is not 0
	want := exactObservables(mc.m, mc.beta)
	rs := runObs(t, mc.m, mc.beta, []string{"brokenmag-test", "hotter-test", "brokenspin-test"}, ReplicaConfig{})
	miss := obsMisses(rs[0], want)
	if len(miss) == 0 || miss[0][:2] != "m " {
		t.Errorf("a magnetization of the wrong sign: misses %v (expected m first)", miss)
	}
	if miss := obsMisses(rs[1], want); len(miss) < 2 {
		t.Errorf("a chain at 0.8 beta: misses %v (expected E, C and more)", miss)
	} else {
		t.Logf("caught: %v; %v", obsMisses(rs[0], want), miss)
	}
	// Spin 3 of frustrated2d:L=4 and its 4 bonds.
	if miss := marginalMisses(rs[2], want); len(miss) != 5 || !strings.HasPrefix(miss[0], "<s_3> = ") {
		t.Errorf("spin 3 read with the wrong sign: misses %v (expected <s_3> and its 4 pairs)", miss)
	} else {
		t.Logf("caught: %v", miss)
	}
}
