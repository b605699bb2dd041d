package bo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Hyper holds GP hyperparameters on the log scale: ARD length scales (one per
// input dimension, inputs in [0,1]^D), signal variance sf2 and noise variance
// sn2, both in standardized y units.
type Hyper struct {
	LogLen []float64 `json:"log_len"`
	LogSf2 float64   `json:"log_sf2"`
	LogSn2 float64   `json:"log_sn2"`
}

// Bounds of the hyperparameter search (natural log). Length scales below 0.01
// of the unit cube interpolate noise; above 10 the dimension is irrelevant
// anyway. sn2 >= 1e-6 keeps the Cholesky factor well conditioned.
var (
	logLenLo, logLenHi = math.Log(0.01), math.Log(10)
	logSf2Lo, logSf2Hi = math.Log(0.01), math.Log(100)
	logSn2Lo, logSn2Hi = math.Log(1e-6), math.Log(2)
)

// DefaultHyper is the first start of every hyperparameter fit: length 0.3 of
// the cube, unit signal variance and 10% noise variance (standardized units).
func DefaultHyper(dim int) Hyper {
	h := Hyper{LogLen: make([]float64, dim), LogSf2: 0, LogSn2: math.Log(0.1)}
	for i := range h.LogLen {
		h.LogLen[i] = math.Log(0.3)
	}
	return h
}

func (h Hyper) vec() []float64 {
	v := append([]float64(nil), h.LogLen...)
	return append(v, h.LogSf2, h.LogSn2)
}

func hyperFromVec(v []float64) Hyper {
	d := len(v) - 2
	return Hyper{LogLen: append([]float64(nil), v[:d]...), LogSf2: v[d], LogSn2: v[d+1]}
}

func (h Hyper) clone() Hyper { return hyperFromVec(h.vec()) }

// GPOptions configures hyperparameter fitting. The zero value fits by
// maximum marginal likelihood with the defaults below.
type GPOptions struct {
	// Fixed, if non-nil, disables fitting: Fit uses these hyperparameters.
	Fixed *Hyper
	// Restarts is the number of L-BFGS starts (gonum optimize): DefaultHyper,
	// the previous fit (if any), then uniform random points in the bounds.
	// Default 3.
	Restarts int
	// MaxIter bounds the L-BFGS major iterations per start; function
	// evaluations are bounded by 3*MaxIter. Default 60.
	MaxIter int
	// GradTol stops a start once the infinity norm of the gradient of the
	// negative log likelihood (in the squashed coordinates) falls below it;
	// a start also stops when two iterations in a row improve the log
	// likelihood by less than 1e-3 (a difference no prediction notices).
	// Default 1e-3.
	GradTol float64
}

// GP is Gaussian-process regression with zero mean on standardized
// observations and an ARD squared-exponential kernel
//
//	k(x,x') = sf2 exp(-0.5 sum_d ((x_d-x'_d)/l_d)^2) + sn2 [x == x'],
//
// following Rasmussen and Williams (2006), Algorithm 2.1 and eq. 5.9.
type GP struct {
	dim  int
	opts GPOptions
	rng  *rand.PCG

	x     [][]float64
	y     []float64 // raw
	ys    []float64 // standardized
	ymean float64
	ystd  float64

	hyp    Hyper
	hasHyp bool
	// Conditioned state for Predict.
	ready bool
	inv   []float64 // 1/l_d
	sf2   float64
	xs    []float64 // n*dim inputs scaled by 1/l
	l     []float64 // n*n lower Cholesky factor of K + sn2 I, row-major
	alpha []float64 // (K + sn2 I)^-1 ys
	kbuf  []float64
}

// NewGP returns an unfitted GP on [0,1]^dim. r drives the random restarts
// of the hyperparameter search; it may be nil when opts.Fixed is set.
func NewGP(dim int, opts GPOptions, r *rand.PCG) *GP {
	if opts.Restarts <= 0 {
		opts.Restarts = 3
	}
	if opts.MaxIter <= 0 {
		opts.MaxIter = 60
	}
	if opts.GradTol <= 0 {
		opts.GradTol = 1e-3
	}
	return &GP{dim: dim, opts: opts, rng: r}
}

// Hyper returns the current hyperparameters (a copy).
func (g *GP) Hyper() Hyper { return g.hyp.clone() }

// Len is the number of observations the GP is conditioned on.
func (g *GP) Len() int { return len(g.y) }

func (g *GP) setData(X [][]float64, y []float64) error {
	if len(X) != len(y) || len(y) == 0 {
		return fmt.Errorf("bo: GP needs matching nonempty X and y, got %d and %d", len(X), len(y))
	}
	for i, x := range X {
		if len(x) != g.dim {
			return fmt.Errorf("bo: GP input %d has dimension %d, want %d", i, len(x), g.dim)
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("bo: GP observation %d is %v", i, y[i])
		}
	}
	g.x, g.y = X, y
	n := float64(len(y))
	var m, v float64
	for _, yi := range y {
		m += yi
	}
	m /= n
	for _, yi := range y {
		v += (yi - m) * (yi - m)
	}
	s := math.Sqrt(v / n)
	if !(s > 1e-12*math.Max(1, math.Abs(m))) {
		s = 1 // constant data: nothing to scale
	}
	g.ymean, g.ystd = m, s
	g.ys = make([]float64, len(y))
	for i, yi := range y {
		g.ys[i] = (yi - m) / s
	}
	g.ready = false
	return nil
}

// Fit conditions the GP on (X, y), X in [0,1]^dim, choosing hyperparameters
// by maximizing the log marginal likelihood unless they are fixed.
func (g *GP) Fit(X [][]float64, y []float64) error {
	if err := g.setData(X, y); err != nil {
		return err
	}
	if g.opts.Fixed != nil {
		return g.condition(*g.opts.Fixed)
	}
	h, err := g.fitHyper()
	if err != nil {
		return err
	}
	return g.condition(h)
}

// Condition sets the data and the hyperparameters without fitting them.
func (g *GP) Condition(X [][]float64, y []float64, h Hyper) error {
	if err := g.setData(X, y); err != nil {
		return err
	}
	return g.condition(h)
}

func (g *GP) condition(h Hyper) error {
	if len(h.LogLen) != g.dim {
		return fmt.Errorf("bo: hyperparameters have %d length scales, want %d", len(h.LogLen), g.dim)
	}
	n, d := len(g.y), g.dim
	g.inv = make([]float64, d)
	for i, ll := range h.LogLen {
		g.inv[i] = math.Exp(-ll)
	}
	g.sf2 = math.Exp(h.LogSf2)
	g.xs = make([]float64, n*d)
	for i, x := range g.x {
		for k := range d {
			g.xs[i*d+k] = x[k] * g.inv[k]
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(g.gram(h)) {
		return errors.New("bo: GP covariance not positive definite")
	}
	var lt mat.TriDense
	chol.LTo(&lt)
	g.l = make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			g.l[i*n+j] = lt.At(i, j)
		}
	}
	alpha := mat.NewVecDense(n, nil)
	if err := chol.SolveVecTo(alpha, mat.NewVecDense(n, g.ys)); err != nil {
		return fmt.Errorf("bo: GP solve: %w", err)
	}
	g.alpha = alpha.RawVector().Data
	g.kbuf = make([]float64, n)
	g.hyp, g.hasHyp, g.ready = h.clone(), true, true
	return nil
}

// jitter is added to the diagonal of K + sn2 I so that fixed
// hyperparameters with sn2 = 0 still factorize on distinct inputs.
const jitter = 1e-10

// gram builds K + (sn2 + jitter) I for hyperparameters h.
func (g *GP) gram(h Hyper) *mat.SymDense {
	n := len(g.y)
	sf2, sn2 := math.Exp(h.LogSf2), math.Exp(h.LogSn2)
	inv := make([]float64, g.dim)
	for k, ll := range h.LogLen {
		inv[k] = math.Exp(-ll)
	}
	K := mat.NewSymDense(n, nil)
	for i := range n {
		K.SetSym(i, i, sf2+sn2+jitter)
		for j := range i {
			var r2 float64
			for k := range g.dim {
				t := (g.x[i][k] - g.x[j][k]) * inv[k]
				r2 += t * t
			}
			K.SetSym(i, j, sf2*math.Exp(-0.5*r2))
		}
	}
	return K
}

// Predict returns the posterior mean and variance of the latent function at
// x, in the original units of y (noise excluded).
func (g *GP) Predict(x []float64) (mu, sigma2 float64) {
	m, v := g.PredictStd(x)
	return g.ymean + g.ystd*m, v * g.ystd * g.ystd
}

// PredictStd is Predict in standardized units ((y - mean)/std).
func (g *GP) PredictStd(x []float64) (mu, sigma2 float64) {
	if !g.ready {
		panic("bo: Predict on an unfitted GP")
	}
	n := len(g.y)
	k := g.kbuf
	mu = g.kernelMean(x, k)
	// v = L^-1 k in place; sigma2 = sf2 - |v|^2.
	sigma2 = g.sf2
	for i := range n {
		s := (k[i] - floats.Dot(g.l[i*n:i*n+i], k[:i])) / g.l[i*n+i]
		k[i] = s
		sigma2 -= s * s
	}
	return mu, math.Max(sigma2, 0)
}

// MeanStd is the standardized posterior mean only: O(n dim), no solve.
func (g *GP) MeanStd(x []float64) float64 {
	if !g.ready {
		panic("bo: MeanStd on an unfitted GP")
	}
	return g.kernelMean(x, g.kbuf)
}

// kernelMean fills k with the kernel between x and every training input
// and returns the standardized posterior mean k . alpha.
func (g *GP) kernelMean(x, k []float64) (mu float64) {
	d := g.dim
	for i := range g.y {
		var r2 float64
		row := g.xs[i*d : i*d+d]
		for j, xj := range x {
			t := xj*g.inv[j] - row[j]
			r2 += t * t
		}
		k[i] = g.sf2 * math.Exp(-0.5*r2)
		mu += k[i] * g.alpha[i]
	}
	return mu
}

// LogLikelihood is the log marginal likelihood of the standardized data
// under h (R&W eq. 2.30). It needs data set by Fit or Condition.
func (g *GP) LogLikelihood(h Hyper) (float64, error) {
	return g.logLik(h, nil)
}

// LogLikelihoodGrad returns the log marginal likelihood and stores its
// gradient with respect to (LogLen..., LogSf2, LogSn2) in grad, which must
// have length dim+2 (R&W eq. 5.9).
func (g *GP) LogLikelihoodGrad(h Hyper, grad []float64) (float64, error) {
	if len(grad) != g.dim+2 {
		panic("bo: gradient length mismatch")
	}
	return g.logLik(h, grad)
}

func (g *GP) logLik(h Hyper, grad []float64) (float64, error) {
	f, err := g.factor(h)
	if err != nil {
		return math.Inf(-1), err
	}
	if grad != nil {
		if err := g.gradient(f, grad); err != nil {
			return f.ll, err
		}
	}
	return f.ll, nil
}

// llFactor is the factorization behind one log-likelihood evaluation,
// kept so that the gradient at the same hyperparameters reuses it.
type llFactor struct {
	h     Hyper
	k     *mat.SymDense
	chol  mat.Cholesky
	alpha []float64
	ll    float64
}

// factor builds and factorizes K + sn2 I under h and evaluates the log
// marginal likelihood of the standardized data (R&W eq. 2.30).
func (g *GP) factor(h Hyper) (*llFactor, error) {
	n := len(g.y)
	if n == 0 {
		return nil, errors.New("bo: log likelihood without data")
	}
	f := &llFactor{h: h, k: g.gram(h)}
	if !f.chol.Factorize(f.k) {
		return nil, errors.New("bo: GP covariance not positive definite")
	}
	alphaV := mat.NewVecDense(n, nil)
	if err := f.chol.SolveVecTo(alphaV, mat.NewVecDense(n, g.ys)); err != nil {
		return nil, err
	}
	f.alpha = alphaV.RawVector().Data
	var fit float64
	for i, a := range f.alpha {
		fit += a * g.ys[i]
	}
	f.ll = -0.5*fit - 0.5*f.chol.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
	return f, nil
}

// gradient stores the gradient of the log marginal likelihood at f.h with
// respect to (LogLen..., LogSf2, LogSn2) in grad (R&W eq. 5.9):
// dL/dtheta_j = 0.5 tr((alpha alpha^T - K^-1) dK/dtheta_j).
func (g *GP) gradient(f *llFactor, grad []float64) error {
	var kinv mat.SymDense
	if err := f.chol.InverseTo(&kinv); err != nil {
		return err
	}
	for j := range grad {
		grad[j] = 0
	}
	n, d := len(g.y), g.dim
	h, alpha := f.h, f.alpha
	sf2, sn2 := math.Exp(h.LogSf2), math.Exp(h.LogSn2)
	inv2 := make([]float64, d)
	for k, l := range h.LogLen {
		inv2[k] = math.Exp(-2 * l)
	}
	ki, kk := kinv.RawSymmetric(), f.k.RawSymmetric() // upper triangles
	gl := grad[:d]
	for i := range n {
		wii := alpha[i]*alpha[i] - ki.Data[i*ki.Stride+i]
		grad[d] += 0.5 * wii * sf2
		grad[d+1] += 0.5 * wii * sn2
		xi := g.x[i]
		for j := i + 1; j < n; j++ {
			w := alpha[i]*alpha[j] - ki.Data[i*ki.Stride+j] // off-diagonal counted twice
			wk := w * kk.Data[i*kk.Stride+j]
			grad[d] += wk
			xj := g.x[j]
			for k, ik := range inv2 {
				t := xi[k] - xj[k]
				gl[k] += wk * t * t * ik
			}
		}
	}
	return nil
}

// hyperBox maps an unconstrained vector v to log hyperparameters inside the
// bounds by a logistic squashing, so L-BFGS never leaves the sensible range.
type hyperBox struct{ lo, hi []float64 }

func newHyperBox(dim int) hyperBox {
	b := hyperBox{lo: make([]float64, dim+2), hi: make([]float64, dim+2)}
	for i := range dim {
		b.lo[i], b.hi[i] = logLenLo, logLenHi
	}
	b.lo[dim], b.hi[dim] = logSf2Lo, logSf2Hi
	b.lo[dim+1], b.hi[dim+1] = logSn2Lo, logSn2Hi
	return b
}

// toTheta writes theta = lo + (hi-lo) s(v) and dtheta/dv.
func (b hyperBox) toTheta(v, theta, jac []float64) {
	for i, vi := range v {
		s := 1 / (1 + math.Exp(-vi))
		theta[i] = b.lo[i] + (b.hi[i]-b.lo[i])*s
		if jac != nil {
			jac[i] = (b.hi[i] - b.lo[i]) * s * (1 - s)
		}
	}
}

// toV inverts toTheta, clamping theta strictly inside the box.
func (b hyperBox) toV(theta []float64) []float64 {
	v := make([]float64, len(theta))
	for i, t := range theta {
		s := (t - b.lo[i]) / (b.hi[i] - b.lo[i])
		s = math.Min(math.Max(s, 1e-6), 1-1e-6)
		v[i] = math.Log(s / (1 - s))
	}
	return v
}

// fitHyper maximizes the log marginal likelihood by gonum's L-BFGS in the
// squashed coordinates v of hyperBox, from each start in turn, and returns
// the best optimum.
func (g *GP) fitHyper() (Hyper, error) {
	box := newHyperBox(g.dim)
	np := g.dim + 2
	starts := [][]float64{DefaultHyper(g.dim).vec()}
	if g.hasHyp {
		starts = append(starts, g.hyp.vec())
	}
	for len(starts) < g.opts.Restarts {
		if g.rng == nil {
			break
		}
		t := make([]float64, np)
		for i := range t {
			t[i] = box.lo[i] + (box.hi[i]-box.lo[i])*uniform(g.rng)
		}
		starts = append(starts, t)
	}
	theta := make([]float64, np)
	jac := make([]float64, np)
	gt := make([]float64, np)
	// Func factorizes; Grad, called next at the same point when the line
	// search accepts its value, reuses that factorization.
	var last struct {
		v []float64
		f *llFactor
	}
	eval := func(v []float64) *llFactor {
		if last.f != nil && slices.Equal(v, last.v) {
			return last.f
		}
		box.toTheta(v, theta, jac)
		f, err := g.factor(hyperFromVec(theta))
		if err != nil {
			f = nil
		}
		last.v, last.f = append(last.v[:0], v...), f
		return f
	}
	prob := optimize.Problem{
		Func: func(v []float64) float64 {
			f := eval(v)
			if f == nil {
				return math.Inf(1)
			}
			return -f.ll
		},
		Grad: func(grad, v []float64) {
			f := eval(v)
			if f == nil || g.gradient(f, gt) != nil {
				for i := range grad {
					grad[i] = 0
				}
				return
			}
			box.toTheta(v, theta, jac)
			for i := range grad {
				grad[i] = -gt[i] * jac[i]
			}
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: g.opts.GradTol,
		MajorIterations:   g.opts.MaxIter,
		FuncEvaluations:   3 * g.opts.MaxIter,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-3, Relative: 1e-6, Iterations: 2},
	}
	best, bestF := []float64(nil), math.Inf(1)
	for _, s := range starts {
		v0 := box.toV(s)
		if math.IsInf(prob.Func(v0), 1) {
			continue
		}
		// Iteration and evaluation limits end with an error and a usable
		// location, as does a line search that cannot improve further.
		res, _ := optimize.Minimize(prob, v0, settings, &optimize.LBFGS{})
		if res != nil && res.F < bestF {
			best, bestF = slices.Clone(res.X), res.F
		}
	}
	if best == nil {
		return Hyper{}, errors.New("bo: hyperparameter fit failed at every start")
	}
	out := make([]float64, np)
	box.toTheta(best, out, nil)
	return hyperFromVec(out), nil
}

// uniform draws from [0,1) with 53 random bits.
func uniform(r *rand.PCG) float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}
