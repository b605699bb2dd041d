package saw

import (
	"fmt"
	"testing"
)

// testTheta has very different biases and asymmetric type probabilities,
// so that any missing factor in the acceptance shows in the kernel.
var testTheta = Theta{KL: 1, KU: 3, GL: 0.4, GH: 1.6, PLL: 0.2, PHL: 0.6, PLH: 0.2, N: 1}

const kernelTol = 1e-12

// kernelErrors returns the detailed-balance, stationarity and row-sum
// violations of the exact kernel of the naive engine on m.
func kernelErrors(t *testing.T, M int, seed uint64, beta float64, th Theta, opts Options) (db, st, rows float64) {
	t.Helper()
	m := randomIsing(t, M, 1, seed)
	K, err := Kernel(naiveFor(m), M, beta, th, opts)
	if err != nil {
		t.Fatal(err)
	}
	pi := Boltzmann(m, beta)
	return CheckDetailedBalance(K, pi), CheckStationary(K, pi), CheckRows(K)
}

func allOptions() []Options {
	var out []Options
	for _, w := range []Weight{Logistic, Exp} {
		for _, a := range []Accept{Marginal, Joint} {
			for _, l := range []Layout{Blocks, Pairs} {
				out = append(out, Options{Layout: l, Weight: w, Accept: a})
			}
		}
	}
	return out
}

func optName(o Options) string { return fmt.Sprintf("%v-%v-%v", o.Weight, o.Accept, o.Layout) }

// TestKernelExact checks every combination of weight, rule and layout:
// the exact one-move kernel is reversible with respect to pi, leaves it
// invariant and is stochastic (which also checks that the engine's walk
// probabilities are normalized).
func TestKernelExact(t *testing.T) {
	n2 := testTheta
	n2.KU, n2.N = 2, 2
	for _, opts := range allOptions() {
		t.Run(optName(opts), func(t *testing.T) {
			for _, c := range []struct {
				M    int
				seed uint64
				th   Theta
			}{{4, 1, testTheta}, {3, 2, n2}} {
				db, st, rows := kernelErrors(t, c.M, c.seed, 0.9, c.th, opts)
				if db > kernelTol || st > kernelTol || rows > kernelTol {
					t.Errorf("M=%d %v: detailed balance %.3g, stationarity %.3g, row sums %.3g (expected all <= %g)",
						c.M, c.th, db, st, rows, kernelTol)
				}
			}
		})
	}
}

// TestKernelExactLarger runs larger cases: M=5 with walks up to 3 (default
// options), and N=2 on M=4 with both layouts.
func TestKernelExactLarger(t *testing.T) {
	n2 := testTheta
	n2.KL, n2.KU, n2.N = 2, 2, 2
	for _, c := range []struct {
		M    int
		th   Theta
		opts Options
	}{
		{5, testTheta, Options{}},
		{4, n2, Options{}},
		{4, n2, Options{Layout: Pairs, Accept: Joint, Weight: Exp}},
	} {
		db, st, rows := kernelErrors(t, c.M, 3, 1.1, c.th, c.opts)
		if db > kernelTol || st > kernelTol || rows > kernelTol {
			t.Errorf("%s M=%d %v: detailed balance %.3g, stationarity %.3g, row sums %.3g (expected all <= %g)",
				optName(c.opts), c.M, c.th, db, st, rows, kernelTol)
		}
	}
}

// TestKernelCatchesBrokenRule shows the check has teeth: the joint rule
// without P(reverse types)/P(types) is not reversible.
func TestKernelCatchesBrokenRule(t *testing.T) {
	for _, l := range []Layout{Blocks, Pairs} {
		db, st, _ := kernelErrors(t, 4, 1, 0.9, testTheta, Options{Layout: l, Accept: jointNoTypeRatio})
		if db < 1e-4 || st < 1e-4 {
			t.Errorf("%v: broken rule gives detailed balance %.3g, stationarity %.3g (expected both >= 1e-4)", l, db, st)
		}
		t.Logf("%v: broken rule: detailed balance %.3g, stationarity %.3g", l, db, st)
	}
}

func TestKernelRefusesLargeProblems(t *testing.T) {
	m := randomIsing(t, 12, 1, 1)
	if _, err := Kernel(naiveFor(m), 12, 1, Theta{KL: 1, KU: 6, GL: 1, GH: 1, PLL: 1, N: 2}, Options{}); err == nil {
		t.Error("Kernel accepted a 2^12 x 12^24-path problem (expected an error)")
	}
	if _, err := Kernel(naiveFor(m), 12, 1, Theta{}, Options{}); err == nil {
		t.Error("Kernel accepted the zero Theta (expected a validation error)")
	}
}
