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
							// The reverse walks are scored in place where the
							// engine can (counted), and, for the logistic
							// weight, also by replaying them.
							var cr *countRev
							variants := []func(s []int8) saw.Engine{func(s []int8) saw.Engine {
								eng := f.make(t, m, validSpins(s))
								if _, ok := eng.(saw.FastReverser); ok {
									cr = newCountRev(eng)
									return cr
								}
								return eng
							}}
							if w == saw.Logistic {
								variants = append(variants, func(s []int8) saw.Engine { return replayOnly{f.make(t, m, validSpins(s))} })
							}
							for vi, mk := range variants {
								K, err := saw.Kernel(mk, c.M, 0.9, c.th, opts)
								if err != nil {
									t.Fatal(err)
								}
								pi := saw.Boltzmann(m, 0.9)
								db, st, rows := saw.CheckDetailedBalance(K, pi), saw.CheckStationary(K, pi), saw.CheckRows(K)
								if db > tol || st > tol || rows > tol {
									t.Errorf("M=%d variant %d: detailed balance %.3g, stationarity %.3g, row sums %.3g (expected <= %g)", c.M, vi, db, st, rows, tol)
								}
								if vi == 0 && cr != nil {
									t.Logf("M=%d: fast reverse on %d of %d walks", c.M, cr.calls-cr.refused, cr.calls)
									if f.name != "tree-direct" && !(cr.refused*2 < cr.calls) {
										t.Errorf("M=%d: fast reverse refused %d of %d walks", c.M, cr.refused, cr.calls)
									}
								}
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
