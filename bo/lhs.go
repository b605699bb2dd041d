package bo

import "math/rand/v2"

// LatinHypercube returns n points in [0,1]^dim such that, in every
// dimension, each of the n equal-width strata holds exactly one point,
// placed uniformly at random inside it (McKay, Beckman and Conover 1979).
func LatinHypercube(n, dim int, r *rand.PCG) [][]float64 {
	if n <= 0 || dim <= 0 {
		return nil
	}
	rr := rand.New(r)
	pts := make([][]float64, n)
	for i := range pts {
		pts[i] = make([]float64, dim)
	}
	perm := make([]int, n)
	for d := range dim {
		for i := range perm {
			perm[i] = i
		}
		rr.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for i, p := range pts {
			p[d] = (float64(perm[i]) + rr.Float64()) / float64(n)
		}
	}
	return pts
}
