package rbmtrain

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"sardonics/model"
	"sardonics/rng"
)

// Config sets the trainer. Zero fields take the defaults given.
type Config struct {
	Hidden      int     // hidden units (default 500)
	Epochs      int     // passes over the data (default 5)
	Batch       int     // mini-batch size (default 100)
	Chains      int     // persistent fantasy chains (default 100)
	LR          float64 // initial learning rate, decayed linearly to LR/10 over the run (default 0.05)
	Momentum    float64 // momentum of the parameter updates (default 0.5)
	WeightDecay float64 // L2 penalty on W (default 1e-4)
	InitScale   float64 // standard deviation of the initial weights (default 0.01)
	PLLSamples  int     // patches in the fixed pseudo-log-likelihood subset (default 1000)
	PLLFlips    int     // flipped pixels per subset patch, drawn with replacement (default 16)
	Seed        uint64  // used by Run: the stream is rng.Stream(Seed, 0) (default 0)
}

// WithDefaults returns c with its zero fields set to the defaults.
func (c Config) WithDefaults() Config {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	deff := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Hidden, 500)
	def(&c.Epochs, 5)
	def(&c.Batch, 100)
	def(&c.Chains, 100)
	def(&c.PLLSamples, 1000)
	def(&c.PLLFlips, 16)
	deff(&c.LR, 0.05)
	deff(&c.Momentum, 0.5)
	deff(&c.WeightDecay, 1e-4)
	deff(&c.InitScale, 0.01)
	return c
}

// Train fits an RBM with Hidden units to the patches by persistent
// contrastive divergence (Tieleman 2008). Each update takes a mini-batch of
// Batch patches (the data in a fresh random order each epoch, the last
// partial batch dropped), uses the exact hidden probabilities for the data
// term, and advances each of the Chains persistent chains by one block-Gibbs
// step (v ~ p(v|h), then h ~ p(h|v)) for the model term, as in scikit-learn's
// BernoulliRBM. The step is momentum SGD with weight decay on W; the
// learning rate falls linearly from LR to LR/10 over the updates.
//
// Initial state: W ~ N(0, InitScale^2) by Box-Muller, b = logit of the
// clipped pixel means, c = 0, chains started from random patches.
//
// The returned curve has Epochs+1 entries: pll[e] is the mean stochastic
// pseudo-log-likelihood (nats per patch: V * log p(v_i | v_-i), averaged over
// PLLFlips random pixels i of each of PLLSamples patches, all drawn once at
// the start) after e epochs. progress, if not nil, is called with each entry.
//
// Draw order from r: weights, subset, flipped pixels, chain starts, then per
// epoch the permutation and per update the visible and hidden chain samples.
func Train(cfg Config, data *Patches, r *rand.PCG, progress func(epoch int, pll float64)) (*model.RBM, []float64, error) {
	cfg = cfg.WithDefaults()
	V, H := data.Rows*data.Cols, cfg.Hidden
	if len(data.Bits) != data.N*V {
		return nil, nil, fmt.Errorf("patch set has %d bits (expected %d x %d x %d)", len(data.Bits), data.N, data.Rows, data.Cols)
	}
	if data.N < cfg.Batch || data.N <= 0 || V <= 0 {
		return nil, nil, fmt.Errorf("%d patches (expected at least a batch of %d)", data.N, cfg.Batch)
	}
	if cfg.Hidden < 0 || cfg.Epochs < 0 || cfg.Batch < 0 || cfg.Chains < 0 || cfg.PLLSamples < 0 || cfg.PLLFlips < 0 {
		return nil, nil, fmt.Errorf("config %+v has a negative size", cfg)
	}
	t := newTrainer(V, H, cfg.Batch, cfg.Chains)

	// Initial parameters.
	for i := 0; i < len(t.w); i += 2 {
		z0, z1 := boxMuller(r)
		t.w[i] = cfg.InitScale * z0
		if i+1 < len(t.w) {
			t.w[i+1] = cfg.InitScale * z1
		}
	}
	for i := 0; i < V; i++ {
		on := 0
		for k := 0; k < data.N; k++ {
			on += int(data.Bits[k*V+i])
		}
		m := math.Min(math.Max(float64(on)/float64(data.N), 0.01), 0.99)
		t.b[i] = math.Log(m / (1 - m))
	}

	// Fixed pseudo-log-likelihood subset and flipped pixels.
	ns := min(cfg.PLLSamples, data.N)
	perm := make([]int, data.N)
	for i := range perm {
		perm[i] = i
	}
	for i := 0; i < ns; i++ {
		j := i + rng.Intn(r, data.N-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	pllSet := make([]float64, ns*V)
	flip := make([]int, ns*cfg.PLLFlips)
	for k := 0; k < ns; k++ {
		toFloat(pllSet[k*V:(k+1)*V], data.Patch(perm[k]))
	}
	for k := range flip {
		flip[k] = rng.Intn(r, V)
	}

	// Chains start from random patches; their hidden state is drawn from them.
	for k := 0; k < cfg.Chains; k++ {
		toFloat(t.vneg.Data[k*V:(k+1)*V], data.Patch(rng.Intn(r, data.N)))
	}
	t.hidden(t.vneg, t.hneg)
	sample(r, t.hstate.Data, t.hneg.Data)

	pll := make([]float64, 0, cfg.Epochs+1)
	report := func(e int) {
		p := t.pll(pllSet, flip)
		pll = append(pll, p)
		if progress != nil {
			progress(e, p)
		}
	}
	report(0)
	for i := range perm {
		perm[i] = i
	}
	nb := data.N / cfg.Batch
	total := float64(cfg.Epochs * nb)
	u := 0
	for e := 1; e <= cfg.Epochs; e++ {
		for i := data.N - 1; i > 0; i-- {
			j := rng.Intn(r, i+1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		for bi := 0; bi < nb; bi++ {
			for k := 0; k < cfg.Batch; k++ {
				toFloat(t.vpos.Data[k*V:(k+1)*V], data.Patch(perm[bi*cfg.Batch+k]))
			}
			lr := cfg.LR * (1 - 0.9*float64(u)/total)
			t.update(r, lr, cfg.Momentum, cfg.WeightDecay)
			u++
		}
		if err := t.check(); err != nil {
			return nil, pll, fmt.Errorf("epoch %d: %w", e, err)
		}
		report(e)
	}
	m, err := model.NewRBM(V, H, t.w, t.b, t.c)
	return m, pll, err
}

// trainer holds the parameters, their velocities and the work matrices.
type trainer struct {
	v, h       int
	w, b, c    []float64
	dw, db, dc []float64 // velocities
	W          blas64.General
	vpos, hpos blas64.General // Batch x V, Batch x H
	vneg, hneg blas64.General // Chains x V, Chains x H
	hstate     blas64.General // Chains x H, binary
	grad       blas64.General // V x H
}

func newTrainer(v, h, batch, chains int) *trainer {
	t := &trainer{v: v, h: h,
		w: make([]float64, v*h), b: make([]float64, v), c: make([]float64, h),
		dw: make([]float64, v*h), db: make([]float64, v), dc: make([]float64, h),
	}
	t.W = blas64.General{Rows: v, Cols: h, Stride: h, Data: t.w}
	t.vpos, t.hpos = mat(batch, v), mat(batch, h)
	t.vneg, t.hneg, t.hstate = mat(chains, v), mat(chains, h), mat(chains, h)
	t.grad = mat(v, h)
	return t
}

func mat(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// hidden sets hp = sigmoid(v W + c).
func (t *trainer) hidden(v, hp blas64.General) {
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, v, t.W, 0, hp)
	for k := 0; k < hp.Rows; k++ {
		row := hp.Data[k*hp.Stride : k*hp.Stride+t.h]
		for j := range row {
			row[j] = sigmoid(row[j] + t.c[j])
		}
	}
}

// update does one PCD step on the mini-batch in t.vpos.
func (t *trainer) update(r *rand.PCG, lr, mom, wd float64) {
	t.hidden(t.vpos, t.hpos)
	// Chains: v ~ p(v | hstate), then hneg = p(h | v), hstate ~ hneg.
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, t.hstate, t.W, 0, t.vneg)
	for k := 0; k < t.vneg.Rows; k++ {
		row := t.vneg.Data[k*t.v : (k+1)*t.v]
		for i := range row {
			row[i] = sigmoid(row[i] + t.b[i])
		}
	}
	sample(r, t.vneg.Data, t.vneg.Data)
	t.hidden(t.vneg, t.hneg)

	nb, nc := float64(t.vpos.Rows), float64(t.vneg.Rows)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1/nb, t.vpos, t.hpos, 0, t.grad)
	blas64.Gemm(blas.Trans, blas.NoTrans, -1/nc, t.vneg, t.hneg, 1, t.grad)
	for i, g := range t.grad.Data {
		t.dw[i] = mom*t.dw[i] + lr*(g-wd*t.w[i])
		t.w[i] += t.dw[i]
	}
	for i := range t.b {
		g := colMean(t.vpos, i) - colMean(t.vneg, i)
		t.db[i] = mom*t.db[i] + lr*g
		t.b[i] += t.db[i]
	}
	for j := range t.c {
		g := colMean(t.hpos, j) - colMean(t.hneg, j)
		t.dc[j] = mom*t.dc[j] + lr*g
		t.c[j] += t.dc[j]
	}
	sample(r, t.hstate.Data, t.hneg.Data)
}

func colMean(m blas64.General, j int) float64 {
	s := 0.0
	for k := 0; k < m.Rows; k++ {
		s += m.Data[k*m.Stride+j]
	}
	return s / float64(m.Rows)
}

// pll is the mean of V * log sigmoid(F(v~) - F(v)) over the rows v of set
// and their flipped pixels (flip[k*K:(k+1)*K] for row k), v~ being v with
// one pixel flipped. F(v~) reuses x = v W + c: flipping pixel i by d = 1-2v_i
// adds d W_i to x and -d b_i to -b.v.
func (t *trainer) pll(set []float64, flip []int) float64 {
	n := len(set) / t.v
	if n == 0 || len(flip) == 0 {
		return 0
	}
	K := len(flip) / n
	x := mat(n, t.h)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: t.v, Stride: t.v, Data: set}, t.W, 0, x)
	sp := make([]float64, t.h)
	s := 0.0
	for k := 0; k < n; k++ {
		xk := x.Data[k*t.h : (k+1)*t.h]
		for j := range xk {
			xk[j] += t.c[j]
			sp[j] = softplus(xk[j])
		}
		for _, i := range flip[k*K : (k+1)*K] {
			d := 1 - 2*set[k*t.v+i]
			diff := -d * t.b[i] // F(v~) - F(v)
			row := t.w[i*t.h : (i+1)*t.h]
			for j, xj := range xk {
				diff -= softplus(xj+d*row[j]) - sp[j]
			}
			s += -softplus(-diff) // log sigmoid(diff)
		}
	}
	return float64(t.v) * s / float64(len(flip))
}

func (t *trainer) check() error {
	for _, a := range [][]float64{t.w, t.b, t.c} {
		for _, x := range a {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("parameters diverged (try a smaller learning rate)")
			}
		}
	}
	return nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sample sets dst[i] = 1 with probability p[i], else 0 (dst may alias p).
func sample(r *rand.PCG, dst, p []float64) {
	for i, pi := range p {
		if rng.Float64(r) < pi {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
}

func toFloat(dst []float64, bits []uint8) {
	for i, b := range bits {
		dst[i] = float64(b)
	}
}

// boxMuller returns two independent N(0,1) draws.
func boxMuller(r *rand.PCG) (float64, float64) {
	u1 := 1 - rng.Float64(r) // in (0, 1]
	u2 := rng.Float64(r)
	rad := math.Sqrt(-2 * math.Log(u1))
	return rad * math.Cos(2*math.Pi*u2), rad * math.Sin(2*math.Pi*u2)
}
