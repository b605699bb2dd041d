//go:build inject

package replica_test

import (
	"fmt"
	"testing"

	"sardonics/replica"
)

// TestICMBrokenCaught: the checks of TestICMAgreesWithEnumeration catch a
// cluster that admits one q = +1 neighbour of the seed, and a seed drawn
// among all sites (a q = +1 seed flipped alone in both replicas), on every
// model at beta 1.5 (p below 1e-10).
func TestICMBrokenCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	if replica.RaceEnabled {
		t.Skip("statistics on one thread: the plain run checks them")
	}
	for _, kind := range []int{1, 2} {
		for i, ec := range icmEnumCases() {
			t.Run(fmt.Sprintf("rule%d/%s", kind, ec.name), func(t *testing.T) {
				defer replica.SetBrokenCluster(kind)()
				stat, df, p := icmCheck(t, ec, 1.5, uint64(20+i))
				t.Logf("chi-square %.1f on %d df, p = %.3g", stat, df, p)
				if !(p < 1e-10) {
					t.Errorf("broken rule %d not caught: chi-square %.1f on %d df, p = %.3g", kind, stat, df, p)
				}
			})
		}
	}
}

// TestICMTransitionMatrixBrokenCaught: TestICMTransitionMatrix's
// detailed-balance check catches each deliberately broken rule, which
// violates it by far more than its 1e-12.
func TestICMTransitionMatrixBrokenCaught(t *testing.T) {
	for _, h := range [][]float64{nil, ring6Fields} {
		m := tinyModel(t, 6, ring6Chords, h, 4)
		kinds := []int{1, 2}
		if h != nil {
			kinds = append(kinds, 3) // the q = +1 side despite the fields
		}
		for _, kind := range kinds {
			func() {
				defer replica.SetBrokenCluster(kind)()
				T := transitions(t, m, false)
				worst, _ := balance(m, 1.5, T)
				t.Logf("fields %v, broken rule %d: detailed balance violated by %.3g", h != nil, kind, worst)
				if worst < 0.5 {
					t.Errorf("fields %v: broken rule %d not caught (detailed balance within %.3g)", h != nil, kind, worst)
				}
			}()
		}
	}
}
