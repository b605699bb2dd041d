package sparse

import (
	"fmt"
	"testing"

	"sardonics/saw"
)

// TestKernelExact builds the exact one-move transition matrix with each
// engine's probabilities for every weight, acceptance rule and layout, and
// checks detailed balance, stationarity and row sums (which fail if the
// engine's walk probabilities are not normalized).
func TestKernelExact(t *testing.T) {
	th := saw.Theta{KL: 1, KU: 3, GL: 0.4, GH: 1.6, PLL: 0.2, PHL: 0.6, PLH: 0.2, N: 1}
	th2 := th
	th2.KU, th2.N = 2, 2
	const tol = 1e-12
	for _, f := range factories {
		for _, w := range []saw.Weight{saw.Logistic, saw.Exp} {
			for _, a := range []saw.Accept{saw.Marginal, saw.Joint} {
				for _, l := range []saw.Layout{saw.Blocks, saw.Pairs} {
					opts := saw.Options{Layout: l, Weight: w, Accept: a}
					t.Run(fmt.Sprintf("%s/%v-%v-%v", f.name, w, a, l), func(t *testing.T) {
						for _, c := range []struct {
							M  int
							th saw.Theta
						}{{5, th}, {3, th2}} {
							m := randomGraph(t, c.M, 2*c.M, f.integer, 1, uint64(c.M))
							K, err := saw.Kernel(func(s []int8) saw.Engine { return f.make(t, m, validSpins(s)) }, c.M, 0.9, c.th, opts)
							if err != nil {
								t.Fatal(err)
							}
							pi := saw.Boltzmann(m, 0.9)
							db, st, rows := saw.CheckDetailedBalance(K, pi), saw.CheckStationary(K, pi), saw.CheckRows(K)
							if db > tol || st > tol || rows > tol {
								t.Errorf("M=%d: detailed balance %.3g, stationarity %.3g, row sums %.3g (expected <= %g)", c.M, db, st, rows, tol)
							}
						}
					})
				}
			}
		}
	}
}

// validSpins maps the zero placeholder state Kernel may pass to its engine
// factory (it sets every state with SetSpins) to all -1.
func validSpins(s []int8) []int8 {
	out := make([]int8, len(s))
	for i, v := range s {
		out[i] = -1
		if v == 1 {
			out[i] = 1
		}
	}
	return out
}
