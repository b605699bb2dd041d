package bo

import "math"

// lbfgsSettings bounds a run of lbfgs.
type lbfgsSettings struct {
	maxIter int     // major iterations
	maxEval int     // function evaluations
	gradTol float64 // stop once the infinity norm of the gradient is below
	fTol    float64 // stop once two iterations in a row improve f by less
}

// lbfgs minimizes f from x0 by limited-memory BFGS with the two-loop
// recursion and a backtracking (Armijo) line search (Nocedal and Wright,
// "Numerical Optimization", 2nd ed., 2006, Algorithms 7.4 and 7.5, and
// Algorithm 3.1), and returns the best point seen and its value. f writes
// the gradient into its second argument and returns +Inf where it is not
// defined; the search then backtracks. It runs on the caller's goroutine
// (gonum's optimize.Minimize runs the method on another one, whose CPU
// time a caller measuring its own thread would not see).
func lbfgs(f func(x, grad []float64) float64, x0 []float64, st lbfgsSettings) ([]float64, float64) {
	const mem, c1 = 6, 1e-4
	n := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	fx := f(x, g)
	evals := 1
	if math.IsInf(fx, 1) || math.IsNaN(fx) {
		return nil, math.Inf(1)
	}
	var sHist, yHist [][]float64
	var rho []float64
	d := make([]float64, n)
	alpha := make([]float64, mem)
	xn := make([]float64, n)
	gn := make([]float64, n)
	small := 0
	for iter := 0; iter < st.maxIter && evals < st.maxEval; iter++ {
		if normInf(g) < st.gradTol {
			break
		}
		// Two-loop recursion: d = -H g.
		for i := range d {
			d[i] = -g[i]
		}
		for k := len(sHist) - 1; k >= 0; k-- {
			alpha[k] = rho[k] * dot(sHist[k], d)
			axpy(-alpha[k], yHist[k], d)
		}
		if k := len(sHist) - 1; k >= 0 {
			scale(dot(sHist[k], yHist[k])/dot(yHist[k], yHist[k]), d)
		} else {
			scale(1/math.Max(1, normInf(g)), d) // first step: at most unit length
		}
		for k := range sHist {
			b := rho[k] * dot(yHist[k], d)
			axpy(alpha[k]-b, sHist[k], d)
		}
		slope := dot(g, d)
		if !(slope < 0) { // not a descent direction: restart from steepest descent
			sHist, yHist, rho = nil, nil, nil
			for i := range d {
				d[i] = -g[i] / math.Max(1, normInf(g))
			}
			slope = dot(g, d)
		}
		step, fn := 1.0, math.Inf(1)
		for evals < st.maxEval {
			for i := range xn {
				xn[i] = x[i] + step*d[i]
			}
			fn = f(xn, gn)
			evals++
			if fn <= fx+c1*step*slope {
				break
			}
			step *= 0.5
			if step < 1e-10 {
				break
			}
		}
		if !(fn <= fx+c1*step*slope) {
			break // no acceptable step: x is as good as the search gets
		}
		s, y := make([]float64, n), make([]float64, n)
		for i := range s {
			s[i], y[i] = xn[i]-x[i], gn[i]-g[i]
		}
		if sy := dot(s, y); sy > 1e-12 {
			if len(sHist) == mem {
				sHist, yHist, rho = sHist[1:], yHist[1:], rho[1:]
			}
			sHist, yHist, rho = append(sHist, s), append(yHist, y), append(rho, 1/sy)
		}
		if fx-fn < st.fTol {
			small++
		} else {
			small = 0
		}
		copy(x, xn)
		copy(g, gn)
		fx = fn
		if small >= 2 {
			break
		}
	}
	return x, fx
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

func scale(a float64, x []float64) {
	for i := range x {
		x[i] *= a
	}
}

func normInf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
