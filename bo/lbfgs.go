package bo

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// lbfgsSettings bounds a run of lbfgs.
type lbfgsSettings struct {
	maxIter int     // major iterations
	maxEval int     // function evaluations
	gradTol float64 // stop once the infinity norm of the gradient is below
	fTol    float64 // stop once two iterations in a row improve f by less
}

// lbfgs minimizes f from x0 by gonum's L-BFGS (memory 6) with the
// More-Thuente line search, and returns the best point seen and its value.
// f writes the gradient into its second argument and returns +Inf where it
// is not defined; a run that steps there ends at its best point (the line
// search interpolates and cannot use an infinite value).
//
// It drives optimize.LinesearchMethod on the caller's goroutine:
// optimize.Minimize runs the method and the evaluations on other
// goroutines, whose CPU time a caller measuring its own thread (the tuner)
// would not see.
func lbfgs(f func(x, grad []float64) float64, x0 []float64, st lbfgsSettings) ([]float64, float64) {
	loc := &optimize.Location{X: slices.Clone(x0), Gradient: make([]float64, len(x0))}
	loc.F = f(loc.X, loc.Gradient)
	if !(loc.F < math.Inf(1)) {
		return nil, math.Inf(1)
	}
	best, bestF := slices.Clone(x0), loc.F
	if floats.Norm(loc.Gradient, math.Inf(1)) < st.gradTol {
		return best, bestF
	}
	m := &optimize.LinesearchMethod{NextDirectioner: &optimize.LBFGS{Store: 6}, Linesearcher: &optimize.MoreThuente{}}
	op, err := m.Init(loc)
	for iter, evals, small := 0, 1, 0; err == nil; op, err = m.Iterate(loc) {
		if op != optimize.MajorIteration {
			if evals >= st.maxEval {
				break
			}
			evals++
			if loc.F = f(loc.X, loc.Gradient); !(loc.F < math.Inf(1)) {
				break
			}
			continue
		}
		if bestF-loc.F < st.fTol {
			small++
		} else {
			small = 0
		}
		copy(best, loc.X)
		bestF = loc.F // the line search accepts no increase
		iter++
		if small >= 2 || iter >= st.maxIter || floats.Norm(loc.Gradient, math.Inf(1)) < st.gradTol {
			break
		}
	}
	return best, bestF
}
