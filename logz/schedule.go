package logz

import (
	"math"
)

// The path's parameter lambda runs from 0 (the base, of known ln Z) to 1
// (the target); its density is p_lambda(x) proportional to
// exp(l(x, lambda)), and g(x, lambda) = dl/dlambda (for the temperature
// path l = -lambda beta E, g = -beta E).
//
// An annealing step from lambda to lambda + d adds about d g to the
// log-weight, whose variance is d^2 sd_lambda(g)^2 at equilibrium; with a
// density n(lambda) of intermediate points, sum d^2 sd^2 = int sd^2 / n,
// which for a given number of points int n is least when n is
// proportional to sd(g) (Lagrange): every step then adds the same
// variance, and the points are at equal thermodynamic length int sd(g)
// dlambda. The replica-exchange ladder is placed the same way, so that
// neighbours' energy distributions overlap equally (Delta beta sigma_E
// constant).

// pilotPoints and pilotRuns size the pilot: pilotRuns annealing runs over
// pilotPoints + 1 equally spaced lambdas, whose spread of g at each point
// estimates sd(g) there. It is fixed, so that a run of --steps S repeats
// exactly whatever the budget that chose S.
const (
	pilotPoints = 512
	pilotRuns   = 8
)

// uniformGrid is the n+1 points k/n.
func uniformGrid(n int) []float64 {
	g := make([]float64, n+1)
	for k := range g {
		g[k] = float64(k) / float64(n)
	}
	g[n] = 1
	return g
}

// profile is sd(g) at each grid point from the pilot's records g[r][k]
// (run r, point k), smoothed over a window of +-w points and floored at a
// tenth of the mean, so that no stretch of the path is left without
// points where the pilot happened to see little spread.
func profile(g [][]float64) []float64 {
	n := len(g[0])
	sd := make([]float64, n)
	col := make([]float64, len(g))
	for k := range n {
		for r := range g {
			col[r] = g[r][k]
		}
		_, s := meanSD(col)
		sd[k] = s * s
	}
	const w = 8
	out := make([]float64, n)
	mean := 0.0
	for k := range n {
		lo, hi := max(0, k-w), min(n-1, k+w)
		s := 0.0
		for j := lo; j <= hi; j++ {
			s += sd[j]
		}
		out[k] = math.Sqrt(s / float64(hi-lo+1))
		mean += out[k]
	}
	mean /= float64(n)
	if mean == 0 || math.IsNaN(mean) {
		mean = 1
	}
	for k := range out {
		if math.IsNaN(out[k]) {
			out[k] = mean
		}
		out[k] = math.Max(out[k], mean/10)
	}
	return out
}

// cumLength is the thermodynamic length from 0 to each grid point,
// int sd dlambda by the trapezoid rule.
func cumLength(grid, sd []float64) []float64 {
	cum := make([]float64, len(grid))
	for k := 1; k < len(grid); k++ {
		cum[k] = cum[k-1] + (grid[k]-grid[k-1])*(sd[k]+sd[k-1])/2
	}
	return cum
}

// equalLength is the n+1 points 0 = l_0 < ... < l_n = 1 at equal shares
// of the cumulative length cum over grid (linear between grid points).
func equalLength(grid, cum []float64, n int) []float64 {
	out := make([]float64, n+1)
	total := cum[len(cum)-1]
	k := 0
	for j := 1; j < n; j++ {
		l := total * float64(j) / float64(n)
		for k+2 < len(grid) && cum[k+1] < l {
			k++
		}
		f := 0.0
		if cum[k+1] > cum[k] {
			f = (l - cum[k]) / (cum[k+1] - cum[k])
		}
		out[j] = grid[k] + math.Min(1, math.Max(0, f))*(grid[k+1]-grid[k])
	}
	out[n] = 1
	for j := 1; j <= n; j++ { // rounding must not break the order
		if !(out[j] > out[j-1]) {
			return uniformGrid(n)
		}
	}
	return out
}
