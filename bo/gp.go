package bo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
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
	// Restarts is the number of L-BFGS starts of a cold fit: DefaultHyper,
	// then uniform random points in the bounds. Default 3. A GP that
	// already has hyperparameters (a warm start, see Optimizer) starts from
	// them alone: the data changed little since they were fitted.
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
	// Mean, if non-nil, is the prior mean function in the units of y: the
	// GP models y - Mean(x), scaled by its root mean square, instead of y
	// minus the data mean scaled by the standard deviation (Rasmussen and
	// Williams 2006, section 2.7: a fixed mean function). Far from the data
	// predictions return to Mean.
	Mean func(x []float64) float64
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
	ys    []float64 // standardized: (y - center) / ystd
	ymean float64   // center without a prior mean function
	ystd  float64
	prior []float64 // Mean(x_i), with a prior mean function

	hyp    Hyper
	hasHyp bool
	// Conditioned state for Predict.
	ready bool
	inv   []float64 // 1/l_d
	sf2   float64
	sn2   float64
	xs    []float64 // n*dim inputs scaled by 1/l
	l     []float64 // lower Cholesky factor of K + sn2 I, packed by rows: row i at i(i+1)/2
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
	g.prior = g.prior[:0]
	if g.opts.Mean != nil {
		for _, x := range X {
			g.prior = append(g.prior, g.opts.Mean(x))
		}
	}
	g.standardize()
	g.ready = false
	return nil
}

// standardize sets ymean, ystd and ys from y (and prior): without a prior
// mean function the data mean and standard deviation, with one the
// residuals y - Mean(x) and their root mean square.
func (g *GP) standardize() {
	n := float64(len(g.y))
	g.ymean = 0
	if g.opts.Mean == nil {
		for _, yi := range g.y {
			g.ymean += yi
		}
		g.ymean /= n
	}
	v, scale := 0.0, math.Abs(g.ymean)
	for i, yi := range g.y {
		r := yi - g.center(i)
		v += r * r
	}
	for _, p := range g.prior {
		scale = math.Max(scale, math.Abs(p))
	}
	g.ystd = math.Sqrt(v / n)
	if !(g.ystd > 1e-12*math.Max(1, scale)) {
		g.ystd = 1 // constant data: nothing to scale
	}
	g.ys = g.ys[:0]
	for i, yi := range g.y {
		g.ys = append(g.ys, (yi-g.center(i))/g.ystd)
	}
}

// center is the prior mean at observation i (ymean without a mean function).
func (g *GP) center(i int) float64 {
	if g.opts.Mean != nil {
		return g.prior[i]
	}
	return g.ymean
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
	d := g.dim
	g.inv = make([]float64, d)
	for i, ll := range h.LogLen {
		g.inv[i] = math.Exp(-ll)
	}
	g.sf2, g.sn2 = math.Exp(h.LogSf2), math.Exp(h.LogSn2)
	g.xs, g.l = g.xs[:0], g.l[:0]
	g.ready = false
	for i := range g.x {
		if err := g.extend(i); err != nil {
			return err
		}
	}
	g.solveAlpha()
	g.hyp, g.hasHyp, g.ready = h.clone(), true, true
	return nil
}

// extend adds row i of the Cholesky factor L of K + (sn2 + jitter) I, rows
// 0..i-1 being in place: the rank-one extension
//
//	L_i,0..i-1 = L^-1 k_i,  L_ii = sqrt(k_ii - |L_i,0..i-1|^2),
//
// O(i^2), where k_i holds the kernel between x_i and x_0..x_(i-1) (the
// bordering method of the Cholesky factorization, Golub and Van Loan 2013,
// section 4.2.6). Factoring from scratch is this for every row.
func (g *GP) extend(i int) error {
	d := g.dim
	for k, v := range g.x[i] {
		g.xs = append(g.xs, v*g.inv[k])
	}
	row := g.xs[i*d : i*d+d]
	base := len(g.l)
	for j := range i {
		other := g.xs[j*d : j*d+d]
		var r2 float64
		for k, v := range row {
			t := v - other[k]
			r2 += t * t
		}
		kij := g.sf2 * math.Exp(-0.5*r2)
		lj := g.l[j*(j+1)/2:]
		s := (kij - floats.Dot(lj[:j], g.l[base:base+j])) / lj[j]
		g.l = append(g.l, s)
	}
	lrow := g.l[base : base+i]
	d2 := g.sf2 + g.sn2 + jitter - floats.Dot(lrow, lrow)
	if !(d2 > 0) {
		g.xs, g.l = g.xs[:i*d], g.l[:base]
		return errors.New("bo: GP covariance not positive definite")
	}
	g.l = append(g.l, math.Sqrt(d2))
	return nil
}

// solveAlpha sets alpha = (L L^T)^-1 ys by forward and back substitution.
func (g *GP) solveAlpha() {
	n := len(g.y)
	g.alpha = append(g.alpha[:0], g.ys...)
	a := g.alpha
	for i := range n {
		li := g.l[i*(i+1)/2:]
		a[i] = (a[i] - floats.Dot(li[:i], a[:i])) / li[i]
	}
	for i := n - 1; i >= 0; i-- {
		a[i] /= g.l[i*(i+1)/2+i]
		v := a[i]
		// Subtract column i of L^T from the rows above: a_j -= L_ij a_i.
		li := g.l[i*(i+1)/2:]
		for j := range i {
			a[j] -= li[j] * v
		}
	}
	if cap(g.kbuf) < n {
		g.kbuf = make([]float64, n, 2*n)
	}
	g.kbuf = g.kbuf[:n]
}

// Append adds the observation (x, y) to a conditioned GP, keeping its
// hyperparameters: the Cholesky factor grows by one row (O(n^2), see
// extend) instead of being refactored (O(n^3)); the standardization and
// alpha are recomputed (O(n^2)). The result equals Condition on the
// enlarged data with the same hyperparameters, up to rounding. x is copied.
func (g *GP) Append(x []float64, y float64) error {
	if err := g.grow(x, y); err != nil {
		return err
	}
	g.standardize()
	g.solveAlpha()
	return nil
}

// grow is Append without the O(n^2) update of the standardization and
// alpha, for a caller that adds several observations or new values before
// predicting: SetY must follow before the GP predicts.
func (g *GP) grow(x []float64, y float64) error {
	if !g.ready {
		return errors.New("bo: Append to an unconditioned GP")
	}
	if len(x) != g.dim {
		return fmt.Errorf("bo: GP input has dimension %d, want %d", len(x), g.dim)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return fmt.Errorf("bo: GP observation is %v", y)
	}
	n := len(g.y)
	// Own the slices before growing them: the caller's X and y may be shared.
	g.x = append(slices.Clip(g.x), slices.Clone(x))
	g.y = append(slices.Clip(g.y), y)
	if g.opts.Mean != nil {
		g.prior = append(g.prior, g.opts.Mean(x))
	}
	if err := g.extend(n); err != nil {
		g.x, g.y = g.x[:n], g.y[:n]
		if g.opts.Mean != nil {
			g.prior = g.prior[:n]
		}
		return err
	}
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
	return g.Unstandardize(x, m), v * g.ystd * g.ystd
}

// SetY replaces the observations' values, keeping their inputs and the
// hyperparameters: the prior mean is re-evaluated (its function may have
// changed), and the standardization and alpha are recomputed, O(n^2); the
// Cholesky factor does not depend on y. y is copied.
func (g *GP) SetY(y []float64) error {
	if !g.ready {
		return errors.New("bo: SetY on an unconditioned GP")
	}
	if len(y) != len(g.y) {
		return fmt.Errorf("bo: SetY with %d values for %d observations", len(y), len(g.y))
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("bo: GP observation %d is %v", i, v)
		}
	}
	g.y = slices.Clone(y)
	if g.opts.Mean != nil {
		for i, x := range g.x {
			g.prior[i] = g.opts.Mean(x)
		}
	}
	g.standardize()
	g.solveAlpha()
	return nil
}

// Unstandardize converts a standardized value at x back to the units of y.
func (g *GP) Unstandardize(x []float64, v float64) float64 {
	c := g.ymean
	if g.opts.Mean != nil {
		c = g.opts.Mean(x)
	}
	return c + g.ystd*v
}

// Scale is the standard deviation that standardizes y (the root mean
// square of y - Mean with a prior mean function).
func (g *GP) Scale() float64 { return g.ystd }

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
		li := g.l[i*(i+1)/2:]
		s := (k[i] - floats.Dot(li[:i], k[:i])) / li[i]
		k[i] = s
		sigma2 -= s * s
	}
	return mu, math.Max(sigma2, 0)
}

// MeanStd is the standardized posterior mean only: O(n dim), no solve.
// With a prior mean function it is the standardized residual from it.
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
	chol  blas64.Triangular // upper Cholesky factor of k (LAPACK dpotrf)
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
	// LAPACK directly: mat.Cholesky.Factorize also estimates the condition
	// number, which costs as much again and is not needed here.
	raw := f.k.RawSymmetric()
	a := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
	for i := range n {
		copy(a.Data[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	t, ok := lapack64.Potrf(a)
	if !ok {
		return nil, errors.New("bo: GP covariance not positive definite")
	}
	f.chol = t
	f.alpha = slices.Clone(g.ys)
	lapack64.Potrs(t, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: f.alpha})
	var fit, logDet float64
	for i, a := range f.alpha {
		fit += a * g.ys[i]
		logDet += 2 * math.Log(t.Data[i*t.Stride+i])
	}
	f.ll = -0.5*fit - 0.5*logDet - 0.5*float64(n)*math.Log(2*math.Pi)
	return f, nil
}

// gradient stores the gradient of the log marginal likelihood at f.h with
// respect to (LogLen..., LogSf2, LogSn2) in grad (R&W eq. 5.9):
// dL/dtheta_j = 0.5 tr((alpha alpha^T - K^-1) dK/dtheta_j).
func (g *GP) gradient(f *llFactor, grad []float64) error {
	c := f.chol
	c.Data = slices.Clone(c.Data)
	ki, ok := lapack64.Potri(c) // upper triangle of K^-1
	if !ok {
		return errors.New("bo: GP covariance not invertible")
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
	kk := f.k.RawSymmetric() // upper triangles
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

// fitHyper maximizes the log marginal likelihood by L-BFGS (lbfgs, on the
// calling goroutine, so its CPU time is the caller's) in the squashed
// coordinates v of hyperBox, and returns the best optimum. A GP with
// hyperparameters already (a warm start) starts from them alone; a cold one
// from DefaultHyper and Restarts-1 uniform random points in the bounds.
func (g *GP) fitHyper() (Hyper, error) {
	box := newHyperBox(g.dim)
	np := g.dim + 2
	var starts [][]float64
	if g.hasHyp {
		starts = append(starts, g.hyp.vec())
	} else {
		starts = append(starts, DefaultHyper(g.dim).vec())
		for len(starts) < g.opts.Restarts && g.rng != nil {
			t := make([]float64, np)
			for i := range t {
				t[i] = box.lo[i] + (box.hi[i]-box.lo[i])*uniform(g.rng)
			}
			starts = append(starts, t)
		}
	}
	theta := make([]float64, np)
	jac := make([]float64, np)
	gt := make([]float64, np)
	negLL := func(v, grad []float64) float64 {
		box.toTheta(v, theta, jac)
		f, err := g.factor(hyperFromVec(theta))
		if err != nil || g.gradient(f, gt) != nil {
			return math.Inf(1)
		}
		for i := range grad {
			grad[i] = -gt[i] * jac[i]
		}
		return -f.ll
	}
	best, bestF := []float64(nil), math.Inf(1)
	for _, s := range starts {
		x, f := lbfgs(negLL, box.toV(s), lbfgsSettings{
			maxIter: g.opts.MaxIter, maxEval: 3 * g.opts.MaxIter, gradTol: g.opts.GradTol, fTol: 1e-3,
		})
		if f < bestF {
			best, bestF = x, f
		}
	}
	if best == nil {
		return Hyper{}, errors.New("bo: hyperparameter fit failed at every start")
	}
	out := make([]float64, np)
	box.toTheta(best, out, nil)
	return hyperFromVec(out), nil
}

// NeedsRefit reports whether refitting the hyperparameters of a
// conditioned GP to its data could change the fit: whether the log
// marginal likelihood's gradient with respect to the log hyperparameters
// (R&W eq. 5.9) exceeds tol in some component not pinned at a bound of the
// search. A gradient of g means that moving that log hyperparameter by 0.1
// gains about 0.1 g nats; below about one nat the refit would move the fit
// less than the data's own noise does. It reuses the GP's Cholesky factor
// and costs one inverse, about one evaluation of the fit's dozens.
func (g *GP) NeedsRefit(tol float64) bool {
	if !g.ready {
		return true
	}
	grad := make([]float64, g.dim+2)
	if g.gradient(g.conditioned(), grad) != nil {
		return true
	}
	box := newHyperBox(g.dim)
	for i, v := range g.hyp.vec() {
		w := 1e-3 * (box.hi[i] - box.lo[i])
		if (v <= box.lo[i]+w && grad[i] < 0) || (v >= box.hi[i]-w && grad[i] > 0) {
			continue // pinned at a bound: the fit cannot move that way
		}
		if math.Abs(grad[i]) > tol {
			return true
		}
	}
	return false
}

// conditioned is the GP's own factorization as an llFactor (its log
// likelihood left out), for gradient: K is not factored again.
func (g *GP) conditioned() *llFactor {
	n := len(g.y)
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: make([]float64, n*n)}
	for i := range n {
		for j, v := range g.l[i*(i+1)/2 : i*(i+1)/2+i+1] {
			u.Data[j*n+i] = v // the upper factor is L^T
		}
	}
	return &llFactor{h: g.hyp, k: g.gram(g.hyp), chol: u, alpha: g.alpha}
}

// uniform draws from [0,1) with 53 random bits.
func uniform(r *rand.PCG) float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}
