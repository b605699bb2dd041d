package replica_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/replica"
	"sardonics/rng"
	"sardonics/sampler"
)

// The cluster move within a run: the rungs it chooses, its state through
// a save and restore, its configuration, members without FlipSites.

// TestICMChoosesRungs: the burn-in's measurement keeps the move off
// where its clusters cover most of the q = -1 sites (on a 3D glass the hot
// rungs, where about half the sites differ and they percolate) and the
// report says so rung by rung, with tries after burn-in only where it is
// on; on a 2D glass, where half the sites do not percolate, the hot rungs
// keep it. --cluster-beta-min's rungs are exactly those at or above it.
func TestICMChoosesRungs(t *testing.T) {
	for _, tc := range []struct {
		spec     string
		hotOn    bool
		lo, beta float64
	}{
		{"spinglass3d:L=5,seed=1", false, 0.1, 3},
		{"spinglass2d:L=12,seed=1", true, 0.1, 3},
	} {
		kc := kernelCase{"metropolis", tc.spec, "metropolis", "", 0}
		cfg := replica.Config{Betas: replica.Geometric(tc.lo, tc.beta, 8), SwapEvery: 1, Sets: 2, CountFrom: 2000}
		withICM(t, kc, 0, 0)(&cfg)
		c, _ := newChain(t, kc, cfg, 6)
		for range 1999 {
			c.Step()
		}
		if rep := c.Report().Cluster; rep == nil || rep.Decided {
			t.Fatalf("%s: before the end of the burn-in: report %+v (expected undecided)", tc.spec, rep)
		}
		for range 3000 {
			c.Step()
		}
		rep := c.Report().Cluster
		if rep == nil || !rep.Decided || rep.Move != "icm" || len(rep.Rungs) != 8 || rep.MaxClusterShare != replica.MaxClusterShare {
			t.Fatalf("%s: report %+v", tc.spec, rep)
		}
		var tries int64
		for k, r := range rep.Rungs {
			t.Logf("%s rung %d beta %.3f: on %v, burn-in share %.3f, cluster fraction %.3f, q=-1 fraction %.3f; after: tries %d, moves %d, mean size %.1f",
				tc.spec, k, r.Beta, r.On, deref(r.BurnShare), deref(r.BurnFraction), deref(r.BurnQMinus), r.Tries, r.Moves, deref(r.MeanSize))
			if r.BurnTries == 0 || r.On != (r.BurnShare == nil || *r.BurnShare <= replica.MaxClusterShare) {
				t.Errorf("%s rung %d: on %v against the measured share %v over %d tries", tc.spec, k, r.On, deref(r.BurnShare), r.BurnTries)
			}
			if r.On && tries == 0 {
				tries = r.Tries
			}
			if r.On && (r.Tries < 2900 || r.Tries != tries || r.Moves > r.Tries) || !r.On && r.Tries != 0 {
				t.Errorf("%s rung %d (on %v): %d tries, %d moves after burn-in", tc.spec, k, r.On, r.Tries, r.Moves)
			}
		}
		if rep.Rungs[0].On != tc.hotOn {
			t.Errorf("%s: the hottest rung on %v (expected %v)", tc.spec, rep.Rungs[0].On, tc.hotOn)
		}
		// The override.
		cfg.ClusterBetaMin = cfg.Betas[5]
		c2, _ := newChain(t, kc, cfg, 6)
		for range 2500 {
			c2.Step()
		}
		for k, r := range c2.Report().Cluster.Rungs {
			if r.On != (k >= 5) || r.BurnShare != nil || (r.Tries > 0) != (k >= 5) {
				t.Errorf("%s --cluster-beta-min: rung %d on %v, burn-in share %v, tries %d", tc.spec, k, r.On, r.BurnShare, r.Tries)
			}
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestICMStateContinues: a chain with the cluster move restored from a
// state saved mid-round, before the rungs are chosen (while it measures)
// and after, on the step clock and the work clock, continues bit for bit,
// report included.
func TestICMStateContinues(t *testing.T) {
	for _, kc := range icmKernelCases {
		for _, at := range []int{90, 400} {
			for _, work := range []float64{0, 1} {
				t.Run(fmt.Sprintf("%s/at-%d/work-%g", kc.name, at, work), func(t *testing.T) {
					cfg := replica.Config{Betas: replica.Geometric(0.2, 2, 4), SwapEvery: 3, Work: work, Adapt: 60, CountFrom: 200, Sets: 2, KeepSpins: true}
					withICM(t, kc, 0, 0)(&cfg)
					a, b := continues(t, kc, cfg, at, 500, "")
					ja, _ := json.Marshal(a.Report().Cluster)
					jb, _ := json.Marshal(b.Report().Cluster)
					if !bytes.Equal(ja, jb) {
						t.Errorf("reports differ:\n%s\n%s", ja, jb)
					}
				})
			}
		}
	}
	// A state without the move's trailer is refused by a chain with it.
	kc := icmKernelCases[0]
	plain := replica.Config{Betas: replica.Geometric(0.2, 2, 4), SwapEvery: 3, Sets: 2}
	a, _ := newChain(t, kc, plain, 1)
	trace(a, 10)
	with := plain
	withICM(t, kc, 0, 0)(&with)
	b, _ := newChain(t, kc, with, 1)
	if err := b.RestoreState(a.AppendState(nil)); err == nil {
		t.Error("a state without the cluster move restored into a chain with it")
	}
}

// TestICMConfig: the move needs two sets and a graph of the model's size.
func TestICMConfig(t *testing.T) {
	kc := icmKernelCases[0]
	m, _ := model.Load(kc.spec)
	for _, cfg := range []replica.Config{
		{Betas: []float64{0.5, 1}, SwapEvery: 1, Sets: 1, Cluster: replica.ICM, Graph: graphOf(m)},
		{Betas: []float64{0.5, 1}, SwapEvery: 1, Sets: 2, Cluster: replica.ICM},
		{Betas: []float64{0.5, 1}, SwapEvery: 1, Sets: 2, Cluster: replica.ICM, Graph: graphOf(m), ClusterBetaMin: math.NaN()},
	} {
		if _, err := replica.New(cfg, builder("metropolis", m, "", 0), rng.Sub(1, 0, 0), randomSpins(rng.Sub(1, 0, 1), m.Variables())); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// noFlip is a member without sampler.Flipper: the cluster move resets it.
type noFlip struct {
	sampler.Tempered
	rs sampler.Resetter
}

func (n noFlip) Reset(s []int8) { n.rs.Reset(s) }

// TestICMResetsMembersWithoutFlipSites: members that cannot flip sites in
// place are Reset to their flipped spins, with the same chain as a result
// (Metropolis on an integer model: exact energies).
func TestICMResetsMembersWithoutFlipSites(t *testing.T) {
	kc := kernelCase{"metropolis", "frustrated2d:L=5,seed=2", "metropolis", "", 0}
	m, _ := model.Load(kc.spec)
	cfg := replica.Config{Betas: replica.Geometric(0.3, 2, 4), SwapEvery: 2, Sets: 2}
	withICM(t, kc, 0.3, 0)(&cfg)
	build := builder("metropolis", m, "", 0)
	wrapped := func(beta float64, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
		ch, rel, err := build(beta, r, init)
		if err != nil {
			return nil, rel, err
		}
		return noFlip{ch.(sampler.Tempered), ch.(sampler.Resetter)}, rel, nil
	}
	var traces [2][]float64
	for i, b := range []replica.Builder{build, wrapped} {
		c, err := replica.New(cfg, b, rng.Sub(4, 0, 1), randomSpins(rng.Sub(4, 0, 0), m.Variables()))
		if err != nil {
			t.Fatal(err)
		}
		traces[i], _ = trace(c, 400)
		if _, ok := c.RungChain(0, 0).(sampler.Flipper); ok == (i == 1) {
			t.Fatalf("builder %d: member is a Flipper: %v", i, ok)
		}
		if c.Report().Cluster.Rungs[3].Moves == 0 {
			t.Errorf("builder %d: no move at the target", i)
		}
		c.Close()
	}
	if !slices.Equal(traces[0], traces[1]) {
		t.Error("members reset by the move ran another chain than members that flip in place")
	}
}
