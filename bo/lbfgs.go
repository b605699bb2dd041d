package bo

import "math"

// minimizeLBFGS minimizes f from x0 by limited-memory BFGS (Nocedal and
// Wright 2006, Algorithm 7.4 two-loop recursion, memory 7) with a
// backtracking Armijo line search. fg returns f(x) and writes its gradient.
// It returns the best point and value seen after at most maxIter
// iterations. A tiny in-package minimizer, because gonum/optimize imports
// stat/distmv, whose golang.org/x/tools dependency this module does not
// carry.
func minimizeLBFGS(fg func(x, grad []float64) float64, x0 []float64, maxIter int, gtol float64) ([]float64, float64) {
	const mem = 7
	n := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	f := fg(x, g)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return x, f
	}
	var ss, ys [][]float64
	var rhos []float64
	d := make([]float64, n)
	xn := make([]float64, n)
	gn := make([]float64, n)
	alpha := make([]float64, mem)
	for it := 0; it < maxIter; it++ {
		if normInf(g) < gtol {
			break
		}
		// d = -H g by the two-loop recursion.
		copy(d, g)
		for i := len(ss) - 1; i >= 0; i-- {
			alpha[i] = rhos[i] * dot(ss[i], d)
			axpy(-alpha[i], ys[i], d)
		}
		gamma := 1.0
		if k := len(ss) - 1; k >= 0 {
			gamma = dot(ss[k], ys[k]) / dot(ys[k], ys[k])
		} else {
			gamma = 1 / math.Max(1, normInf(g)) // first step: at most unit length
		}
		for i := range d {
			d[i] *= gamma
		}
		for i := range ss {
			b := rhos[i] * dot(ys[i], d)
			axpy(alpha[i]-b, ss[i], d)
		}
		for i := range d {
			d[i] = -d[i]
		}
		slope := dot(g, d)
		if !(slope < 0) { // not a descent direction: restart from steepest descent
			ss, ys, rhos = ss[:0], ys[:0], rhos[:0]
			for i := range d {
				d[i] = -g[i] / math.Max(1, normInf(g))
			}
			slope = dot(g, d)
		}
		step, fn := 1.0, 0.0
		ok := false
		for range 40 {
			for i := range xn {
				xn[i] = x[i] + step*d[i]
			}
			fn = fg(xn, gn)
			if fn <= f+1e-4*step*slope {
				ok = true
				break
			}
			step *= 0.5
		}
		if !ok {
			break
		}
		s := make([]float64, n)
		y := make([]float64, n)
		for i := range s {
			s[i] = xn[i] - x[i]
			y[i] = gn[i] - g[i]
		}
		converged := f-fn <= 1e-10*math.Max(1, math.Abs(f))
		copy(x, xn)
		copy(g, gn)
		f = fn
		if converged {
			break
		}
		if sy := dot(s, y); sy > 1e-12 {
			if len(ss) == mem {
				ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
			}
			ss, ys, rhos = append(ss, s), append(ys, y), append(rhos, 1/sy)
		}
	}
	return x, f
}

func dot(a, b []float64) float64 {
	var s float64
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

func normInf(a []float64) float64 {
	var m float64
	for _, v := range a {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
