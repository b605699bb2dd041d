package bo

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func unitSpace(dim int) Space {
	s := Space{}
	for range dim {
		s.Dims = append(s.Dims, Dim{Lo: 0, Hi: 1})
	}
	return s
}

// noisyH6 is the reward of the BO test: -hartmann6 plus N(0, 0.1^2) noise.
func noisyH6(x []float64, rr *rand.Rand) float64 { return -hartmann6(x) + 0.1*rr.NormFloat64() }

// bestObserved returns the true value -hartmann6 at the point with the
// highest noisy reward.
func bestObserved(xs [][]float64, ys []float64) float64 {
	i := slices.Index(ys, slices.Max(ys))
	return -hartmann6(xs[i])
}

// On noisy Hartmann-6 (max of -f is 3.32237), BO with 50 evaluations must
// beat random search and a pure Latin-hypercube design of 50 points in the
// mean true value of the best-observed point over 10 seeds.
func TestOptimizerBeatsRandomOnNoisyHartmann6(t *testing.T) {
	const budget, seeds, dim = 50, 10, 6
	opts := Options{Init: 12, RefitEvery: 4, GP: GPOptions{Restarts: 2, MaxIter: 40},
		Direct: DirectOptions{MaxEvals: 1000}}
	var bo, rs, lhs float64
	start := time.Now()
	for seed := range uint64(seeds) {
		noise := rand.New(rand.NewPCG(seed, 100))
		o, err := NewOptimizer(unitSpace(dim), opts, rand.NewPCG(seed, 1))
		if err != nil {
			t.Fatal(err)
		}
		for range budget {
			u, err := o.Next()
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Observe(u, noisyH6(u, noise)); err != nil {
				t.Fatal(err)
			}
		}
		xs, ys := o.History()
		bo += bestObserved(xs, ys) / seeds

		rr := rand.New(rand.NewPCG(seed, 2))
		xs, ys = nil, nil
		for range budget {
			x := make([]float64, dim)
			for i := range x {
				x[i] = rr.Float64()
			}
			xs, ys = append(xs, x), append(ys, noisyH6(x, noise))
		}
		rs += bestObserved(xs, ys) / seeds

		xs, ys = LatinHypercube(budget, dim, rand.NewPCG(seed, 3)), nil
		for _, x := range xs {
			ys = append(ys, noisyH6(x, noise))
		}
		lhs += bestObserved(xs, ys) / seeds
	}
	t.Logf("mean true best of %d evaluations over %d seeds: BO %.4f, random %.4f, LHS %.4f (optimum 3.32237); %v",
		budget, seeds, bo, rs, lhs, time.Since(start))
	if !(bo > rs+0.2 && bo > lhs+0.2) {
		t.Errorf("BO %.4f does not beat random %.4f and LHS %.4f by 0.2", bo, rs, lhs)
	}
}

// A checkpoint taken mid-run and restored into a fresh optimizer (other
// seed) must continue with exactly the same points as the original.
func TestOptimizerCheckpointResume(t *testing.T) {
	space := sardonicsSpace()
	opts := Options{Init: 6, RefitEvery: 2, Direct: DirectOptions{MaxEvals: 800}}
	reward := func(u []float64) float64 {
		p := space.ToParams(u)
		return -math.Abs(p[0]-20)/70 - (p[2]-1)*(p[2]-1) + 0.1*p[4] - 0.05*p[7]
	}
	o, err := NewOptimizer(space, opts, rand.NewPCG(9, 9))
	if err != nil {
		t.Fatal(err)
	}
	step := func(o *Optimizer) []float64 {
		u, err := o.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(u, space.Snap(u)) {
			t.Fatalf("Next returned %v, not snapped to its integer bins", u)
		}
		if err := o.Observe(u, reward(u)); err != nil {
			t.Fatal(err)
		}
		return u
	}
	for range 9 { // past the design and one refit; the next would reuse hyper
		step(o)
	}
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewOptimizer(space, opts, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, r); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		a, b := step(o), step(r)
		if !slices.Equal(a, b) {
			t.Fatalf("step %d after resume: original %v, resumed %v", i, a, b)
		}
	}
	pa, err := o.Policy(5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := r.Policy(5, 0.5)
	for i := range pa {
		if !slices.Equal(pa[i], pb[i]) {
			t.Fatalf("policy point %d differs after resume", i)
		}
	}
	// Bad checkpoints are errors, not panics.
	if err := json.Unmarshal([]byte(`{"version":2}`), r); err == nil {
		t.Error("accepted checkpoint version 2")
	}
}

// Policy samples concentrate where the GP mean is high, and stay in the cube.
func TestPolicyConcentrates(t *testing.T) {
	const dim = 2
	o, err := NewOptimizer(unitSpace(dim), Options{Init: 25}, rand.NewPCG(11, 12))
	if err != nil {
		t.Fatal(err)
	}
	f := func(u []float64) float64 { return -8 * ((u[0]-0.7)*(u[0]-0.7) + (u[1]-0.3)*(u[1]-0.3)) }
	for range 25 {
		u, _ := o.Next()
		o.Observe(u, f(u))
	}
	pts, err := o.Policy(400, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	gp, _ := o.surrogate(true)
	rr := rand.New(rand.NewPCG(13, 14))
	var mp, mu float64
	var c [2]float64
	for _, p := range pts {
		for i, v := range p {
			if v < 0 || v > 1 {
				t.Fatalf("policy point %v outside the cube", p)
			}
			c[i] += v / float64(len(pts))
		}
		mp += gp.MeanStd(p) / float64(len(pts))
		mu += gp.MeanStd([]float64{rr.Float64(), rr.Float64()}) / float64(len(pts))
	}
	t.Logf("mean standardized mu: policy %.3f, uniform %.3f; policy centroid %.3f", mp, mu, c)
	if !(mp > mu+0.5) {
		t.Errorf("policy mean mu %.3f not above uniform %.3f by 0.5", mp, mu)
	}
	if math.Hypot(c[0]-0.7, c[1]-0.3) > 0.15 {
		t.Errorf("policy centroid %v far from the maximizer (0.7, 0.3)", c)
	}
	if _, err := o.Policy(0, 1); err == nil {
		t.Error("Policy(0, 1) returned no error")
	}
}

// BenchmarkNext times one Next (hyperparameter refit plus DIRECT on EI)
// with 100 observations in 8 dimensions, default options.
func BenchmarkNext(b *testing.B) {
	for _, refit := range []bool{true, false} {
		name := map[bool]string{true: "refit", false: "reuse-hyper"}[refit]
		b.Run(name, func(b *testing.B) {
			const dim, n = 8, 100
			o, err := NewOptimizer(unitSpace(dim), Options{Init: n}, rand.NewPCG(1, 2))
			if err != nil {
				b.Fatal(err)
			}
			for range n {
				u, _ := o.Next()
				var s float64
				for i, v := range u {
					s += math.Sin(float64(i+1) * v)
				}
				o.Observe(u, s)
			}
			if _, err := o.Next(); err != nil { // first fit
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				o.gpOK = false
				if refit {
					o.fitN = 0
				}
				if _, err := o.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// tuneReward is a synthetic noisy reward on the SARDONICS space, shaped like
// the tuner's: a smooth bump in a few parameters, flat in the others, plus
// measurement noise of standard deviation 0.05.
func tuneReward(space Space, u []float64, rr *rand.Rand) float64 {
	p := space.ToParams(u)
	kl, ku, gl, pll, n := p[0]/70, p[1]/120, p[2], p[4], p[7]
	r := 0.8 - 0.5*(kl-0.3)*(kl-0.3) - 0.3*(ku-0.5)*(ku-0.5) - 4*(gl-0.97)*(gl-0.97) +
		0.1*math.Sin(3*pll) - 0.02*(n-2)*(n-2)
	return r + 0.05*rr.NormFloat64()
}

// BenchmarkTuneLoop times the tuner's whole default adaptation on the
// SARDONICS space: 200 rounds of Next and Observe on tuneReward, then
// Policy(1000, 0.2), with the zero-value Options. It reports the true
// (noise-free) reward of the best point found.
func BenchmarkTuneLoop(b *testing.B) {
	space := sardonicsSpace()
	var best float64
	for i := range b.N {
		best += searchOnce(b, space, Options{}, 200, uint64(i)) / float64(b.N)
	}
	b.ReportMetric(best, "best-reward")
}

// searchOnce runs one search of rounds Next/Observe steps on tuneReward
// (seeded by i), then Policy(1000, 0.2), and returns the noise-free reward
// of its best point.
func searchOnce(b *testing.B, space Space, opts Options, rounds int, i uint64) float64 {
	rr := rand.New(rand.NewPCG(i, 3))
	o, err := NewOptimizer(space, opts, rand.NewPCG(i, 4))
	if err != nil {
		b.Fatal(err)
	}
	for range rounds {
		u, err := o.Next()
		if err != nil {
			b.Fatal(err)
		}
		if err := o.Observe(u, tuneReward(space, u, rr)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := o.Policy(1000, 0.2); err != nil {
		b.Fatal(err)
	}
	u, err := o.Best()
	if err != nil {
		b.Fatal(err)
	}
	return tuneReward(space, u, rand.New(zeroSource{}))
}

// zeroSource makes NormFloat64 return 0: noise-free evaluation.
type zeroSource struct{}

func (zeroSource) Uint64() uint64 { return 0 }
